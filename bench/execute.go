// Package bench runs workloads against a replica set under each routing
// policy in turn, on the same data, optionally at several client counts
// (Options.Sweep), and records per-period results (package results).
//
//	specs, _ := balancer.ParseSpecs("primary,secondary,decongestant", settings)
//	res, err := bench.Execute(ctx, bench.Options{URI: uri, Generator: gen, Clients: 64,
//		Duration: 2 * time.Minute, Period: 10 * time.Second, Policies: specs, Settings: settings})
//
// The files follow the work: options.go (validation), execute.go (the
// invocation), preflight.go (server check and load), run.go (one policy's
// run: its loop and periods), workers.go (the closed-loop clients),
// recorder.go (timing every operation), collector.go (router events),
// aggregate.go (minutes and summaries), connwatch.go (connection pools),
// reads.go (routed reads for workloads), sweep.go (client-count sweeps:
// --clients 20,60,..., the order of the runs), phases.go (parsing; the fault
// actions and restoring the cluster after a run are package faults'),
// memberstats.go (each member's server counters per period: serverStatus
// over a direct connection at every period end), cgroupmem.go (a local
// member's memory cgroup) and cpu.go; for soak runs, runtimestats.go (the
// process's heap and goroutines per period) and soak.go (their verdict),
// readscheck.go (the clients' routed reads against the router's count) and
// decisions.go (how punctually a policy decided). Each run's summary
// measures its reconfigurations with package reconfig.
package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// Execute loads the workload (unless SkipLoad) and runs it under every policy,
// Repeat times, at every client count of a Sweep (see Options.plan for the
// order), returning the results. On cancellation it returns the results so
// far with ErrInterrupted.
func Execute(ctx context.Context, o Options) (*results.Results, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	res := newResults(&o)
	if err := prepare(ctx, &o, res); err != nil {
		return nil, err
	}
	initialMix := o.Generator.Mix()
	plan := o.plan()
	for i, p := range plan {
		fmt.Fprintf(o.Progress, "run %d/%d: policy %s%s%s for %v\n", i+1, len(plan), p.name(),
			clientsLabel(p.clients, o.sweeping()), repLabel(p.rep, o.Repeat), o.Duration)
		if err := o.Generator.SetMix(initialMix); err != nil {
			return res, err
		}
		if w, ok := o.Generator.(workload.ReadWindowed); ok { // every run starts on the first window
			if err := w.SetReadOffset(0); err != nil {
				return res, err
			}
		}
		if o.ColdStart {
			if err := coldStart(ctx, &o); err != nil {
				return res, writeOut(&o, res, err)
			}
		}
		run, err := runPolicy(ctx, p.options(&o), p.spec.New(), p.proxied, p.hints, p.rep, p.label(i+1, len(plan), o.sweeping()))
		if run != nil {
			if o.sweeping() {
				run.Clients = p.clients
			}
			res.Runs = append(res.Runs, *run)
		}
		if ctx.Err() != nil {
			res.Interrupted = true
			return res, writeOut(&o, res, ErrInterrupted)
		}
		if err != nil {
			return res, writeOut(&o, res, fmt.Errorf("policy %s%s: %w", p.name(), clientsLabel(p.clients, o.sweeping()), err))
		}
		if err := writeOut(&o, res, nil); err != nil {
			return res, err
		}
	}
	return res, nil
}

// newResults records the invocation's settings (the URI redacted).
func newResults(o *Options) *results.Results {
	records := o.Records
	if sized, ok := o.Generator.(workload.Sized); ok && records == 0 {
		records = sized.Records()
	}
	res := &results.Results{Workload: o.Generator.Name(), Config: results.Config{
		URI: redact.URI(o.URI), Workload: o.Generator.Name(), Mix: o.Generator.Mix(),
		Records: records, Clients: o.Clients, ClientsSweep: o.Sweep, RatePerS: o.Rate, DurationS: o.Duration.Seconds(),
		PeriodS: o.Period.Seconds(), WarmupS: o.Warmup.Seconds(), Repeat: o.Repeat,
		Policies: o.specNames(), SProbe: o.SProbe, ReadYourWrites: o.ReadYourWrites, WriteConcern: wcString(o.WriteConcern), StartedAt: time.Now().UTC().Format(time.RFC3339),
		Balancer: balancerConfig(o),
		Host:     map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU()},
	}}
	if o.sweeping() {
		res.Config.Clients = o.Sweep[0]
	}
	if o.SProbe {
		write, probe := o.Probe.WriteInterval, o.Probe.ProbeInterval
		if write <= 0 {
			write = sprobe.DefaultWriteInterval
		}
		if probe <= 0 {
			probe = sprobe.DefaultProbeInterval
		}
		res.Config.SProbeWriteMS, res.Config.SProbeIntervalMS = metrics.MS(write), metrics.MS(probe)
	}
	if d, ok := o.Generator.(workload.Described); ok {
		res.Config.WorkloadSettings = d.Settings()
	}
	if bound := o.Settings.Decongestant.Bound; !bound.Unbounded {
		v := metrics.MS(bound.Max)
		res.Config.MaxStalenessMS = &v
	}
	res.Config.Phases = phaseSpecs(o.Phases)
	res.Config.ReconfigAtS = o.reconfigAtS()
	return res
}

func wcString(wc *writeconcern.WriteConcern) string {
	if wc.W == nil {
		return "default"
	}
	return fmt.Sprint(wc.W)
}

func repLabel(rep, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(" (repetition %d/%d)", rep+1, n)
}

func writeOut(o *Options, res *results.Results, cause error) error {
	if o.Out == "" {
		return cause
	}
	if err := res.WriteJSONPath(o.Out); err != nil {
		return errors.Join(cause, fmt.Errorf("write results %s: %w", o.Out, err))
	}
	return cause
}

func balancerConfig(o *Options) map[string]any {
	s := o.Settings
	d := s.Decongestant
	var headroom any = "auto"
	if d.Headroom != balancer.AutoHeadroom {
		headroom = d.Headroom.Seconds()
	}
	est, src := o.Monitor.LagEstimate, o.Monitor.LagSource
	if est == 0 {
		est = monitor.SinceApplied
	}
	if src == 0 {
		src = monitor.SourceAuto
	}
	return map[string]any{"rtt_quantile": o.RTTQuantile, "latency_source": o.Latency.String(),
		"interval_s": d.Interval.Seconds(), "delta": d.Delta, "low_bal": d.LowBal, "high_bal": d.HighBal,
		"low_ratio": d.LowRatio, "high_ratio": d.HighRatio, "history": d.History,
		"min_samples": d.MinSamples, "bound": d.Bound.String(), "headroom_s": headroom,
		"lag_interval_s": o.Monitor.LagInterval.Seconds(), "lag_estimate": est.String(), "lag_source": src.String(),
		"heartbeat_ns":   o.Monitor.Heartbeat.String(),
		"rpm_interval_s": s.RPM.Interval.Seconds(), "rpm_exploration": s.RPM.Exploration,
		"rpm_threshold": s.RPM.Threshold,
	}
}
