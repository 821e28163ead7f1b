package bench

import (
	"slices"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
)

// memberPeriods are a period's per-member results: the reads each member
// served between the prev and cur snapshots and their latencies, its lag in
// the latest poll, and the share the policy gave it (perMember only).
func memberPeriods(cur, prev []router.MemberSnapshot, lag monitor.LagSample, w balancer.Weights, perMember bool) []results.Member {
	out := make([]results.Member, 0, len(cur))
	for _, d := range router.MembersSince(cur, prev) {
		ms := func(q float64, s *metrics.Snapshot) float64 { return metrics.Round3(metrics.MS(s.Quantile(q))) }
		rm := results.Member{Host: d.Host, Name: d.Name, Role: d.Role.String(), Served: d.Served,
			ClientP50MS: ms(0.5, d.Client), ClientP80MS: ms(0.8, d.Client), WireP50MS: ms(0.5, d.Wire),
			RTTMinMS: ms(0, d.RTT)}
		if d.Wire.Count() > 0 && d.RTT.Count() > 0 {
			rm.ServerMS = metrics.Round3(max(rm.WireP50MS-rm.RTTMinMS, 0))
		}
		rm.LagMS = memberLag(lag, d.Host)
		if perMember {
			share := w.Of(d.Host)
			if d.Role == balancer.Primary {
				share = w.Primary
			}
			share = metrics.Round3(share)
			rm.Weight = &share
		}
		out = append(out, rm)
	}
	return out
}

// memberLag is host's lag in the poll in ms: 0 for the primary, nil when
// the poll failed or does not show host as PRIMARY or SECONDARY.
func memberLag(s monitor.LagSample, host string) *float64 {
	if !s.Known {
		return nil
	}
	for _, m := range s.Members {
		if m.Host != host || m.Role == 0 {
			continue
		}
		v := metrics.Round3(metrics.MS(m.Lag))
		return &v
	}
	return nil
}

// addHints adds each member's read-hint replays between prev and cur to its
// period record (hints on only).
func addHints(members []results.Member, cur, prev hints.Stats) []results.Member {
	before := map[string]hints.MemberStats{}
	for _, m := range prev.Members {
		before[m.Host] = m
	}
	for _, hm := range cur.Members {
		i := slices.IndexFunc(members, func(m results.Member) bool { return m.Host == hm.Host })
		if i < 0 {
			members = append(members, results.Member{Host: hm.Host, Role: "other"})
			i = len(members) - 1
		}
		members[i].HintReplays = hm.Replays - before[hm.Host].Replays
		members[i].HintKeys = hm.Keys - before[hm.Host].Keys
		members[i].HintErrors = hm.Errors - before[hm.Host].Errors
		members[i].HintsOff = !hm.On
	}
	return members
}
