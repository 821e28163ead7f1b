package bench

import (
	"testing"
	"time"

	"github.com/decongestant/decongestant/results"
)

// TestDecisionClock: decisions are judged against their tick over the
// measured window: how late the latest was, which ticks were missed, and
// the share decided within a tenth of the period.
func TestDecisionClock(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	s := func(d float64) time.Time { return t0.Add(time.Duration(d * float64(time.Second))) }
	tests := []struct {
		name      string
		iv        time.Duration
		decisions []decisionAt
		want      *results.Decisions
	}{
		{name: "no period", decisions: []decisionAt{{10, 10}}},
		{name: "on time", iv: 10 * time.Second,
			// window [20, 60]: ticks 23, 33, 43, 53; 13 and 63 are outside.
			decisions: []decisionAt{{13, 13}, {23, 23.001}, {33, 33.002}, {43, 43.5}, {53, 53.01}, {63, 70}},
			want:      &results.Decisions{IntervalMS: 10000, Count: 4, LateMaxMS: 500, OnTimePct: 100}},
		{name: "late and missed", iv: time.Second,
			// window [20, 60]: ticks 20.5 ... 59.5 due; 21.5 and 22.5 missed
			// (the loop busy), 23.5 came 1.2 s late, 40.5 0.2 s late.
			decisions: decisionsEvery(20.5, 59.5, 1, map[float64]float64{23.5: 1.2, 40.5: 0.2}, 21.5, 22.5),
			want:      &results.Decisions{IntervalMS: 1000, Count: 38, Missed: 2, LateMaxMS: 1200, OnTimePct: 90}},
		{name: "missed at the window's ends", iv: 10 * time.Second,
			decisions: []decisionAt{{33, 33}, {43, 43}},
			want:      &results.Decisions{IntervalMS: 10000, Count: 2, Missed: 2, OnTimePct: 50}},
		{name: "the ticker a little after the window's start", iv: 10 * time.Second,
			// window [20, 60]: ticks 20.05 ... 50.05; the next, 60.05, is
			// past the window's end and not due in it.
			decisions: decisionsEvery(20.05, 50.05, 10, nil),
			want:      &results.Decisions{IntervalMS: 10000, Count: 4, OnTimePct: 100}},
		{name: "none in the window", iv: 10 * time.Second, decisions: []decisionAt{{5, 5}},
			want: &results.Decisions{IntervalMS: 10000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decisionClock{iv: tt.iv, from: s(20), to: s(60)}
			for _, dec := range tt.decisions {
				d.add(s(dec.tick), s(dec.got))
			}
			got := d.result()
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// decisionAt is a decision's tick and when its event arrived, in seconds.
type decisionAt struct{ tick, got float64 }

// decisionsEvery are decisions on ticks from first to last, step apart,
// on time except the late ones (tick -> lateness) and the skipped ticks.
func decisionsEvery(first, last, step float64, late map[float64]float64, skip ...float64) []decisionAt {
	var out []decisionAt
	for tick := first; tick <= last+1e-9; tick += step {
		skipped := false
		for _, s := range skip {
			skipped = skipped || s == tick
		}
		if !skipped {
			out = append(out, decisionAt{tick, tick + late[tick]})
		}
	}
	return out
}

// TestMeasureStart: the measured interval starts at the first period
// boundary at or after the warm-up.
func TestMeasureStart(t *testing.T) {
	s := time.Second
	for _, tt := range []struct{ warmup, period, want time.Duration }{
		{0, 10 * s, 0}, {60 * s, 10 * s, 60 * s}, {45 * s, 10 * s, 50 * s}, {s, 10 * s, 10 * s},
	} {
		if got := measureStart(tt.warmup, tt.period); got != tt.want {
			t.Errorf("warm-up %v, period %v: %v, want %v", tt.warmup, tt.period, got, tt.want)
		}
	}
}
