package upstream

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/address"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
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
// replica set: the driver's topology discovers the members and watches them
// with its heartbeats; the connections are the pool's own (memberPool), made
// with the driver's handshake and authentication. Its methods are safe for
// concurrent use.
type Pool struct {
	topo    *topology.Topology
	secrets []string // what no error may quote: the URI's password and secret options
	user    string   // "user@authSource", "" without credentials
	closed  atomic.Bool

	// How member connections are made (from the URI and options).
	dialer         options.ContextDialer
	tls            *tls.Config
	handshaker     func() driver.Handshaker // a new one per connection: it keeps the conversation
	connectTimeout time.Duration
	maxIdle        time.Duration // close connections idle longer (maxIdleTimeMS); 0: never
	maxPerMember   int

	mu      sync.Mutex
	members map[string]*memberPool // by canonical address

	snapshot atomic.Pointer[membersSnapshot]
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
	if err := p.connections(co); err != nil {
		return nil, p.redact(fmt.Errorf("upstream: %w", err))
	}
	// The driver's own pools carry no request: keep none open.
	co.SetMinPoolSize(0)
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

// connections sets how member connections are made from co: its dialer
// (or one with the connect timeout and the driver's keep-alive), TLS
// configuration, handshake (the driver's, with the application name and
// the authenticator of co's credentials), timeouts and pool size.
func (p *Pool) connections(co *options.ClientOptions) error {
	p.connectTimeout = 30 * time.Second
	if co.ConnectTimeout != nil {
		p.connectTimeout = *co.ConnectTimeout
	}
	p.dialer = &net.Dialer{Timeout: p.connectTimeout, KeepAlive: 120 * time.Second}
	if co.Dialer != nil {
		p.dialer = co.Dialer
	}
	p.tls = co.TLSConfig
	if co.MaxConnIdleTime != nil {
		p.maxIdle = *co.MaxConnIdleTime
	}
	p.maxPerMember = int(*co.MaxPoolSize)
	if p.maxPerMember == 0 {
		p.maxPerMember = 1 << 16 // no bound, as maxPoolSize=0 means to the driver
	}
	var authenticator driver.Authenticator
	if co.Auth != nil {
		var err error
		if authenticator, err = auth.CreateAuthenticator(co.Auth.AuthMechanism, topology.ConvertCreds(co.Auth), co.HTTPClient); err != nil {
			return fmt.Errorf("credentials: %w", err)
		}
	}
	opts := auth.HandshakeOptions{AppName: *co.AppName, Authenticator: authenticator}
	if co.Auth != nil && co.Auth.AuthMechanism == "" {
		opts.DBUser = co.Auth.AuthSource + "." + co.Auth.Username // SASL mechanism negotiation
		if co.Auth.AuthSource == "" {
			opts.DBUser = "admin." + co.Auth.Username
		}
	}
	if api := co.ServerAPIOptions; api != nil {
		opts.ServerAPI = driver.NewServerAPIOptions(string(api.ServerAPIVersion))
		if api.Strict != nil {
			opts.ServerAPI.SetStrict(*api.Strict)
		}
		if api.DeprecationErrors != nil {
			opts.ServerAPI.SetDeprecationErrors(*api.DeprecationErrors)
		}
	}
	p.handshaker = func() driver.Handshaker {
		o := opts
		return auth.Handshaker(nil, &o)
	}
	p.members = map[string]*memberPool{}
	return nil
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
	mp, err := p.member(string(desc.Addr))
	if err != nil {
		return err
	}
	c, err := mp.get(ctx)
	if err != nil {
		return err
	}
	mp.put(c, false)
	// Refused after a connection was had: a topology disconnected before
	// took 10 s to close (measured with the driver v2).
	return notReplicaSet(p.topo.Kind(), desc)
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
// with its role, wire versions and limits as of its last heartbeat. The
// snapshot is shared until the topology's description changes (every
// request asks): callers must not modify it.
func (p *Pool) Members() []Member {
	d := p.topo.Description()
	if len(d.Servers) == 0 {
		return membersOf(d, p.redact)
	}
	// The driver replaces the description's servers at every change (it
	// changes them in place only for mongos SRV polling, which New
	// refuses), so where the first one lives tells a new description from
	// the cached one.
	key := &d.Servers[0]
	if c := p.snapshot.Load(); c != nil && c.key == key && len(c.members) == len(d.Servers) {
		return c.members
	}
	ms := membersOf(d, p.redact)
	p.snapshot.Store(&membersSnapshot{key: key, members: ms})
	return ms
}

// membersSnapshot is Members' cache: the members built from the
// description whose first server key points to.
type membersSnapshot struct {
	key     *description.Server
	members []Member
}

// Close closes the idle connections and stops the heartbeats. Requests in
// flight finish, or end with their context, and their connections are
// closed as they come back; later requests get ErrClosed.
func (p *Pool) Close(ctx context.Context) error {
	if p.closed.Swap(true) {
		return nil
	}
	p.mu.Lock()
	for _, mp := range p.members {
		mp.close()
	}
	p.mu.Unlock()
	if err := p.topo.Disconnect(ctx); err != nil {
		return fmt.Errorf("upstream: closing: %w", err)
	}
	return nil
}

// member returns the connections to addr, a member the driver's topology
// knows: made at first use, and made again when the topology replaced the
// member's server (removed from the set and added back).
func (p *Pool) member(addr string) (*memberPool, error) {
	srv, err := p.server(addr)
	if err != nil {
		return nil, err
	}
	addr = string(address.Address(addr).Canonicalize())
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Load() {
		return nil, fmt.Errorf("upstream %s: %w", addr, ErrClosed)
	}
	mp := p.members[addr]
	if mp == nil || mp.srv != srv {
		if mp != nil {
			mp.close()
		}
		mp = newMemberPool(p, addr, srv, p.maxPerMember)
		p.members[addr] = mp
	}
	return mp, nil
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
