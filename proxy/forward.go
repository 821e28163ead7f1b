package proxy

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// forward sends a client's raw OP_MSG to the member route chooses (a routed
// read: the member the policy chooses), under RequestTimeout, and returns
// the member's raw reply (nil for moreToCome) or an error document to answer
// with. It records the cursors the reply opens and forgets those it closes,
// reports routed reads and writes to the router, and moves the connection's
// read-your-writes fence past an acknowledged write.
//
// A routed read that fails on a secondary (a state-change error, or no
// reply) is retried once elsewhere (retryElsewhere). A member's own error
// replies to other commands (NotWritablePrimary, ShutdownInProgress
// during a stepdown) pass through unchanged, as a mongos passes a shard's
// through after its own retries: the client's driver marks the proxy unknown
// and clears its pool, and its next heartbeat, which the proxy answers itself
// (always a writable mongos), makes the proxy selectable again.
func (s *Server) forward(ctx context.Context, cc *clientConn, msg []byte, m *wire.Message, c *wire.Class) ([]byte, bsoncore.Document) {
	if d := requestTimeout(s.cfg.RequestTimeout, c.MaxTimeMS); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	cc.watchHangup()
	defer cc.endWatch()
	rd, rewritten, err := s.routeRead(cc, m, c)
	if err != nil {
		rd.done("", 0, err)
		return nil, errorDoc(codeFailedToSatisfyReadPreference, err.Error())
	}
	addr := rd.addr
	if addr == "" {
		var err error
		if addr, err = s.choose(ctx, c); err != nil {
			rd.done("", 0, err)
			return nil, upstreamError(err, c, s.changeStream(c))
		}
	}
	if rewritten != nil {
		msg = rewritten
	}
	wait := s.fanOut(ctx, addr, msg, c)
	if s.router != nil && c.Kind == wire.KindWrite {
		s.router.WriteStarted() // on the primary, where a per-read rule counts it
	}
	reply, took, err := s.roundTrip(ctx, addr, msg)
	if s.router != nil && c.Kind == wire.KindWrite {
		s.router.WriteEnded()
	}
	wait()
	why := ""
	if rd.addr != "" {
		why = retryable(reply, err)
	}
	if why == "" {
		rd.done(addr, took, err)
	} else {
		rd.done(addr, took, errRetryFailed)
		var doc bsoncore.Document
		if addr, reply, doc, err = s.retryElsewhere(ctx, rd, msg, c, why); doc != nil {
			return nil, doc
		}
		if err == nil {
			s.counts.retried.Add(1)
		}
	}
	if err != nil {
		if cause := context.Cause(ctx); errors.Is(cause, errClientGone) {
			s.log.Info("proxy: request cancelled", "command", c.Command, "member", addr, "conn", cc.id, "err", cause)
		} else {
			s.log.Warn("proxy: forwarding failed", "command", c.Command, "member", addr, "err", err)
		}
		s.killAbandoned(err)
		return nil, upstreamError(err, c, s.changeStream(c))
	}
	if reply == nil {
		return nil, nil
	}
	if c.Kind == wire.KindRead {
		s.counts.read(addr)
		if rd.ok {
			s.counts.routed.Add(1)
		}
		if rewritten != nil {
			s.counts.rewritten.Add(1)
		}
	}
	info, ok := wire.InspectReply(reply)
	if !ok {
		return reply, nil
	}
	s.track(addr, c, reply, info)
	s.opTime.note(info.OperationTime)
	s.observe(addr, cc, c, info, took)
	if info.TopologyVersion {
		// A member's state-change error: its topologyVersion would have
		// the client's driver take the proxy for a streaming server.
		if m, err := wire.Parse(reply); err == nil {
			reply = wire.WithoutField(nil, &m, "topologyVersion")
		}
	}
	return reply, nil
}

// maxTimeMargin is how long past a command's maxTimeMS the proxy waits for
// its member's reply: the member itself ends the command at maxTimeMS with
// MaxTimeMSExpired, the precise error, which needs the time to notice
// (it checks for interruption between units of work, and a loaded member
// can be late by a second) and to travel; after the margin, the proxy
// answers NetworkTimeout and cancels the round trip, for a member that
// hangs.
const maxTimeMargin = 2 * time.Second

// maxRequestTimeout is the longest round trip bound a maxTimeMS sets
// (about 24 days: maxTimeMS is an int32 on the members).
const maxRequestTimeout = (1<<31 - 1) * time.Millisecond

// requestTimeout is how long one round trip may take: the command's
// maxTimeMS plus maxTimeMargin, or cfg (Config.RequestTimeout) when it is
// smaller; 0 for no bound.
func requestTimeout(cfg time.Duration, maxTimeMS int64) time.Duration {
	var d time.Duration
	if maxTimeMS > 0 {
		d = maxRequestTimeout
		if maxTimeMS < int64(maxRequestTimeout/time.Millisecond) {
			d = min(time.Duration(maxTimeMS)*time.Millisecond+maxTimeMargin, maxRequestTimeout)
		}
	}
	if cfg > 0 && (d == 0 || cfg < d) {
		d = cfg
	}
	return d
}

// roundTrip sends msg to addr and returns the reply and the time it took.
func (s *Server) roundTrip(ctx context.Context, addr string, msg []byte) ([]byte, time.Duration, error) {
	start := time.Now()
	reply, err := s.pool.RoundTrip(ctx, addr, msg)
	return reply, time.Since(start), err
}

// observe tells the router what a reply shows: the member applied its
// operationTime; a write's time on the primary. An acknowledged write, or
// any other command run on the primary that is not a read, moves the
// connection's fence to its operationTime.
func (s *Server) observe(addr string, cc *clientConn, c *wire.Class, info wire.Reply, took time.Duration) {
	if s.router == nil || info.OperationTime.IsZero() {
		return
	}
	s.router.ObserveApplied(addr, bson.Timestamp{T: info.OperationTime.T, I: info.OperationTime.I})
	if c.Kind == wire.KindWrite {
		s.router.ObserveWrite(took)
	}
	if info.OK && fences(c) && cc.fence.Before(info.OperationTime) {
		cc.fence = info.OperationTime
	}
}

// fences reports whether c's acknowledged reply moves the read-your-writes
// fence: writes, and every other command sent to the primary but reads kept
// there (create, drop, createIndexes, commitTransaction...: a later read may
// look for their effect; listCollections and the like move it needlessly,
// which costs a later read its secondary, never its freshness).
func fences(c *wire.Class) bool {
	return c.Kind == wire.KindWrite || c.Kind == wire.KindPrimary && c.Reason == wire.ReasonNone
}

// choose routes c, waiting up to PrimaryWait (and ctx) for a primary during
// an election, as a mongos's server selection does.
func (s *Server) choose(ctx context.Context, c *wire.Class) (string, error) {
	deadline := time.Now().Add(s.cfg.PrimaryWait)
	for {
		addr, err := route(c, s.pool.Members(), s.cursors)
		if !errors.Is(err, errNoPrimary) || time.Now().After(deadline) {
			return addr, err
		}
		select {
		case <-ctx.Done():
			return "", err
		case <-s.done:
			return "", err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// track updates the cursor map from a member's reply: a cursor.id other
// than 0 is an open cursor of addr (getMore: still open, used now), 0
// after a getMore means exhausted, and CursorNotFound means addr no longer
// has it; killCursors forgets its cursors.
func (s *Server) track(addr string, c *wire.Class, reply []byte, info wire.Reply) {
	switch {
	case c.Kind == wire.KindKillCursors:
		for _, id := range c.CursorIDs {
			s.cursors.remove(addr, id)
		}
	case c.Kind == wire.KindGetMore && !info.OK:
		if code, _ := errorCode(reply); code == codeCursorNotFound {
			s.cursors.remove(addr, c.CursorID)
		}
	case !info.Cursor:
	case c.Kind == wire.KindGetMore && info.CursorID == 0:
		s.cursors.remove(addr, c.CursorID)
	case info.CursorID != 0:
		s.cursors.add(addr, info.CursorID, time.Now())
		if c.ChangeStream {
			s.cursors.markStream(addr, info.CursorID)
		}
	}
}

// killAbandoned ends, in the background and within KillTimeout, the
// member's operation of a round trip abandoned (err an
// *upstream.AbandonedError: its client hung up, or a timeout passed): a
// mongod does not stop an operation whose connection closes (a w:majority
// write keeps waiting), so the proxy kills it as a mongos kills a shard's
// operations for a client that left.
func (s *Server) killAbandoned(err error) {
	var ab *upstream.AbandonedError
	if !errors.As(err, &ab) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.KillTimeout)
		defer cancel()
		if _, err := s.pool.KillOps(ctx, ab.Member, ab.ConnectionID); err != nil && !s.isClosed() {
			s.log.Warn("proxy: killing an abandoned request's operation failed", "member", ab.Member, "err", err)
		}
	}()
}

// changeStream reports whether c reads a change stream: an aggregate that
// opens one, or a getMore of its cursor.
func (s *Server) changeStream(c *wire.Class) bool {
	return c.ChangeStream || c.Kind == wire.KindGetMore && s.cursors.changeStream(c.CursorID)
}
