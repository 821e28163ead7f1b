package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/mongo/address"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/decongestant/decongestant/internal/redact"
)

// DefaultAppName is the appName the pool's connections announce to the
// members (in their logs and currentOp) when neither the URI nor the options
// set one.
const DefaultAppName = "decongestant-proxy"

// defaultMaxPoolSize caps each member's connections as mongo.Client does
// when the URI sets no maxPoolSize.
const defaultMaxPoolSize = 100

// Option configures New.
type Option func(*config)

type config struct {
	clientOpts []*options.ClientOptions
}

// WithClientOptions applies driver options after the URI's, the last one
// that sets a field winning (a dialer, pool sizes, timeouts, a TLS
// configuration, a pool or server monitor). Compression is always off: the
// pool forwards and returns raw OP_MSG bytes. Load-balanced mode is refused.
func WithClientOptions(opts ...*options.ClientOptions) Option {
	return func(c *config) { c.clientOpts = append(c.clientOpts, opts...) }
}

// Pool holds authenticated, TLS-capable connections to each member of one
// replica set, through the driver's topology: one connection pool per
// member, monitored by the driver's heartbeats. Its methods are safe for
// concurrent use.
type Pool struct {
	topo    *topology.Topology
	secrets []string // what no error may quote: the URI's password and secret options
	user    string   // "user@authSource", "" without credentials
	closed  atomic.Bool
}

// New connects to the replica set uri names (with its credentials and TLS
// options) and returns once it has authenticated a connection to a primary
// or secondary, so that a wrong password or a TLS failure is New's error
// (ErrAuthentication, ErrUnavailable) rather than every request's. A
// standalone mongod, or a direct connection to one member, is refused at
// once (ErrNotReplicaSet). It waits at most the URI's
// serverSelectionTimeoutMS (30 s by default) and ctx.
func New(ctx context.Context, uri string, opts ...Option) (*Pool, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	p := &Pool{secrets: redact.Secrets(uri)}
	co := options.Client().ApplyURI(uri)
	if err := co.Validate(); err != nil {
		return nil, p.redact(fmt.Errorf("upstream: the URI %s: %w", redact.URI(uri), err))
	}
	co = options.MergeClientOptions(append([]*options.ClientOptions{co}, cfg.clientOpts...)...)
	if err := co.Validate(); err != nil {
		return nil, p.redact(fmt.Errorf("upstream: options: %w", err))
	}
	if co.LoadBalanced != nil && *co.LoadBalanced {
		return nil, errors.New("upstream: loadBalanced is not supported: the proxy must reach each member itself")
	}
	co.Compressors = nil
	if co.MaxPoolSize == nil {
		co.SetMaxPoolSize(defaultMaxPoolSize)
	}
	if co.AppName == nil {
		co.SetAppName(DefaultAppName)
	}
	if co.Auth != nil {
		src := co.Auth.AuthSource
		if src == "" {
			src = "admin"
		}
		p.user = co.Auth.Username + "@" + src
	}
	tcfg, err := topology.NewConfig(co, nil)
	if err != nil {
		return nil, p.redact(fmt.Errorf("upstream: %w", err))
	}
	if p.topo, err = topology.New(tcfg); err != nil {
		return nil, p.redact(fmt.Errorf("upstream: %w", err))
	}
	if err := p.topo.Connect(); err != nil {
		return nil, p.redact(fmt.Errorf("upstream: %w", err))
	}
	if err := p.check(ctx); err != nil {
		_ = p.topo.Disconnect(context.Background())
		return nil, err
	}
	return p, nil
}

// check waits for a primary or secondary and authenticates one connection
// to it.
func (p *Pool) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.topo.GetServerSelectionTimeout())
	defer cancel()
	srv, err := p.topo.SelectServer(ctx, dataBearing{})
	if err != nil {
		return p.redact(fmt.Errorf("upstream: %w: no primary or secondary reachable: %w", ErrUnavailable, err))
	}
	if p.topo.Kind() == description.TopologyKindSharded {
		return errors.New("upstream: the URI names mongos routers, not replica set members")
	}
	var desc description.Server
	if s, ok := srv.(*topology.SelectedServer); ok {
		desc = s.Description().Server
	}
	conn, err := srv.Connection(ctx)
	if err != nil {
		return p.checkoutError(string(desc.Addr), err)
	}
	// Refused after a connection was had: a topology disconnected before
	// took 10 s to close (measured with the driver v2).
	return errors.Join(conn.Close(), notReplicaSet(p.topo.Kind(), desc))
}

// notReplicaSet refuses a standalone mongod and a direct connection to one
// member (the topology the driver made of the URI, and the member it
// selected): every command would wait for a primary it never finds, or
// the proxy would see one member of many.
func notReplicaSet(kind description.TopologyKind, s description.Server) error {
	switch {
	case s.Kind == description.ServerKindStandalone:
		return fmt.Errorf("upstream: %s is a standalone mongod, not a replica set member: the proxy needs a replica set (mongod --replSet NAME, then rs.initiate()): %w", s.Addr, ErrNotReplicaSet)
	case kind == description.TopologyKindSingle:
		return fmt.Errorf("upstream: directConnection=true reaches one member only: the proxy needs them all: drop it and name the set (replicaSet=NAME): %w", ErrNotReplicaSet)
	}
	return nil
}

// dataBearing selects primaries, secondaries and standalones.
type dataBearing struct{}

func (dataBearing) SelectServer(_ description.Topology, cands []description.Server) ([]description.Server, error) {
	var out []description.Server
	for _, s := range cands {
		switch s.Kind {
		case description.ServerKindRSPrimary, description.ServerKindRSSecondary, description.ServerKindStandalone, description.ServerKindMongos:
			out = append(out, s)
		}
	}
	return out, nil
}

// Members returns every member the driver's topology knows, by address,
// with its role, wire versions and limits as of its last heartbeat. It builds
// a new snapshot at each call.
func (p *Pool) Members() []Member {
	return membersOf(p.topo.Description(), p.redact)
}

// Close closes every connection and stops the heartbeats. Requests in
// flight fail; later ones get ErrClosed.
func (p *Pool) Close(ctx context.Context) error {
	if p.closed.Swap(true) {
		return nil
	}
	if err := p.topo.Disconnect(ctx); err != nil {
		return fmt.Errorf("upstream: closing: %w", err)
	}
	return nil
}

// server returns the driver's server for addr.
func (p *Pool) server(addr string) (*topology.Server, error) {
	if p.closed.Load() {
		return nil, fmt.Errorf("upstream %s: %w", addr, ErrClosed)
	}
	s, err := p.topo.FindServer(description.Server{Addr: address.Address(addr).Canonicalize()})
	switch {
	case errors.Is(err, topology.ErrTopologyClosed):
		return nil, fmt.Errorf("upstream %s: %w", addr, ErrClosed)
	case err != nil:
		return nil, fmt.Errorf("upstream %s: %w: %w", addr, ErrUnknownMember, err)
	case s == nil:
		return nil, fmt.Errorf("upstream %s: %w", addr, ErrUnknownMember)
	}
	return s.Server, nil
}

// checkoutError says why no connection to addr could be had.
func (p *Pool) checkoutError(addr string, err error) error {
	var authErr *auth.Error
	switch {
	case p.closed.Load() || errors.Is(err, topology.ErrPoolClosed):
		return fmt.Errorf("upstream %s: %w", addr, ErrClosed)
	case errors.Is(err, topology.ErrServerClosed):
		return fmt.Errorf("upstream %s: %w: removed from the topology", addr, ErrUnknownMember)
	case errors.As(err, &authErr):
		return p.redact(fmt.Errorf("upstream %s: %w as %s: %w", addr, ErrAuthentication, p.user, err))
	}
	return p.redact(fmt.Errorf("upstream %s: %w: %w", addr, ErrUnavailable, err))
}

// redact scrubs err's message of the URI's secrets.
func (p *Pool) redact(err error) error {
	return redact.Error(err, p.secrets...)
}
