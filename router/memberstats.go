package router

import (
	"slices"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
)

// MemberSnapshot is one member's routed reads so far (cumulative): subtract
// an earlier snapshot of the same host to get a period's.
type MemberSnapshot struct {
	Host, Name string
	// Role is the member's role as the routed client sees it now.
	Role balancer.Side
	// Served counts the routed read commands it answered.
	Served int64
	// Client and Wire are the latencies of the units it served (client
	// observed; time on the wire); RTT its pings.
	Client, Wire, RTT *metrics.Snapshot
}

// Members returns every member's cumulative routed reads, sorted by host.
func (r *Router) Members() []MemberSnapshot {
	r.served.mu.RLock()
	hosts := make([]string, 0, len(r.served.byHost))
	for h := range r.served.byHost {
		hosts = append(hosts, h)
	}
	r.served.mu.RUnlock()
	slices.Sort(hosts)
	out := make([]MemberSnapshot, 0, len(hosts))
	for _, h := range hosts {
		st := r.served.stats(h)
		out = append(out, MemberSnapshot{Host: h, Name: r.served.name(h), Role: r.served.role(h), Served: st.n.Load(),
			Client: st.client.Snapshot(), Wire: st.wire.Snapshot(), RTT: st.rtt.Snapshot()})
	}
	return out
}

// Counts returns Served and Members read from the same per-member counters,
// so a read finishing between the two calls cannot land in one and not in
// the other: a period's served_by and its members[] always agree.
func (r *Router) Counts() (Served, []MemberSnapshot) {
	members := r.Members()
	s := Served{Primary: r.served.primary.Load(), Secondary: r.served.secondary.Load(), Other: r.served.other.Load(),
		ByHost: make(map[string]int64, len(members))}
	for _, m := range members {
		s.ByHost[m.Host] = m.Served
	}
	return s, members
}

// Sub returns the reads between prev (an earlier snapshot of the same
// member, or the zero value) and m.
func (m MemberSnapshot) Sub(prev MemberSnapshot) MemberSnapshot {
	out := m
	out.Served -= prev.Served
	if prev.Client != nil {
		out.Client, out.Wire, out.RTT = m.Client.Sub(prev.Client), m.Wire.Sub(prev.Wire), m.RTT.Sub(prev.RTT)
	}
	return out
}

// MembersSince returns each member's reads between the prev snapshots
// (taken earlier by Members) and cur; a member absent from prev counts
// from zero.
func MembersSince(cur, prev []MemberSnapshot) []MemberSnapshot {
	out := make([]MemberSnapshot, 0, len(cur))
	for _, m := range cur {
		var p MemberSnapshot
		if i := slices.IndexFunc(prev, func(p MemberSnapshot) bool { return p.Host == m.Host }); i >= 0 {
			p = prev[i]
		}
		out = append(out, m.Sub(p))
	}
	return out
}

// memberStatsFrom is what a policy observes per member in a period: the
// units each member served (since: MembersSince the period's start), their
// latency by the chosen source, and the period's minimum ping.
func memberStatsFrom(since []MemberSnapshot, rtt map[string][]time.Duration, src LatencySource) []balancer.MemberStats {
	out := make([]balancer.MemberStats, 0, len(since))
	for _, d := range since {
		lat := d.Wire
		if src == ClientLatency {
			lat = d.Client
		}
		out = append(out, balancer.MemberStats{Host: d.Host, Name: d.Name, Role: d.Role, Count: int(lat.Count()),
			P50: lat.Quantile(0.5), Mean: lat.Mean(), Min: lat.Quantile(0), RTT: metrics.Quantile(rtt[d.Host], 0)})
	}
	return out
}
