package router

import (
	"slices"
	"sync"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
)

// observed is what Stats reports beyond the live counters: the latest
// decision and lag poll, what happened since Connect (decisions by reason,
// the bound's doing), and the latest period's reads per member. The router
// updates it at every event, with r.mu held, so a snapshot never mixes two
// events; Stats reads it under its own lock only, so an event callback may
// call Stats.
type observed struct {
	mu        sync.Mutex
	dec       balancer.Decision // Reason "" before the first period
	decisions map[string]int64
	lag       monitor.LagSample
	bound     BoundStats
	// unknown is the lag's state at the latest lag event; zeroed says the
	// bound forced the fraction to 0 and no event has lifted it since;
	// weighted are the secondaries with a share after the latest event
	// (per-member).
	unknown, zeroed bool
	weighted        map[string]bool
	// The latest period's reads per member, when it ended and how long
	// it was.
	period    map[string]memberPeriod
	periodEnd time.Time
	periodLen time.Duration
}

// memberPeriod is one member's reads and pings in the latest period.
type memberPeriod struct {
	client, wire quantiles
	minRTT       time.Duration
}

func newObserved() *observed {
	return &observed{decisions: map[string]int64{}, weighted: map[string]bool{},
		bound: BoundStats{Excluded: map[string]int64{}, Included: map[string]int64{}}}
}

// change is what one event changed that the log reports: the lag turning
// unknown or known, the bound forcing secondary reads off or lifting, and
// the secondaries a lag poll took out of the routing or put back.
type change struct {
	lagUnknown, lagKnown bool
	zeroed, restored     bool
	excluded, included   []string
}

// note records an event; called with r.mu held. perMember says the policy
// routes per member (e.Weights are its shares as routed).
func (o *observed) note(e Event, perMember bool) change {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ch change
	switch e.Kind {
	case EventPeriod:
		o.dec = e.Decision
		o.decisions[e.Decision.Reason]++
	case EventLag:
		o.lag = e.Lag
		ch.lagUnknown, ch.lagKnown = !e.Lag.Known && !o.unknown, e.Lag.Known && o.unknown
		o.unknown = !e.Lag.Known
		ch.zeroed, ch.restored = e.Previous > 0 && e.Fraction == 0, o.zeroed && e.Fraction > 0
		if ch.lagUnknown {
			o.bound.LagUnknown++
		}
		if ch.zeroed {
			o.bound.ForcedZero++
		}
		if ch.restored {
			o.bound.Restored++
		}
	}
	switch {
	case ch.zeroed:
		o.zeroed = true
	case e.Kind != EventHints && e.Fraction > 0:
		o.zeroed = false // lifted, by a poll (restored) or by a decision
	}
	if !perMember || e.Kind == EventHints {
		return ch
	}
	now := weightedOf(e.Weights)
	if e.Kind == EventLag {
		ch.excluded, ch.included = diffHosts(o.weighted, now), diffHosts(now, o.weighted)
		for _, h := range ch.excluded {
			o.bound.Excluded[h]++
		}
		for _, h := range ch.included {
			o.bound.Included[h]++
		}
	}
	o.weighted = now
	return ch
}

// rebase makes w the secondaries in force without counting a change (the
// application reweighted).
func (o *observed) rebase(w balancer.Weights) {
	o.mu.Lock()
	o.weighted = weightedOf(w)
	o.mu.Unlock()
}

func weightedOf(w balancer.Weights) map[string]bool {
	out := make(map[string]bool, len(w.Secondaries))
	for _, hw := range w.Secondaries {
		if hw.Weight > 0 {
			out[hw.Host] = true
		}
	}
	return out
}

// diffHosts returns the hosts in a and not in b, sorted.
func diffHosts(a, b map[string]bool) []string {
	var out []string
	for h := range a {
		if !b[h] {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// setPeriod keeps the reads each member served in the period that ended at
// end (differences of cumulative snapshots, MembersSince) and its pings.
func (o *observed) setPeriod(end time.Time, length time.Duration, since []MemberSnapshot, rtt map[string][]time.Duration) {
	period := make(map[string]memberPeriod, len(since))
	for _, m := range since {
		period[m.Host] = memberPeriod{client: quantilesOf(m.Client), wire: quantilesOf(m.Wire),
			minRTT: metrics.Quantile(rtt[m.Host], 0)}
	}
	o.mu.Lock()
	o.period, o.periodEnd, o.periodLen = period, end, length
	o.mu.Unlock()
}
