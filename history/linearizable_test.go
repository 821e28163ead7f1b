package history

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCheckLinearizable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       History
		want    LinResult
		illegal int
		failure string // the smallest failing key
		dropped int    // all on the failing key, if any
	}{
		{name: "empty", h: hist(), want: LinOK},
		{
			name: "sequential writes and reads",
			h:    hist(w(1, "x", 1, 1, 0, 10), rd(2, "x", 1, 1, 20, 30), w(1, "x", 2, 2, 40, 50), rd(2, "x", 2, 2, 60, 70)),
			want: LinOK,
		},
		{
			name: "read of the initial value",
			h:    hist(rd(1, "x", 0, 0, 0, 10), w(2, "x", 1, 1, 20, 30)),
			want: LinOK,
		},
		{
			name:    "stale read after a later write was acknowledged",
			h:       hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), rd(2, "x", 1, 1, 40, 50)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name: "reads concurrent with a write see either value",
			h:    hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 40), rd(2, "x", 1, 1, 25, 35), rd(3, "x", 2, 2, 30, 45)),
			want: LinOK,
		},
		{
			name:    "new then old during a write",
			h:       hist(w(1, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 60), rd(2, "x", 2, 2, 21, 25), rd(3, "x", 1, 1, 30, 35)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name: "unknown write that applied",
			h:    hist(w(1, "x", 1, 1, 0, 10), unknown(w(1, "x", 2, 0, 20, 30)), rd(2, "x", 2, 2, 100, 110)),
			want: LinOK,
		},
		{
			name: "unknown write that never applied",
			h:    hist(w(1, "x", 1, 1, 0, 10), unknown(w(1, "x", 2, 0, 20, 30)), rd(2, "x", 1, 1, 100, 110), w(3, "x", 3, 2, 120, 130), rd(2, "x", 3, 2, 140, 150)),
			want: LinOK,
		},
		{
			name: "unknown write that applied after the client gave up",
			h:    hist(w(1, "x", 1, 1, 0, 10), unknown(w(1, "x", 2, 0, 20, 30)), rd(2, "x", 1, 1, 100, 110), rd(2, "x", 2, 2, 200, 210)),
			want: LinOK,
		},
		{
			name:    "unknown write is not a licence to go back",
			h:       hist(w(1, "x", 1, 1, 0, 10), unknown(w(1, "x", 2, 0, 20, 30)), rd(2, "x", 2, 2, 100, 110), rd(2, "x", 1, 1, 200, 210)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name: "unknown cas that may have applied",
			h:    hist(w(1, "x", 1, 1, 0, 10), unknown(cas(1, "x", 1, 5, 0, 20, 30)), rd(2, "x", 5, 2, 100, 110)),
			want: LinOK,
		},
		{
			name:    "unknown cas whose expected value did not match cannot apply",
			h:       hist(w(1, "x", 1, 1, 0, 10), unknown(cas(1, "x", 7, 5, 0, 20, 30)), rd(2, "x", 5, 2, 100, 110)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name: "cas that matched",
			h:    hist(w(1, "x", 1, 1, 0, 10), cas(1, "x", 1, 5, 2, 20, 30), rd(2, "x", 5, 2, 40, 50)),
			want: LinOK,
		},
		{
			name:    "cas that applied without matching",
			h:       hist(w(1, "x", 1, 1, 0, 10), cas(1, "x", 7, 5, 2, 20, 30)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name: "cas that returned false on another value",
			h:    hist(w(1, "x", 1, 1, 0, 10), failed(cas(1, "x", 0, 5, 0, 20, 30), ""), rd(2, "x", 1, 1, 40, 50)),
			want: LinOK,
		},
		{
			name:    "cas that returned false on its expected value",
			h:       hist(w(1, "x", 1, 1, 0, 10), failed(cas(1, "x", 1, 5, 0, 20, 30), ""), rd(2, "x", 1, 1, 40, 50)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name:    "cas that failed with an error before the server is dropped",
			h:       hist(w(1, "x", 1, 1, 0, 10), failed(cas(1, "x", 1, 5, 0, 20, 30), "connection refused"), rd(2, "x", 1, 1, 40, 50)),
			want:    LinOK,
			dropped: 1,
		},
		{
			name:    "unknown and failed reads are dropped",
			h:       hist(w(1, "x", 1, 1, 0, 10), unknown(rd(2, "x", 99, 9, 20, 30)), failed(rd(2, "x", 98, 9, 40, 50), "not primary")),
			want:    LinOK,
			dropped: 2,
		},
		{
			name:    "read of a value never written",
			h:       hist(w(1, "x", 1, 1, 0, 10), rd(2, "x", 77, 1, 20, 30)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
		},
		{
			name:    "read of a write that failed",
			h:       hist(failed(w(1, "x", 5, 0, 0, 10), "not primary"), rd(2, "x", 5, 1, 20, 30)),
			want:    LinIllegal,
			illegal: 1,
			failure: "x",
			dropped: 1,
		},
		{
			name: "the first of the smallest failing keys",
			h: hist(
				w(1, "a", 1, 1, 0, 10), w(1, "a", 2, 2, 20, 30), rd(2, "a", 1, 1, 40, 50), rd(2, "a", 2, 2, 60, 70),
				w(1, "b", 3, 1, 0, 10), w(1, "b", 4, 2, 20, 30), rd(2, "b", 3, 1, 40, 50),
				w(1, "c", 5, 1, 0, 10), rd(2, "c", 5, 1, 20, 30),
				w(1, "d", 6, 1, 0, 10), w(1, "d", 7, 2, 20, 30), rd(2, "d", 6, 1, 40, 50),
			),
			want:    LinIllegal,
			illegal: 3,
			failure: "b",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := CheckLinearizable(tc.h, 10*time.Second)
			if rep.Result != tc.want {
				t.Errorf("result %s, want %s; keys %+v", rep.Result, tc.want, rep.Keys)
			}
			if rep.Illegal != tc.illegal || rep.Unknown != 0 {
				t.Errorf("%d illegal and %d unknown keys, want %d and 0", rep.Illegal, rep.Unknown, tc.illegal)
			}
			if rep.Dropped != tc.dropped || rep.Checked+rep.Dropped != len(tc.h.Ops) || rep.Ops != len(tc.h.Ops) {
				t.Errorf("ops %d = checked %d + dropped %d, want %d dropped of %d", rep.Ops, rep.Checked, rep.Dropped, tc.dropped, len(tc.h.Ops))
			}
			switch {
			case tc.failure == "" && rep.Failure != nil:
				t.Errorf("failure %+v, want none", rep.Failure)
			case tc.failure != "" && (rep.Failure == nil || rep.Failure.Key != tc.failure):
				t.Errorf("failure %+v, want key %s", rep.Failure, tc.failure)
			case tc.failure != "":
				n := -tc.dropped
				for _, op := range tc.h.Ops {
					if op.Key == tc.failure {
						n++
					}
				}
				if len(rep.Failure.Ops) != n || rep.Failure.Linearized >= n {
					t.Errorf("failure of %d ops, %d linearized; want the key's %d ops, fewer linearized", len(rep.Failure.Ops), rep.Failure.Linearized, n)
				}
			}
			for _, k := range rep.Keys {
				if (k.Result == LinOK) != (k.Linearized == k.Ops) {
					t.Errorf("key %s: %s with %d of %d ops linearized", k.Key, k.Result, k.Linearized, k.Ops)
				}
			}
		})
	}
}

// The failing key's ops come back in invoke order, whatever the recording
// order, and the report is JSON with the failure in it.
func TestLinFailureOpsInInvokeOrder(t *testing.T) {
	h := hist(rd(2, "x", 1, 1, 40, 50), w(1, "x", 2, 2, 20, 30), w(1, "x", 1, 1, 0, 10))
	rep := CheckLinearizable(h, 0)
	if rep.Failure == nil {
		t.Fatal("no failure")
	}
	for i, want := range []int64{0, 20 * ms, 40 * ms} {
		if got := rep.Failure.Ops[i].Invoke; got != want {
			t.Errorf("failure op %d invoked at %d, want %d", i, got, want)
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"failure":{"key":"x"`)) || !bytes.Contains(b, []byte(`"result":"illegal"`)) {
		t.Errorf("report JSON lacks the failure: %s", b)
	}
}

// Linearized is the longest partial linearization. Here two: cas 0->2 then
// 2->1 (2 ops), and cas 0->1 alone (1 op: both it and 0->2 claim the initial
// 0). Porcupine lists them in map order, so the check is repeated.
func TestLinearizedIsTheLongest(t *testing.T) {
	h := hist(cas(1, "x", 0, 1, 1, 2, 4), cas(2, "x", 0, 2, 1, 1, 6), cas(3, "x", 2, 1, 2, 3, 7))
	for range 20 {
		rep := CheckLinearizable(h, 0)
		if rep.Result != LinIllegal || rep.Keys[0].Linearized != 2 || rep.Failure == nil || rep.Failure.Linearized != 2 {
			t.Fatalf("result %s, keys %+v, failure %+v; want illegal with 2 of 3 ops linearized", rep.Result, rep.Keys, rep.Failure)
		}
	}
}

// Porcupine's client ids (the visualisation's rows) are the clients in order.
func TestDenseClients(t *testing.T) {
	got := denseClients([]Op{{Client: 7}, {Client: 3}, {Client: 7}, {Client: -2}, {Client: 5}})
	if want := map[int]int{-2: 0, 3: 1, 5: 2, 7: 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("dense ids %v, want %v", got, want)
	}
}

func TestWriteVisualization(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    History
	}{
		{"illegal", hist(w(1, "acct-42", 1, 1, 0, 10), w(1, "acct-42", 2, 2, 20, 30), rd(2, "acct-42", 1, 1, 40, 50), w(1, "bystander-key", 3, 1, 0, 10))},
		{"ok", hist(w(1, "acct-42", 1, 1, 0, 10), unknown(w(1, "acct-42", 2, 0, 20, 30)), rd(2, "acct-42", 2, 2, 40, 50))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := CheckLinearizable(tc.h, time.Second).WriteVisualization(&buf); err != nil {
				t.Fatal(err)
			}
			html := buf.String()
			if !strings.Contains(html, "<html") || !strings.Contains(html, "acct-42") {
				t.Errorf("visualisation of %d bytes lacks <html or the key", len(html))
			}
			if tc.name == "illegal" && strings.Contains(html, "bystander-key") {
				t.Error("the visualisation of a failure shows a key that did not fail")
			}
		})
	}
}

func TestWriteVisualizationNeedsTheCheck(t *testing.T) {
	b, _ := json.Marshal(CheckLinearizable(hist(w(1, "x", 1, 1, 0, 10), rd(2, "x", 2, 2, 20, 30)), 0))
	var decoded LinReport
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	if err := decoded.WriteVisualization(&bytes.Buffer{}); err == nil {
		t.Error("a report decoded from JSON drew a visualisation of nothing")
	}
}

func BenchmarkCheckLinearizable20k(b *testing.B) {
	h := generate(genConfig{ops: 20000, keys: 8, clients: 16, seed: 1, unknown: 0.002})
	for b.Loop() {
		if rep := CheckLinearizable(h, time.Minute); rep.Result != LinOK {
			b.Fatalf("result %s: %+v", rep.Result, rep.Keys)
		}
	}
}
