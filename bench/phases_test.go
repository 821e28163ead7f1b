package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/sprobe"
)

func TestParsePhases(t *testing.T) {
	got, err := ParsePhases("0s:workload=a,clients=180; 620s:workload=b ;700s:clients=20")
	if err != nil {
		t.Fatal(err)
	}
	want := []Phase{{0, "a", 180}, {620 * time.Second, "b", 0}, {700 * time.Second, "", 20}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if ps, err := ParsePhases(""); err != nil || len(ps) != 0 {
		t.Errorf("empty: %v %v", ps, err)
	}
	for _, bad := range []string{"620s", "x:workload=a", "-1s:clients=3", "1s:clients=0", "1s:clients=many",
		"1s:color=red", "1s:workload", "2s:clients=3;1s:clients=4", "1s:clients=2;1s:clients=3", ";"} {
		if _, err := ParsePhases(bad); !errors.Is(err, ErrBadPhases) {
			t.Errorf("ParsePhases(%q) err %v, want ErrBadPhases", bad, err)
		}
	}
}

func TestQuantileNearestRank(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	for q, want := range map[float64]time.Duration{0.2: 1, 0.5: 3, 0.8: 4, 1: 5} {
		if got := quantile(ds, q); got != want {
			t.Errorf("q%v = %v, want %v", q, got, want)
		}
	}
	if quantile(nil, 0.8) != 0 {
		t.Error("empty quantile not 0")
	}
}

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
