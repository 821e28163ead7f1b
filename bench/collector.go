package bench

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
)

// collector turns router events into per-period aggregates and run events.
type collector struct {
	mu       sync.Mutex
	start    time.Time
	bound    balancer.Bound
	headroom time.Duration // balancer.AutoHeadroom: each poll's horizon
	fracSum  float64
	fracN    int
	maxLag   time.Duration
	ratio    *float64
	events   []results.Event
	// counted are the events takeEventBytes has counted.
	counted int
	unknown bool
	// Per-member policies: the hosts weighted after the latest lag event,
	// and the latest decision's reason.
	weighted   map[string]bool
	lastReason string
	// decisions judges the period decisions' punctuality.
	decisions decisionClock
}

// perMember reports whether an event comes from a per-member policy.
func perMember(e router.Event) bool { return e.Weights.Primary+e.Weights.Secondary() > 0 }

// memberChanges records the secondaries a lag poll took out of the routing
// or put back, with their lag.
func (c *collector) memberChanges(ts float64, e router.Event) {
	now := map[string]bool{}
	for _, hw := range e.Weights.Secondaries {
		now[hw.Host] = true
	}
	lagOf := func(host string) string {
		for _, m := range e.Lag.Members {
			if m.Host == host {
				if m.Role == balancer.Secondary {
					return fmt.Sprintf("lag %v", m.Lag.Round(time.Millisecond))
				}
				return "state " + m.State
			}
		}
		return "not in the poll"
	}
	for h := range c.weighted {
		if !now[h] {
			c.events = append(c.events, results.Event{TS: ts, Kind: "member-excluded", Detail: fmt.Sprintf("%s: %s", h, lagOf(h))})
		}
	}
	for h := range now {
		if c.weighted != nil && !c.weighted[h] {
			c.events = append(c.events, results.Event{TS: ts, Kind: "member-included", Detail: fmt.Sprintf("%s: %s", h, lagOf(h))})
		}
	}
	c.weighted = now
}

func (c *collector) onEvent(e router.Event) {
	got := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := metrics.Round3(e.At.Sub(c.start).Seconds())
	switch e.Kind {
	case router.EventLag:
		c.onLag(ts, e)
	case router.EventPeriod:
		c.decisions.add(e.At, got)
		c.onPeriod(ts, e)
	case router.EventHints:
		detail := e.Hints.Host + ": on"
		if !e.Hints.On {
			detail = e.Hints.Host + ": off, " + e.Hints.Why
		}
		c.events = append(c.events, results.Event{TS: ts, Kind: "hints", Detail: detail})
	}
}

// onLag records a lag poll: the fraction's mean and the lag's max for the
// period, the lag turning unknown, the bound forcing the fraction to 0 and
// restoring it, and a per-member policy's secondaries leaving or rejoining.
func (c *collector) onLag(ts float64, e router.Event) {
	if perMember(e) {
		c.memberChanges(ts, e)
	}
	c.fracSum += e.Fraction
	c.fracN++
	if e.Lag.Known {
		c.maxLag = max(c.maxLag, e.Lag.Max)
	}
	if e.Lag.Err != nil && !c.unknown {
		c.events = append(c.events, results.Event{TS: ts, Kind: "lag-unknown", Detail: e.Lag.Err.Error()})
	}
	c.unknown = e.Lag.Err != nil
	if e.Previous > 0 && e.Fraction == 0 {
		headroom := c.headroom
		if headroom == balancer.AutoHeadroom {
			headroom = e.Lag.Horizon
		}
		why := fmt.Sprintf("max lag %v + headroom %v > bound %v", e.Lag.Max.Round(time.Millisecond), headroom.Round(time.Millisecond), c.bound)
		if !e.Lag.Known {
			why = "lag unknown"
			if e.Lag.Err != nil {
				why += ": " + e.Lag.Err.Error()
			}
		}
		c.events = append(c.events, results.Event{TS: ts, Kind: "bound-exceeded",
			Detail: fmt.Sprintf("%s: fraction %.2f -> 0", why, e.Previous)})
	}
	if e.Previous == 0 && e.Fraction > 0 {
		c.events = append(c.events, results.Event{TS: ts, Kind: "bound-restored",
			Detail: fmt.Sprintf("max lag %v: fraction 0 -> %.2f", e.Lag.Max, e.Fraction)})
	}
}

// onPeriod records a period's decision.
func (c *collector) onPeriod(ts float64, e router.Event) {
	if !math.IsNaN(e.Decision.Ratio) && !math.IsInf(e.Decision.Ratio, 0) {
		r := metrics.Round3(e.Decision.Ratio)
		c.ratio = &r
	}
	if perMember(e) {
		// A per-member policy decides every second or so: its
		// decisions are recorded when the reason changes; the
		// weights of every period are in periods[].members[].
		if e.Decision.Reason != c.lastReason {
			c.events = append(c.events, results.Event{TS: ts, Kind: "decision",
				Detail: fmt.Sprintf("%s: %s; %s", e.Decision.Reason, e.Weights, e.Decision.Detail)})
		}
		c.lastReason = e.Decision.Reason
		return
	}
	p, l := e.Period, e.Latencies
	us := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
	c.events = append(c.events, results.Event{TS: ts, Kind: "decision",
		Detail: fmt.Sprintf("%.2f -> %.2f %s: ratio %.2f; primary wire p50 %v client p50 %v rtt %v (%d reads); secondary wire p50 %v client p50 %v rtt %v (%d reads)",
			e.Previous, e.Fraction, e.Decision.Reason, e.Decision.Ratio,
			us(l.Primary.Command.P50), us(l.Primary.Client.P50), us(p.PrimaryRTT), l.Primary.Client.Count,
			us(l.Secondary.Command.P50), us(l.Secondary.Client.P50), us(p.SecondaryRTT), l.Secondary.Client.Count)})
}

func (c *collector) event(ts float64, kind, detail string) {
	c.mu.Lock()
	c.events = append(c.events, results.Event{TS: metrics.Round3(ts), Kind: kind, Detail: detail})
	c.mu.Unlock()
}

// take returns the period's fraction mean, ratio and max lag and resets them.
func (c *collector) take(current float64) (frac float64, ratio *float64, maxLag time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	frac = current
	if c.fracN > 0 {
		frac = c.fracSum / float64(c.fracN)
	}
	ratio, maxLag = c.ratio, c.maxLag
	c.fracSum, c.fracN, c.ratio, c.maxLag = 0, 0, nil, 0
	return frac, ratio, maxLag
}

// setStart sets the time events are measured from, and the window over
// which the decisions' punctuality is judged: from and to after t.
func (c *collector) setStart(t time.Time, from, to time.Duration) {
	c.mu.Lock()
	c.start = t
	c.decisions.from, c.decisions.to = t.Add(from), t.Add(to)
	c.mu.Unlock()
}

// takeDecisions returns the decisions' punctuality so far (nil for a
// policy without a period).
func (c *collector) takeDecisions() *results.Decisions {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.decisions.result()
}

// takeEventBytes returns the JSON size of the events recorded since the
// last call (the soak verdict's measure of the run's own results).
func (c *collector) takeEventBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, e := range c.events[c.counted:] {
		n += jsonSize(e)
	}
	c.counted = len(c.events)
	return n
}

// takeEvents returns the run's events.
func (c *collector) takeEvents() []results.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.events
}
