package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/router"
)

// ErrClosed: Serve was called on a closed (or draining) Server.
var ErrClosed = errors.New("proxy closed")

// Server is a running proxy: one upstream pool to the replica set, any
// number of listeners and client connections. Its methods are safe for
// concurrent use.
type Server struct {
	cfg     Config
	log     *slog.Logger
	pool    *upstream.Pool
	router  *router.Router // nil: no policy, every read to the primary
	auth    *authenticator // nil: clients do not authenticate
	cursors *cursors
	counts  counters
	build   buildInfoCache // buildInfo before authentication
	// failPoint is the failCommand fail point; nil unless
	// Config.EnableTestCommands.
	failPoint *failPoint

	opTime   opTime // the latest operationTime of a member's reply
	nextConn atomic.Uint64
	reqID    atomic.Int32
	draining atomic.Bool            // set by Shutdown
	last     atomic.Pointer[limits] // the limits advertised last

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]*connState
	refusals  refusals      // connections refused at MaxConnections
	drain     drainState    // Shutdown's progress
	done      chan struct{} // closed by Close
	// ctx is the client connections' context, canceled by Close (not by
	// Serve's ctx: connections outlive their listener until Close).
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New connects to the replica set cfg.URI names and returns a Server ready
// to Serve. It fails when no data-bearing member can be reached and
// authenticated within ConnectTimeout (or the URI's serverSelectionTimeoutMS).
func New(cfg Config) (*Server, error) {
	if cfg.URI == "" {
		return nil, errors.New("proxy: no upstream URI")
	}
	cfg = cfg.withDefaults()
	var auth *authenticator
	if cfg.Users != nil {
		var err error
		if auth, err = newAuthenticator(cfg.Users); err != nil {
			return nil, fmt.Errorf("proxy: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ConnectTimeout)
	defer cancel()
	pool, err := upstream.New(ctx, cfg.URI, cfg.Upstream...)
	if err != nil {
		return nil, fmt.Errorf("proxy: connect to %s: %w", redact.URI(cfg.URI), err)
	}
	var rt *router.Router
	if cfg.Policy != nil {
		opts := append(slices.Clone(cfg.Router), router.WithPolicy(cfg.Policy), router.WithExternalReads(),
			router.WithConnectTimeout(cfg.ConnectTimeout))
		if rt, err = router.Connect(ctx, cfg.URI, opts...); err != nil {
			_ = pool.Close(context.Background())
			return nil, fmt.Errorf("proxy: %w", err)
		}
	}
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		pool:      pool,
		router:    rt,
		auth:      auth,
		cursors:   newCursors(cfg.CursorTimeout),
		listeners: map[net.Listener]struct{}{},
		conns:     map[net.Conn]*connState{},
		done:      make(chan struct{}),
	}
	if cfg.EnableTestCommands {
		s.failPoint = &failPoint{}
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.limits()
	return s, nil
}

// Serve accepts client connections on ln until ctx ends or Close or
// Shutdown is called, and returns nil then (ln is closed). Client
// connections live until they end or Close or Shutdown closes them.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if s.closed || s.draining.Load() {
		s.mu.Unlock()
		ln.Close()
		return ErrClosed
	}
	s.listeners[ln] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || s.isClosed() || s.draining.Load() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Out of file descriptors and the like: wait, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("proxy: accept failed", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-s.done:
			}
			continue
		}
		backoff = 0
		switch s.register(nc) {
		case registered:
			go s.serveConn(s.ctx, nc, s.nextConn.Add(1))
		case refused:
			nc.Close()
		default:
			nc.Close()
			return nil
		}
	}
}

// registration is register's answer.
type registration uint8

const (
	registered registration = iota
	refused                 // at MaxConnections
	stopped                 // closed or draining
)

// register registers a client connection, unless the server is closed or
// draining, or MaxConnections are open (then it logs the refusal, at most
// once every refusalLogEvery).
func (s *Server) register(nc net.Conn) registration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.draining.Load() {
		return stopped
	}
	if s.conns == nil {
		s.conns = map[net.Conn]*connState{}
	}
	if max := s.cfg.MaxConnections; max > 0 && len(s.conns) >= max {
		if n, log := s.refusals.add(time.Now()); log {
			s.log.Warn("proxy: refusing client connections: the connection cap is reached", "max_connections", max, "refused", n, "client", nc.RemoteAddr().String())
		}
		return refused
	}
	s.conns[nc] = new(connState)
	s.wg.Add(1)
	return registered
}

// forget unregisters a client connection that ended.
func (s *Server) forget(nc net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[nc]; ok {
		delete(s.conns, nc)
		s.wg.Done()
	}
	s.drainedLocked()
}

// stateOf returns the state of a registered client connection (a fresh one
// for a connection that is not: tests serve a pipe directly).
func (s *Server) stateOf(nc net.Conn) *connState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.conns[nc]; st != nil {
		return st
	}
	return new(connState)
}

// refusalLogEvery is how often, at most, refused connections are logged.
const refusalLogEvery = 10 * time.Second

// refusals counts the connections refused since the last logged refusal.
type refusals struct {
	n      int
	logged time.Time
}

// add counts a refusal at now and says whether to log it, with the count
// of refusals it stands for.
func (r *refusals) add(now time.Time) (int, bool) {
	r.n++
	if !r.logged.IsZero() && now.Sub(r.logged) < refusalLogEvery {
		return 0, false
	}
	n := r.n
	r.n, r.logged = 0, now
	return n, true
}

func (s *Server) isClosed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Close stops every listener, closes every client connection, waits for them to end and closes
// the upstream pool. It is safe to call more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.cancel()
	for ln := range s.listeners {
		ln.Close()
	}
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rerr error
	if s.router != nil {
		rerr = s.router.Close(ctx)
	}
	return errors.Join(s.pool.Close(ctx), rerr)
}

// Router returns the router that routes reads for Config.Policy (its
// Stats, Served, ReadYourWrites, for metrics), nil without a policy.
func (s *Server) Router() *router.Router { return s.router }

// nextRequestID numbers the messages the proxy writes itself.
func (s *Server) nextRequestID() int32 { return s.reqID.Add(1) }

// limits returns the members' wire versions and limits, or the ones
// advertised last while no data-bearing member is known, or MongoDB's
// defaults before any.
func (s *Server) limits() limits {
	if l, ok := limitsOf(s.pool.Members()); ok {
		s.last.Store(&l)
		return l
	}
	if l := s.last.Load(); l != nil {
		return *l
	}
	return limits{minWire: 0, maxWire: 21, maxBSON: 16 << 20, maxMsg: 48_000_000, batch: 100_000, sessionMinutes: 30}
}
