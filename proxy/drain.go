package proxy

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrDraining: the server is shutting down (Shutdown was called): it takes
// no new client connections.
var ErrDraining = errors.New("proxy draining")

// connState tells Shutdown whether a client connection is between
// requests (idle: closed at once) or serving one (active: closed after
// its reply is written).
type connState struct{ v atomic.Int32 }

const (
	connIdle   int32 = iota // waiting for a message (or a TLS handshake)
	connActive              // a message read, its reply not yet written
	connClosed              // closed by Shutdown while idle
)

// begin marks the connection active for the message just read; false when
// Shutdown closed it meanwhile (the message is not served).
func (c *connState) begin() bool { return c.v.CompareAndSwap(connIdle, connActive) }

// end marks the connection idle after its reply was written.
func (c *connState) end() { c.v.Store(connIdle) }

// closeIdle marks an idle connection closed; false when it is active.
func (c *connState) closeIdle() bool { return c.v.CompareAndSwap(connIdle, connClosed) }

// drainState is Shutdown's progress, guarded by Server.mu.
type drainState struct {
	done   chan struct{} // closed when the last client connection ended
	closed bool          // done is closed
}

// Shutdown drains the server, as net/http's Server.Shutdown does: it stops
// every listener (new connections are refused), closes the client
// connections that are between requests, lets those serving a request
// write its reply and closes them then, and returns once none is left,
// having closed the server (Close). When ctx ends first, it closes the
// rest at once and returns ctx's error. Serve returns nil; the server
// cannot serve again. Ready reports ErrDraining from the start.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	if !s.draining.Swap(true) {
		s.drain.done = make(chan struct{})
		for ln := range s.listeners {
			ln.Close()
		}
	}
	for nc, st := range s.conns {
		if st.closeIdle() {
			nc.Close()
		}
	}
	s.drainedLocked()
	done := s.drain.done
	s.mu.Unlock()
	select {
	case <-done:
		return s.Close()
	case <-ctx.Done():
		if err := s.Close(); err != nil {
			return err
		}
		return fmt.Errorf("proxy: drain cut short, the remaining connections closed: %w", context.Cause(ctx))
	}
}

// drainedLocked closes drain.done once draining and no client connection
// is left; called with s.mu held.
func (s *Server) drainedLocked() {
	if s.draining.Load() && !s.drain.closed && len(s.conns) == 0 {
		s.drain.closed = true
		close(s.drain.done)
	}
}
