package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// maxViolationEvents caps the stale-read events of a run (the count is in
// the summary).
const maxViolationEvents = 20

// probeRun is one run's S probe (nil when the run has none).
type probeRun struct {
	p       *sprobe.Probe
	stopped bool
	// What the probe reported when it stopped.
	lostWrites int
	errs       int64
	lastErr    error
}

func startProbe(ctx context.Context, o *Options, rt sprobe.Policy) (*probeRun, error) {
	if !o.SProbe {
		return nil, nil
	}
	pc := o.Probe
	if pc.Database == "" {
		// The workload's database: a user allowed to write only there
		// (readWrite on it, as the local cluster's --auth app user) can
		// run the probe too.
		pc.Database = o.Database
	}
	pc.ClientOptions = append(pc.ClientOptions, o.ClientOptions...)
	p, err := sprobe.Start(ctx, o.URI, rt, pc)
	if err != nil {
		return nil, err
	}
	return &probeRun{p: p}, nil
}

// drain returns the probes judged since the last call; final stops the
// probe first so that every probe taken is judged (see sprobe.Probe.Drain).
func (pr *probeRun) drain(final bool) []sprobe.Sample {
	if final {
		pr.stop()
	}
	return pr.p.Drain()
}

// stop stops the probe once and keeps what it reported.
func (pr *probeRun) stop() {
	if pr == nil || pr.stopped {
		return
	}
	pr.p.Stop()
	pr.stopped = true
	pr.lostWrites = pr.p.LostWrites()
	pr.errs, pr.lastErr = pr.p.Errors()
}

// extra adds the probe's errors and lost writes to a run's extra results.
func (pr *probeRun) extra(m map[string]any) {
	if pr == nil {
		return
	}
	pr.stop()
	if pr.errs > 0 {
		m["sprobe_errors"] = pr.errs
		m["sprobe_last_error"] = pr.lastErr.Error()
	}
	if pr.lostWrites > 0 {
		m["sprobe_lost_writes"] = pr.lostWrites
	}
}

// probePeriod fills a period's S-probe fields from its samples, counts the
// violations of the bound, and reports each (up to maxViolationEvents) as a
// stale-read event at its time since the run's start.
func probePeriod(per *results.Period, samples []sprobe.Sample, bound balancer.Bound, st *runState, start time.Time, col *collector) {
	per.SProbeProbes = int64(len(samples))
	stal := make([]time.Duration, len(samples))
	var gap time.Duration
	for i, s := range samples {
		stal[i] = s.Staleness
		if s.Secondary {
			per.SProbeSecondaryProbes++
		}
		gap = max(gap, s.ValueGap)
		if !violates(s, bound) {
			continue
		}
		st.violations++
		if st.violations <= maxViolationEvents {
			col.event(s.At.Sub(start).Seconds(), "stale-read", fmt.Sprintf(
				"S-probe read served by %s was %v stale (bound %v; the Decongestant paper's value gap %v)",
				s.Host, s.Staleness.Round(time.Millisecond), bound, s.ValueGap.Round(time.Millisecond)))
		}
	}
	per.SProbeStalenessP80MS = metrics.Round3(metrics.MS(metrics.Quantile(stal, 0.8)))
	per.SProbeStalenessMaxMS = metrics.Round3(metrics.MS(metrics.Quantile(stal, 1)))
	per.SProbeValueGapMaxMS = metrics.Round3(metrics.MS(gap))
}
