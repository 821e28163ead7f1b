package proxysoak

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/workload/sprobe"
)

// passing is a result that meets every target.
func passing() *Result {
	g := 1.0
	return &Result{Version: FormatVersion,
		Overall:       Phase{Name: "overall", P99MS: 100},
		Writes:        Writes{Acked: 10},
		Transactions:  Transactions{Committed: 5},
		Reads:         Reads{BoundMS: 2000, Probes: 100},
		ChangeStream:  ChangeStream{Expected: 10, Seen: 10},
		Proxy:         ProxyUsage{PeakRSSMB: 120, HeapQ1MB: 10, HeapQ4MB: 10.1, HeapGrowthPct: &g},
		BaselineP99MS: 80,
	}
}

// TestJudge: each target fails the run when, and only when, it is missed.
func TestJudge(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	tests := []struct {
		name   string
		plant  func(r *Result)
		failed string // the target that must fail; "" none
	}{
		{"all met", func(*Result) {}, ""},
		{"a write lost", func(r *Result) { r.Writes.Lost = 1 }, "acknowledged w:majority writes lost"},
		{"a commit lost", func(r *Result) { r.Transactions.CommitLost = 1 }, "acknowledged w:majority writes lost"},
		{"a transaction applied twice", func(r *Result) { r.Transactions.Twice = 1 }, "transactions applied twice"},
		{"a stale read", func(r *Result) { r.Reads.BeyondBound = 1 }, "reads beyond the staleness bound"},
		{"a missed event", func(r *Result) { r.ChangeStream.Missed = 1 }, "change stream saw every acknowledged insert"},
		{"RSS over", func(r *Result) { r.Proxy.PeakRSSMB = MaxRSSMB + 1 }, "proxy RSS"},
		{"RSS at the limit", func(r *Result) { r.Proxy.PeakRSSMB = MaxRSSMB }, ""},
		{"heap grew", func(r *Result) { r.Proxy.HeapQ4MB, r.Proxy.HeapGrowthPct = 20, pct(100) }, "proxy live heap flat"},
		{"heap grew little", func(r *Result) { r.Proxy.HeapQ4MB, r.Proxy.HeapGrowthPct = 13, pct(30) }, ""},
		{"P99 over twice", func(r *Result) { r.Overall.P99MS = 161 }, "authenticated P99 vs the --no-hostile run"},
		{"P99 twice", func(r *Result) { r.Overall.P99MS = 160 }, ""},
		{"no baseline", func(r *Result) { r.BaselineP99MS, r.Overall.P99MS = 0, 1e6 }, ""},
		{"proxy died", func(r *Result) { r.ProxyExited = "signal: killed" }, "proxy up to the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := passing()
			tt.plant(r)
			Judge(r)
			if r.Pass != (tt.failed == "") {
				t.Errorf("Pass = %v, want %v; verdicts %+v", r.Pass, tt.failed == "", r.Verdicts)
			}
			for _, v := range r.Verdicts {
				failed := v.Pass != nil && !*v.Pass
				if failed != (v.Target == tt.failed) {
					t.Errorf("%s: failed %v, want %v (got %s)", v.Target, failed, v.Target == tt.failed, v.Got)
				}
			}
		})
	}
}

// TestJudgeCounters: a counter above 1 is a transaction applied twice; an
// acknowledged commit whose counter is 0 or missing a lost one; a failed
// commit that was applied only unknown.
func TestJudgeCounters(t *testing.T) {
	n := map[string]int64{"a": 1, "b": 2, "c": 0, "d": 1, "e": 0}
	committed := map[string]bool{"a": true, "b": true, "c": true, "missing": true}
	got := judgeCounters(n, committed)
	want := Transactions{Attempted: 5, Committed: 4, Twice: 1, TwiceIDs: []string{"b"}, CommitLost: 2, Unknown: 1}
	if got.Attempted != want.Attempted || got.Committed != want.Committed || got.Twice != want.Twice ||
		got.CommitLost != want.CommitLost || got.Unknown != want.Unknown || strings.Join(got.TwiceIDs, ",") != "b" {
		t.Errorf("judgeCounters = %+v, want %+v", got, want)
	}
}

// TestJudgeProbes: only secondary reads staler than the bound count.
func TestJudgeProbes(t *testing.T) {
	s := []sprobe.Sample{
		{Secondary: true, Staleness: 2 * time.Second},
		{Secondary: true, Staleness: 2*time.Second + time.Millisecond},
		{Secondary: false, Staleness: 5 * time.Second},
	}
	rd := judgeProbes(s, 2*time.Second)
	if rd.Probes != 3 || rd.BeyondBound != 1 || rd.MaxStaleMS != 5000 {
		t.Errorf("judgeProbes = %+v, want 3 probes, 1 beyond, max 5000ms", rd)
	}
}

// TestRecorderPhases: an operation counts in the phase it started in;
// errors by kind; acknowledged ids by operation.
func TestRecorderPhases(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rec := newRecorder(t0, []time.Duration{0, 10 * time.Second, 20 * time.Second})
	rec.add(t0.Add(time.Second), 5*time.Millisecond, "insert", "", "i1")
	rec.add(t0.Add(10*time.Second), 7*time.Millisecond, "txn", "", "t1")
	rec.add(t0.Add(19*time.Second), 9*time.Millisecond, "read", "network", "")
	rec.add(t0.Add(25*time.Second), 11*time.Millisecond, "insert", "pymongo AutoReconnect", "")
	ph, all := rec.phases([]string{"a", "b", "c"}, 30*time.Second)
	if len(ph) != 3 || ph[0].Ops != 1 || ph[1].Ops != 2 || ph[1].Errors != 1 || ph[2].Ops != 1 || ph[2].ToS != 30 {
		t.Errorf("phases = %+v", ph)
	}
	if all.Ops != 4 || all.Errors != 2 || all.MaxMS != 11 {
		t.Errorf("overall = %+v", all)
	}
	if !rec.acked["i1"] || !rec.committed["t1"] || len(rec.acked) != 1 || rec.kinds["read: network"] != 1 || rec.kinds["insert: pymongo AutoReconnect"] != 1 {
		t.Errorf("acked %v committed %v kinds %v", rec.acked, rec.committed, rec.kinds)
	}
}

func TestHeapGrowth(t *testing.T) {
	var s []Sample
	for i := range 8 {
		// The floor grows from 10 to 20 under spikes of 80; unread samples are skipped.
		s = append(s, Sample{HeapMB: float64(10 + i/4*10)}, Sample{HeapMB: 0}, Sample{HeapMB: 80})
	}
	q1, q4, pct := heapGrowth(s)
	if q1 != 10 || q4 != 20 || pct == nil || *pct != 100 {
		t.Errorf("heapGrowth = %v, %v, %v; want 10, 20, 100%%", q1, q4, pct)
	}
	if _, _, pct := heapGrowth(s[:9]); pct != nil {
		t.Errorf("heapGrowth of 6 samples = %v, want nil", *pct)
	}
}

// TestResultRoundTrip: a results file reads back, and a table names every
// target's verdict.
func TestResultRoundTrip(t *testing.T) {
	r := passing()
	r.Transactions.Twice = 2
	Judge(r)
	path := filepath.Join(t.TempDir(), "soak.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Pass || back.Transactions.Twice != 2 || back.Overall.P99MS != 100 {
		t.Errorf("read back %+v", back)
	}
	var b bytes.Buffer
	if err := back.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"transactions applied twice", "2 of 5 committed", "FAIL"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Options{ProxyCommand: []string{"x", "proxy"}, Duration: time.Minute}
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	bad := []Options{
		{Duration: time.Minute},
		{ProxyCommand: []string{"x"}, Duration: time.Second},
		{ProxyCommand: []string{"x"}, Duration: time.Minute, Connections: 1},
		{ProxyCommand: []string{"x"}, Duration: time.Minute, PythonShare: 2},
		{ProxyCommand: []string{"x"}, Duration: time.Minute, Bound: time.Millisecond},
		{ProxyCommand: []string{"x"}, Duration: time.Minute, Schedule: StepDownSchedule(2 * time.Hour)},
	}
	for i, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("%d: Validate accepted %+v", i, o)
		}
	}
}

// TestCheckBaseline: a baseline must be a run without hostile connections
// of the same shape; any difference in the load or the fault plan is named.
func TestCheckBaseline(t *testing.T) {
	o := Options{ProxyCommand: []string{"x"}, Duration: 5 * time.Minute, Connections: 200}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	base := &Result{Version: FormatVersion, Settings: o.shape()}
	if err := o.CheckBaseline(base); err != nil {
		t.Fatalf("a baseline of the same shape: %v", err)
	}
	for _, tt := range []struct {
		change func(o *Options)
		want   string
	}{
		{func(o *Options) { o.Connections = 1000 }, "connections"},
		{func(o *Options) { o.Duration = time.Hour; o.Schedule = nil }, "duration"},
		{func(o *Options) { o.Schedule = StepDownSchedule(o.Duration) }, "faults"},
		{func(o *Options) { o.OpInterval = time.Second }, "op_interval"},
		{func(o *Options) { o.Bound = 5 * time.Second }, "bound"},
	} {
		other := Options{ProxyCommand: []string{"x"}, Duration: 5 * time.Minute, Connections: 200}
		tt.change(&other)
		if err := other.CheckBaseline(base); err == nil || !strings.Contains(err.Error(), "baseline's "+tt.want) {
			t.Errorf("a baseline differing in %s: error %v", tt.want, err)
		}
	}
	hostile := &Result{Version: FormatVersion, Settings: o.shape(), Hostile: &HostileStats{}}
	if err := o.CheckBaseline(hostile); err == nil {
		t.Error("a run with hostile connections taken as a baseline")
	}
}
