package router

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
)

// Stats is one snapshot of what a router does, for dashboards and logs
// (package router/routermetrics exports it to Prometheus). Counters are
// cumulative since Connect; latencies are over the latest period.
type Stats struct {
	// At is when the snapshot was taken.
	At time.Time
	// Policy is the policy's name (its spec), Mode how it routes.
	Policy string
	Mode   balancer.Mode
	// LatencySource is the latency the policy sees.
	LatencySource LatencySource
	// Fraction is the balance fraction in force: the share of reads sent
	// to the secondaries (per-member policies: the secondaries' summed
	// share).
	Fraction float64
	// Weights are the per-member shares in force as routed (Weights);
	// PerMember is false, and Weights zero, for the other policies.
	Weights   balancer.Weights
	PerMember bool
	// Served are the routed reads counted so far: by the role of the
	// member that answered at the time, and by member. Its ByHost and
	// Members' Served come from the same counters.
	Served Served
	// Members are the members the router has seen, sorted by host.
	Members []MemberStats
	// PeriodEnd and PeriodLength are the latest period's: the policy's
	// balancing period, or the latest second for policies without one;
	// zero before the first ends.
	PeriodEnd    time.Time
	PeriodLength time.Duration
	// LagSource is the lag source in force; Lag the latest lag poll (At is
	// when it was sent; Known false and Err why when it failed, expired,
	// or did not vouch for a member the driver may read from).
	LagSource monitor.LagSource
	Lag       monitor.LagSample
	// Decision is the latest period decision (Reason "" and Ratio NaN
	// before the first), Decisions the decisions since Connect by reason.
	Decision  balancer.Decision
	Decisions map[string]int64
	// Bound counts what the staleness bound did at lag polls.
	Bound BoundStats
	// Hints are the read hints' counters; HintsOn is false when hints are
	// off (WithHints).
	Hints   hints.Stats
	HintsOn bool
	// ReadYourWrites are the reads routed with an operation time to find
	// applied, and those kept on the primary for it (see ReadYourWrites).
	ReadYourWrites ReadYourWrites
}

// MemberStats is one member in a Stats snapshot.
type MemberStats struct {
	Host, Name string
	// Role is the member's role as the routed client sees it now.
	Role balancer.Side
	// Served counts the routed reads it answered since Connect.
	Served int64
	// Client and Wire are the latencies of the reads it served: client
	// observed, and the time on the wire.
	Client, Wire Latency
	// MinRTT is the latest period's least ping of the member; 0 when it
	// had none.
	MinRTT time.Duration
	// Lag is its staleness in the latest lag poll; LagKnown is false when
	// the poll is not Known or does not show the member as PRIMARY (lag
	// 0) or SECONDARY.
	Lag      time.Duration
	LagKnown bool
	// Weight is its share of the reads in force (per-member policies: the
	// primary's share for the member the routed client sees as primary).
	Weight float64
}

// Latency summarises one latency of the reads a member served: how many
// and their summed latency since Connect, and the latest period's reads,
// their median and 80th percentile (within the histograms' 3%; zero when
// the period had none).
type Latency struct {
	Count int64
	Sum   time.Duration
	// PeriodCount, P50 and P80 are the latest period's.
	PeriodCount int64
	P50, P80    time.Duration
}

// quantiles are a period's reads, median and 80th percentile.
type quantiles struct {
	n        int64
	p50, p80 time.Duration
}

func quantilesOf(s *metrics.Snapshot) quantiles {
	return quantiles{n: int64(s.Count()), p50: s.Quantile(0.5), p80: s.Quantile(0.8)}
}

func latencyOf(h *metrics.Histogram) Latency { return Latency{Count: int64(h.Count()), Sum: h.Sum()} }

func (l *Latency) setPeriod(q quantiles) { l.PeriodCount, l.P50, l.P80 = q.n, q.p50, q.p80 }

// BoundStats count what the staleness bound did at lag polls since Connect.
type BoundStats struct {
	// LagUnknown counts the polls at which the lag turned unknown (it
	// failed, expired, or could not vouch for a member).
	LagUnknown int64
	// ForcedZero counts the polls that set the fraction from above 0 to 0
	// (the lag over the bound, or unknown), Restored the polls that lifted
	// it from such a 0 (not a policy's own 0 before its first poll).
	ForcedZero, Restored int64
	// Excluded counts, by host, the polls that took a secondary's share
	// away (per-member policies: lag over the bound, not vouched for, not
	// a secondary any more); Included those that gave one back.
	Excluded, Included map[string]int64
}

// Stats returns a snapshot of the router: the policy and its latest
// decision, the shares in force, the reads each member served and their
// latest period, the latest lag poll, and what happened since Connect. It
// takes no lock the read path takes and copies no histogram, so it is
// cheap enough to call at every scrape; it is safe for concurrent use,
// also from a WithEvents callback. The policy's side (decision, counts,
// lag, period) is read as of one event; the counters of reads served are
// read together (as Counts does); the fraction and weights are those in
// force at the call.
func (r *Router) Stats() Stats {
	st := Stats{At: time.Now(), Policy: r.policy.Name(), Mode: r.sel.Mode, LatencySource: r.latency, Fraction: r.Fraction()}
	st.Weights, st.PerMember = r.Weights()
	if r.mon != nil {
		st.LagSource = r.mon.LagSource()
	}
	st.Hints, st.HintsOn = r.Hints()
	st.ReadYourWrites = r.ReadYourWrites()
	st.Served, st.Members = r.served.counts()
	o := r.obs
	o.mu.Lock()
	st.PeriodEnd, st.PeriodLength, st.Lag = o.periodEnd, o.periodLen, o.lag
	st.Decision, st.Decisions = o.dec, maps.Clone(o.decisions)
	st.Bound = o.bound
	st.Bound.Excluded, st.Bound.Included = maps.Clone(o.bound.Excluded), maps.Clone(o.bound.Included)
	for i := range st.Members {
		m := &st.Members[i]
		p := o.period[m.Host]
		m.Client.setPeriod(p.client)
		m.Wire.setPeriod(p.wire)
		m.MinRTT = p.minRTT
	}
	o.mu.Unlock()
	if st.Decision.Reason == "" {
		st.Decision = balancer.Decision{Fraction: st.Fraction, Ratio: math.NaN()}
	}
	for i := range st.Members {
		m := &st.Members[i]
		m.Lag, m.LagKnown = memberLag(st.Lag, m.Host)
		switch {
		case !st.PerMember:
		case m.Role == balancer.Primary:
			m.Weight = st.Weights.Primary
		default:
			m.Weight = st.Weights.Of(m.Host)
		}
	}
	return st
}

// memberLag is host's staleness in poll s, and whether s knows it.
func memberLag(s monitor.LagSample, host string) (time.Duration, bool) {
	if !s.Known {
		return 0, false
	}
	i := slices.IndexFunc(s.Members, func(m monitor.MemberLag) bool { return m.Host == host })
	if i < 0 || s.Members[i].Role == 0 {
		return 0, false
	}
	return s.Members[i].Lag, true
}

// counts returns the reads served by role and by member, each member's
// role, name and latency totals, read under one lock without copying a
// histogram.
func (s *served) counts() (Served, []MemberStats) {
	s.mu.RLock()
	members := make([]MemberStats, 0, len(s.byHost))
	for h, st := range s.byHost {
		members = append(members, MemberStats{Host: h, Name: s.names[h], Role: s.roles[h], Served: st.n.Load(),
			Client: latencyOf(st.client), Wire: latencyOf(st.wire)})
	}
	s.mu.RUnlock()
	slices.SortFunc(members, func(a, b MemberStats) int { return strings.Compare(a.Host, b.Host) })
	out := Served{Primary: s.primary.Load(), Secondary: s.secondary.Load(), Other: s.other.Load(),
		ByHost: make(map[string]int64, len(members))}
	for _, m := range members {
		out.ByHost[m.Host] = m.Served
	}
	return out, members
}
