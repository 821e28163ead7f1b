package proxy

import (
	"io"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/proxy/wire"
)

// A ping the proxy answers carries the latest operationTime a member's
// reply showed, as a mongos's does (the change-streams tests start a stream
// at it); none before any, never one that moves back, and none for a client
// that has not authenticated to a proxy with users.
func TestPingCarriesOperationTime(t *testing.T) {
	ping := bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}
	opTimeOf := func(r bson.Raw) (bson.Timestamp, bool) {
		v, err := r.LookupErr("operationTime")
		if err != nil {
			return bson.Timestamp{}, false
		}
		tt, ti := v.Timestamp()
		return bson.Timestamp{T: tt, I: ti}, true
	}
	s := &Server{cfg: Config{}.withDefaults(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	cc := &clientConn{id: 1}
	if ts, ok := opTimeOf(do(t, s, cc, ping)); ok {
		t.Fatalf("ping before any reply: operationTime %v, want none", ts)
	}
	s.opTime.note(wire.Timestamp{T: 10, I: 3})
	s.opTime.note(wire.Timestamp{T: 10, I: 2}) // older: ignored
	s.opTime.note(wire.Timestamp{T: 9, I: 7})  // older: ignored
	r := do(t, s, cc, ping)
	if ts, ok := opTimeOf(r); !ok || ts != (bson.Timestamp{T: 10, I: 3}) {
		t.Fatalf("ping: operationTime %v (present %v), want {10 3}", ts, ok)
	}
	if r.Lookup("ok").Double() != 1 {
		t.Fatalf("ping: %v", r)
	}
	s.opTime.note(wire.Timestamp{T: 11, I: 0})
	if ts, _ := opTimeOf(do(t, s, cc, ping)); ts != (bson.Timestamp{T: 11, I: 0}) {
		t.Fatalf("ping after a later reply: operationTime %v, want {11 0}", ts)
	}

	as, _ := authServer(t, loadRFC7677(t))
	as.opTime.note(wire.Timestamp{T: 10, I: 3})
	if ts, ok := opTimeOf(do(t, as, &clientConn{id: 2}, ping)); ok {
		t.Fatalf("unauthenticated ping: operationTime %v, want none", ts)
	}
}
