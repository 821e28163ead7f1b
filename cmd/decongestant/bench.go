package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/report"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/sprobe"
	_ "github.com/decongestant/decongestant/workload/tpcc" // registers "tpcc"
	_ "github.com/decongestant/decongestant/workload/tpch" // registers "tpch"
	_ "github.com/decongestant/decongestant/workload/ycsb" // registers "ycsb"
)

// benchFlags are the runner's flags, shared by every `bench <workload>` and
// `demo`; each workload adds its own (workload.Flagser).
type benchFlags struct {
	uri, policies, maxStaleness, phases, out, db string
	clusterDir, reconfigAt                       string
	clients                                      clientsFlag
	repeat, loadParallel                         int
	rate                                         float64
	seed                                         int64
	duration, period, warmup                     time.Duration
	sprobe, skipLoad, coldStart, memberStats     bool
	runtimeStats                                 bool
	writeConcern, headroom, latency, lagEstimate string
	hints                                        string
	viaProxy                                     string
	readYourWrites                               string
	lagSource, heartbeatNS                       string
	metricsAddr                                  string
	pprof                                        bool
	probeInterval, probeWrites                   time.Duration
	// balancer constants
	balPeriod, rpmPeriod, spillPeriod, primaryFloor, rttInterval, lagInterval, connectTimeout time.Duration
	delta, lowBal, highBal, lowRatio, highRatio                                               float64
	history, minSamples                                                                       int
	rpmExploration, rpmThreshold, rttQuantile, probeShare, probeRate, spillGain, deadband     float64
}

// benchDefaults are the runner's defaults that differ between workloads
// and the demo.
type benchDefaults struct {
	duration, warmup, balPeriod time.Duration
	sprobe                      bool
	probeWrites                 time.Duration // the S probe writer's pause; 0 = sprobe.DefaultWriteInterval
	out, db, writeConcern       string
	clients                     int
	policies                    string // "" = primary,secondary,nearest:1s,decongestant,leastwait
	ownCluster                  bool   // the command starts its cluster: no --uri
}

// defaultsFor returns `bench <workload>`'s defaults: the workload's own
// clients and write concern, its name as the database.
func defaultsFor(m workload.Meta) benchDefaults {
	return benchDefaults{duration: 120 * time.Second, out: "results.json", balPeriod: balancer.DefaultConfig().Interval,
		db: m.Name, writeConcern: m.WriteConcern, clients: m.Clients}
}

// registerCommon adds the flags every bench workload shares: connection,
// run shape, policies, staleness and the balancer's constants.
func (b *benchFlags) registerCommon(fs *flag.FlagSet, def benchDefaults) {
	d := balancer.DefaultSettings()
	if !def.ownCluster {
		fs.StringVar(&b.uri, "uri", "", "replica set connection string (required), e.g. mongodb://h1,h2,h3/?replicaSet=rs0")
	}
	fs.Int64Var(&b.seed, "seed", 1, "random seed for data and workers")
	b.clients = clientsFlag{def.clients}
	fs.Var(&b.clients, "clients", "closed-loop clients (one goroutine each), or a comma-separated sweep of such `counts` (e.g. 20,60,100): every policy runs at every count, on the same loaded data")
	fs.Float64Var(&b.rate, "rate", 0, "hold all the clients together to at most this many operations a second (YCSB's -target; TPC-C: transactions), an offered load below the members' capacity given enough clients; latency is timed from each operation's send, and the throughput achieved is in the results; 0 = closed loops, each client as fast as its replies come")
	fs.DurationVar(&b.duration, "duration", def.duration, "run length per policy")
	fs.DurationVar(&b.period, "period", 10*time.Second, "reporting period")
	fs.DurationVar(&b.warmup, "warmup", def.warmup, "time excluded from summaries at the start of each run (the Decongestant paper used 100s)")
	fs.IntVar(&b.repeat, "repeat", 1, "repetitions of every policy")
	policies := def.policies
	if policies == "" {
		policies = "primary,secondary,nearest:1s,decongestant,leastwait"
	}
	fs.StringVar(&b.policies, "policies", policies, "comma-separated policies: "+balancer.Names)
	fs.StringVar(&b.maxStaleness, "max-staleness", "10s", "staleness bound the bounded policies (decongestant, spillway, leastwait, p2c, prequal) keep reads within, and against which every policy's violations are counted: a duration, 0 (no stale reads) or none")
	fs.BoolVar(&b.sprobe, "sprobe", def.sprobe, "run the S staleness probe alongside the workload")
	fs.DurationVar(&b.probeInterval, "sprobe-interval", sprobe.DefaultProbeInterval, "pause between S probes")
	probeWrites := def.probeWrites
	if probeWrites == 0 {
		probeWrites = sprobe.DefaultWriteInterval
	}
	fs.DurationVar(&b.probeWrites, "sprobe-write-interval", probeWrites, "pause between the S probe writer's writes, at most --sprobe-interval: each is a write on the primary and on every secondary (200 a second took a third of a member capped at 0.35 CPU; the probe's staleness is exact to about one interval)")
	fs.BoolVar(&b.memberStats, "member-stats", true, "record every member's WiredTiger cache misses, MB read into and written out of its cache, checkpoint time, CPU and RSS per period (serverStatus on each member at every period end, over a direct connection)")
	fs.BoolVar(&b.runtimeStats, "runtime-stats", true, "print this process's heap and goroutines in every period's progress line (the results record them either way; reading them costs a few microseconds a period)")
	fs.StringVar(&b.reconfigAt, "reconfig-at", "", "comma-separated times into each run (e.g. 60s) of reconfigurations that are not fault actions of --phases, measured in the summary as theirs are (throughput dip, recovery)")
	fs.StringVar(&b.phases, "phases", "", phasesHelp)
	fs.StringVar(&b.out, "out", def.out, "results JSON path (written atomically after every run)")
	fs.StringVar(&b.db, "db", def.db, "database of the workload")
	fs.DurationVar(&b.connectTimeout, "connect-timeout", 15*time.Second, "how long to wait for the servers before reporting them unreachable")
	fs.StringVar(&b.writeConcern, "write-concern", def.writeConcern, "write concern of the workload's writes: a member count (1 = MongoDB 4.2's default, as in the Decongestant paper) or majority")
	fs.BoolVar(&b.skipLoad, "skip-load", false, "reuse the loaded data")
	fs.IntVar(&b.loadParallel, "load-parallel", 0, "loader goroutines (default 2 x CPUs)")
	fs.DurationVar(&b.balPeriod, "balancer-period", def.balPeriod, "decongestant: balancing period (the Decongestant paper's: 10s)")
	fs.Float64Var(&b.delta, "delta", d.Decongestant.Delta, "decongestant: change of the fraction per period")
	fs.Float64Var(&b.lowBal, "low-bal", d.Decongestant.LowBal, "decongestant: lowest non-zero (and initial) fraction")
	fs.Float64Var(&b.highBal, "high-bal", d.Decongestant.HighBal, "decongestant: highest fraction")
	fs.Float64Var(&b.lowRatio, "low-ratio", d.Decongestant.LowRatio, "decongestant: ratio below which the fraction drops")
	fs.Float64Var(&b.highRatio, "high-ratio", d.Decongestant.HighRatio, "decongestant: ratio above which the fraction rises")
	fs.IntVar(&b.history, "history", d.Decongestant.History, "decongestant: equal recent fractions before exploring down")
	fs.IntVar(&b.minSamples, "min-samples", d.Decongestant.MinSamples, "decongestant/rpm: reads per side needed for a decision")
	fs.DurationVar(&b.spillPeriod, "spillway-period", d.Spillway.Interval, "spillway: control period")
	fs.DurationVar(&b.primaryFloor, "primary-floor", d.Spillway.PrimaryFloor, "spillway: while the primary's operations take less than this (median server time), reads stay on it; leastwait: while a read would wait less than this there; 0 = reads go wherever they cost least")
	fs.Float64Var(&b.deadband, "deadband", d.Spillway.Deadband, "spillway: a marginal cost within this factor of the others' (1+deadband) moves no share")
	fs.Float64Var(&b.probeShare, "probe-share", d.Spillway.ProbeShare, "spillway: least share of every readable member, to keep it measured (the primary needs none while its writes are timed: they measure it)")
	fs.Float64Var(&b.probeRate, "probe-rate", d.Spillway.ProbeRate, "spillway: reads per second a probe share need not exceed (a busy router probes a member left out, a stalled one say, with this many reads a second, not --probe-share of all); 0 = --probe-share always")
	fs.Float64Var(&b.spillGain, "spillway-gain", d.Spillway.Gain, "spillway: starting controller gain (a primary whose marginal cost is g times the secondaries' keeps g^-gain of its share per period; it then adapts)")
	fs.DurationVar(&b.rpmPeriod, "rpm-period", d.RPM.Interval, "rpm: decision period")
	fs.Float64Var(&b.rpmExploration, "rpm-exploration", d.RPM.Exploration, "rpm: exploration fraction")
	fs.Float64Var(&b.rpmThreshold, "rpm-threshold", d.RPM.Threshold, "rpm: decision threshold on P50 secondary/primary")
	fs.DurationVar(&b.rttInterval, "rtt-interval", time.Second, "mean pause between RTT pings of each member (jittered ±50%)")
	fs.Float64Var(&b.rttQuantile, "rtt-quantile", 0, "quantile of a period's pings used as the RTT to subtract (0 = minimum; the Decongestant paper used the median, 0.5)")
	fs.DurationVar(&b.lagInterval, "lag-interval", 0, "pause between lag polls of the primary (default: a fifth of --max-staleness, from 50ms to the Decongestant paper's 1s)")
	fs.StringVar(&b.headroom, "lag-headroom", "auto", "decongestant and spillway: added to each lag poll before comparing with the bound: auto (the poll's horizon: interval + max(interval/2, 2 x the poll's round trip, 1.25 x the slowest of the last 10 polls)), or a duration (0 = the Decongestant paper's exact check)")
	fs.StringVar(&b.latency, "latency-source", "command", "latency the policies see: command (time on a checked-out connection) or client (the Decongestant paper: the whole call, including waits for a pooled connection)")
	coldStart := "restart every secondary with empty caches (WiredTiger and its files' page cache) before each run"
	if !def.ownCluster {
		coldStart += "; needs --cluster-dir"
	}
	fs.BoolVar(&b.coldStart, "cold-start", false, coldStart)
	fs.StringVar(&b.viaProxy, "via-proxy", "off", "run the policies through the wire-protocol proxy (one in this process per run, its clients on a loopback port, routed reads sent secondaryPreferred): off, on, or both (each policy in the library, then through the proxy, named proxy:<policy>); per-member policies and primary only")
	fs.StringVar(&b.readYourWrites, "read-your-writes", "off", "on: a causal session's routed reads go only to members known to have applied its operation time, and through the proxy a connection's reads after its write, else to the primary (counted as held); off: reads go where the policy says and wait there (the papers' behaviour)")
	fs.StringVar(&b.hints, "hints", "off", "read hints (the read-hints paper): off, on, or variants every policy runs with in turn, e.g. off,on,hints:apply=0.33/targets=one (keys apply, targets all|one|one:n2, interval, batch)")
	fs.StringVar(&b.lagEstimate, "lag-estimate", "since-applied", "secondary staleness estimate: since-applied (primary's clock minus the last applied write's time when a write is missing) or applied-diff (the Decongestant paper: primary's minus secondary's lastAppliedWallTime)")
	fs.StringVar(&b.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the run in progress (its router's Stats) at http://`host:port`/metrics, e.g. 127.0.0.1:9464; off by default")
	fs.BoolVar(&b.pprof, "pprof", false, "with --metrics-addr, also serve the Go runtime's profiles at http://host:port/debug/pprof/ (heap, goroutine, allocs, profile, trace; not cmdline), e.g. for go tool pprof during a soak; off by default, as anyone who reaches the port could read the goroutines' stacks and load the process with profiles")
	fs.StringVar(&b.lagSource, "lag-source", "auto", lagSourceHelp)
	fs.StringVar(&b.heartbeatNS, "heartbeat-ns", "", "the heartbeat's `db.collection` (--lag-source heartbeat or auto): one small document written every lag poll (default: --db's decongestant_heartbeat)")
}

// phasesHelp is --phases' help; TestPhasesHelpNamesEveryKey holds it to the keys bench.ParsePhases takes.
const phasesHelp = `dynamic phases, "TIME:key=value[,key=value];TIME:...": workload=MIX (or mix=MIX) switches the workload's mix, ` +
	`clients=N the client count, rate=N the operations a second all clients are held to (--rate; 0 lifts it), reads=MEMBER moves every read to one member (n2, host:port or primary; weights: policies only), ` +
	`readoffset=KEY moves the reads' key window (YCSB with --readkeys); the fault actions ` + faults.Keys + ` act on the cluster: ` +
	`pause/resume (replication), isolate/rejoin (oplog fetching) and slow/unslow take a member or all, kill, stop and restart a member or primary, stepdown nothing; ` +
	`e.g. "0s:workload=a,clients=180;620s:workload=b" or "60s:pause=n3;120s:resume=n3"; ` +
	`slow=n3:150ms is a gray failure: n3 answers pings and hello but its reads stall 150ms each (default 200ms) until unslow=n3`

// options validates the runner's flags and the workload's, and builds the
// runner's options.
func (b *benchFlags) options(w workload.Flagser, progress io.Writer) (bench.Options, error) {
	o, err := b.common(progress)
	if err != nil {
		return o, err
	}
	gen, err := w.Configure(workload.Shared{Seed: b.seed, WriteConcern: b.writeConcern})
	if err != nil {
		return o, err
	}
	return o, setGenerator(&o, gen, gen.Mix())
}

// setGenerator checks every phase's mix against the generator, then sets
// its initial mix.
func setGenerator(o *bench.Options, gen workload.Generator, mix string) error {
	for _, ph := range o.Phases {
		if ph.Mix != "" {
			if err := gen.SetMix(ph.Mix); err != nil {
				return fmt.Errorf("--phases: %w", err)
			}
		}
	}
	if err := gen.SetMix(mix); err != nil {
		return err
	}
	o.Generator = gen
	return nil
}

// common validates the runner's flags and builds the runner's options
// without a workload.
func (b *benchFlags) common(progress io.Writer) (bench.Options, error) {
	if err := b.checkDurations(); err != nil {
		return bench.Options{}, err
	}
	s, err := b.settings()
	if err != nil {
		return bench.Options{}, err
	}
	specs, err := balancer.ParseSpecs(b.policies, s)
	if err != nil {
		return bench.Options{}, fmt.Errorf("--policies: %w", err)
	}
	mon, err := b.monitorConfig(specs, s.Decongestant.Bound)
	if err != nil {
		return bench.Options{}, err
	}
	latency, err := router.ParseLatencySource(b.latency)
	if err != nil {
		return bench.Options{}, fmt.Errorf("--latency-source: %w", err)
	}
	phases, err := bench.ParsePhases(b.phases)
	if err != nil {
		return bench.Options{}, fmt.Errorf("--phases: %w", err)
	}
	wc, err := parseWriteConcern(b.writeConcern)
	if err != nil {
		return bench.Options{}, err
	}
	hv, err := hints.ParseVariants(b.hints)
	if err != nil {
		return bench.Options{}, fmt.Errorf("--hints: %w", err)
	}
	via, err := bench.ParseProxyMode(b.viaProxy)
	if err != nil {
		return bench.Options{}, fmt.Errorf("--via-proxy: %w", err)
	}
	if b.readYourWrites != "on" && b.readYourWrites != "off" {
		return bench.Options{}, fmt.Errorf("--read-your-writes %q: want on or off", b.readYourWrites)
	}
	reconfigAt, err := parseDurations(b.reconfigAt)
	if err != nil {
		return bench.Options{}, fmt.Errorf("--reconfig-at: %w", err)
	}
	o := bench.Options{
		Hints: hv, ViaProxy: via, ReadYourWrites: b.readYourWrites == "on", ColdStart: b.coldStart,
		URI: b.uri, Database: b.db,
		Duration: b.duration, Period: b.period, Warmup: b.warmup, Repeat: b.repeat,
		Policies: specs, Settings: s, SProbe: b.sprobe, Phases: phases, ClusterDir: b.clusterDir, SkipLoad: b.skipLoad,
		LoadParallel: b.loadParallel, Progress: progress, Out: b.out, WriteConcern: wc,
		ConnectTimeout: b.connectTimeout, RTTQuantile: b.rttQuantile, Latency: latency, Monitor: mon,
		Probe: sprobe.Config{ProbeInterval: b.probeInterval, WriteInterval: b.probeWrites}, SkipMemberStats: !b.memberStats, ReconfigAt: reconfigAt,
		RuntimeStats: b.runtimeStats, Rate: b.rate,
	}
	if len(b.clients) == 1 {
		o.Clients = b.clients[0]
	} else {
		o.Sweep = b.clients
	}
	return o, nil
}

// parseDurations parses a comma-separated list of durations ("" = none).
func parseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a duration such as 60s", part)
		}
		out = append(out, d)
	}
	return out, nil
}

// checkDurations checks the URI and the flags that must be positive or in
// a range.
func (b *benchFlags) checkDurations() error {
	if err := checkURI(b.uri); err != nil {
		return err
	}
	if b.pprof && b.metricsAddr == "" {
		return errors.New("--pprof serves on --metrics-addr: set it too, e.g. --metrics-addr 127.0.0.1:9464")
	}
	if b.metricsAddr != "" {
		if _, _, err := net.SplitHostPort(b.metricsAddr); err != nil {
			return fmt.Errorf("--metrics-addr %q: want host:port, e.g. 127.0.0.1:9464: %v", b.metricsAddr, err)
		}
	}
	if b.lagInterval < 0 || b.rttInterval <= 0 {
		return errors.New("--lag-interval must not be negative and --rtt-interval must be positive")
	}
	if b.probeInterval <= 0 {
		return fmt.Errorf("--sprobe-interval must be positive")
	}
	if b.probeWrites <= 0 || b.probeWrites > b.probeInterval {
		return fmt.Errorf("--sprobe-write-interval %v must be positive and at most --sprobe-interval (%v): the writer must write between two probes", b.probeWrites, b.probeInterval)
	}
	for name, d := range map[string]time.Duration{"duration": b.duration, "period": b.period,
		"warmup": b.warmup, "balancer-period": b.balPeriod, "rpm-period": b.rpmPeriod, "spillway-period": b.spillPeriod,
		"rtt-interval": b.rttInterval, "lag-interval": b.lagInterval, "sprobe-interval": b.probeInterval,
		"connect-timeout": b.connectTimeout} {
		if d < 0 {
			return fmt.Errorf("--%s %v must not be negative", name, d)
		}
	}
	if b.rttQuantile < 0 || b.rttQuantile > 1 {
		return fmt.Errorf("--rtt-quantile %v must be in [0, 1]", b.rttQuantile)
	}
	return nil
}

// settings builds and validates the policies' constants.
func (b *benchFlags) settings() (balancer.Settings, error) {
	s := balancer.DefaultSettings()
	bound, err := balancer.ParseBound(b.maxStaleness)
	if err != nil {
		return s, fmt.Errorf("--max-staleness: %w", err)
	}
	headroom := balancer.AutoHeadroom
	if b.headroom != "auto" {
		if headroom, err = time.ParseDuration(b.headroom); err != nil || headroom < 0 {
			return s, fmt.Errorf("--lag-headroom %q: want auto or a duration that is not negative, e.g. 0 or 200ms", b.headroom)
		}
	}
	s.Decongestant = balancer.Config{Interval: b.balPeriod, Delta: b.delta, LowBal: b.lowBal,
		HighBal: b.highBal, LowRatio: b.lowRatio, HighRatio: b.highRatio, History: b.history,
		MinSamples: b.minSamples, LatencyFloor: s.Decongestant.LatencyFloor, Bound: bound,
		Headroom: headroom}
	s.RPM = balancer.RPMConfig{Interval: b.rpmPeriod, Exploration: b.rpmExploration,
		Threshold: b.rpmThreshold, MinSamples: b.minSamples}
	sp := &s.Spillway
	sp.PrimaryFloor, sp.Deadband, sp.ProbeRate = b.primaryFloor, b.deadband, b.probeRate
	sp.Interval, sp.ProbeShare, sp.Gain, sp.Bound, sp.Headroom = b.spillPeriod, b.probeShare, b.spillGain, bound, headroom
	s.PerRead.PrimaryFloor, s.PerRead.Bound, s.PerRead.Headroom = b.primaryFloor, bound, headroom
	if err := s.Decongestant.Validate(); err != nil {
		return s, settingFlag(err, decongestantFlags)
	}
	if err := s.Spillway.Validate(); err != nil {
		return s, settingFlag(err, spillwayFlags)
	}
	if err := s.RPM.Validate(); err != nil {
		return s, settingFlag(err, rpmFlags)
	}
	if err := s.PerRead.Validate(); err != nil {
		return s, settingFlag(err, perReadFlags)
	}
	return s, nil
}

// The flags that set each policy's config fields, to name the flag a
// balancer.SettingError is about (the bound and the headroom are shared by
// the bounded policies).
var (
	boundFlags        = map[string]string{"Bound": "--max-staleness", "Headroom": "--lag-headroom"}
	decongestantFlags = withBound(map[string]string{"Interval": "--balancer-period", "Delta": "--delta",
		"LowBal": "--low-bal", "HighBal": "--high-bal", "LowRatio": "--low-ratio", "HighRatio": "--high-ratio",
		"History": "--history", "MinSamples": "--min-samples"})
	spillwayFlags = withBound(map[string]string{"Interval": "--spillway-period",
		"PrimaryFloor": "--primary-floor", "Gain": "--spillway-gain", "Deadband": "--deadband",
		"ProbeShare": "--probe-share", "ProbeRate": "--probe-rate"})
	perReadFlags = withBound(map[string]string{"PrimaryFloor": "--primary-floor"})
	rpmFlags     = map[string]string{"Interval": "--rpm-period", "Exploration": "--rpm-exploration",
		"Threshold": "--rpm-threshold", "MinSamples": "--min-samples"}
)

func withBound(m map[string]string) map[string]string {
	for k, v := range boundFlags {
		m[k] = v
	}
	return m
}

// settingFlag prefixes a balancer.SettingError with the flag that set the
// setting (flags maps config fields to flags). A setting no flag sets is
// the program's own default, so it is named as the policy's setting.
func settingFlag(err error, flags map[string]string) error {
	var se *balancer.SettingError
	if !errors.As(err, &se) {
		return err
	}
	if f, ok := flags[se.Setting]; ok {
		return fmt.Errorf("%s: %w", f, err)
	}
	return err
}

// lagSourceHelp is --lag-source's help, bench's and the proxy's.
const lagSourceHelp = "where lag polls come from: replsetgetstatus (the primary's view; needs the clusterMonitor role), heartbeat (the primary's clock written into one document every poll and read on every secondary; needs readWrite on --heartbeat-ns; milliseconds), hello (every member's lastWrite; any user; whole seconds, so up to 1 s staler) or auto (those three in that order among the ones the user may use, each poll taking the next when one fails or is late)"

// lagFlags parses --lag-source and --heartbeat-ns; the namespace is zero
// when ns is empty (the caller's default).
func lagFlags(source, ns string) (monitor.LagSource, monitor.Namespace, error) {
	src, err := monitor.ParseLagSource(source)
	if err != nil {
		return 0, monitor.Namespace{}, fmt.Errorf("--lag-source: %w", err)
	}
	var beat monitor.Namespace
	if ns != "" {
		if beat, err = monitor.ParseNamespace(ns); err != nil {
			return 0, monitor.Namespace{}, fmt.Errorf("--heartbeat-ns: %w", err)
		}
	}
	return src, beat, nil
}

// monitorConfig returns the RTT and lag polling: the lag interval is
// derived from the bound unless given, and must let every bounded policy
// allow secondary reads.
func (b *benchFlags) monitorConfig(specs []balancer.Spec, bound balancer.Bound) (monitor.Config, error) {
	estimate, err := monitor.ParseLagEstimate(b.lagEstimate)
	if err != nil {
		return monitor.Config{}, fmt.Errorf("--lag-estimate: %w", err)
	}
	source, beat, err := lagFlags(b.lagSource, b.heartbeatNS)
	if err != nil {
		return monitor.Config{}, err
	}
	if beat == (monitor.Namespace{}) {
		beat = monitor.Namespace{DB: b.db, Coll: monitor.DefaultHeartbeatColl}
	}
	lagInterval := b.lagInterval
	if lagInterval == 0 {
		lagInterval = balancer.LagIntervalFor(bound)
	}
	for _, sp := range specs {
		if bp, ok := sp.New().(balancer.Bounded); ok {
			if err := bp.CheckLagInterval(lagInterval); err != nil {
				return monitor.Config{}, fmt.Errorf("--max-staleness %s with --lag-interval %v: %w", b.maxStaleness, lagInterval, err)
			}
		}
	}
	return monitor.Config{RTTInterval: b.rttInterval, LagInterval: lagInterval, LagEstimate: estimate, LagSource: source, Heartbeat: beat}, nil
}

// clientsFlag is --clients: one count, or several for a client-count sweep
// (bench.ParseClients).
type clientsFlag []int

func (c *clientsFlag) String() string {
	if c == nil {
		return ""
	}
	s := make([]string, len(*c))
	for i, n := range *c {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (c *clientsFlag) Set(s string) error {
	counts, err := bench.ParseClients(s)
	if err != nil {
		return err
	}
	*c = counts
	return nil
}

// benchSummary is `bench <workload>`'s one line.
func benchSummary(m workload.Meta) string {
	switch m.Name {
	case "ycsb":
		return "run YCSB under each policy and write the results JSON"
	case "tpcc":
		return "run TPC-C (standard, or the Decongestant paper's read-write mix) under each policy, with tpmC and the consistency checks"
	case "tpch":
		return "run TPC-H Q1 on a generated LINEITEM (--sf) under each policy, as the read-hints paper's analytics query"
	}
	return "run the " + m.Name + " workload under each policy and write the results JSON"
}

const benchLong = `Every policy of --policies runs in turn on the same loaded data, --repeat times; the results
JSON (--out) is written after every run, and the comparison table printed at the end.
Fault actions in --phases act on the cluster of --cluster-dir.
`

// defineBench defines `bench <workload>`: the runner's flags and the workload's own.
func defineBench(meta workload.Meta) func(fs *flag.FlagSet) action {
	return func(fs *flag.FlagSet) action {
		b, w := newBenchFlags(fs, meta)
		var o bench.Options
		return action{
			check: noArgs("bench "+meta.Name, func() (err error) {
				o, err = b.options(w, io.Discard)
				return err
			}),
			run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
				o.Progress = stderr
				m, err := startMetrics(b.metricsAddr, b.pprof, stderr)
				if err != nil {
					return err
				}
				defer func() { err = errors.Join(err, m.close()) }()
				m.attach(&o)
				return execute(ctx, o, stdout, stderr)
			},
		}
	}
}

// newBenchFlags registers `bench <workload>`'s flags on fs.
func newBenchFlags(fs *flag.FlagSet, meta workload.Meta) (*benchFlags, workload.Flagser) {
	b := &benchFlags{}
	b.registerCommon(fs, defaultsFor(meta))
	fs.StringVar(&b.clusterDir, "cluster-dir", "", "`dir` of the cluster started by \"decongestant cluster up\" that the fault actions of --phases act on (it must be the set --uri points at)")
	w := meta.New()
	addFlags(fs, w.Flags())
	return b, w
}

// benchOptions parses `bench <workload> [flags]` into the runner's options.
func benchOptions(args []string, stderr io.Writer) (o bench.Options, help bool, err error) {
	o, _, help, err = parseBench(args, stderr)
	return o, help, err
}

// parseBench parses `bench <workload> [flags]` into the runner's options
// and returns the flags too.
func parseBench(args []string, stderr io.Writer) (o bench.Options, b *benchFlags, help bool, err error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return o, nil, false, fmt.Errorf("usage: decongestant bench %s --uri URI [flags]", strings.Join(workload.Names(), "|"))
	}
	meta, err := workload.Lookup(args[0])
	if err != nil {
		return o, nil, false, fmt.Errorf("bench: %w", err)
	}
	fs := flag.NewFlagSet("bench "+meta.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	b, w := newBenchFlags(fs, meta)
	if help, err := parseFlags(fs, args[1:]); help || err != nil {
		return o, b, help, err
	}
	o, err = b.options(w, stderr)
	return o, b, false, err
}

// addFlags adds src's flags to dst (a workload's flags to a command's).
func addFlags(dst, src *flag.FlagSet) {
	src.VisitAll(func(f *flag.Flag) { dst.Var(f.Value, f.Name, f.Usage) })
}

// execute runs the bench and prints the comparison table.
func execute(ctx context.Context, o bench.Options, stdout, stderr io.Writer) error {
	res, err := bench.Execute(ctx, o)
	if res != nil && len(res.Runs) > 0 {
		if terr := report.WriteText(stdout, []report.Input{{Name: o.Out, Results: res}}); terr != nil && err == nil {
			err = terr
		}
		fmt.Fprintf(stderr, "results: %s\n", o.Out)
	}
	return monitor.ExplainAccess(err, o.URI)
}

func parseWriteConcern(s string) (*writeconcern.WriteConcern, error) {
	if s == "majority" {
		return writeconcern.Majority(), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("--write-concern %q: want a member count such as 1, or majority", s)
	}
	return &writeconcern.WriteConcern{W: n}, nil
}
