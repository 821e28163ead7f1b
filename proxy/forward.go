package proxy

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// forward sends a client's raw OP_MSG to the member route chooses, under
// RequestTimeout, and returns the member's raw reply (nil for moreToCome) or
// an error document to answer with. It records the cursors the reply opens
// and forgets those it closes.
//
// A member's own error replies (NotWritablePrimary, ShutdownInProgress
// during a stepdown) pass through unchanged, as a mongos passes a shard's
// through after its own retries: the client's driver marks the proxy unknown
// and clears its pool, and its next heartbeat, which the proxy answers itself
// (always a writable mongos), makes the proxy selectable again.
func (s *Server) forward(ctx context.Context, conn uint64, msg []byte, c *wire.Class) ([]byte, bsoncore.Document) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	addr, err := s.choose(ctx, c)
	if err != nil {
		return nil, upstreamError(err, c)
	}
	reply, err := s.pool.RoundTrip(ctx, addr, msg)
	if err != nil {
		s.log.Warn("proxy: forwarding failed", "command", c.Command, "member", addr, "err", err)
		return nil, upstreamError(err, c)
	}
	if reply != nil {
		s.track(addr, conn, c, reply)
	}
	return reply, nil
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
// than 0 is an open cursor of addr (getMore: still open), 0 after a getMore
// means exhausted; killCursors forgets its cursors.
func (s *Server) track(addr string, conn uint64, c *wire.Class, reply []byte) {
	if c.Kind == wire.KindKillCursors {
		for _, id := range c.CursorIDs {
			s.cursors.remove(addr, id)
		}
		return
	}
	m, err := wire.Parse(reply)
	if err != nil {
		return
	}
	cur, ok := m.Body.Lookup("cursor").DocumentOK()
	if !ok {
		return
	}
	id, ok := cur.Lookup("id").AsInt64OK()
	if !ok {
		return
	}
	ns, _ := cur.Lookup("ns").StringValueOK()
	switch {
	case c.Kind == wire.KindGetMore && id == 0:
		s.cursors.remove(addr, c.CursorID)
	case id != 0:
		s.cursors.add(addr, id, ns, conn)
	}
}

// killOpen sends killCursors, best effort and within KillTimeout, for the
// cursors a disconnected client connection was the last to use.
func (s *Server) killOpen(conn uint64) {
	open := s.cursors.release(conn)
	if len(open) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.KillTimeout)
	defer cancel()
	for _, oc := range open {
		db, coll, ok := strings.Cut(oc.ns, ".")
		if !ok {
			continue
		}
		ids := bsoncore.NewArrayBuilder().AppendInt64(oc.id).Build()
		body := bsoncore.NewDocumentBuilder().
			AppendString("killCursors", coll).
			AppendArray("cursors", ids).
			AppendString("$db", db).Build()
		msg := wire.AppendMsg(nil, s.nextRequestID(), 0, 0, body)
		if _, err := s.pool.RoundTrip(ctx, oc.member, msg); err != nil {
			s.log.Warn("proxy: killing a disconnected client's cursor failed", "member", oc.member, "cursor", oc.id, "err", err)
		}
	}
}
