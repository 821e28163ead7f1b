package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/proxy"
	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
)

// ProxyMode says where a run's policy routes: in the library (the runner
// links router), through the wire-protocol proxy, or each policy both ways
// in turn, side by side in one invocation.
type ProxyMode uint8

const (
	// ProxyOff runs every policy in the library (the default).
	ProxyOff ProxyMode = iota
	// ProxyOnly runs every policy through the proxy.
	ProxyOnly
	// ProxyBoth runs every policy in the library, then through the proxy.
	ProxyBoth
)

// ProxyPrefix starts the name of a run through the proxy: "proxy:spillway".
const ProxyPrefix = "proxy:"

// ParseProxyMode accepts "off", "on" and "both".
func ParseProxyMode(s string) (ProxyMode, error) {
	switch s {
	case "off":
		return ProxyOff, nil
	case "on":
		return ProxyOnly, nil
	case "both":
		return ProxyBoth, nil
	}
	return 0, fmt.Errorf("unknown proxy mode %q (want off, on or both)", s)
}

// proxyPolicy is the policy the proxy routes a run's reads with: a
// per-member policy as it is; primary as weights:primary=1, so every read
// still passes the policy and is counted by member, and lands on the
// primary. The others choose no member and cannot run through the proxy.
func proxyPolicy(p balancer.Policy) (balancer.Policy, error) {
	if p.Selection().Mode == balancer.PerMember {
		return p, nil
	}
	if p.Name() == "primary" {
		return balancer.ParseWeights("primary=1")
	}
	return nil, fmt.Errorf("%w: %s cannot run through the proxy, which routes with a per-member policy: primary, spillway or weights:...", ErrBadOptions, p.Name())
}

// connectProxied starts the run's proxy in this process, on a loopback
// port, with the run's policy and router options, and points the
// workload's clients at it as an application would: one client with the
// run's pool options, writes and unrouted reads with read preference
// primary, routed reads with secondaryPreferred (the reads the proxy routes
// under its default, opted-in). The S probe's second read goes through the
// proxy too.
func (r *policyRun) connectProxied(ctx context.Context, ropts []router.Option, poolOpts *options.ClientOptions) error {
	o := r.o
	pol, err := proxyPolicy(r.pol)
	if err != nil {
		return err
	}
	cfg := proxy.Config{URI: o.URI, Policy: pol, ConnectTimeout: o.ConnectTimeout, NoReadYourWrites: !o.ReadYourWrites,
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Router:   append(ropts, router.WithClientOptions(o.ClientOptions...)),
		Upstream: []upstream.Option{upstream.WithClientOptions(o.ClientOptions...)}}
	if b := o.Settings.Decongestant.Bound; !b.Unbounded {
		cfg.MaxStaleness = b.Max
	}
	s, err := proxy.New(cfg)
	if err != nil {
		return err
	}
	r.px = s
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	go func() { _ = s.Serve(context.Background(), ln) }()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://"+ln.Addr().String()+"/").SetAppName("decongestant-bench"), poolOpts)
	if err != nil {
		return fmt.Errorf("connect to the proxy: %w", err)
	}
	r.pxConn = client
	r.rt = s.Router()
	if o.OnRouter != nil {
		o.OnRouter(r.run.Policy, r.rt)
	}
	fmt.Fprintf(o.Progress, "  [%s] through the proxy at %s; lag source: %s (%s)\n", r.label, ln.Addr(), r.rt.LagSource(), r.rt.LagSourceReason())
	routed := client.Database(o.Database, options.Database().SetReadPreference(readpref.SecondaryPreferred()))
	r.env = workload.Env{DB: client.Database(o.Database), Reads: proxiedReads{db: routed, n: r.reads}}
	r.probe, err = startProbe(ctx, o, proxiedProbe{Router: r.rt, db: routed, addr: ln.Addr().String()})
	return err
}

// closeProxy disconnects the workload's client and closes the proxy.
func (r *policyRun) closeProxy() {
	if r.pxConn != nil {
		_ = r.pxConn.Disconnect(context.Background())
	}
	if r.px != nil {
		_ = r.px.Close()
	}
}

// proxiedReads hands out the proxy client's collections with read
// preference secondaryPreferred: the proxy routes their reads.
type proxiedReads struct {
	db *mongo.Database
	n  *readCount
}

func (p proxiedReads) Collection(name string) workload.ReadCollection {
	return countedCollection{c: p.db.Collection(name), n: p.n}
}

// Begin: the unit's queries are routed one by one by the proxy (it cannot
// keep a unit on one member), with the context as given.
func (p proxiedReads) Begin(ctx context.Context) workload.Unit {
	return workload.Unit{Ctx: ctx, DB: p.db, Done: func(error) { p.n.units.Add(1) }}
}

// proxiedProbe is the S probe's view of a proxied run: the proxy's router
// for the shares, and the proxy itself for the probe's second read, which
// it routes as any application read (host names the proxy: which member
// answered is the proxy's to know).
type proxiedProbe struct {
	*router.Router
	db   *mongo.Database
	addr string
}

func (p proxiedProbe) SecondaryCollection(db, coll string) (*mongo.Collection, string, bool) {
	w, ok := p.Weights()
	if !ok || w.Secondary() <= 0 {
		return nil, "", false
	}
	return p.db.Client().Database(db, options.Database().SetReadPreference(readpref.SecondaryPreferred())).Collection(coll), "proxy " + p.addr, true
}
