package bench

import (
	"time"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
)

// decisionClock accumulates how punctually a policy with a balancing period
// decided over the measured window [from, to] (results.Decisions): each
// decision's tick (router.Event.At, the time its ticker was due) and when
// its event reached the runner. The ticks expected are the first one seen
// plus whole periods, back to from and on to to.
type decisionClock struct {
	iv       time.Duration // 0: the policy has no period
	from, to time.Time
	first    time.Time // the first tick in the window; zero before it
	n        int64
	onTime   int64
	lateMax  time.Duration
}

// add notes a decision due at tick whose event arrived at got.
func (d *decisionClock) add(tick, got time.Time) {
	if d.iv <= 0 || tick.Before(d.from) || tick.After(d.to) {
		return
	}
	if d.first.IsZero() {
		d.first = tick
	}
	d.n++
	late := max(got.Sub(tick), 0)
	d.lateMax = max(d.lateMax, late)
	if late <= d.iv/10 {
		d.onTime++
	}
}

// result is the window's punctuality; nil for a policy without a period.
func (d *decisionClock) result() *results.Decisions {
	if d.iv <= 0 {
		return nil
	}
	out := &results.Decisions{IntervalMS: metrics.Round3(metrics.MS(d.iv)), Count: d.n,
		LateMaxMS: metrics.Round3(metrics.MS(d.lateMax))}
	if d.n == 0 {
		return out
	}
	// The ticks due in the window are the first one seen and whole periods
	// from it, back to from and on to to, as add counts them. No slack at
	// the ends: a ticker started a few milliseconds after a run whose
	// window is whole periods long has its next tick just past to, after
	// the run stopped; a slack there expected it and called it missed (RPM's
	// full runs: one "missed" in each).
	expected := int64(d.to.Sub(d.first)/d.iv) + 1 + int64(d.first.Sub(d.from)/d.iv)
	out.Missed = max(expected-d.n, 0)
	out.OnTimePct = metrics.Round3(100 * float64(d.onTime) / float64(d.n+out.Missed))
	return out
}
