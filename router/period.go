package router

import (
	"context"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
)

// sideLatency holds one side's latency samples by both sources.
type sideLatency struct{ client, command *metrics.Histogram }

func newSideLatency() sideLatency {
	return sideLatency{client: metrics.NewHistogram(), command: metrics.NewHistogram()}
}

// sideSnapshot is a sideLatency's cumulative snapshot.
type sideSnapshot struct{ client, command *metrics.Snapshot }

func (l sideLatency) snapshot() sideSnapshot {
	return sideSnapshot{client: l.client.Snapshot(), command: l.command.Snapshot()}
}

// SideLatencies are one side's reads in a period by both latency sources.
type SideLatencies struct {
	Client, Command balancer.Stats
}

// Latencies are a period's reads on each side by both latency sources; the
// policy sees one of them (WithLatencySource), events carry both.
type Latencies struct {
	Primary, Secondary SideLatencies
}

func statsOf(cur, prev *metrics.Snapshot) balancer.Stats {
	d := cur.Sub(prev)
	return balancer.Stats{Count: int(d.Count()), P50: d.Quantile(0.5)}
}

func sideStats(cur, prev sideSnapshot) SideLatencies {
	return SideLatencies{Client: statsOf(cur.client, prev.client), Command: statsOf(cur.command, prev.command)}
}

// periodFrom assembles what the policy observes at a period end: each side's
// latency by the chosen source, and the RTT estimate (the q-quantile of the
// period's pings, pooled per role by the members' current roles).
func periodFrom(l Latencies, src LatencySource, rtt map[string][]time.Duration, roles map[string]balancer.Side, q float64) balancer.Period {
	pick := func(s SideLatencies) balancer.Stats {
		if src == ClientLatency {
			return s.Client
		}
		return s.Command
	}
	p := balancer.Period{Primary: pick(l.Primary), Secondary: pick(l.Secondary)}
	p.PrimaryRTT, p.SecondaryRTT = monitor.RTTByRole(rtt, roles, q)
	return p
}

func (r *Router) periodLoop(ctx context.Context, iv time.Duration, tick func(time.Time)) {
	defer r.wg.Done()
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			tick(now)
		}
	}
}

// drainRTT moves the pings of policies without a period into the members'
// RTT histograms, and ends the period Stats reports (a second).
func (r *Router) drainRTT(now time.Time) {
	rtt := r.rtts.DrainRTT()
	r.keepRTT(rtt)
	r.mu.Lock()
	members := r.Members()
	since := MembersSince(members, r.lastMembers)
	r.lastMembers = members
	length := now.Sub(r.lastEnd)
	r.lastEnd = now
	r.obs.setPeriod(now, length, since, rtt)
	r.mu.Unlock()
}

// keepRTT adds drained pings to the members' cumulative RTT histograms.
func (r *Router) keepRTT(rtt map[string][]time.Duration) {
	for host, ds := range rtt {
		h := r.served.stats(host)
		for _, d := range ds {
			h.rtt.Record(d)
		}
	}
}

// rttSource is where a period's RTT samples and the members' roles come
// from: the monitor, or a fake in tests.
type rttSource interface {
	DrainRTT() map[string][]time.Duration
	Roles() map[string]balancer.Side
}

var _ rttSource = (*monitor.Monitor)(nil)

// endPeriod is the thin I/O wrapper around periodFrom and the policy.
func (r *Router) endPeriod(now time.Time) {
	r.mu.Lock()
	cur := [3]sideSnapshot{balancer.Primary: r.lat[balancer.Primary].snapshot(), balancer.Secondary: r.lat[balancer.Secondary].snapshot()}
	l := Latencies{Primary: sideStats(cur[balancer.Primary], r.lastSnap[balancer.Primary]),
		Secondary: sideStats(cur[balancer.Secondary], r.lastSnap[balancer.Secondary])}
	r.lastSnap = cur
	rtt := r.rtts.DrainRTT()
	r.keepRTT(rtt)
	p := periodFrom(l, r.latency, rtt, r.rtts.Roles(), r.rttQuantile)
	p.Length = now.Sub(r.lastEnd)
	writes := r.served.writes.Snapshot()
	if r.lastWrites != nil {
		p.Writes = statsOf(writes, r.lastWrites)
	}
	r.lastWrites = writes
	r.lastEnd = now
	members := r.Members()
	since := MembersSince(members, r.lastMembers)
	p.Members = memberStatsFrom(since, rtt, r.latency)
	r.lastMembers = members
	r.obs.setPeriod(now, p.Length, since, rtt)
	prev := r.Fraction()
	dec := r.policy.EndPeriod(p)
	r.storeFraction(dec.Fraction)
	r.lastDec = dec
	r.setWeights()
	e := Event{At: now, Kind: EventPeriod, Fraction: dec.Fraction, Previous: prev, Decision: dec, Period: p,
		Latencies: l, Weights: r.appliedWeights()}
	ch := r.obs.note(e, r.pools != nil)
	r.mu.Unlock()
	r.emit(e, ch)
}
