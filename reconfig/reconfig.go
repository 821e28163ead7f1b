// Package reconfig measures how a run's reads fare around a reconfiguration,
// the moment reads move from one member to another (a stepdown, a kill, a phase
// that moves them): the read-hints paper's throughput dip and time to recover
// (its figs 4, 7 and 13), and the cache misses of the member that took the
// reads (figs 5, 8 and 14). It is pure: a run's periods and the
// reconfiguration's time in, a results.Reconfiguration out.
//
//	for _, t := range reconfig.Times(res.Config) {
//		r, ok := reconfig.Measure(run.Periods, t)
//		if ok && r.RecoveryS != nil {
//			fmt.Printf("%s at %gs: dip to %.0f%%, back after %gs\n", t.Cause, t.AtS, *r.DipPct, *r.RecoveryS)
//		}
//	}
//
// A period belongs to a window when its end (t_s) is in it: the pre window
// is (t-30 s, t], the dip window (t, t+60 s].
package reconfig

import (
	"cmp"
	"slices"
	"strings"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
)

// The windows and the recovery rule (DESIGN.md says why).
const (
	// PreS is how long before a reconfiguration the throughput it is
	// compared with is averaged.
	PreS = 30.0
	// AfterS is how long after it the dip and the serving member's cache
	// misses are looked for.
	AfterS = 60.0
	// RecoveryLevel is the share of the throughput before that a period
	// must reach to count as recovered, and RecoveryPeriods how many such
	// periods in a row make a recovery (one is a spike).
	RecoveryLevel   = 0.9
	RecoveryPeriods = 3
)

// Given is the cause of a reconfiguration time given explicitly
// (results.Config.ReconfigAtS) rather than by a phase's fault actions.
const Given = "given"

// Time is a reconfiguration: when, in seconds from the run's start, and
// what it was.
type Time struct {
	AtS   float64
	Cause string
}

// Times returns cfg's reconfigurations in time order: every phase with
// fault actions (its actions, comma-separated, are the cause) and every
// time of cfg.ReconfigAtS (Given). A given time equal to a phase's is that
// phase's.
func Times(cfg results.Config) []Time {
	var out []Time
	for _, p := range cfg.Phases {
		causes := p.Actions
		if p.Reads != "" {
			causes = append(slices.Clone(causes), "reads="+p.Reads)
		}
		if len(causes) > 0 {
			out = append(out, Time{AtS: p.AtS, Cause: strings.Join(causes, ",")})
		}
	}
	for _, at := range cfg.ReconfigAtS {
		if !slices.ContainsFunc(out, func(t Time) bool { return t.AtS == at }) {
			out = append(out, Time{AtS: at, Cause: Given})
		}
	}
	slices.SortStableFunc(out, func(a, b Time) int { return cmp.Compare(a.AtS, b.AtS) })
	return out
}

// Run measures each of times in periods (a run's, in order), leaving out
// those Measure cannot; nil when none is measured.
func Run(periods []results.Period, times []Time) []results.Reconfiguration {
	var out []results.Reconfiguration
	for _, t := range times {
		if r, ok := Measure(periods, t); ok {
			out = append(out, r)
		}
	}
	return out
}

// Measure measures the reconfiguration t in periods (a run's, in order):
// the mean read throughput of the periods ending in the PreS before t, the
// lowest of the periods ending in the AfterS after, the time to the first
// RecoveryPeriods periods in a row at RecoveryLevel of that mean or more,
// and the serving member's highest cache miss rate. ok is false when no
// period ends in either window (a reconfiguration before the first period
// ends, or after the last).
func Measure(periods []results.Period, t Time) (r results.Reconfiguration, ok bool) {
	r = results.Reconfiguration{AtS: t.AtS, Cause: t.Cause}
	var sum, length float64
	first := -1 // the first period after t
	for i, p := range periods {
		switch {
		case p.TS > t.AtS-PreS && p.TS <= t.AtS:
			n := p.TS - start(periods, i)
			sum += p.ReadTput * n
			length += n
		case p.TS > t.AtS && first < 0:
			first = i
		}
	}
	if length <= 0 || first < 0 {
		return r, false
	}
	r.PreReadTput, r.PreS = metrics.Round3(sum/length), metrics.Round3(length)
	after := afterWindow(periods[first:], t.AtS)
	dip := slices.MinFunc(after, func(a, b results.Period) int { return cmp.Compare(a.ReadTput, b.ReadTput) })
	r.DipReadTput, r.DipAtS = dip.ReadTput, dip.TS
	if pre := sum / length; pre > 0 {
		r.DipPct = ptr(metrics.Round3(100 * dip.ReadTput / pre))
		r.DepthPct = ptr(metrics.Round3(100 - *r.DipPct))
		r.RecoveryS = recovery(periods, first, t.AtS, pre)
	}
	r.ServingMember, r.ServingMaxCacheMissPct = serving(after)
	return r, true
}

// start is when period i starts: where the one before it ended, or 0.
func start(periods []results.Period, i int) float64 {
	if i == 0 {
		return 0
	}
	return periods[i-1].TS
}

// afterWindow is the periods (from the first after at) that end in the
// AfterS after at.
func afterWindow(periods []results.Period, at float64) []results.Period {
	n := 0
	for n < len(periods) && periods[n].TS <= at+AfterS {
		n++
	}
	return periods[:max(n, 1)] // the first period after at ends in the window unless periods are longer than it
}

// recovery is the time from at to the start of the first RecoveryPeriods
// periods in a row, from the first after at, each with RecoveryLevel x pre
// or more (0 when the first of them began before at); nil when there is no
// such run.
func recovery(periods []results.Period, first int, at, pre float64) *float64 {
	run := 0
	for i := first; i < len(periods); i++ {
		if periods[i].ReadTput < RecoveryLevel*pre {
			run = 0
			continue
		}
		if run++; run == RecoveryPeriods {
			begin := start(periods, i-RecoveryPeriods+1)
			return ptr(metrics.Round3(max(begin-at, 0)))
		}
	}
	return nil
}

// serving returns the member (name, else host) that served the most routed
// reads in periods (the lower key on a tie) and its highest cache miss
// rate there; "" when no member served a read.
func serving(periods []results.Period) (string, *float64) {
	served := map[string]int64{}
	for _, p := range periods {
		for _, m := range p.Members {
			served[key(m)] += m.Served
		}
	}
	best := ""
	for k, n := range served {
		if n > 0 && (best == "" || n > served[best] || n == served[best] && k < best) {
			best = k
		}
	}
	if best == "" {
		return "", nil
	}
	var miss *float64
	for _, p := range periods {
		for _, m := range p.Members {
			if key(m) == best && m.CacheMissPct != nil && (miss == nil || *m.CacheMissPct > *miss) {
				miss = ptr(*m.CacheMissPct)
			}
		}
	}
	return best, miss
}

// key names a member: its name in a cluster decongestant started, else its
// host (as the report does).
func key(m results.Member) string {
	if m.Name != "" {
		return m.Name
	}
	return m.Host
}

func ptr(v float64) *float64 { return &v }
