// Package bench runs workloads against a replica set under each routing
// policy in turn, on the same data, and records per-period results.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// ErrInterrupted is returned when the context is cancelled mid-run; the
// results returned alongside hold every completed period.
var ErrInterrupted = errors.New("interrupted")

// ErrBadOptions wraps option validation errors.
var ErrBadOptions = errors.New("invalid bench options")

// Options configure a bench invocation.
type Options struct {
	URI       string
	Database  string
	Generator workload.Generator
	// Records is recorded in the results' config (the workload's size).
	Records  int64
	Clients  int
	Duration time.Duration
	Period   time.Duration
	Warmup   time.Duration
	Repeat   int
	Policies []string
	Settings balancer.Settings
	SProbe   bool
	Probe    sprobe.Config
	Phases   []Phase
	SkipLoad bool
	// LoadParallel is the loader's parallelism (default 2 x GOMAXPROCS).
	LoadParallel int
	Monitor      monitor.Config
	// RTTQuantile picks the RTT estimate from each period's pings (0 = the
	// minimum, 0.5 = seed 000's median); see router.WithRTTQuantile.
	RTTQuantile float64
	// Latency is the latency source the policies see (default
	// router.CommandLatency); see router.WithLatencySource.
	Latency router.LatencySource
	// Progress receives human-readable progress lines; nil discards them.
	Progress io.Writer
	// Out, when set, receives the results (atomically) after every run, so
	// an interruption keeps what was completed.
	Out string
	// WriteConcern of the workload's writes during runs (default w:1, as
	// MongoDB 4.2 in seed 000 and YCSB's binding; MongoDB 5.0+ defaults to
	// majority, under which writes stall while secondaries lag). Loading
	// always uses majority so every member holds the data before a run.
	WriteConcern *writeconcern.WriteConcern
	// ConnectTimeout bounds how long the runner waits for the servers to
	// answer before it reports them unreachable (default 15 s).
	ConnectTimeout time.Duration
	ClientOptions  []*options.ClientOptions
	// OnPeriod is called after each period with the run's router; tests
	// and experiments use it to act mid-run. It runs on the runner's
	// goroutine.
	OnPeriod func(ctx context.Context, policy string, p results.Period, r *router.Router)
	// OnEvent, when set, also receives every router event (lag polls,
	// period decisions) of every run, on the router's goroutines; it must
	// return quickly (see router.WithEvents).
	OnEvent func(policy string, e router.Event)
}

func (o *Options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case o.URI == "":
		return bad("--uri is required")
	case o.Generator == nil:
		return bad("no workload")
	case o.Clients < 1:
		return bad("clients %d must be at least 1", o.Clients)
	case o.Duration <= 0:
		return bad("duration %v must be positive", o.Duration)
	case o.Period <= 0:
		return bad("period %v must be positive", o.Period)
	case o.Period > o.Duration:
		return bad("period %v is longer than the duration %v", o.Period, o.Duration)
	case o.Warmup < 0:
		return bad("warmup %v must not be negative", o.Warmup)
	case o.Warmup >= o.Duration:
		return bad("warmup %v must be shorter than the duration %v", o.Warmup, o.Duration)
	case o.Repeat < 0:
		return bad("repeat %d must not be negative", o.Repeat)
	case len(o.Policies) == 0:
		return bad("no policies")
	}
	for _, ph := range o.Phases {
		if ph.At >= o.Duration {
			return bad("phase at %v starts after the run ends (%v)", ph.At, o.Duration)
		}
	}
	for _, p := range o.Policies {
		if _, err := balancer.Parse(p, o.Settings); err != nil {
			return err
		}
	}
	if o.Repeat == 0 {
		o.Repeat = 1
	}
	if o.Database == "" {
		o.Database = o.Generator.Name()
	}
	if o.LoadParallel <= 0 {
		o.LoadParallel = 2 * runtime.GOMAXPROCS(0)
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 15 * time.Second
	}
	if o.WriteConcern == nil {
		o.WriteConcern = &writeconcern.WriteConcern{W: 1}
	}
	if o.Latency == 0 {
		o.Latency = router.CommandLatency
	}
	if o.Monitor.LagInterval == 0 {
		o.Monitor.LagInterval = balancer.LagIntervalFor(o.Settings.Decongestant.Bound)
	}
	for _, spec := range o.Policies {
		p, _ := balancer.Parse(spec, o.Settings)
		if b, ok := p.(balancer.Bounded); ok {
			if err := b.CheckLagInterval(o.Monitor.LagInterval); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrBadOptions, spec, err)
			}
		}
	}
	return nil
}

func (o *Options) maxClients() int {
	n := o.Clients
	for _, ph := range o.Phases {
		n = max(n, ph.Clients)
	}
	return n
}

// Execute loads the workload (unless SkipLoad) and runs it under every policy,
// Repeat times, returning the results. On cancellation it returns the
// results so far with ErrInterrupted.
func Execute(ctx context.Context, o Options) (*results.Results, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	bound := o.Settings.Decongestant.Bound
	res := &results.Results{Workload: o.Generator.Name(), Config: results.Config{
		URI: redact.URI(o.URI), Workload: o.Generator.Name(), Mix: o.Generator.Mix(),
		Records: o.Records, Clients: o.Clients, DurationS: o.Duration.Seconds(),
		PeriodS: o.Period.Seconds(), WarmupS: o.Warmup.Seconds(), Repeat: o.Repeat,
		Policies: o.Policies, SProbe: o.SProbe, WriteConcern: wcString(o.WriteConcern), StartedAt: time.Now().UTC().Format(time.RFC3339),
		Balancer: balancerConfig(&o),
		Host:     map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU()},
	}}
	if !bound.Unbounded {
		v := metrics.MS(bound.Max)
		res.Config.MaxStalenessMS = &v
	}
	for _, ph := range o.Phases {
		res.Config.Phases = append(res.Config.Phases, results.PhaseSpec{AtS: ph.At.Seconds(), Workload: ph.Mix, Clients: ph.Clients})
	}
	if err := prepare(ctx, &o, res); err != nil {
		return nil, err
	}
	initialMix := o.Generator.Mix()
	total := o.Repeat * len(o.Policies)
	for rep := range o.Repeat {
		for i, spec := range o.Policies {
			n := rep*len(o.Policies) + i + 1
			fmt.Fprintf(o.Progress, "run %d/%d: policy %s%s for %v\n", n, total, spec, repLabel(rep, o.Repeat), o.Duration)
			if err := o.Generator.SetMix(initialMix); err != nil {
				return res, err
			}
			run, err := runPolicy(ctx, &o, spec, rep, fmt.Sprintf("%d/%d %s", n, total, spec))
			if run != nil {
				res.Runs = append(res.Runs, *run)
			}
			if ctx.Err() != nil {
				res.Interrupted = true
				return res, writeOut(&o, res, ErrInterrupted)
			}
			if err != nil {
				return res, writeOut(&o, res, fmt.Errorf("policy %s: %w", spec, err))
			}
			if err := writeOut(&o, res, nil); err != nil {
				return res, err
			}
		}
	}
	return res, nil
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
	est := o.Monitor.LagEstimate
	if est == 0 {
		est = monitor.SinceApplied
	}
	return map[string]any{"rtt_quantile": o.RTTQuantile, "latency_source": o.Latency.String(),
		"interval_s": d.Interval.Seconds(), "delta": d.Delta, "low_bal": d.LowBal, "high_bal": d.HighBal,
		"low_ratio": d.LowRatio, "high_ratio": d.HighRatio, "history": d.History,
		"min_samples": d.MinSamples, "bound": d.Bound.String(), "headroom_s": headroom,
		"lag_interval_s": o.Monitor.LagInterval.Seconds(), "lag_estimate": est.String(),
		"rpm_interval_s": s.RPM.Interval.Seconds(), "rpm_exploration": s.RPM.Exploration,
		"rpm_threshold": s.RPM.Threshold,
	}
}

// prepare checks the server and loads the data.
func prepare(ctx context.Context, o *Options, res *results.Results) error {
	co := append([]*options.ClientOptions{options.Client().ApplyURI(o.URI).
		SetReadPreference(readpref.Primary())}, o.ClientOptions...)
	co = append(co, options.Client().SetWriteConcern(writeconcern.Majority()))
	client, err := mongo.Connect(co...)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact.URI(o.URI), err)
	}
	defer client.Disconnect(context.Background())
	if err := monitor.CheckReplicaSet(ctx, client, o.URI, o.ConnectTimeout); err != nil {
		return err
	}
	var info struct {
		Version string `bson:"version"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&info); err != nil {
		return fmt.Errorf("buildInfo on %s: %w", redact.URI(o.URI), err)
	}
	res.Config.Host["server_version"] = info.Version
	if o.SkipLoad {
		fmt.Fprintf(o.Progress, "load: skipped\n")
		return nil
	}
	env := workload.Env{DB: client.Database(o.Database), Reads: workload.PlainReads{DB: client.Database(o.Database)}}
	start := time.Now()
	p := &loadProgress{w: o.Progress}
	if err := o.Generator.Load(ctx, env, o.LoadParallel, p.report); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	fmt.Fprintf(o.Progress, "load: done in %.1fs\n", time.Since(start).Seconds())
	res.Config.Extra = map[string]string{"load_s": fmt.Sprintf("%.1f", time.Since(start).Seconds())}
	return nil
}

type loadProgress struct {
	w    io.Writer
	mu   sync.Mutex
	last time.Time
	done int64
	tot  int64
}

// LoadProgress returns a workload.Progress that prints "load: done/total
// (pct%)" lines to w, at most once a second and at the end.
func LoadProgress(w io.Writer) workload.Progress { return (&loadProgress{w: w}).report }

func (p *loadProgress) report(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.tot = max(p.done, done), total
	if time.Since(p.last) >= time.Second || done == total {
		p.last = time.Now()
		fmt.Fprintf(p.w, "load: %d/%d (%.0f%%)\n", p.done, total, 100*float64(p.done)/float64(max(total, 1)))
	}
}

// routedReads adapts a routed database to workload.Reads.
type routedReads struct {
	rt   *router.Router
	name string
	db   *router.Database
}

func (r routedReads) Collection(name string) workload.ReadCollection { return r.db.Collection(name) }

func (r routedReads) Begin(ctx context.Context) workload.Unit {
	rd := r.rt.Begin(ctx)
	return workload.Unit{Ctx: rd.Ctx, DB: rd.Database(r.name), Secondary: rd.Side == balancer.Secondary,
		Done: func(err error) { rd.Done(err) }}
}

// recorder times every operation by class and by name.
type recorder struct {
	read, write       *metrics.Histogram
	readErr, writeErr atomic.Int64
	mu                sync.RWMutex
	byOp              map[string]*opRecorder
	lastErr           atomic.Value // string
}

// opRecorder holds one operation name's measurements.
type opRecorder struct {
	hist                        *metrics.Histogram
	retries, rolledBack, errors atomic.Int64
}

func newRecorder() *recorder {
	return &recorder{read: metrics.NewHistogram(), write: metrics.NewHistogram(), byOp: map[string]*opRecorder{}}
}

func (r *recorder) op(name string) *opRecorder {
	r.mu.RLock()
	o, ok := r.byOp[name]
	r.mu.RUnlock()
	if ok {
		return o
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok = r.byOp[name]; !ok {
		o = &opRecorder{hist: metrics.NewHistogram()}
		r.byOp[name] = o
	}
	return o
}

func (r *recorder) record(op workload.Op, d time.Duration, err error) {
	name := op.Name
	if name == "" {
		name = "UNKNOWN"
	}
	o := r.op(name)
	if op.Retries > 0 {
		o.retries.Add(int64(op.Retries))
	}
	if err != nil {
		if op.Class == workload.Read {
			r.readErr.Add(1)
		} else {
			r.writeErr.Add(1)
		}
		o.errors.Add(1)
		r.lastErr.Store(err.Error())
		return
	}
	if op.Class == workload.Read {
		r.read.Record(d)
	} else {
		r.write.Record(d)
	}
	if op.RolledBack {
		o.rolledBack.Add(1)
	}
	o.hist.Record(d)
}

// opsSnapshot returns the cumulative measurements of every operation name.
func (r *recorder) opsSnapshot() map[string]workload.OpStats {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]workload.OpStats, len(r.byOp))
	for name, o := range r.byOp {
		h := o.hist.Snapshot()
		out[name] = workload.OpStats{Count: int64(h.Count()), Retries: o.retries.Load(),
			RolledBack: o.rolledBack.Load(), Errors: o.errors.Load(), Latency: h}
	}
	return out
}

// subOps returns cur - prev per operation name.
func subOps(cur, prev map[string]workload.OpStats) map[string]workload.OpStats {
	out := make(map[string]workload.OpStats, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			out[name] = c
			continue
		}
		out[name] = workload.OpStats{Count: c.Count - p.Count, Retries: c.Retries - p.Retries,
			RolledBack: c.RolledBack - p.RolledBack, Errors: c.Errors - p.Errors, Latency: c.Latency.Sub(p.Latency)}
	}
	return out
}

// pool runs closed-loop clients: one goroutine each.
type pool struct {
	ctx     context.Context
	gen     workload.Generator
	env     workload.Env
	rec     *recorder
	workers []context.CancelFunc
	nextID  int
	wg      sync.WaitGroup
}

func (p *pool) resize(n int) error {
	for len(p.workers) < n {
		w, err := p.gen.NewWorker(p.env, p.nextID)
		if err != nil {
			return err
		}
		p.nextID++
		ctx, cancel := context.WithCancel(p.ctx)
		p.workers = append(p.workers, cancel)
		p.wg.Add(1)
		go p.loop(ctx, w)
	}
	for len(p.workers) > n {
		p.workers[len(p.workers)-1]()
		p.workers = p.workers[:len(p.workers)-1]
	}
	return nil
}

func (p *pool) restart() error {
	n := len(p.workers)
	p.resize(0)
	return p.resize(n)
}

func (p *pool) stop() {
	p.resize(0)
	p.wg.Wait()
}

func (p *pool) loop(ctx context.Context, w workload.Worker) {
	defer p.wg.Done()
	if c, ok := w.(workload.Closer); ok {
		defer c.Close()
	}
	pacer, _ := w.(workload.Pacer)
	for ctx.Err() == nil {
		if pacer != nil {
			if d := pacer.Delay(); d > 0 && !sleep(ctx, d) {
				return
			}
		}
		start := time.Now()
		op, err := w.Do(ctx)
		d := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return // cancelled mid-operation: not a sample
		}
		p.rec.record(op, d, err)
		if err != nil {
			// Back off briefly so a failing server (an election) is not
			// hammered by a tight error loop.
			sleep(ctx, 10*time.Millisecond)
		}
	}
}

// sleep waits d or until ctx is done; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

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
	unknown  bool
}

func (c *collector) onEvent(e router.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := round3(e.At.Sub(c.start).Seconds())
	switch e.Kind {
	case router.EventLag:
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
	case router.EventPeriod:
		if !math.IsNaN(e.Decision.Ratio) && !math.IsInf(e.Decision.Ratio, 0) {
			r := round3(e.Decision.Ratio)
			c.ratio = &r
		}
		p, l := e.Period, e.Latencies
		us := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
		c.events = append(c.events, results.Event{TS: ts, Kind: "decision",
			Detail: fmt.Sprintf("%.2f -> %.2f %s: ratio %.2f; primary wire p50 %v client p50 %v rtt %v (%d reads); secondary wire p50 %v client p50 %v rtt %v (%d reads)",
				e.Previous, e.Fraction, e.Decision.Reason, e.Decision.Ratio,
				us(l.Primary.Command.P50), us(l.Primary.Client.P50), us(p.PrimaryRTT), l.Primary.Client.Count,
				us(l.Secondary.Command.P50), us(l.Secondary.Client.P50), us(p.SecondaryRTT), l.Secondary.Client.Count)})
	}
}

func (c *collector) event(ts float64, kind, detail string) {
	c.mu.Lock()
	c.events = append(c.events, results.Event{TS: round3(ts), Kind: kind, Detail: detail})
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

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// runState is what a run accumulates beyond its JSON periods.
type runState struct {
	readSnaps  []*metrics.Snapshot // per period
	probes     [][]sprobe.Sample   // per period
	violations int64
	starts     []time.Duration // period start offsets
	// The probe, kept after the last period stopped it, and what it
	// reported then.
	lastProbe  *sprobe.Probe
	lostWrites int
	probeErrs  int64
	probeErr   error
}

// maxViolationEvents caps the stale-read events of a run (the count is in
// the summary).
const maxViolationEvents = 20

func runPolicy(ctx context.Context, o *Options, spec string, rep int, label string) (*results.Run, error) {
	pol, err := balancer.Parse(spec, o.Settings)
	if err != nil {
		return nil, err
	}
	col := &collector{start: time.Now(), bound: o.Settings.Decongestant.Bound, headroom: o.Settings.Decongestant.Headroom}
	onEvent := col.onEvent
	if o.OnEvent != nil {
		onEvent = func(e router.Event) {
			col.onEvent(e)
			o.OnEvent(pol.Name(), e)
		}
	}
	pw := newPoolWatch()
	poolOpts := options.Client().SetMaxPoolSize(uint64(o.maxClients() + 16)).SetWriteConcern(o.WriteConcern).
		SetPoolMonitor(pw.monitor())
	rt, err := router.Connect(ctx, o.URI, router.WithPolicy(pol), router.WithEvents(onEvent),
		router.WithConnectTimeout(o.ConnectTimeout), router.WithRTTQuantile(o.RTTQuantile), router.WithLatencySource(o.Latency),
		router.WithMonitor(o.Monitor), router.WithClientOptions(append(o.ClientOptions, poolOpts)...))
	if err != nil {
		return nil, err
	}
	defer rt.Close(context.Background())
	env := workload.Env{DB: rt.Client().Database(o.Database), Reads: routedReads{rt, o.Database, rt.Database(o.Database)}}

	var probe *sprobe.Probe
	st := &runState{}
	if o.SProbe {
		pc := o.Probe
		pc.ClientOptions = append(pc.ClientOptions, o.ClientOptions...)
		if probe, err = sprobe.Start(ctx, o.URI, rt, pc); err != nil {
			return nil, err
		}
		st.lastProbe = probe
		defer func() {
			if probe != nil {
				probe.Stop()
			}
		}()
	}

	rec := newRecorder()
	reporter, _ := o.Generator.(workload.RunReporter)
	if reporter != nil {
		if err := reporter.BeginRun(ctx, env); err != nil {
			return nil, err
		}
	}
	runCtx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	p := &pool{ctx: runCtx, gen: o.Generator, env: env, rec: rec}
	defer p.stop()

	run := &results.Run{Policy: pol.Name(), Repetition: rep}
	bound := o.Settings.Decongestant.Bound
	clients, mix := o.Clients, o.Generator.Mix()
	start := time.Now()
	col.mu.Lock()
	col.start = start
	col.mu.Unlock()
	// The measured interval starts at the first period boundary at or after
	// the warm-up; its baseline operation counts and CPU time are taken
	// there. The reporter's baseline (server counters) is taken just before
	// the client's, and its end after the clients stopped, so the server's
	// interval contains the client's.
	var baseOps map[string]workload.OpStats
	var baseCPU time.Duration
	measureStarts := func() {
		if reporter != nil {
			reporter.StartMeasure(ctx, env)
		}
		baseCPU = cpuTime()
	}
	if o.Warmup == 0 {
		measureStarts()
		baseOps = rec.opsSnapshot()
	}
	if err := p.resize(clients); err != nil {
		return nil, err
	}

	phases := o.Phases
	prevRead := rec.read.Snapshot()
	prevWrite := rec.write.Snapshot()
	prevReadErr, prevWriteErr := int64(0), int64(0)
	prevServed := rt.Served()
	prevOps := rec.opsSnapshot()
	prevCheckout := pw.checkout.Snapshot()
	periodStart := time.Duration(0)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()

	endPeriod := func(now time.Duration) {
		starts := baseOps == nil && now >= o.Warmup
		if starts {
			measureStarts()
		}
		length := (now - periodStart).Seconds()
		readSnap := rec.read.Snapshot()
		writeSnap := rec.write.Snapshot()
		rd, wd := readSnap.Sub(prevRead), writeSnap.Sub(prevWrite)
		served := rt.Served()
		sd := served.Sub(prevServed)
		re, we := rec.readErr.Load(), rec.writeErr.Load()
		frac, ratio, maxLag := col.take(rt.Fraction())
		per := results.Period{
			TS: round3(now.Seconds()), ReadOps: int64(rd.Count()), WriteOps: int64(wd.Count()),
			ReadErrors: re - prevReadErr, WriteErrors: we - prevWriteErr,
			ReadTput: round3(float64(rd.Count()) / length), WriteTput: round3(float64(wd.Count()) / length),
			ReadP50MS: round3(metrics.MS(rd.Quantile(0.5))), ReadP80MS: round3(metrics.MS(rd.Quantile(0.8))),
			ReadP99MS: round3(metrics.MS(rd.Quantile(0.99))), SecondaryPct: round3(sd.SecondaryPct()),
			BalanceFraction: round3(frac), Ratio: ratio, MaxLagMS: round3(metrics.MS(maxLag)),
			Clients: clients, Mix: mix, ServedBy: sd.ByHost,
			ConnsOpened: pw.take(),
		}
		checkout := pw.checkout.Snapshot()
		per.CheckoutP99MS = round3(checkoutP99(checkout, prevCheckout))
		prevCheckout = checkout
		ops := rec.opsSnapshot()
		if starts {
			baseOps = ops
		}
		for name, c := range subOps(ops, prevOps) {
			if c.Count > 0 {
				if per.Ops == nil {
					per.Ops = map[string]int64{}
				}
				per.Ops[name] = c.Count
			}
		}
		prevOps = ops
		var samples []sprobe.Sample
		if probe != nil {
			if now >= o.Duration {
				// The last period: stop the probe so every probe taken
				// is judged now (see sprobe.Probe.Drain).
				probe.Stop()
				st.lostWrites = probe.LostWrites()
				st.probeErrs, st.probeErr = probe.Errors()
				probe = nil
				samples = st.lastProbe.Drain()
			} else {
				samples = probe.Drain()
			}
			per.SProbeProbes = int64(len(samples))
			stal := make([]time.Duration, len(samples))
			var gap time.Duration
			for i, s := range samples {
				stal[i] = s.Staleness
				gap = max(gap, s.ValueGap)
				if violates(s, bound) {
					st.violations++
					if st.violations <= maxViolationEvents {
						col.event(s.At.Sub(start).Seconds(), "stale-read", fmt.Sprintf(
							"S-probe read served by %s was %v stale (bound %v; seed 000's value gap %v)",
							s.Host, s.Staleness.Round(time.Millisecond), bound, s.ValueGap.Round(time.Millisecond)))
					}
				}
			}
			per.SProbeStalenessP80MS = round3(metrics.MS(quantile(stal, 0.8)))
			per.SProbeStalenessMaxMS = round3(metrics.MS(quantile(stal, 1)))
			per.SProbeValueGapMaxMS = round3(metrics.MS(gap))
		}
		run.Periods = append(run.Periods, per)
		st.readSnaps = append(st.readSnaps, rd)
		st.probes = append(st.probes, samples)
		st.starts = append(st.starts, periodStart)
		prevRead, prevWrite, prevServed = readSnap, writeSnap, served
		prevReadErr, prevWriteErr = re, we
		periodStart = now
		fmt.Fprintf(o.Progress, "  [%s] t=%4.0fs reads %8.0f/s p80 %6.2fms  secondary %5.1f%%  fraction %.2f  lag %6.0fms  stale p80 %5.0fms\n",
			label, per.TS, per.ReadTput, per.ReadP80MS, per.SecondaryPct, per.BalanceFraction, per.MaxLagMS, per.SProbeStalenessP80MS)
		if o.OnPeriod != nil {
			o.OnPeriod(ctx, pol.Name(), per, rt)
		}
	}

	var runErr error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
		}
		now := time.Since(start)
		for len(phases) > 0 && now >= phases[0].At {
			ph := phases[0]
			phases = phases[1:]
			var parts []string
			if ph.Mix != "" && ph.Mix != mix {
				if err := o.Generator.SetMix(ph.Mix); err != nil {
					runErr = err
					break loop
				}
				mix = o.Generator.Mix()
				if err := p.restart(); err != nil {
					runErr = err
					break loop
				}
				parts = append(parts, "workload="+mix)
			}
			if ph.Clients > 0 && ph.Clients != clients {
				clients = ph.Clients
				if err := p.resize(clients); err != nil {
					runErr = err
					break loop
				}
				parts = append(parts, fmt.Sprintf("clients=%d", clients))
			}
			if len(parts) > 0 {
				col.event(now.Seconds(), "phase", strings.Join(parts, ","))
				fmt.Fprintf(o.Progress, "  [%s] t=%4.0fs phase: %s\n", label, now.Seconds(), strings.Join(parts, ","))
			}
		}
		if now >= o.Duration {
			endPeriod(o.Duration)
			break
		}
		if now-periodStart >= o.Period {
			endPeriod(periodStart + o.Period)
		}
	}
	cancelRun()
	p.stop()
	col.mu.Lock()
	run.Events = col.events
	col.mu.Unlock()
	run.Summary = summarise(run.Periods, st, o.Warmup)
	run.Summary.BoundViolations = st.violations
	run.Minutes = minutes(run.Periods, st)
	var measured map[string]workload.OpStats
	if baseOps != nil {
		// Operations that ended after the last period boundary (while the
		// clients stopped) are outside every period; take the final
		// boundary's snapshot, not a fresh one.
		measured = subOps(prevOps, baseOps)
		cpu := (cpuTime() - baseCPU).Seconds()
		run.Summary.ClientCPUS = round3(cpu)
		if n := run.Summary.ReadOps + run.Summary.WriteOps; n > 0 {
			run.Summary.ClientCPUPerOpMS = round3(1000 * cpu / float64(n))
		}
	}
	run.Extra = map[string]any{"ops": opSummary(measured)}
	if reporter != nil && ctx.Err() == nil {
		key, val, err := reporter.EndRun(ctx, env, workload.RunStats{MeasuredS: run.Summary.MeasuredS,
			ClientCPUS: run.Summary.ClientCPUS, Ops: measured})
		if err != nil && runErr == nil {
			runErr = err
		}
		if key != "" {
			run.Extra[key] = val
		}
	}
	if st.lastProbe != nil {
		if probe != nil { // interrupted before the last period
			st.probeErrs, st.probeErr = probe.Errors()
			st.lostWrites = probe.LostWrites()
		}
		if st.probeErrs > 0 {
			run.Extra["sprobe_errors"] = st.probeErrs
			run.Extra["sprobe_last_error"] = st.probeErr.Error()
		}
		if st.lostWrites > 0 {
			run.Extra["sprobe_lost_writes"] = st.lostWrites
		}
	}
	if s, ok := rec.lastErr.Load().(string); ok {
		run.Extra["last_error"] = redact.URI(o.URI) + ": " + s
	}
	return run, runErr
}

// minutes aggregates the periods by the wall-clock minute they start in.
func minutes(ps []results.Period, st *runState) []results.Minute {
	var out []results.Minute
	var read *metrics.Snapshot
	var secW, totW float64
	cur := -1
	flush := func() {
		if cur < 0 {
			return
		}
		m := &out[len(out)-1]
		if m.LengthS > 0 {
			m.ReadTput = round3(float64(m.ReadOps) / m.LengthS)
			m.WriteTput = round3(float64(m.WriteOps) / m.LengthS)
		}
		m.ReadP80MS = round3(metrics.MS(read.Quantile(0.8)))
		if totW > 0 {
			m.SecondaryPct = round3(secW / totW)
		}
		m.LengthS = round3(m.LengthS)
	}
	for i, p := range ps {
		k := int(st.starts[i] / time.Minute)
		if k != cur {
			flush()
			cur = k
			out = append(out, results.Minute{})
			read, secW, totW = &metrics.Snapshot{}, 0, 0
		}
		m := &out[len(out)-1]
		m.TS = p.TS
		m.LengthS += p.TS - st.starts[i].Seconds()
		m.ReadOps += p.ReadOps
		m.WriteOps += p.WriteOps
		read.Merge(st.readSnaps[i])
		for name, n := range p.Ops {
			if m.Ops == nil {
				m.Ops = map[string]int64{}
			}
			m.Ops[name] += n
		}
		var n float64
		for _, c := range p.ServedBy {
			n += float64(c)
		}
		secW += p.SecondaryPct * n
		totW += n
	}
	flush()
	return out
}

// violates reports whether a probe's second read, sent where the policy
// allowed a secondary, returned data staler than the bound.
func violates(s sprobe.Sample, b balancer.Bound) bool {
	return s.Secondary && !b.Unbounded && s.Staleness > b.Max
}

// summarise aggregates the periods that start at or after the warm-up.
func summarise(ps []results.Period, st *runState, warmup time.Duration) results.Summary {
	var s results.Summary
	read := &metrics.Snapshot{}
	var stal []time.Duration
	var secW, totW float64
	for i, p := range ps {
		if st.starts[i] < warmup {
			continue
		}
		length := p.TS - st.starts[i].Seconds()
		s.MeasuredS += length
		s.ReadOps += p.ReadOps
		s.WriteOps += p.WriteOps
		s.Errors += p.ReadErrors + p.WriteErrors
		read.Merge(st.readSnaps[i])
		for _, pr := range st.probes[i] {
			stal = append(stal, pr.Staleness)
		}
		s.Probes += int64(len(st.probes[i]))
		s.MaxLagMS = max(s.MaxLagMS, p.MaxLagMS)
		var n float64
		for _, c := range p.ServedBy {
			n += float64(c)
		}
		secW += p.SecondaryPct * n
		totW += n
	}
	if s.MeasuredS > 0 {
		s.ReadTput = round3(float64(s.ReadOps) / s.MeasuredS)
		s.WriteTput = round3(float64(s.WriteOps) / s.MeasuredS)
	}
	if totW > 0 {
		s.SecondaryPct = round3(secW / totW)
	}
	s.ReadP80MS = round3(metrics.MS(read.Quantile(0.8)))
	s.ReadP99MS = round3(metrics.MS(read.Quantile(0.99)))
	s.StalenessP80MS = round3(metrics.MS(quantile(stal, 0.8)))
	s.StalenessMaxMS = round3(metrics.MS(quantile(stal, 1)))
	s.MeasuredS = round3(s.MeasuredS)
	return s
}

// quantile returns the exact q-quantile (nearest rank) of ds, or 0.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	c := append([]time.Duration(nil), ds...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	i := int(math.Ceil(q*float64(len(c)))) - 1
	return c[max(0, min(i, len(c)-1))]
}

type opStats struct {
	Count int64   `json:"count"`
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

func opSummary(ops map[string]workload.OpStats) map[string]opStats {
	out := map[string]opStats{}
	for name, o := range ops {
		out[name] = opStats{Count: o.Count, P50MS: round3(metrics.MS(o.Latency.Quantile(0.5))), P99MS: round3(metrics.MS(o.Latency.Quantile(0.99)))}
	}
	return out
}
