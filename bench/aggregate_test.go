package bench

import (
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/sprobe"
)

func TestSummariseExcludesWarmup(t *testing.T) {
	ps := []results.Period{
		{TS: 10, ReadOps: 100, ServedBy: map[string]int64{"p": 100}, SecondaryPct: 0, MaxLagMS: 900},
		{TS: 20, ReadOps: 300, ServedBy: map[string]int64{"p": 100, "s": 200}, SecondaryPct: 200.0 / 3, MaxLagMS: 5},
		{TS: 25, ReadOps: 100, ServedBy: map[string]int64{"s": 100}, SecondaryPct: 100, MaxLagMS: 7},
	}
	st := newRunState(10 * time.Second)
	// The warm-up's reads took 900 ms, the others 1 and 2 ms; the
	// warm-up's probe was 5 s stale, the others 1 and 3 s.
	st.add(0, snapOf(900*time.Millisecond), []sprobe.Sample{{Staleness: 5 * time.Second}}, 0)
	st.add(10*time.Second, snapOf(time.Millisecond, time.Millisecond, time.Millisecond), []sprobe.Sample{{Staleness: time.Second}}, 0)
	st.add(20*time.Second, snapOf(2*time.Millisecond), []sprobe.Sample{{Staleness: 3 * time.Second}}, 0)
	s := summarise(ps, &st)
	if s.ReadOps != 400 || s.MeasuredS != 15 {
		t.Fatalf("summary %+v: want 400 reads over 15 s", s)
	}
	if s.ReadTput < 26.66 || s.ReadTput > 26.67 {
		t.Errorf("read tput %v, want 26.667", s.ReadTput)
	}
	if s.SecondaryPct != 75 {
		t.Errorf("secondary pct %v, want 75 (300 of 400 counted reads)", s.SecondaryPct)
	}
	if s.MaxLagMS != 7 {
		t.Errorf("max lag %v includes the warm-up", s.MaxLagMS)
	}
	// 1, 1, 1, 2 ms: the P80 is the 4th, 2 ms, within its bucket's 3 %.
	if s.ReadP80MS < 1.9 || s.ReadP80MS > 2.07 || s.ReadP99MS != s.ReadP80MS {
		t.Errorf("read p80 %v ms, p99 %v ms; want both 2 ms (the warm-up's 900 ms left out)", s.ReadP80MS, s.ReadP99MS)
	}
	if s.Probes != 2 || s.StalenessP80MS != 3000 || s.StalenessMaxMS != 3000 {
		t.Errorf("probes %d, staleness p80 %v ms, max %v ms; want 2, 3000, 3000 (the warm-up's left out)", s.Probes, s.StalenessP80MS, s.StalenessMaxMS)
	}
}

// tailSample is 1000 reads: 985 of 1 ms, 10 of 2^22 ns (4.194304 ms), 4 of
// 2^25 ns (33.554432 ms) and one of 200 ms. Nearest rank: the P99 is the
// 990th (2^22 ns), the P99.9 the 999th (2^25 ns), each reported as its
// bucket's upper bound (a bucket is 1/32 of its power of two): 2^22+2^17-1
// ns = 4.325 ms and 2^25+2^20-1 ns = 34.603 ms; the P50 and P80 are 1 ms's
// bucket, [999424, 1015807] ns: 1.016 ms.
func tailSample() *metrics.Snapshot {
	var ds []time.Duration
	for range 985 {
		ds = append(ds, time.Millisecond)
	}
	for range 10 {
		ds = append(ds, 1<<22)
	}
	for range 4 {
		ds = append(ds, 1<<25)
	}
	return snapOf(append(ds, 200*time.Millisecond)...)
}

func TestReadLatencyQuantiles(t *testing.T) {
	var per results.Period
	readLatencies(&per, tailSample())
	want := results.Period{ReadP50MS: 1.016, ReadP80MS: 1.016, ReadP99MS: 4.325, ReadP999MS: 34.603}
	if !reflect.DeepEqual(per, want) {
		t.Errorf("period latencies P50 %v, P80 %v, P99 %v, P99.9 %v ms; want 1.016, 1.016, 4.325, 34.603",
			per.ReadP50MS, per.ReadP80MS, per.ReadP99MS, per.ReadP999MS)
	}
	// The summary's, over the periods after the warm-up: the warm-up's
	// 900 ms read is left out.
	st := newRunState(10 * time.Second)
	st.add(0, snapOf(900*time.Millisecond), nil, 0)
	st.add(10*time.Second, tailSample(), nil, 0)
	st.add(20*time.Second, emptySnap(), nil, 0)
	s := summarise([]results.Period{{TS: 10}, {TS: 20}, {TS: 30}}, &st)
	if s.ReadP99MS != 4.325 || s.ReadP999MS != 34.603 {
		t.Errorf("summary P99 %v, P99.9 %v ms; want 4.325, 34.603", s.ReadP99MS, s.ReadP999MS)
	}
}

func emptySnap() *metrics.Snapshot { return metrics.NewHistogram().Snapshot() }

// snapOf returns a snapshot of the durations ds.
func snapOf(ds ...time.Duration) *metrics.Snapshot {
	h := metrics.NewHistogram()
	for _, d := range ds {
		h.Record(d)
	}
	return h.Snapshot()
}

func TestViolation(t *testing.T) {
	tests := []struct {
		s    sprobe.Sample
		b    balancer.Bound
		want bool
	}{
		{sprobe.Sample{Staleness: 3 * time.Second, Secondary: true}, balancer.Bound{Max: 2 * time.Second}, true},
		{sprobe.Sample{Staleness: 2 * time.Second, Secondary: true}, balancer.Bound{Max: 2 * time.Second}, false},
		{sprobe.Sample{Staleness: 3 * time.Second, Secondary: false}, balancer.Bound{Max: 2 * time.Second}, false},
		{sprobe.Sample{Staleness: 0, Secondary: true}, balancer.Bound{}, false},
		{sprobe.Sample{Staleness: time.Millisecond, Secondary: true}, balancer.Bound{}, true},
		{sprobe.Sample{Staleness: time.Hour, Secondary: true}, balancer.Bound{Unbounded: true}, false},
	}
	for i, tt := range tests {
		if got := violates(tt.s, tt.b); got != tt.want {
			t.Errorf("case %d: violates(%+v, %v) = %v", i, tt.s, tt.b, got)
		}
	}
}

func TestMinutesMergePeriodsPerMinute(t *testing.T) {
	ps := []results.Period{
		{TS: 30, ReadOps: 300, ServedBy: map[string]int64{"p": 300}, Ops: map[string]int64{"READ": 300}},
		{TS: 60, ReadOps: 600, ServedBy: map[string]int64{"s": 600}, SecondaryPct: 100, Ops: map[string]int64{"READ": 600}},
		{TS: 75, ReadOps: 150, ServedBy: map[string]int64{"s": 150}, SecondaryPct: 100},
	}
	st := newRunState(0)
	st.add(0, snapOf(time.Millisecond, time.Millisecond), nil, 0)
	st.add(30*time.Second, snapOf(time.Millisecond, 4*time.Millisecond, 4*time.Millisecond), nil, 0)
	st.add(60*time.Second, snapOf(8*time.Millisecond), nil, 0)
	m := minutes(ps, &st)
	if len(m) != 2 {
		t.Fatalf("%d minutes, want 2", len(m))
	}
	if m[0].ReadOps != 900 || m[0].LengthS != 60 || m[0].ReadTput != 15 || m[0].Ops["READ"] != 900 {
		t.Errorf("first minute %+v", m[0])
	}
	if m[0].SecondaryPct < 66.66 || m[0].SecondaryPct > 66.67 {
		t.Errorf("first minute secondary %v, want 66.667 (600 of 900 counted)", m[0].SecondaryPct)
	}
	if m[1].TS != 75 || m[1].LengthS != 15 || m[1].ReadTput != 10 || m[1].SecondaryPct != 100 {
		t.Errorf("second minute %+v", m[1])
	}
	// First minute 1, 1, 1, 4, 4 ms: the P80 is the 4th, 4 ms; the second
	// minute's is its only read, 8 ms (each within its bucket's 3 %).
	if m[0].ReadP80MS < 3.8 || m[0].ReadP80MS > 4.13 || m[1].ReadP80MS < 7.7 || m[1].ReadP80MS > 8.25 {
		t.Errorf("minutes' read p80 %v and %v ms, want 4 and 8", m[0].ReadP80MS, m[1].ReadP80MS)
	}
}

// TestRunStateStaysSmall: what a run keeps beside its periods for the
// summary and the minutes must not grow by a read histogram (9.5 KB) per
// period: after an hour of 10 s periods with 10 probes each, the live heap
// the state holds stays under 256 KB (per-period histograms held 3.4 MB;
// the starts and the probes' staleness take about 35 KB).
func TestRunStateStaysSmall(t *testing.T) {
	const periods = 360
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	st := newRunState(time.Minute)
	for i := range periods {
		probes := make([]sprobe.Sample, 10)
		for j := range probes {
			probes[j] = sprobe.Sample{Staleness: time.Duration(j) * time.Millisecond, Host: "n2"}
		}
		st.add(time.Duration(i)*10*time.Second, snapOf(time.Duration(i+1)*time.Millisecond), probes, 0)
	}
	after := heap()
	if grew := int64(after) - int64(before); grew > 256<<10 {
		t.Errorf("the state of %d periods holds %d KB, want under 256 KB", periods, grew>>10)
	}
	// What it folded in is all there: 354 measured periods, one read of 7
	// to 360 ms each; 60 minutes.
	if st.read.Count() != periods-6 || st.probes != 10*(periods-6) || len(st.staleness) != 10*(periods-6) {
		t.Errorf("measured %d reads and %d probes (%d staleness values), want %d and %d",
			st.read.Count(), st.probes, len(st.staleness), periods-6, 10*(periods-6))
	}
	if len(st.minuteP80MS) != 59 || st.minuteP80(59) < 355 || st.minuteP80(59) > 371 {
		t.Errorf("%d minutes closed, the last one's P80 %v ms; want 59 and 359 ms", len(st.minuteP80MS), st.minuteP80(59))
	}
}

// TestSummariseErrorsAndSoak: the summary splits the errors by class and
// judges the runtime figures of the periods after the warm-up; periods
// without them (results written before) get no verdict.
func TestSummariseErrorsAndSoak(t *testing.T) {
	var ps []results.Period
	st := newRunState(2 * time.Minute) // minute-long periods: 8 minutes measured, enough for a verdict
	for i := range 10 {
		heap := 50.0
		if i < 2 {
			heap = 500 // the warm-up's heap does not count
		}
		ps = append(ps, results.Period{TS: float64(60 * (i + 1)), ReadErrors: 1, WriteErrors: 2, HeapMB: 2 * heap,
			HeapLiveMB: heap, Goroutines: 100 + i})
		st.add(time.Duration(i)*time.Minute, emptySnap(), nil, 0)
	}
	s := summarise(ps, &st)
	if s.ReadErrors != 8 || s.WriteErrors != 16 || s.Errors != 24 {
		t.Errorf("errors %d read, %d write, %d in all; want 8, 16, 24", s.ReadErrors, s.WriteErrors, s.Errors)
	}
	// 8 periods: goroutines 102..109, second quarter 104, 105, last 108, 109.
	if s.Soak == nil || s.Soak.Periods != 8 || s.Soak.HeapQ2MB != 50 || s.Soak.GoroutinesQ2 != 104.5 || s.Soak.GoroutinesQ4 != 108.5 {
		t.Fatalf("soak %+v: want 8 periods, a 50 MB live heap and goroutines 104.5 then 108.5", s.Soak)
	}
	if s.Soak.Flat == nil || !*s.Soak.Flat {
		t.Errorf("soak %+v: want flat (goroutines +3.828 %%)", s.Soak)
	}
	for i := range ps {
		ps[i].HeapMB, ps[i].HeapLiveMB, ps[i].Goroutines = 0, 0, 0
	}
	if s := summarise(ps, &st); s.Soak != nil {
		t.Errorf("soak %+v from periods without runtime figures", s.Soak)
	}
	// The same figures over 10 s periods: 80 s measured, growths but no verdict.
	short := newRunState(20 * time.Second)
	for i := range 10 {
		ps[i].TS, ps[i].HeapLiveMB, ps[i].Goroutines = float64(10*(i+1)), 50, 100+i
		short.add(time.Duration(i)*10*time.Second, emptySnap(), nil, 0)
	}
	if s := summarise(ps, &short); s.Soak == nil || s.Soak.GoroutineGrowthPct == nil || s.Soak.Flat != nil {
		t.Errorf("soak %+v over 80 s measured: want the growths and no verdict", s.Soak)
	}

	// A live heap that grows by the run's own results, 1 MiB a period, is
	// flat: 8 periods after the warm-up, results 3 and 4 MiB (plus 16
	// bytes a period) in the second quarter, 7 and 8 in the last.
	st = newRunState(0)
	ps = nil
	for i := range 8 {
		ps = append(ps, results.Period{TS: float64(60 * (i + 1)), HeapLiveMB: float64(50 + i + 1), Goroutines: 100})
		st.add(time.Duration(i)*time.Minute, emptySnap(), nil, 1<<20)
	}
	s = summarise(ps, &st)
	if s.Soak == nil || s.Soak.HeapGrowthPct == nil || *s.Soak.HeapGrowthPct != 0 || s.Soak.Flat == nil || !*s.Soak.Flat {
		t.Fatalf("soak %+v: want the heap's growth, all of it the run's results, flat", s.Soak)
	}
	if s.Soak.HeapQ2MB != 53.5 || s.Soak.HeapQ4MB != 57.5 || s.Soak.RecordsQ2MB != 3.5 || s.Soak.RecordsQ4MB != 7.5 {
		t.Errorf("soak %+v: want the live heap 53.5 -> 57.5 MiB, the results 3.5 -> 7.5", s.Soak)
	}
}

// TestEventBytes: the collector counts each event's JSON size once.
func TestEventBytes(t *testing.T) {
	c := &collector{}
	c.event(1, "phase", "clients=10")
	c.event(2, "fault", "")
	want := int64(len(`{"t_s":1,"kind":"phase","detail":"clients=10"}`) + len(`{"t_s":2,"kind":"fault"}`))
	if got := c.takeEventBytes(); got != want {
		t.Errorf("first take: %d bytes, want %d", got, want)
	}
	if got := c.takeEventBytes(); got != 0 {
		t.Errorf("second take with no new event: %d bytes, want 0", got)
	}
	c.event(3, "x", "")
	if got, want := c.takeEventBytes(), int64(len(`{"t_s":3,"kind":"x"}`)); got != want {
		t.Errorf("third take: %d bytes, want %d", got, want)
	}
}
