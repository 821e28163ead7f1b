package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/proxy/wire"
)

// serveConn runs one client connection until the client leaves, sends
// something that is not a well-formed message, misses a deadline (see
// deadlines), or the server closes or drains. One request at a time:
// drivers wait for a reply before the next request on a connection (the
// proxy never streams: exhaustAllowed is an offer it declines). A panic
// ends only this connection, logged with its stack.
func (s *Server) serveConn(ctx context.Context, nc net.Conn, id uint64) {
	remote := nc.RemoteAddr().String()
	// Every request of the connection runs in its context, which a
	// hang-up during a request cancels (watchHangup).
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cc := &clientConn{id: id, remote: remote, nc: nc, cancel: cancel}
	st := s.stateOf(nc)
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("proxy: panic serving a client connection; closing it", "client", remote, "conn", id, "panic", r, "stack", string(debug.Stack()))
		}
		nc.Close()
		s.forget(nc)
	}()
	if err := s.handshakeTLS(ctx, nc); err != nil {
		if !s.stopping() {
			s.log.Info("proxy: closing client connection", "client", remote, "conn", id, "err", err)
		}
		return
	}
	dl := s.newDeadlines(time.Now())
	r := bufio.NewReaderSize(nc, clientReadBuffer)
	cc.r = r
	var buf []byte
	closing := func(err error, preAuth bool) {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			s.log.Info("proxy: closing client connection", "client", remote, "conn", id, "reason", dl.missed(preAuth))
		} else if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) && !s.stopping() && ctx.Err() == nil {
			s.log.Warn("proxy: closing client connection", "client", remote, "conn", id, "err", err)
		}
	}
	for first := true; ; first = false {
		authed := cc.auth.user != ""
		wait := dl.wait(time.Now(), authed, first)
		if err := nc.SetReadDeadline(wait); err != nil {
			return
		}
		preAuth := first && !authed && !dl.first.IsZero() && wait.Equal(dl.first)
		if dl.perMessage(authed, first) {
			// Before authentication a message must come whole within
			// the pre-auth bound of its first byte.
			if _, err := r.Peek(1); err != nil {
				closing(err, false)
				return
			}
			if err := nc.SetReadDeadline(time.Now().Add(dl.auth)); err != nil {
				return
			}
			preAuth = true
		}
		msg, err := wire.ReadMessageInto(buf, r, s.readLimit(cc))
		if err != nil {
			closing(err, preAuth)
			return
		}
		if !st.begin() {
			return // Shutdown closed it: the message is not served
		}
		buf = keepBuffer(msg)
		reply, err := s.handle(ctx, cc, msg)
		if err != nil {
			s.log.Warn("proxy: closing client connection", "client", remote, "conn", id, "err", err)
			return
		}
		if reply != nil {
			if err := s.writeReply(nc, reply); err != nil {
				if !s.isClosed() {
					s.log.Info("proxy: client connection failed", "client", remote, "conn", id, "err", err)
				}
				return
			}
		}
		st.end()
		if s.draining.Load() {
			return
		}
	}
}

// clientReadBuffer is the read buffer of a client connection: 2 KiB, half
// bufio's default, holds a driver's usual command whole (a point find is
// about 200 bytes, a hello with its metadata 300-500) and keeps an idle
// connection at about 12 KiB instead of 14 (BenchmarkIdleConnection); a
// larger message takes one more read.
const clientReadBuffer = 2048

// stopping says whether the server is closing or draining: the
// connections it closes are not logged one by one.
func (s *Server) stopping() bool { return s.isClosed() || s.draining.Load() }

// clientConn is one client connection's state, used by its own goroutine
// only.
type clientConn struct {
	id     uint64
	remote string
	// fence is the operationTime of the latest write acknowledged on the
	// connection: its routed reads go only to members that applied it
	// (read-your-writes).
	fence wire.Timestamp
	// auth is who the client authenticated as (Config.Users).
	auth authState
	// nc and r are the client's connection and its reader, which
	// watchHangup peeks at during a long request (nil in tests that call
	// handle directly).
	nc net.Conn
	r  *bufio.Reader
	// cancel ends the context the connection's requests run in, with
	// errClientGone when the client hung up during one (watchHangup).
	cancel context.CancelCauseFunc
	// hang runs the hang-up watch of the request in flight, hangDone
	// says it has returned (one timer and channel for all of the
	// connection's requests).
	hang     *time.Timer
	hangDone chan struct{}
	watching bool
	// appName is the application name of the client's handshake, which
	// the failCommand fail point may name.
	appName string
}

// handle answers one message: the reply to write (nil for none), or an
// error when the stream cannot be trusted any more.
func (s *Server) handle(ctx context.Context, cc *clientConn, msg []byte) ([]byte, error) {
	m, err := wire.Parse(msg)
	if err != nil {
		return nil, err
	}
	legacy := m.Header.OpCode == wiremessage.OpQuery
	noReply := m.Flags&wiremessage.MoreToCome != 0
	answer := func(doc bsoncore.Document) ([]byte, error) {
		if noReply {
			return nil, nil
		}
		if legacy {
			return wire.AppendReply(nil, s.nextRequestID(), m.Header.RequestID, 0, doc), nil
		}
		return wire.AppendMsg(nil, s.nextRequestID(), m.Header.RequestID, 0, doc), nil
	}
	if s.auth != nil && cc.auth.user == "" {
		// Refused by name before Classify reads anything else.
		if name := wire.CommandName(&m); !allowedBeforeAuth(name) {
			return answer(errorDoc(codeUnauthorized, fmt.Sprintf("command %s requires authentication", name)))
		}
	}
	c, err := wire.Classify(&m)
	switch {
	case errors.Is(err, wire.ErrUnsupported) && legacy:
		return answer(errorDoc(codeUnsupportedOpQueryCommand, err.Error()))
	case err != nil:
		return answer(errorDoc(codeBadValue, err.Error()))
	}
	if c.Kind == wire.KindHandshake && c.Hello.AppName != "" {
		cc.appName = c.Hello.AppName
	}
	fail := s.failPoint.check(c.Command, cc.appName)
	if fail.fire {
		doc, err := s.failBefore(ctx, &fail.data, &c)
		if err != nil {
			return nil, err
		}
		if doc != nil {
			return answer(doc)
		}
	}
	switch c.Kind {
	case wire.KindHandshake:
		if c.Hello.LoadBalanced {
			return answer(errorDoc(codeBadValue, "the decongestant proxy is not a load balancer: connect without loadBalanced=true"))
		}
		return answer(s.helloAuth(cc, &c, s.hello(&c, int64(cc.id))))
	}
	if s.auth != nil {
		if doc, ok := s.authCommand(cc, &c, m.Body); ok {
			return answer(doc)
		}
	}
	if s.cfg.RefuseAdminCommands && isAdminCommand(c.Command) {
		return answer(refusedAdmin(c.Command))
	}
	switch c.Kind {
	case wire.KindAuth, wire.KindLocal:
		if doc, ok := local(&c, cc.remote); ok {
			if c.Command == "ping" && (s.auth == nil || cc.auth.user != "") {
				doc = withOperationTime(doc, s.opTime.get())
			}
			return answer(doc)
		}
	}
	if s.auth != nil && cc.auth.user == "" && (c.Command == "buildInfo" || c.Command == "buildinfo") {
		return answer(s.buildInfo(ctx))
	}
	if legacy {
		return nil, fmt.Errorf("%w: OP_QUERY %q", wire.ErrUnsupported, c.Command)
	}
	if doc, ok := s.configureFailPoint(&c, m.Body); ok {
		return answer(doc)
	}
	reply, errDoc := s.forward(ctx, cc, msg, &m, &c)
	if errDoc != nil {
		return answer(errDoc)
	}
	if fail.fire && fail.data.writeConcernError != nil && reply != nil {
		return fail.data.withWriteConcernError(reply, &c)
	}
	return reply, nil
}

// hello answers a handshake at once (see helloReply: the proxy offers no
// streaming monitor, so no hello is awaitable).
func (s *Server) hello(c *wire.Class, connID int64) bsoncore.Document {
	return helloReply(c, s.limits(), connID, time.Now())
}
