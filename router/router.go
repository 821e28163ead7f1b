package router

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
)

// Errors returned by Connect (decided by package monitor).
var (
	ErrBadURI        = monitor.ErrBadURI
	ErrUnreachable   = monitor.ErrUnreachable
	ErrNotReplicaSet = monitor.ErrNotReplicaSet
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
)

// Event reports a lag poll or a period decision and the fraction in force
// after it. Events are delivered from the router's goroutines, one at a time.
type Event struct {
	At       time.Time
	Kind     EventKind
	Fraction float64
	// Previous is the fraction in force before this event.
	Previous float64
	// Lag is the poll (EventLag). Known is false and Err says why when
	// the poll failed or expired, or the driver may read from a member the
	// poll does not show as a SECONDARY.
	Lag      monitor.LagSample
	Decision balancer.Decision // EventPeriod
	Period   balancer.Period   // EventPeriod: what the policy observed
	// Latencies are the period's reads by both latency sources (EventPeriod).
	Latencies Latencies
}

// Router routes reads between the primary and the secondaries of one replica
// set according to its policy. It is safe for concurrent use by hundreds of
// goroutines.
type Router struct {
	client  *mongo.Client
	policy  balancer.Policy
	sel     balancer.Selection
	mon     *monitor.Monitor
	onEvent func(Event)
	served  *served
	// rttQuantile picks the RTT estimate from a period's pings.
	rttQuantile float64
	latency     LatencySource
	lagInterval time.Duration
	lat         [3]sideLatency // by balancer.Side
	frac        atomic.Uint64  // float64 bits of the fraction in force
	// prefs are the read preferences per side; for driver-selected
	// policies both sides hold the policy's read preference.
	prefs [3]*readpref.ReadPref

	mu       sync.Mutex // serialises policy calls and event delivery
	lastDec  balancer.Decision
	lastSnap [3]sideSnapshot
	lastLag  monitor.LagSample

	dbs    sync.Map // name -> *Database
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool
}

// Connect connects to the replica set at uri, checks that it is one, takes a
// first lag measurement, and starts the monitor and the balancer.
func Connect(ctx context.Context, uri string, opts ...Option) (*Router, error) {
	cfg := config{connectTimeout: 10 * time.Second, latency: CommandLatency}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.policy == nil {
		p, err := balancer.NewDecongestant(balancer.DefaultConfig())
		if err != nil {
			return nil, err
		}
		cfg.policy = p
	}
	if err := monitor.CheckURI(uri); err != nil {
		return nil, err
	}
	mcfg := cfg.monitor
	if mcfg.LagInterval == 0 {
		mcfg.LagInterval = balancer.DefaultLagInterval
		if b, ok := cfg.policy.(balancer.Bounded); ok {
			mcfg.LagInterval = balancer.LagIntervalFor(b.Bound())
		}
	}
	if b, ok := cfg.policy.(balancer.Bounded); ok {
		if err := b.CheckLagInterval(mcfg.LagInterval); err != nil {
			return nil, fmt.Errorf("router: %w", err)
		}
	}

	r := &Router{policy: cfg.policy, sel: cfg.policy.Selection(), onEvent: cfg.onEvent,
		rttQuantile: cfg.rttQuantile, latency: cfg.latency, lagInterval: mcfg.LagInterval}
	r.served = newServed(r.recheckLag)
	for i := range r.lat {
		r.lat[i] = newSideLatency()
		r.lastSnap[i] = r.lat[i].snapshot()
	}
	if err := r.setPrefs(); err != nil {
		return nil, err
	}
	co := options.Client().ApplyURI(uri)
	var userCmd = co.Monitor
	var userSrv = co.ServerMonitor
	for _, o := range cfg.clientOpts {
		if o.Monitor != nil {
			userCmd = o.Monitor
		}
		if o.ServerMonitor != nil {
			userSrv = o.ServerMonitor
		}
	}
	all := append([]*options.ClientOptions{co}, cfg.clientOpts...)
	all = append(all, options.Client().SetMonitor(r.served.commandMonitor(userCmd)).
		SetServerMonitor(r.served.serverMonitor(userSrv)))
	client, err := mongo.Connect(all...)
	if err != nil {
		return nil, fmt.Errorf("router: connect to %s: %w", redact.URI(uri), err)
	}
	r.client = client
	r.storeFraction(r.policy.Fraction())

	cctx, ccancel := context.WithTimeout(ctx, cfg.connectTimeout)
	defer ccancel()
	mcfg.ClientOptions = append(mcfg.ClientOptions, cfg.clientOpts...)
	userLag := mcfg.OnLag
	mcfg.OnLag = func(s monitor.LagSample) {
		r.observeLag(s)
		if userLag != nil {
			userLag(s)
		}
	}
	if mcfg.Timeout == 0 {
		mcfg.Timeout = cfg.connectTimeout
	}
	mon, err := monitor.Start(cctx, uri, mcfg)
	if err != nil {
		_ = client.Disconnect(context.Background())
		return nil, err
	}
	r.mon = mon
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	if iv := r.policy.Interval(); iv > 0 {
		r.wg.Add(1)
		go r.periodLoop(runCtx, iv)
	}
	return r, nil
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

// Policy returns the routing policy's name.
func (r *Router) Policy() string { return r.policy.Name() }

// Fraction returns the balance fraction in force.
func (r *Router) Fraction() float64 { return math.Float64frombits(r.frac.Load()) }

func (r *Router) storeFraction(f float64) { r.frac.Store(math.Float64bits(f)) }

// LagInterval returns how often the primary is polled for lag.
func (r *Router) LagInterval() time.Duration { return r.lagInterval }

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
	return errors.Join(r.mon.Close(ctx), r.client.Disconnect(ctx))
}
