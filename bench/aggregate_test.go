package bench

import (
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
	st := &runState{starts: []time.Duration{0, 10 * time.Second, 20 * time.Second}}
	for range ps {
		st.readSnaps = append(st.readSnaps, nil)
		st.probes = append(st.probes, nil)
	}
	for i := range st.readSnaps {
		st.readSnaps[i] = emptySnap()
	}
	s := summarise(ps, st, 10*time.Second)
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
}

func emptySnap() *metrics.Snapshot { return metrics.NewHistogram().Snapshot() }

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
	st := &runState{starts: []time.Duration{0, 30 * time.Second, 60 * time.Second}}
	for range ps {
		st.readSnaps = append(st.readSnaps, emptySnap())
	}
	m := minutes(ps, st)
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
}

// TestSummariseErrorsAndSoak: the summary splits the errors by class and
// judges the runtime figures of the periods after the warm-up; periods
// without them (results written before) get no verdict.
func TestSummariseErrorsAndSoak(t *testing.T) {
	var ps []results.Period
	st := &runState{}
	for i := range 10 {
		heap := 50.0
		if i < 2 {
			heap = 500 // the warm-up's heap does not count
		}
		ps = append(ps, results.Period{TS: float64(10 * (i + 1)), ReadErrors: 1, WriteErrors: 2, HeapMB: 2 * heap,
			HeapLiveMB: heap, Goroutines: 100 + i})
		st.starts = append(st.starts, time.Duration(i)*10*time.Second)
		st.readSnaps = append(st.readSnaps, emptySnap())
		st.probes = append(st.probes, nil)
	}
	s := summarise(ps, st, 20*time.Second)
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
	if s := summarise(ps, st, 20*time.Second); s.Soak != nil {
		t.Errorf("soak %+v from periods without runtime figures", s.Soak)
	}
}
