package proxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"
)

// handshakeTLS runs a TLS client's handshake (a listener made with
// tls.NewListener) under HandshakeTimeout, so a client that opens a
// connection and says nothing holds it no longer; other connections pass.
func (s *Server) handshakeTLS(ctx context.Context, nc net.Conn) error {
	tc, ok := nc.(*tls.Conn)
	if !ok {
		return nil
	}
	if d := s.cfg.HandshakeTimeout; d > 0 {
		if err := nc.SetDeadline(time.Now().Add(d)); err != nil {
			return err
		}
	}
	if err := tc.HandshakeContext(ctx); err != nil {
		return fmt.Errorf("tls handshake (bounded by %v): %w", s.cfg.HandshakeTimeout, err)
	}
	return nc.SetDeadline(time.Time{})
}

// deadlines are a client connection's read deadlines: the idle one (from
// the last reply) and, with Config.Users, the pre-auth one: before the
// client authenticates, each message must arrive whole within AuthTimeout
// of its start (the first message: of the accept; a later one: of its
// first byte). A client that says nothing, or dawdles over a message (a
// byte a second), is closed; one that sends a hello every heartbeat and
// never authenticates is served, as mongod serves it: drivers' monitoring
// connections do not authenticate (the SDAM specification), and closing
// them would have the driver mark the proxy unknown and clear its pool every
// AuthTimeout. Such a connection costs its goroutine and a small buffer
// (messages before authentication are capped at preAuthMaxMessage), and
// MaxConnections bounds their number. Writes are bounded by writeReply.
type deadlines struct {
	first time.Time     // the first message's deadline; zero: no pre-auth bound
	auth  time.Duration // the pre-auth bound (0: none)
	idle  time.Duration // 0: none
}

// newDeadlines returns the deadlines of a connection accepted at start.
func (s *Server) newDeadlines(start time.Time) deadlines {
	d := deadlines{idle: max(s.cfg.IdleTimeout, 0)}
	if s.auth != nil && s.cfg.AuthTimeout > 0 {
		d.first, d.auth = start.Add(s.cfg.AuthTimeout), s.cfg.AuthTimeout
	}
	return d
}

// wait is the deadline for the next message's first byte (for the first
// message of an unauthenticated connection: for the whole message), read
// at now: the idle bound, and the first message's pre-auth deadline when
// earlier; the zero time for none.
func (d deadlines) wait(now time.Time, authenticated, first bool) time.Time {
	var t time.Time
	if d.idle > 0 {
		t = now.Add(d.idle)
	}
	if !authenticated && first && !d.first.IsZero() && (t.IsZero() || d.first.Before(t)) {
		t = d.first
	}
	return t
}

// perMessage reports whether a message after the first, before
// authentication, must arrive whole within the pre-auth bound of its first
// byte (serveConn then reads its first byte, and the rest under that bound).
func (d deadlines) perMessage(authenticated, first bool) bool {
	return !authenticated && !first && d.auth > 0
}

// missed says which deadline a read that timed out missed: the pre-auth one
// (preAuth: the read was bounded by it) or the idle one.
func (d deadlines) missed(preAuth bool) string {
	if preAuth {
		return fmt.Sprintf("not authenticated, and a message not received whole within %v", d.auth)
	}
	return fmt.Sprintf("idle for %v", d.idle)
}

// writeReply writes reply under WriteTimeout: a client that does not read
// its replies is closed rather than holding the connection's goroutine and
// buffers.
func (s *Server) writeReply(nc net.Conn, reply []byte) error {
	if d := s.cfg.WriteTimeout; d > 0 {
		if err := nc.SetWriteDeadline(time.Now().Add(d)); err != nil {
			return err
		}
	}
	if _, err := nc.Write(reply); err != nil {
		return fmt.Errorf("write a reply (bounded by %v): %w", s.cfg.WriteTimeout, err)
	}
	return nil
}
