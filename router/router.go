package router

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
)

// Errors returned by Connect (decided by package monitor); test with
// errors.Is. Each is one line naming the cause, and never holds a password.
var (
	ErrBadURI        = monitor.ErrBadURI
	ErrUnreachable   = monitor.ErrUnreachable
	ErrNotReplicaSet = monitor.ErrNotReplicaSet
	// ErrAuth: the user could not authenticate (wrong password or user,
	// authSource, mechanism).
	ErrAuth = monitor.ErrAuth
	// ErrTLS: the TLS handshake failed (an untrusted certificate: give
	// tlsCAFile=...; a server without TLS). Connect returns it as soon as
	// the driver's first connection fails so, not after the connect timeout.
	ErrTLS = monitor.ErrTLS
	// ErrNotAuthorized: the user lacks a role a command Connect needs (only
	// with monitor.SourceReplSetGetStatus asked for: clusterMonitor; with
	// monitor.SourceHeartbeat: readWrite on the heartbeat's database).
	ErrNotAuthorized = monitor.ErrNotAuthorized
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventLag follows every lag poll (once per second for bounds of 5 s and
	// more), an expired poll, and a member turning selectable that the last
	// poll did not vouch for.
	EventLag EventKind = iota + 1
	// EventPeriod follows every balancing period's decision.
	EventPeriod
	// EventHints reports a member's read hints switched off or on.
	EventHints
)

// Event reports a lag poll or a period decision and the fraction in force
// after it. Events are delivered from the router's goroutines, one at a time.
type Event struct {
	At       time.Time
	Kind     EventKind
	Fraction float64
	// Previous is the fraction in force before this event.
	Previous float64
	// Lag is the poll (EventLag), Lag.Source the lag source that took it.
	// Known is false and Err says why when the poll failed or expired, or
	// the driver may read from a member the poll does not show as a
	// SECONDARY.
	Lag      monitor.LagSample
	Decision balancer.Decision // EventPeriod
	Period   balancer.Period   // EventPeriod: what the policy observed
	// Latencies are the period's reads by both latency sources (EventPeriod).
	Latencies Latencies
	// Weights are the per-member shares in force after the event, as
	// routed (per-member policies; zero otherwise).
	Weights balancer.Weights
	// Hints is the switch (EventHints).
	Hints hints.Event
}

// Router routes reads between the primary and the secondaries of one replica
// set according to its policy. It is safe for concurrent use by hundreds of
// goroutines.
type Router struct {
	client  *mongo.Client
	policy  balancer.Policy
	sel     balancer.Selection
	mon     *monitor.Monitor
	rtts    rttSource // mon, outside tests
	onEvent func(Event)
	log     *slog.Logger // nil: silent
	served  *served
	obs     *observed // what Stats reports beyond the counters
	// rttQuantile picks the RTT estimate from a period's pings.
	rttQuantile float64
	latency     LatencySource
	lagInterval time.Duration
	lat         [3]sideLatency // by balancer.Side
	frac        atomic.Uint64  // float64 bits of the fraction in force
	// prefs are the read preferences per side; for driver-selected
	// policies both sides hold the policy's read preference.
	prefs [3]*readpref.ReadPref

	// Per-member policies only: the members' pools, the primary's
	// target, the policy's latest weights and the table in force.
	pools    *memberPools
	primaryT *target
	weights  atomic.Pointer[balancer.Weights]
	// estimates are an Estimator policy's per-read times by host ("" the
	// primary) as of its latest call, for the table's per-read rule.
	estimates atomic.Pointer[map[string]memberEstimate]
	tab       atomic.Pointer[table]
	tabMu     sync.Mutex   // serialises table rebuilds
	pollAt    atomic.Int64 // send time of the latest lag poll (UnixNano)
	lastEnd   time.Time    // the latest period end (under mu)
	// external: the caller sends the reads (WithExternalReads); the
	// targets have no pools.
	external bool
	rywOn    bool // WithReadYourWrites(true)
	// applied are the optimes the members are known to have applied, and
	// ryw counts the reads routed with one to wait for.
	applied appliedTimes
	ryw     struct{ reads, held atomic.Int64 }
	// lagNow is the latest lag poll, read without mu by Route.
	lagNow atomic.Pointer[monitor.LagSample]

	mu       sync.Mutex // serialises policy calls
	evMu     sync.Mutex // serialises event delivery (log and WithEvents)
	lastDec  balancer.Decision
	lastSnap [3]sideSnapshot
	lastLag  monitor.LagSample
	// lastMembers are the member snapshots at the latest period end.
	lastMembers []MemberSnapshot
	lastWrites  *metrics.Snapshot

	// Read hints (WithHints): the module and its own member pools.
	hints     *hints.Module
	hintPools *memberPools

	dbs    sync.Map // name -> *Database
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool
}

// Connect connects to the replica set at uri, checks that it is one, takes a
// first lag measurement, and starts the monitor and the balancer. A user
// with no role but readWrite on the database read can connect and route:
// lag then comes from the heartbeat when its namespace is in that database
// (WithMonitor), else from hello (monitor.SourceAuto).
func Connect(ctx context.Context, uri string, opts ...Option) (*Router, error) {
	cfg, err := newConfig(uri, opts)
	if err != nil {
		return nil, err
	}
	r := &Router{policy: cfg.policy, sel: cfg.policy.Selection(), onEvent: cfg.onEvent, log: cfg.logger, obs: newObserved(),
		rttQuantile: cfg.rttQuantile, latency: cfg.latency, lagInterval: cfg.monitor.LagInterval, external: cfg.external, rywOn: cfg.ryw}
	r.served = newServed(r.recheckLag)
	for i := range r.lat {
		r.lat[i] = newSideLatency()
		r.lastSnap[i] = r.lat[i].snapshot()
	}
	if err := r.setPrefs(); err != nil {
		return nil, err
	}
	r.preparePools(uri, cfg.clientOpts)
	if err := r.prepareHints(uri, cfg.hints, cfg.clientOpts); err != nil {
		return nil, err
	}
	if err := r.connectClient(uri, cfg.clientOpts); err != nil {
		return nil, err
	}
	r.storeFraction(r.policy.Fraction())
	r.lastEnd = time.Now()
	if err := r.startMonitor(ctx, uri, cfg); err != nil {
		_ = r.client.Disconnect(context.Background())
		_ = r.closePools(context.Background())
		_ = r.closeHints(context.Background())
		return nil, err
	}
	r.startHints()
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.wg.Add(1)
	if iv := r.policy.Interval(); iv > 0 {
		go r.periodLoop(runCtx, iv, r.endPeriod)
	} else {
		go r.periodLoop(runCtx, time.Second, r.drainRTT)
	}
	r.logConnected(uri, cfg.hints)
	return r, nil
}

// newConfig applies the options over the defaults, checks the URI, and
// settles the lag poll interval: the policy's bound decides it unless the
// monitor config gives one, and it must let a bounded policy read from
// secondaries.
func newConfig(uri string, opts []Option) (config, error) {
	cfg := config{connectTimeout: 10 * time.Second, latency: CommandLatency}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return cfg, err
		}
	}
	if cfg.policy == nil {
		p, err := balancer.NewPerRead(balancer.LeastWait, balancer.DefaultPerReadConfig())
		if err != nil {
			return cfg, err
		}
		cfg.policy = p
	}
	if cfg.external && cfg.policy.Selection().Mode != balancer.PerMember {
		return cfg, fmt.Errorf("router: policy %s does not route per member; reads sent by the caller (WithExternalReads) need one: spillway, leastwait, p2c, prequal or weights:...", cfg.policy.Name())
	}
	if cfg.policy.Selection().Mode == balancer.PerMember && strings.HasPrefix(uri, "mongodb+srv://") {
		// The driver refuses a direct connection under an SRV URI.
		return cfg, fmt.Errorf("%w: %s routes per member over a direct connection to each member, which the driver does not allow with a mongodb+srv:// URI; give the seed list instead (mongodb://host1,host2,host3/?replicaSet=...&tls=true, e.g. the \"standard connection string\" of a managed service)",
			ErrBadURI, cfg.policy.Name())
	}
	if err := monitor.CheckURI(uri); err != nil {
		return cfg, err
	}
	b, bounded := cfg.policy.(balancer.Bounded)
	if cfg.monitor.LagInterval == 0 {
		cfg.monitor.LagInterval = balancer.DefaultLagInterval
		if bounded {
			cfg.monitor.LagInterval = balancer.LagIntervalFor(b.Bound())
		}
	}
	if bounded {
		if err := b.CheckLagInterval(cfg.monitor.LagInterval); err != nil {
			return cfg, fmt.Errorf("router: %w", err)
		}
	}
	if cfg.monitor.Timeout == 0 {
		cfg.monitor.Timeout = cfg.connectTimeout
	}
	return cfg, nil
}

// connectClient connects the routed client with the router's command and
// server monitors in front of the user's own.
func (r *Router) connectClient(uri string, clientOpts []*options.ClientOptions) error {
	all, userCmd, userSrv := withUserMonitors(uri, clientOpts)
	all = append(all, options.Client().SetMonitor(r.served.commandMonitor(userCmd)).
		SetServerMonitor(r.served.serverMonitor(userSrv)))
	if r.sel.LocalThreshold > 0 {
		all = append(all, options.Client().SetLocalThreshold(r.sel.LocalThreshold))
	}
	client, err := mongo.Connect(all...)
	if err != nil {
		return fmt.Errorf("router: connect to %s: %w", redact.URI(uri), err)
	}
	r.client = client
	return nil
}

// withUserMonitors returns the URI's options followed by the user's, and the
// command and server monitors they set (the last one set wins), which the
// router's own monitors chain to.
func withUserMonitors(uri string, clientOpts []*options.ClientOptions) ([]*options.ClientOptions, *event.CommandMonitor, *event.ServerMonitor) {
	co := options.Client().ApplyURI(uri)
	userCmd, userSrv := co.Monitor, co.ServerMonitor
	for _, o := range clientOpts {
		if o.Monitor != nil {
			userCmd = o.Monitor
		}
		if o.ServerMonitor != nil {
			userSrv = o.ServerMonitor
		}
	}
	return append([]*options.ClientOptions{co}, clientOpts...), userCmd, userSrv
}

// startMonitor starts RTT and lag polling within the connect timeout; every
// lag poll reaches the policy, then the user's OnLag.
func (r *Router) startMonitor(ctx context.Context, uri string, cfg config) error {
	cctx, cancel := context.WithTimeout(ctx, cfg.connectTimeout)
	defer cancel()
	mcfg := cfg.monitor
	mcfg.ClientOptions = append(mcfg.ClientOptions, cfg.clientOpts...)
	userLag := mcfg.OnLag
	mcfg.OnLag = func(s monitor.LagSample) {
		r.observeLag(s)
		if userLag != nil {
			userLag(s)
		}
	}
	mon, err := monitor.Start(cctx, uri, mcfg)
	if err != nil {
		return err
	}
	r.mon, r.rtts = mon, mon
	return nil
}

func (r *Router) setPrefs() error {
	switch r.sel.Mode {
	case balancer.Split:
		r.prefs[balancer.Primary] = readpref.Primary()
		r.prefs[balancer.Secondary] = readpref.Secondary()
		return nil
	case balancer.SecondaryPreferred:
		r.prefs[balancer.Secondary] = readpref.SecondaryPreferred()
	case balancer.Nearest:
		r.prefs[balancer.Secondary] = readpref.Nearest()
	case balancer.PerMember:
		if _, ok := r.policy.(balancer.Weighted); !ok {
			return fmt.Errorf("router: policy %s selects per member but has no weights", r.policy.Name())
		}
		r.prefs[balancer.Primary] = readpref.Primary()
		r.prefs[balancer.Secondary] = readpref.Primary() // unused: secondaries are read over their own pools
		return nil
	case balancer.MaxStaleness:
		rp, err := readpref.New(readpref.SecondaryMode, readpref.WithMaxStaleness(r.sel.MaxStaleness))
		if err != nil {
			return fmt.Errorf("router: %s: %w", r.policy.Name(), err)
		}
		r.prefs[balancer.Secondary] = rp
	default:
		return fmt.Errorf("router: policy %s has invalid selection %v", r.policy.Name(), r.sel.Mode)
	}
	r.prefs[balancer.Primary] = r.prefs[balancer.Secondary]
	return nil
}

// Client returns the underlying client, for writes and unrouted reads.
func (r *Router) Client() *mongo.Client { return r.client }

// PolicyName returns the routing policy's name, e.g. "decongestant".
func (r *Router) PolicyName() string { return r.policy.Name() }

// Fraction returns the balance fraction in force.
func (r *Router) Fraction() float64 { return math.Float64frombits(r.frac.Load()) }

func (r *Router) storeFraction(f float64) { r.frac.Store(math.Float64bits(f)) }

// LagInterval returns how often the primary is polled for lag.
func (r *Router) LagInterval() time.Duration { return r.lagInterval }

// LagSource returns the lag source in force (monitor.Config.LagSource;
// SourceAuto has chosen one by the time Connect returns).
func (r *Router) LagSource() monitor.LagSource { return r.mon.LagSource() }

// LagSourceReason says why the lag source in force is (see
// monitor.Monitor.LagSourceReason).
func (r *Router) LagSourceReason() string { return r.mon.LagSourceReason() }

// LatencySource returns which latency the policy sees.
func (r *Router) LatencySource() LatencySource { return r.latency }

// ReadPref returns the read preference used for a side.
func (r *Router) ReadPref(s balancer.Side) *readpref.ReadPref { return r.prefs[s] }

// Served returns the routed read commands counted so far by the member that
// served them.
func (r *Router) Served() Served { return r.served.snapshot() }

// LastDecision returns the latest period decision (Ratio NaN before the
// first one).
func (r *Router) LastDecision() balancer.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastDec.Reason == "" {
		return balancer.Decision{Fraction: r.Fraction(), Ratio: math.NaN()}
	}
	return r.lastDec
}

// Lag returns the latest lag poll.
func (r *Router) Lag() monitor.LagSample { return r.mon.Last() }

// Close stops the balancer and the monitor and disconnects the client.
func (r *Router) Close(ctx context.Context) error {
	if r.closed.Swap(true) {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	return errors.Join(r.closeHints(ctx), r.mon.Close(ctx), r.client.Disconnect(ctx), r.closePools(ctx))
}
