package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/proxy"
	"github.com/decongestant/decongestant/reconfig"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// policyRun is one policy's run: the router, the clients, the probe, and
// what the periods accumulate.
type policyRun struct {
	o     *Options
	pol   balancer.Policy
	hints *hints.Config // nil: off
	// proxied: the workload's clients go through an in-process proxy
	// (px) whose router is rt.
	proxied bool
	px      *proxy.Server
	pxConn  *mongo.Client
	// prevHints are the hints' counters at the previous period end.
	prevHints hints.Stats
	label     string
	rt        *router.Router
	env       workload.Env
	rec       *recorder
	col       *collector
	conns     *connWatch
	ws        *workers
	probe     *probeRun
	stats     *memberStats // nil with Options.SkipMemberStats
	faults    *faults.Runner
	runtime   *runtimeStats
	reads     *readCount
	reporter  workload.RunReporter
	stopWork  context.CancelFunc

	run     *results.Run
	st      runState
	start   time.Time
	clients int
	mix     string
	phases  []Phase
	prev    periodBase
	measure measureBase
	// readsBase and servedBase are the runner's and the router's counts of
	// routed reads just before the first client started.
	readsBase  readCounts
	servedBase int64
}

// periodBase holds the cumulative counters at the last period end.
type periodBase struct {
	at                time.Duration
	read, write       *metrics.Snapshot
	readErr, writeErr int64
	served            router.Served
	ops               map[string]workload.OpStats
	checkout          *metrics.Snapshot
	members           []router.MemberSnapshot
}

// measureBase is where the measured interval (after the warm-up) starts:
// the operation counts and the process's CPU time there; ops is nil until
// it has started.
type measureBase struct {
	ops map[string]workload.OpStats
	cpu time.Duration
}

// runPolicy runs one policy for the configured duration and returns its
// results; on cancellation the periods completed so far.
func runPolicy(ctx context.Context, o *Options, pol balancer.Policy, proxied bool, h *hints.Config, rep int, label string) (*results.Run, error) {
	r := &policyRun{o: o, pol: pol, proxied: proxied, hints: h, label: label, rec: newRecorder(), conns: newConnWatch(),
		runtime: newRuntimeStats(), reads: &readCount{},
		run: &results.Run{Policy: runName(pol.Name(), proxied, h), Repetition: rep}, clients: o.Clients,
		mix: o.Generator.Mix(), phases: o.Phases, st: newRunState(o.Warmup)}
	defer r.close()
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	if err := r.begin(ctx); err != nil {
		return nil, err
	}
	return r.finish(ctx, r.loop(ctx))
}

// connect starts the run's router (with its collector and connection watch)
// and the S probe.
func (r *policyRun) connect(ctx context.Context) error {
	o := r.o
	r.col = &collector{start: time.Now(), bound: o.Settings.Decongestant.Bound, headroom: o.Settings.Decongestant.Headroom,
		decisions: decisionClock{iv: r.pol.Interval()}}
	onEvent := r.col.onEvent
	if o.OnEvent != nil {
		onEvent = func(e router.Event) {
			r.col.onEvent(e)
			o.OnEvent(r.run.Policy, e)
		}
	}
	poolOpts := options.Client().SetWriteConcern(o.WriteConcern).
		SetPoolMonitor(r.conns.monitor()).SetMonitor(r.reads.monitor(userMonitor(o.ClientOptions)))
	if n, ok := o.poolSize(); ok {
		poolOpts.SetMaxPoolSize(n)
	}
	ropts := []router.Option{router.WithPolicy(r.pol), router.WithEvents(onEvent),
		router.WithConnectTimeout(o.ConnectTimeout), router.WithRTTQuantile(o.RTTQuantile), router.WithLatencySource(o.Latency),
		router.WithMonitor(o.Monitor), router.WithReadYourWrites(o.ReadYourWrites)}
	if r.proxied {
		return r.connectProxied(ctx, ropts, poolOpts)
	}
	ropts = append(ropts, router.WithClientOptions(append(o.ClientOptions, poolOpts)...))
	if r.hints != nil {
		ropts = append(ropts, router.WithHints(*r.hints))
	}
	rt, err := router.Connect(ctx, o.URI, ropts...)
	if err != nil {
		return err
	}
	r.rt = rt
	if o.OnRouter != nil {
		o.OnRouter(r.run.Policy, rt)
	}
	fmt.Fprintf(o.Progress, "  [%s] lag source: %s (%s)\n", r.label, rt.LagSource(), rt.LagSourceReason())
	r.env = workload.Env{DB: rt.Client().Database(o.Database), Reads: routedReads{rt, o.Database, rt.Database(o.Database), r.reads}}
	r.probe, err = startProbe(ctx, o, rt)
	return err
}

// begin starts the workload's run report and the clients. The measured
// interval starts at the first period boundary at or after the warm-up (at
// once without one).
func (r *policyRun) begin(ctx context.Context) error {
	r.reporter, _ = r.o.Generator.(workload.RunReporter)
	if r.reporter != nil {
		if err := r.reporter.BeginRun(ctx, r.env); err != nil {
			return err
		}
	}
	workCtx, stop := context.WithCancel(ctx)
	r.stopWork = stop
	r.ws = &workers{ctx: workCtx, gen: r.o.Generator, env: r.env, rec: r.rec, limit: newRateLimit(r.o.Rate)}
	r.start = time.Now()
	r.col.setStart(r.start, measureStart(r.o.Warmup, r.o.Period), r.o.Duration)
	if !r.o.SkipMemberStats {
		var memory func(int64) *float64
		if r.o.target != nil {
			memory = localCgroups.mb
		}
		r.stats = newMemberStats(r.o, memory, failedEvent(r.col, r.start))
		r.stats.poll(-1, pollHosts(r.rt.Members(), r.rt.Lag()))
	}
	if r.o.Warmup == 0 {
		r.startMeasure(ctx)
		r.measure.ops = r.rec.opsSnapshot()
	}
	r.readsBase, r.servedBase = r.reads.snapshot(), r.rt.Served().Total()
	if err := r.ws.resize(r.clients); err != nil {
		return err
	}
	served, members := r.rt.Counts()
	r.prev = periodBase{read: r.rec.read.Snapshot(), write: r.rec.write.Snapshot(), served: served,
		ops: r.rec.opsSnapshot(), checkout: r.conns.checkout.Snapshot(), members: members}
	r.faults = faults.Start(ctx, r.o.target, len(steps(r.phases)), r.start, r.col.event, r.o.Progress, r.label)
	return nil
}

// measureStart is where the measured interval starts: the first period
// boundary at or after the warm-up.
func measureStart(warmup, period time.Duration) time.Duration {
	return (warmup + period - 1) / period * period
}

// startMeasure takes the measured interval's baselines that are not
// operation counts: the reporter's (server counters) just before the
// client's CPU time, so the server's interval contains the client's.
func (r *policyRun) startMeasure(ctx context.Context) {
	if r.reporter != nil {
		r.reporter.StartMeasure(ctx, r.env)
	}
	r.measure.cpu = cpuTime()
}

// loop runs until the duration has passed or ctx is done, switching phases
// and ending periods on a 20 ms tick.
func (r *policyRun) loop(ctx context.Context) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		now := time.Since(r.start)
		if err := r.applyPhases(now); err != nil {
			return err
		}
		if now >= r.o.Duration {
			r.endPeriod(ctx, r.o.Duration)
			return nil
		}
		if now-r.prev.at >= r.o.Period {
			r.endPeriod(ctx, r.prev.at+r.o.Period)
		}
	}
}

// applyPhases switches the mix and the client count of every phase due,
// and hands its fault actions to their own goroutine.
func (r *policyRun) applyPhases(now time.Duration) error {
	for len(r.phases) > 0 && now >= r.phases[0].At {
		ph := r.phases[0]
		r.phases = r.phases[1:]
		r.faults.Enqueue(ph.Actions)
		var parts []string
		if ph.Mix != "" && ph.Mix != r.mix {
			if err := r.o.Generator.SetMix(ph.Mix); err != nil {
				return err
			}
			r.mix = r.o.Generator.Mix()
			if err := r.ws.restart(); err != nil {
				return err
			}
			parts = append(parts, "workload="+r.mix)
		}
		if ph.ReadOffset != nil {
			if err := r.o.Generator.(workload.ReadWindowed).SetReadOffset(*ph.ReadOffset); err != nil {
				return err
			}
			if err := r.ws.restart(); err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("readoffset=%d", *ph.ReadOffset))
		}
		if ph.Clients > 0 && ph.Clients != r.clients {
			r.clients = ph.Clients
			if err := r.ws.resize(r.clients); err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("clients=%d", r.clients))
		}
		if ph.Rate != nil {
			r.ws.limit.set(*ph.Rate)
			parts = append(parts, "rate="+formatRate(*ph.Rate))
		}
		if ph.Reads != "" {
			if err := r.rt.Reweight(ph.Reads + "=1"); err != nil {
				return err
			}
			parts = append(parts, "reads="+ph.Reads)
		}
		if len(parts) > 0 {
			r.col.event(now.Seconds(), "phase", strings.Join(parts, ","))
			fmt.Fprintf(r.o.Progress, "  [%s] t=%4.0fs phase: %s\n", r.label, now.Seconds(), strings.Join(parts, ","))
		}
	}
	return nil
}

// endPeriod closes the period that ends at now (since the run's start).
func (r *policyRun) endPeriod(ctx context.Context, now time.Duration) {
	starts := r.measure.ops == nil && now >= r.o.Warmup
	if starts {
		r.startMeasure(ctx)
	}
	served, members := r.rt.Counts()
	cur := periodBase{at: now, read: r.rec.read.Snapshot(), write: r.rec.write.Snapshot(),
		readErr: r.rec.readErr.Load(), writeErr: r.rec.writeErr.Load(), served: served,
		ops: r.rec.opsSnapshot(), checkout: r.conns.checkout.Snapshot(), members: members}
	if starts {
		r.measure.ops = cur.ops
	}
	r.stats.poll(len(r.run.Periods), pollHosts(cur.members, r.rt.Lag()))
	per, readSnap := r.period(cur)
	var samples []sprobe.Sample
	if r.probe != nil {
		samples = r.probe.drain(now >= r.o.Duration)
		probePeriod(&per, samples, r.o.Settings.Decongestant.Bound, &r.st, r.start, r.col)
	}
	r.run.Periods = append(r.run.Periods, per)
	r.st.add(r.prev.at, readSnap, samples, jsonSize(per)+r.col.takeEventBytes()+r.stats.takeBytes())
	r.prev = cur
	fmt.Fprint(r.o.Progress, progressLine(r.label, per, r.o.RuntimeStats))
	if r.o.OnPeriod != nil {
		r.o.OnPeriod(ctx, r.run.Policy, per, r.rt)
	}
}

// progressLine is a period's line of progress, with the process's heap and
// goroutines when runtime is set.
func progressLine(label string, per results.Period, runtime bool) string {
	line := fmt.Sprintf("  [%s] t=%4.0fs reads %8.0f/s p80 %6.2fms  secondary %5.1f%%  fraction %.2f  lag %6.0fms  stale p80 %5.0fms",
		label, per.TS, per.ReadTput, per.ReadP80MS, per.SecondaryPct, per.BalanceFraction, per.MaxLagMS, per.SProbeStalenessP80MS)
	if runtime {
		line += fmt.Sprintf("  heap %6.1fMB live %6.1fMB  goroutines %5d", per.HeapMB, per.HeapLiveMB, per.Goroutines)
	}
	return line + "\n"
}

// period computes a period's results from the counters at its end and at
// its start (r.prev), and returns its read histogram for the aggregates.
func (r *policyRun) period(cur periodBase) (results.Period, *metrics.Snapshot) {
	length := (cur.at - r.prev.at).Seconds()
	rd, wd := cur.read.Sub(r.prev.read), cur.write.Sub(r.prev.write)
	sd := cur.served.Sub(r.prev.served)
	frac, ratio, maxLag := r.col.take(r.rt.Fraction())
	ms := func(d time.Duration) float64 { return metrics.Round3(metrics.MS(d)) }
	per := results.Period{
		TS: metrics.Round3(cur.at.Seconds()), ReadOps: int64(rd.Count()), WriteOps: int64(wd.Count()),
		ReadErrors: cur.readErr - r.prev.readErr, WriteErrors: cur.writeErr - r.prev.writeErr,
		ReadTput: metrics.Round3(float64(rd.Count()) / length), WriteTput: metrics.Round3(float64(wd.Count()) / length),
		SecondaryPct: metrics.Round3(sd.SecondaryPct()), BalanceFraction: metrics.Round3(frac), Ratio: ratio,
		MaxLagMS: ms(maxLag), Clients: r.clients, Mix: r.mix, ServedBy: sd.ByHost,
		ConnsOpened: r.conns.take(), CheckoutP99MS: ms(cur.checkout.Sub(r.prev.checkout).Quantile(0.99)),
	}
	readLatencies(&per, rd)
	rf := r.runtime.read()
	per.HeapMB, per.HeapLiveMB, per.Goroutines = rf.heapMB, rf.heapLiveMB, rf.goroutines
	w, perMember := r.rt.Weights()
	per.Members = memberPeriods(cur.members, r.prev.members, r.rt.Lag(), w, perMember)
	if hs, ok := r.rt.Hints(); ok {
		per.Members = addHints(per.Members, hs, r.prevHints)
		r.prevHints = hs
	}
	for name, c := range subOps(cur.ops, r.prev.ops) {
		if c.Count > 0 {
			if per.Ops == nil {
				per.Ops = map[string]int64{}
			}
			per.Ops[name] = c.Count
		}
	}
	return per, rd
}

// finish stops the clients, restores the cluster after fault actions, and
// completes the run's results: the members' server counters, events,
// summary and reconfigurations, minutes, the measured operations, the
// workload's report and the probe's extras.
func (r *policyRun) finish(ctx context.Context, runErr error) (*results.Run, error) {
	r.ws.stop()
	r.stopWork()
	reads := readsCheck(r.reads.snapshot().sub(r.readsBase), r.rt.Served().Total()-r.servedBase)
	if err := r.faults.Finish(ctx); err != nil && runErr == nil {
		runErr = err
	}
	run := r.run
	for i, recs := range r.stats.close() {
		if i < len(run.Periods) {
			slices.SortFunc(recs, func(a, b results.Member) int { return strings.Compare(a.Host, b.Host) })
			run.Periods[i].Members = withServer(run.Periods[i].Members, recs)
		}
	}
	run.Events = r.col.takeEvents()
	run.Summary = summarise(run.Periods, &r.st)
	run.Summary.Reconfigurations = reconfig.Run(run.Periods, r.o.reconfigTimes())
	run.Summary.LagSource = r.rt.LagSource().String()
	run.Summary.ReadsCheck = &reads
	if ryw := r.rt.ReadYourWrites(); ryw.Reads > 0 {
		run.Summary.ReadYourWrites = &results.ReadYourWrites{Reads: ryw.Reads, Held: ryw.Held,
			HeldPct: metrics.Round3(100 * float64(ryw.Held) / float64(ryw.Reads))}
	}
	run.Summary.Decisions = r.col.takeDecisions()
	run.Minutes = minutes(run.Periods, &r.st)
	var measured map[string]workload.OpStats
	if r.measure.ops != nil {
		// Operations that ended after the last period boundary (while the
		// clients stopped) are outside every period: the final boundary's
		// counts end the measured interval, not a fresh snapshot.
		measured = subOps(r.prev.ops, r.measure.ops)
		cpu := (cpuTime() - r.measure.cpu).Seconds()
		run.Summary.ClientCPUS = metrics.Round3(cpu)
		if n := run.Summary.ReadOps + run.Summary.WriteOps; n > 0 {
			run.Summary.ClientCPUPerOpMS = metrics.Round3(1000 * cpu / float64(n))
		}
	}
	run.Extra = map[string]any{"ops": opSummary(measured)}
	if r.reporter != nil && ctx.Err() == nil {
		key, val, err := r.reporter.EndRun(ctx, r.env, workload.RunStats{MeasuredS: run.Summary.MeasuredS,
			ClientCPUS: run.Summary.ClientCPUS, Ops: measured})
		if err != nil && runErr == nil {
			runErr = err
		}
		if key != "" {
			run.Extra[key] = val
		}
	}
	r.probe.extra(run.Extra)
	if s, ok := r.rec.lastErr.Load().(string); ok {
		run.Extra["last_error"] = redact.URI(r.o.URI) + ": " + s
	}
	return run, runErr
}

// close releases whatever the run started, also when it failed early.
func (r *policyRun) close() {
	if r.stopWork != nil {
		r.stopWork()
		r.ws.stop()
	}
	r.probe.stop()
	r.stats.close()
	if r.rt != nil {
		if r.o.OnRouter != nil {
			r.o.OnRouter(r.run.Policy, nil)
		}
		r.rt.Close(context.Background())
	}
	r.closeProxy()
}
