package history

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCheckSessions(t *testing.T) {
	// counts: read your writes, monotonic reads, monotonic writes, writes follow reads
	type counts [4]int
	for _, tc := range []struct {
		name string
		h    History
		want counts
		// the pair of the one violation, as (earlier, later) invoke ms
		earlier, later int64
	}{
		{
			name: "clean",
			h: hist(
				w(1, "x", 1, 1, 0, 10), rd(1, "x", 1, 1, 20, 30), // reads its own write
				w(2, "x", 2, 2, 40, 50), rd(1, "x", 2, 2, 60, 70), // then another's
				w(1, "x", 3, 3, 80, 90), rd(1, "x", 3, 3, 100, 110), // a write after the read, then a read
			),
		},
		{
			name:    "read your writes",
			h:       hist(w(2, "x", 1, 1, 0, 10), w(1, "x", 2, 2, 20, 30), rd(1, "x", 1, 1, 40, 50)),
			want:    counts{1, 0, 0, 0},
			earlier: 20, later: 40,
		},
		{
			name:    "monotonic reads",
			h:       hist(w(2, "x", 1, 1, 0, 10), w(2, "x", 2, 2, 20, 30), rd(1, "x", 2, 2, 40, 50), rd(1, "x", 1, 1, 60, 70)),
			want:    counts{0, 1, 0, 0},
			earlier: 40, later: 60,
		},
		{
			// A w:1 write got version 3 and was rolled back; the client's
			// next write got version 2.
			name:    "monotonic writes",
			h:       hist(w(2, "x", 1, 1, 0, 10), w(1, "x", 2, 3, 20, 30), w(1, "x", 3, 2, 40, 50)),
			want:    counts{0, 0, 1, 0},
			earlier: 20, later: 40,
		},
		{
			name:    "writes follow reads",
			h:       hist(w(2, "x", 1, 1, 0, 10), w(2, "x", 2, 2, 20, 30), rd(1, "x", 2, 2, 40, 50), w(1, "x", 3, 2, 60, 70)),
			want:    counts{0, 0, 0, 1},
			earlier: 40, later: 60,
		},
		{
			name: "a read below the highest read so far, not just the last",
			h:    hist(w(2, "x", 1, 1, 0, 10), w(2, "x", 2, 2, 20, 30), w(2, "x", 3, 3, 30, 35), rd(1, "x", 3, 3, 40, 50), rd(1, "x", 1, 1, 60, 70), rd(1, "x", 2, 2, 80, 90)),
			want: counts{0, 2, 0, 0},
		},
		{
			// Version 3 written, then version 2 (monotonic writes broken):
			// the read of 2 is still below the highest write.
			name: "a read below the highest write so far, not just the last",
			h:    hist(w(1, "x", 1, 3, 0, 10), w(1, "x", 2, 2, 20, 30), rd(1, "x", 2, 2, 40, 50)),
			want: counts{1, 0, 1, 0},
		},
		{
			name: "the order of the recording does not matter",
			h:    hist(rd(1, "x", 1, 1, 40, 50), w(1, "x", 2, 2, 20, 30), w(2, "x", 1, 1, 0, 10)),
			want: counts{1, 0, 0, 0},
		},
		{
			name: "sessions are per key and per client",
			h:    hist(w(1, "x", 5, 5, 0, 10), rd(1, "y", 1, 1, 20, 30), rd(2, "x", 1, 1, 40, 50), w(1, "y", 2, 2, 60, 70)),
		},
		{
			name: "ops that did not return ok are not checked",
			h: hist(w(2, "x", 1, 1, 0, 10),
				unknown(w(1, "x", 2, 0, 20, 30)), failed(rd(1, "x", 9, 9, 40, 50), "not primary"), rd(1, "x", 1, 1, 60, 70),
				failed(cas(1, "x", 7, 3, 0, 80, 90), ""), unknown(rd(1, "x", 0, 0, 100, 110)), rd(1, "x", 1, 1, 120, 130)),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := CheckSessions(tc.h)
			got := counts{rep.ReadYourWrites.Violations, rep.MonotonicReads.Violations, rep.MonotonicWrites.Violations, rep.WritesFollowReads.Violations}
			if got != tc.want {
				t.Fatalf("violations %v, want %v", got, tc.want)
			}
			total := 0
			for i, g := range []Guarantee{ReadYourWrites, MonotonicReads, MonotonicWrites, WritesFollowReads} {
				gr := rep.Guarantee(g)
				total += gr.Violations
				if len(gr.Examples) != min(got[i], maxExamples) {
					t.Errorf("%s: %d examples for %d violations", g, len(gr.Examples), gr.Violations)
				}
				for _, ex := range gr.Examples {
					if ex.Guarantee != g || ex.Earlier.Client != ex.Client || ex.Later.Client != ex.Client || ex.Earlier.Key != ex.Key || ex.Later.Key != ex.Key {
						t.Errorf("%s example %+v mixes sessions", g, ex)
					}
					if total == 1 && tc.later != 0 && (ex.Earlier.Invoke != tc.earlier*ms || ex.Later.Invoke != tc.later*ms) {
						t.Errorf("%s example pairs ops at %d and %d ms, want %d and %d", g, ex.Earlier.Invoke/ms, ex.Later.Invoke/ms, tc.earlier, tc.later)
					}
				}
			}
			if rep.Violations != total {
				t.Errorf("total %d, the guarantees sum to %d", rep.Violations, total)
			}
		})
	}
}

// Checked counts the ops each guarantee constrained, and the report's JSON
// names the guarantees.
func TestSessionsChecked(t *testing.T) {
	// Client 1: write, read, read, write: read your writes constrains the two
	// reads, monotonic reads the second, monotonic writes and writes follow
	// reads the last write.
	h := hist(w(1, "x", 1, 1, 0, 10), rd(1, "x", 1, 1, 20, 30), rd(1, "x", 1, 1, 40, 50), w(1, "x", 2, 2, 60, 70))
	rep := CheckSessions(h)
	got := [4]int{rep.ReadYourWrites.Checked, rep.MonotonicReads.Checked, rep.MonotonicWrites.Checked, rep.WritesFollowReads.Checked}
	if got != [4]int{2, 1, 1, 1} {
		t.Errorf("checked %v, want [2 1 1 1]", got)
	}
	b, _ := json.Marshal(rep)
	for _, name := range []string{"read_your_writes", "monotonic_reads", "monotonic_writes", "writes_follow_reads"} {
		if !strings.Contains(string(b), `"`+name+`"`) {
			t.Errorf("JSON lacks %s: %s", name, b)
		}
	}
	if rep.Guarantee("causal") != nil {
		t.Error("an unknown guarantee has a report")
	}
}

func TestSessionExamplesCapped(t *testing.T) {
	ops := []Op{w(2, "x", 1, 1, 0, 10), w(2, "x", 2, 2, 20, 30), rd(1, "x", 2, 2, 40, 50)}
	for i := range int64(8) {
		ops = append(ops, rd(1, "x", 1, 1, 60+20*i, 70+20*i))
	}
	rep := CheckSessions(hist(ops...))
	if rep.MonotonicReads.Violations != 8 || len(rep.MonotonicReads.Examples) != maxExamples {
		t.Fatalf("%d violations, %d examples; want 8 and %d", rep.MonotonicReads.Violations, len(rep.MonotonicReads.Examples), maxExamples)
	}
	if first := rep.MonotonicReads.Examples[0].Later.Invoke; first != 60*ms {
		t.Errorf("first example at %d ms, want the earliest violation at 60", first/ms)
	}
}

// Examples come in the order the violations happened, across clients and
// keys, whatever order the sessions were recorded in.
func TestSessionExamplesInTimeOrder(t *testing.T) {
	h := hist(
		w(9, "x", 1, 1, 0, 10), w(9, "x", 2, 2, 20, 30), w(9, "y", 3, 1, 0, 10), w(9, "y", 4, 2, 20, 30),
		rd(1, "y", 4, 2, 40, 50), rd(1, "y", 3, 1, 300, 310), // client 1 goes back at 300 ms
		rd(2, "x", 2, 2, 40, 50), rd(2, "x", 1, 1, 100, 110), // client 2 at 100
		rd(1, "x", 2, 2, 40, 50), rd(1, "x", 1, 1, 200, 210), // client 1 on x at 200
	)
	rep := CheckSessions(h)
	var got []int64
	for _, v := range rep.MonotonicReads.Examples {
		got = append(got, v.Later.Invoke/ms)
	}
	if !slices.Equal(got, []int64{100, 200, 300}) {
		t.Errorf("monotonic reads examples at %v ms, want 100, 200, 300", got)
	}
}
