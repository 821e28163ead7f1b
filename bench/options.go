package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/reconfig"
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
	// Records is recorded in the results' config (the workload's size);
	// 0 takes it from a workload.Sized generator.
	Records int64
	// Clients is the number of closed-loop clients of every run.
	Clients int
	// Rate, when positive, holds all the clients together to at most that
	// many operations a second (YCSB's -target): with enough clients, an
	// offered load below the members' capacity, whatever their latency.
	// Zero: closed loops, each client as fast as its replies come. A
	// phase's rate= changes it.
	Rate float64
	// Sweep, instead of Clients, runs every policy (x Repeat) at each of these
	// client counts in turn, on the same loaded data: a client-count sweep (the
	// Decongestant paper, figs 5-7). It needs two or more distinct counts; each
	// run records its count (results.Run.Clients). See ParseClients.
	Sweep    []int
	Duration time.Duration
	Period   time.Duration
	Warmup   time.Duration
	Repeat   int
	// Policies are run in turn, each Repeat times; every run gets a fresh
	// policy from its spec.
	Policies []balancer.Spec
	// Hints are read-hints settings every policy runs with in turn (nil:
	// hints off); empty runs with hints off only. A run with hints on is
	// named "<policy>+<hints spec>", e.g. "primary+hints:apply=0.33".
	Hints []*hints.Config
	// ViaProxy runs the policies through the wire-protocol proxy (an
	// in-process proxy.Server per run, its clients on a loopback port),
	// or each both ways (runs named "proxy:<policy>").
	ViaProxy ProxyMode
	// ReadYourWrites turns read-your-writes routing on: the library's
	// causal sessions (router.WithReadYourWrites) and the proxy's
	// per-connection fence (off: proxy.Config.NoReadYourWrites).
	ReadYourWrites bool
	// ColdStart restarts every secondary with empty caches before each run (the
	// read-hints paper drops the caches before each run); it needs the cluster
	// (Cluster or ClusterDir).
	ColdStart bool
	// Settings are the constants the Policies were parsed with (checked);
	// their staleness bound also counts S-probe violations for every
	// policy.
	Settings balancer.Settings
	SProbe   bool
	Probe    sprobe.Config
	Phases   []Phase
	// Cluster is the cluster the fault actions of Phases act on, when
	// this process holds its handle (cluster.Start). Otherwise ClusterDir
	// names the dir of one started by `decongestant cluster up` (the
	// CLI's --cluster-dir), opened with cluster.Open. Before any load the
	// runner checks that it runs, is healthy, has the members the phases
	// name and is the replica set URI points at.
	Cluster    *cluster.Cluster
	ClusterDir string
	SkipLoad   bool
	// SkipMemberStats turns off the members' server counters: serverStatus
	// on every member at the run's start and every period end (the CLI's
	// --member-stats=false). The periods' members then have none.
	SkipMemberStats bool
	// ReconfigAt are reconfiguration times into each run given explicitly,
	// for reconfigurations that are no fault action of Phases (an action
	// OnPeriod takes, say). Each run's summary measures them as it
	// measures the fault actions' (package reconfig).
	ReconfigAt []time.Duration
	// LoadParallel is the loader's parallelism (default 2 x GOMAXPROCS).
	LoadParallel int
	Monitor      monitor.Config
	// RTTQuantile picks the RTT estimate from each period's pings (0 = the
	// minimum, 0.5 = the Decongestant paper's median); see
	// router.WithRTTQuantile.
	RTTQuantile float64
	// Latency is the latency source the policies see (default
	// router.CommandLatency); see router.WithLatencySource.
	Latency router.LatencySource
	// Progress receives human-readable progress lines; nil discards them.
	Progress io.Writer
	// RuntimeStats adds the benchmark process's heap and goroutines to
	// every period's progress line (the CLI's --runtime-stats); the
	// periods record them either way.
	RuntimeStats bool
	// Out, when set, receives the results (atomically) after every run, so
	// an interruption keeps what was completed.
	Out string
	// WriteConcern of the workload's writes during runs (default w:1, as
	// MongoDB 4.2 in the Decongestant paper and YCSB's binding; MongoDB 5.0+
	// defaults to majority, under which writes stall while secondaries lag).
	// Loading always uses majority so every member holds the data before a run.
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
	// OnRouter, when set, is called with each run's router once it is
	// connected, and with nil just before the run closes it, on the
	// runner's goroutine (the CLI's --metrics-addr points its collector at
	// the run in progress).
	OnRouter func(policy string, r *router.Router)

	// target is Cluster, or the one opened from ClusterDir (prepare).
	target faults.Cluster
}

// validate checks the options once and fills in the defaults.
func (o *Options) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadOptions, fmt.Sprintf(format, a...))
	}
	switch {
	case o.URI == "":
		return bad("--uri is required")
	case o.Generator == nil:
		return bad("no workload")
	case o.Clients < 1 && len(o.Sweep) == 0:
		return bad("clients %d must be at least 1", o.Clients)
	case !(o.Rate >= 0) || math.IsInf(o.Rate, 1):
		return bad("rate %v must be a number of operations a second, 0 or more (0: no limit)", o.Rate)
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
		if ph.ReadOffset != nil {
			w, ok := o.Generator.(workload.ReadWindowed)
			if !ok {
				return bad("phase readoffset=%d moves the reads' key window, which workload %s does not have", *ph.ReadOffset, o.Generator.Name())
			}
			if err := w.CheckReadOffset(*ph.ReadOffset); err != nil {
				return bad("phase readoffset=%d: %v", *ph.ReadOffset, err)
			}
		}
	}
	for _, at := range o.ReconfigAt {
		if at <= 0 || at >= o.Duration {
			return bad("reconfiguration at %v is not inside the run (0 to %v)", at, o.Duration)
		}
	}
	if err := o.validateSweep(); err != nil {
		return err
	}
	if err := o.validateFaults(); err != nil {
		return err
	}
	o.defaults()
	if reads := readsMembers(o.Phases); len(reads) > 0 {
		for _, spec := range o.Policies {
			if _, ok := spec.New().(*balancer.StaticWeights); !ok {
				return bad("phase reads=%s moves reads between members, which only weights: policies take (e.g. --policies weights:primary=1), not %s",
					reads[0], spec)
			}
		}
	}
	if o.ViaProxy != ProxyOff {
		for _, h := range o.Hints {
			if h != nil {
				return bad("read hints run in the library only, not through the proxy")
			}
		}
		for _, spec := range o.Policies {
			if _, err := proxyPolicy(spec.New()); err != nil {
				return err
			}
		}
	}
	for i, spec := range o.Policies {
		if spec.String() == "" {
			return bad("policy %d was not parsed (use balancer.ParseSpec)", i+1)
		}
		if spec.Settings() != o.Settings {
			return bad("policy %s was parsed with other settings than Options.Settings (parse it with them)", spec)
		}
		if b, ok := spec.New().(balancer.Bounded); ok {
			if err := b.CheckLagInterval(o.Monitor.LagInterval); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrBadOptions, spec, err)
			}
		}
	}
	return nil
}

// validateFaults checks that fault actions have a cluster to act on.
func (o *Options) validateFaults() error {
	if o.Cluster != nil && o.ClusterDir != "" {
		return fmt.Errorf("%w: Cluster and ClusterDir (%s) both set: give one", ErrBadOptions, o.ClusterDir)
	}
	if o.ColdStart && o.Cluster == nil && o.ClusterDir == "" {
		return fmt.Errorf("%w: --cold-start restarts members, which needs a cluster started by `decongestant cluster up`: give its --cluster-dir", ErrBadOptions)
	}
	if acts := actions(o.Phases); len(acts) > 0 && o.Cluster == nil && o.ClusterDir == "" {
		return fmt.Errorf("%w: %w: fault actions (%s) need a cluster started by `decongestant cluster up`: give its --cluster-dir",
			ErrBadOptions, ErrBadPhases, strings.Join(acts, ", "))
	}
	return nil
}

func (o *Options) defaults() {
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
	if _, ok := o.Progress.(*faults.LockedWriter); !ok {
		o.Progress = &faults.LockedWriter{W: o.Progress}
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
	if o.Monitor.Heartbeat.DB == "" {
		// The workload's database: the one its user may write.
		o.Monitor.Heartbeat.DB = o.Database
	}
	if o.Monitor.Heartbeat.Coll == "" {
		o.Monitor.Heartbeat.Coll = monitor.DefaultHeartbeatColl
	}
}

// maxPoolPerMember caps the connections the runner lets its clients open to
// one member, on the routed client and on each member's own pool (see
// DESIGN.md, "Soak and scale"): past mongod's 128 concurrent read
// transactions more connections only queue in the server, at about 1 MiB
// and a thread each there.
const maxPoolPerMember = 256

// poolSize is the connection pool the runner gives each member: one
// connection per client and 16 to spare, at most maxPoolPerMember; ok is
// false when the URI (maxPoolSize=) or ClientOptions set a size, which is
// kept.
func (o *Options) poolSize() (n uint64, ok bool) {
	if cs, err := connstring.Parse(o.URI); err == nil && cs.MaxPoolSizeSet {
		return 0, false
	}
	for _, co := range o.ClientOptions {
		if co != nil && co.MaxPoolSize != nil {
			return 0, false
		}
	}
	return uint64(min(o.maxClients()+16, maxPoolPerMember)), true
}

func (o *Options) maxClients() int {
	n := o.Clients
	for _, ph := range o.Phases {
		n = max(n, ph.Clients)
	}
	return n
}

// reconfigAtS are ReconfigAt in seconds, for the results.
func (o *Options) reconfigAtS() []float64 {
	var out []float64
	for _, at := range o.ReconfigAt {
		out = append(out, at.Seconds())
	}
	return out
}

// reconfigTimes are the reconfigurations every run's summary measures: the
// phases' fault actions and ReconfigAt.
func (o *Options) reconfigTimes() []reconfig.Time {
	return reconfig.Times(results.Config{Phases: phaseSpecs(o.Phases), ReconfigAtS: o.reconfigAtS()})
}

// specNames returns the policies as given, with each hints variant, for
// the results' config.
func (o *Options) specNames() []string {
	var out []string
	for _, s := range o.Policies {
		for _, px := range o.proxyVariants() {
			for _, h := range o.hintVariants() {
				out = append(out, runName(s.String(), px, h))
			}
		}
	}
	return out
}

// proxyVariants say whether each policy runs in the library, through the
// proxy, or both (ViaProxy).
func (o *Options) proxyVariants() []bool {
	switch o.ViaProxy {
	case ProxyOnly:
		return []bool{true}
	case ProxyBoth:
		return []bool{false, true}
	}
	return []bool{false}
}

// hintVariants are the hints settings of the runs: Hints, or off alone.
func (o *Options) hintVariants() []*hints.Config {
	if len(o.Hints) == 0 {
		return []*hints.Config{nil}
	}
	return o.Hints
}

// runName is the policy's name with its hints, "proxy:" first when the
// run goes through the proxy: "primary+hints", "proxy:spillway".
func runName(policy string, proxied bool, h *hints.Config) string {
	if proxied {
		policy = ProxyPrefix + policy
	}
	if h == nil {
		return policy
	}
	return policy + "+" + h.Name()
}
