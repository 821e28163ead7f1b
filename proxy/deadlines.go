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

// deadlines are a client connection's read deadlines: the pre-auth one
// (with Config.Users, from the accept) and the idle one (from the last
// reply). Writes are bounded by writeReply.
type deadlines struct {
	auth time.Time     // zero: no pre-auth bound
	idle time.Duration // 0: none
	// authBound and idleBound are the bounds, for the log.
	authBound time.Duration
}

// newDeadlines returns the deadlines of a connection accepted at start.
func (s *Server) newDeadlines(start time.Time) deadlines {
	d := deadlines{idle: max(s.cfg.IdleTimeout, 0)}
	if s.auth != nil && s.cfg.AuthTimeout > 0 {
		d.auth, d.authBound = start.Add(s.cfg.AuthTimeout), s.cfg.AuthTimeout
	}
	return d
}

// read is the deadline of the next message read at now: the earlier of
// the pre-auth deadline (until authenticated) and now plus the idle
// timeout; the zero time for none.
func (d deadlines) read(now time.Time, authenticated bool) time.Time {
	var t time.Time
	if d.idle > 0 {
		t = now.Add(d.idle)
	}
	if !authenticated && !d.auth.IsZero() && (t.IsZero() || d.auth.Before(t)) {
		t = d.auth
	}
	return t
}

// missed says which deadline a read that timed out missed.
func (d deadlines) missed(authenticated bool) string {
	if !authenticated && !d.auth.IsZero() && !time.Now().Before(d.auth) {
		return fmt.Sprintf("not authenticated within %v", d.authBound)
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
