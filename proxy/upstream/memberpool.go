package upstream

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// checkIdleAfter is how long a connection may sit idle before it is
// checked for a close the member (or the network) made meanwhile, as the
// driver's pool checks (10 s).
const checkIdleAfter = 10 * time.Second

// memberPool is the pool's own connections to one member: at most max at
// once (idle, in use or being made); the most recently used idle one goes
// out first. Clearing it (a network error, or a member shutting down, as
// the driver's server reports them) makes every connection it has stale,
// and pauses it: until a heartbeat sees the member again, a request for a
// connection fails at once instead of dialling a member that is gone.
type memberPool struct {
	pool *Pool
	addr string
	srv  *topology.Server // the driver's view of the member: heartbeats, ProcessError
	sem  chan struct{}    // a token per connection that exists or is being made

	gen    atomic.Uint64
	paused atomic.Bool

	mu     sync.Mutex
	idle   []*memberConn
	closed bool
}

func newMemberPool(p *Pool, addr string, srv *topology.Server, max int) *memberPool {
	return &memberPool{pool: p, addr: addr, srv: srv, sem: make(chan struct{}, max)}
}

// get returns a connection: an idle one when there is one, else a new
// one, waiting for a free slot while max are out. Its errors wrap
// ErrUnavailable (nothing was sent), ErrAuthentication or ErrClosed.
func (mp *memberPool) get(ctx context.Context) (*memberConn, error) {
	if mp.paused.Load() {
		if mp.srv.Description().Kind == 0 { // Unknown
			return nil, fmt.Errorf("upstream %s: %w: its connections were cleared after an error and no heartbeat has reached it since", mp.addr, ErrUnavailable)
		}
		mp.paused.Store(false)
	}
	select {
	case mp.sem <- struct{}{}:
	default:
		select {
		case mp.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("upstream %s: %w: waiting for a connection: %w", mp.addr, ErrUnavailable, context.Cause(ctx))
		}
	}
	for {
		c, closed := mp.popIdle()
		if closed {
			<-mp.sem
			return nil, fmt.Errorf("upstream %s: %w", mp.addr, ErrClosed)
		}
		if c == nil {
			break
		}
		if c.Stale() || mp.pool.maxIdle > 0 && time.Since(c.lastUsed) > mp.pool.maxIdle ||
			time.Since(c.lastUsed) > checkIdleAfter && !c.alive() {
			c.close()
			continue
		}
		return c, nil
	}
	c, err := mp.dial(ctx)
	if err != nil {
		<-mp.sem
		return nil, err
	}
	return c, nil
}

func (mp *memberPool) popIdle() (c *memberConn, closed bool) {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.closed {
		return nil, true
	}
	if n := len(mp.idle); n > 0 {
		c = mp.idle[n-1]
		mp.idle[n-1] = nil
		mp.idle = mp.idle[:n-1]
	}
	return c, false
}

// put gives c back: idle for the next request, or closed when it broke
// (broken), is stale or the pool is closed.
func (mp *memberPool) put(c *memberConn, broken bool) {
	defer func() { <-mp.sem }()
	if broken || c.Stale() {
		c.close()
		return
	}
	mp.mu.Lock()
	if mp.closed {
		mp.mu.Unlock()
		c.close()
		return
	}
	mp.idle = append(mp.idle, c)
	mp.mu.Unlock()
}

// processError tells the driver's server of err on c, as the driver's
// operations do (a network error or a member shutting down marks it
// unknown and clears its pool; not primary or recovering marks it
// unknown), and clears this pool when the driver cleared its own.
func (mp *memberPool) processError(err error, c *memberConn) {
	if mp.srv.ProcessError(err, c) == driver.ConnectionPoolCleared {
		mp.clear()
	}
}

// clear makes every connection made so far stale (closed when next seen)
// and pauses the pool until a heartbeat reaches the member.
func (mp *memberPool) clear() {
	mp.gen.Add(1)
	mp.pause()
	mp.mu.Lock()
	idle := mp.idle
	mp.idle = nil
	mp.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}

func (mp *memberPool) pause() { mp.paused.Store(true) }

// close closes the idle connections; the ones in use are closed when
// they come back.
func (mp *memberPool) close() {
	mp.mu.Lock()
	idle := mp.idle
	mp.idle, mp.closed = nil, true
	mp.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}
