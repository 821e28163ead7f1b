package router

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
)

// Errors returned by Connect.
var (
	ErrBadURI      = errors.New("invalid connection string")
	ErrUnreachable = errors.New("replica set unreachable")
	// ErrNotReplicaSet: the URI names a standalone mongod or a mongos.
	ErrNotReplicaSet = monitor.ErrNotReplicaSet
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventLag follows every lag poll (once per second by default).
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
	Lag      monitor.LagSample // EventLag
	Decision balancer.Decision // EventPeriod
	Period   balancer.Period   // EventPeriod: what the policy observed
}

type config struct {
	policy         balancer.Policy
	monitor        monitor.Config
	clientOpts     []*options.ClientOptions
	onEvent        func(Event)
	connectTimeout time.Duration
	rttQuantile    float64
}

// Option configures a Router.
type Option func(*config) error

// WithPolicy sets the routing policy (default: decongestant with seed 000's
// constants and a 10 s staleness bound).
func WithPolicy(p balancer.Policy) Option {
	return func(c *config) error {
		if p == nil {
			return errors.New("router: nil policy")
		}
		c.policy = p
		return nil
	}
}

// WithMonitor sets the RTT and lag polling intervals and timeouts.
func WithMonitor(m monitor.Config) Option {
	return func(c *config) error { c.monitor = m; return nil }
}

// WithClientOptions adds driver options (credentials, TLS, pool sizes,
// your own monitors, which are chained) applied after the URI.
func WithClientOptions(opts ...*options.ClientOptions) Option {
	return func(c *config) error { c.clientOpts = append(c.clientOpts, opts...); return nil }
}

// WithEvents registers a callback for lag polls and period decisions. It
// must return quickly and must not call Close.
func WithEvents(f func(Event)) Option {
	return func(c *config) error { c.onEvent = f; return nil }
}

// WithRTTQuantile sets which quantile of a period's ping RTTs estimates
// the network round trip subtracted from client latency: 0.5 is seed 000's
// median, 0 the minimum (the default; see DESIGN.md: on CPU-starved members a
// ping waits for the CPU like a read does, and its median absorbs the very
// congestion the ratio must see).
func WithRTTQuantile(q float64) Option {
	return func(c *config) error {
		if q < 0 || q > 1 || q != q {
			return fmt.Errorf("router: RTT quantile %v must be in [0, 1]", q)
		}
		c.rttQuantile = q
		return nil
	}
}

// WithConnectTimeout bounds how long Connect waits for the replica set
// (default 10 s).
func WithConnectTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("router: connect timeout %v must be positive", d)
		}
		c.connectTimeout = d
		return nil
	}
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
	lat         [3]*metrics.Histogram // by balancer.Side
	frac        atomic.Uint64         // float64 bits of the fraction in force
	// prefs are the read preferences per side; for driver-selected
	// policies both sides hold the policy's read preference.
	prefs [3]*readpref.ReadPref

	mu       sync.Mutex // serialises policy calls and event delivery
	lastDec  balancer.Decision
	lastSnap [3]*metrics.Snapshot

	dbs    sync.Map // name -> *Database
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool
}

// Connect connects to the replica set at uri, checks that it is one, takes a
// first lag measurement, and starts the monitor and the balancer.
func Connect(ctx context.Context, uri string, opts ...Option) (*Router, error) {
	cfg := config{connectTimeout: 10 * time.Second}
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
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadURI, monitor.Redact(uri), err)
	}
	if cs.LoadBalanced {
		return nil, fmt.Errorf("%w: %s is load balanced (a mongos); decongestant needs the replica set's members", ErrNotReplicaSet, monitor.Redact(uri))
	}
	if cs.Scheme == connstring.SchemeMongoDB && cs.ReplicaSet == "" && cs.DirectConnection {
		return nil, fmt.Errorf("%w: %s asks for a direct connection; give the replica set's members and replicaSet=NAME", ErrNotReplicaSet, monitor.Redact(uri))
	}

	r := &Router{policy: cfg.policy, sel: cfg.policy.Selection(), onEvent: cfg.onEvent, served: newServed(),
		rttQuantile: cfg.rttQuantile}
	for i := range r.lat {
		r.lat[i] = metrics.NewHistogram()
		r.lastSnap[i] = r.lat[i].Snapshot()
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
		return nil, fmt.Errorf("router: connect to %s: %w", monitor.Redact(uri), err)
	}
	r.client = client
	r.storeFraction(r.policy.Fraction())

	cctx, ccancel := context.WithTimeout(ctx, cfg.connectTimeout)
	defer ccancel()
	mcfg := cfg.monitor
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
		if errors.Is(err, monitor.ErrNotReplicaSet) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s (hosts %s) after %v: %v", ErrUnreachable, monitor.Redact(uri),
			strings.Join(cs.Hosts, ","), cfg.connectTimeout, err)
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

// ReadPref returns the read preference used for a side.
func (r *Router) ReadPref(s balancer.Side) *readpref.ReadPref { return r.prefs[s] }

// Pick flips the biased coin: Secondary with probability Fraction(). For
// driver-selected policies it always returns Secondary, whose read
// preference is the policy's.
func (r *Router) Pick() balancer.Side {
	if r.sel.Mode != balancer.Split {
		return balancer.Secondary
	}
	f := math.Float64frombits(r.frac.Load())
	switch {
	case f <= 0:
		return balancer.Primary
	case f >= 1:
		return balancer.Secondary
	case rand.Float64() < f:
		return balancer.Secondary
	}
	return balancer.Primary
}

// Mark returns a context that marks the reads made with it as routed to
// side, so they are counted by the member that serves them.
func (r *Router) Mark(ctx context.Context, s balancer.Side) context.Context {
	return &routedCtx{Context: ctx, side: uint8(s)}
}

// Record adds a routed read's client-observed latency to its side's samples.
// Reads cancelled by their caller are not samples of the server's speed and
// are dropped.
func (r *Router) Record(s balancer.Side, d time.Duration, err error) {
	if err != nil && errors.Is(err, context.Canceled) {
		return
	}
	r.lat[s].Record(d)
}

// Read is one routed unit of work (a query, or a read-only transaction made
// of several queries) started by Begin and finished by Done.
type Read struct {
	r *Router
	// Side is where the unit's reads go.
	Side balancer.Side
	// Ctx must be used for every query of the unit.
	Ctx   context.Context
	start time.Time
}

// Begin picks a side for a unit of reads. Use Database or Collection for
// handles with the side's read preference, and Ctx for every call.
func (r *Router) Begin(ctx context.Context) Read {
	s := r.Pick()
	return Read{r: r, Side: s, Ctx: r.Mark(ctx, s), start: time.Now()}
}

// Database returns the database handle with the read's read preference.
func (rd Read) Database(name string) *mongo.Database {
	return rd.r.Database(name).dbs[rd.Side]
}

// Done records the unit's latency under its side and returns it.
func (rd Read) Done(err error) time.Duration {
	d := time.Since(rd.start)
	rd.r.Record(rd.Side, d, err)
	return d
}

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

func (r *Router) observeLag(s monitor.LagSample) {
	if r.closed.Load() {
		return
	}
	r.mu.Lock()
	prev := r.Fraction()
	f := r.policy.ObserveLag(balancer.Lag{Max: s.Max, Known: s.Known})
	r.storeFraction(f)
	r.mu.Unlock()
	if r.onEvent != nil {
		r.onEvent(Event{At: s.At, Kind: EventLag, Fraction: f, Previous: prev, Lag: s})
	}
}

func (r *Router) periodLoop(ctx context.Context, iv time.Duration) {
	defer r.wg.Done()
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.endPeriod(now)
		}
	}
}

func (r *Router) endPeriod(now time.Time) {
	var p balancer.Period
	r.mu.Lock()
	var cur [3]*metrics.Snapshot
	for _, s := range []balancer.Side{balancer.Primary, balancer.Secondary} {
		cur[s] = r.lat[s].Snapshot()
		d := cur[s].Sub(r.lastSnap[s])
		st := balancer.Stats{Count: int(d.Count()), P50: d.Quantile(0.5)}
		if s == balancer.Primary {
			p.Primary = st
		} else {
			p.Secondary = st
		}
		r.lastSnap[s] = cur[s]
	}
	p.PrimaryRTT, p.SecondaryRTT = monitor.RTTByRole(r.mon.DrainRTT(), r.mon.Roles(), r.rttQuantile)
	prev := r.Fraction()
	dec := r.policy.EndPeriod(p)
	r.storeFraction(dec.Fraction)
	r.lastDec = dec
	r.mu.Unlock()
	if r.onEvent != nil {
		r.onEvent(Event{At: now, Kind: EventPeriod, Fraction: dec.Fraction, Previous: prev, Decision: dec, Period: p})
	}
}

// Close stops the balancer and the monitor and disconnects the client.
func (r *Router) Close(ctx context.Context) error {
	if r.closed.Swap(true) {
		return nil
	}
	r.cancel()
	r.wg.Wait()
	return errors.Join(r.mon.Close(ctx), r.client.Disconnect(ctx))
}
