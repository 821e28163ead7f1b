package upstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// replyBound is what readReply may allocate for an n-byte reply: the
// document sequences a reply should not have, or an error's text.
var replyBound = testutil.AllocBound{PerByte: 4, Fixed: 2 << 10}

// FuzzReadReply reads arbitrary bytes as a member's reply to request id
// (the reply's own responseTo, then another id): no panic; errors wrap
// ErrProtocol; what is accepted is one whole OP_MSG answering id without
// moreToCome, its body the parsed body; stampReply makes it answer the
// client's request and changes nothing else; allocation within replyBound.
func FuzzReadReply(f *testing.F) {
	ok := bson.D{{Key: "ok", Value: 1.0}}
	for _, seed := range [][]byte{
		wire.AppendMsg(nil, 3, 1234, 0, marshal(f, append(bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(9)}, {Key: "ns", Value: "d.c"}}}}, ok...))),
		wire.AppendMsg(nil, 3, 1234, wiremessage.ChecksumPresent, marshal(f, ok)),
		wire.AppendMsg(nil, 3, 1234, wiremessage.MoreToCome, marshal(f, ok)),
		wire.AppendMsg(nil, 3, 1234, 0, marshal(f, bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(10107)}, {Key: "codeName", Value: "NotWritablePrimary"}})),
		wire.AppendMsg(nil, 3, 1234, 0, marshal(f, bson.D{{Key: "ok", Value: 1}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: int32(91)}}}})),
		wire.AppendReply(nil, 3, 1234, 0, marshal(f, ok)),
		wire.AppendMsg(nil, 3, 1234, 0, marshal(f, ok))[:20],
		{},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		id := int32(0)
		if len(reply) >= 12 {
			id = int32(binary.LittleEndian.Uint32(reply[8:]))
		}
		body, err := readReply(reply, id)
		if _, err2 := readReply(reply, id+1); !errors.Is(err2, ErrProtocol) {
			t.Fatalf("a reply answering request %d accepted as the answer to %d: %v", id, id+1, err2)
		}
		testutil.CheckAllocs(t, "readReply", len(reply), replyBound, func() { _, _ = readReply(reply, id) })
		if err != nil {
			if !errors.Is(err, ErrProtocol) || body != nil {
				t.Fatalf("readReply: body %v, error %v; want no body, ErrProtocol", body, err)
			}
			return
		}
		m, perr := wire.Parse(reply)
		if perr != nil || m.Header.OpCode != wiremessage.OpMsg || m.Header.ResponseTo != id || m.Flags&wiremessage.MoreToCome != 0 || !bytes.Equal(body, m.Body) {
			t.Fatalf("readReply accepted %+v flags %v (%v), body %v", m.Header, m.Flags, perr, bson.Raw(body))
		}
		checkMayChangeState(t, body)
		stamped := bytes.Clone(reply)
		stampReply(stamped, 77)
		s, err := wire.Parse(stamped)
		if err != nil || s.Header.ResponseTo != 77 || s.Header.RequestID != m.Header.RequestID || s.Flags != m.Flags ||
			!bytes.Equal(s.Body, m.Body) || !bytes.Equal(stamped[16:len(stamped)-4], reply[16:len(reply)-4]) {
			t.Fatalf("stampReply: %+v, %v", s.Header, err)
		}
	})
}

// checkMayChangeState: a reply leaves the driver's view of the member alone
// only when it is ok: 1 (any numeric type) without a writeConcernError.
func checkMayChangeState(t *testing.T, body bsoncore.Document) {
	t.Helper()
	okValue, err := body.LookupErr("ok")
	if err != nil {
		if !mayChangeState(body) {
			t.Fatalf("mayChangeState false for a reply without ok: %v", bson.Raw(body))
		}
		return
	}
	f, numeric := okValue.AsFloat64OK()
	_, wceErr := body.LookupErr("writeConcernError")
	if want := !numeric || f != 1 || wceErr == nil; mayChangeState(body) != want {
		t.Fatalf("mayChangeState = %v for %v", !want, bson.Raw(body))
	}
}

// FuzzReadRequest reads arbitrary bytes as a client's message to forward:
// no panic; errors wrap ErrBadRequest; an accepted message is one whole
// OP_MSG whose ids and flags are read right, read without allocating; stamp
// sends it under the pool's id and flags and stamping the client's back
// restores its bytes (a checksum, when valid, included).
func FuzzReadRequest(f *testing.F) {
	ping := marshal(f, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	for _, seed := range [][]byte{
		wire.AppendMsg(nil, 77, 5, 0, ping),
		wire.AppendMsg(nil, 77, 5, wiremessage.ExhaustAllowed|wiremessage.ChecksumPresent, ping),
		wire.AppendMsg(nil, 77, 5, wiremessage.MoreToCome, ping),
		append(wire.AppendMsg(nil, 77, 5, 0, ping), 0),
		wire.AppendMsg(nil, 77, 5, 0, ping)[:19],
		wire.AppendReply(nil, 1, 2, 0, ping),
		{},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		req, err := readRequest(msg)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) || req != (request{}) {
				t.Fatalf("readRequest: %+v, %v; want a zero request, ErrBadRequest", req, err)
			}
			testutil.CheckAllocs(t, "readRequest", len(msg), testutil.AllocBound{Fixed: 1 << 10}, func() { _, _ = readRequest(msg) })
			return
		}
		h, herr := wire.ReadHeader(msg, len(msg))
		if herr != nil || int(h.Length) != len(msg) || h.OpCode != wiremessage.OpMsg || req.id != h.RequestID || req.responseTo != h.ResponseTo ||
			req.flags != wiremessage.MsgFlag(binary.LittleEndian.Uint32(msg[16:])) {
			t.Fatalf("readRequest accepted %+v as %+v (%v)", h, req, herr)
		}
		if n := testing.AllocsPerRun(1, func() { _, _ = readRequest(msg) }); n != 0 {
			t.Fatalf("readRequest allocated %v times for a message it accepts", n)
		}
		_, perr := wire.Parse(msg)
		orig := bytes.Clone(msg)
		stamp(msg, 1234, 0, req.flags&^wiremessage.ExhaustAllowed)
		if got, _ := readRequest(msg); got != (request{id: 1234, flags: req.flags &^ wiremessage.ExhaustAllowed}) {
			t.Fatalf("stamped: %+v", got)
		}
		if m, err := wire.Parse(msg); perr == nil && (err != nil || m.Flags != req.flags&^wiremessage.ExhaustAllowed) {
			t.Fatalf("a message that parses does not once stamped: %v, flags %v", err, m.Flags)
		}
		stamp(msg, req.id, req.responseTo, req.flags)
		if perr == nil && !bytes.Equal(msg, orig) {
			t.Fatalf("restored message differs from the original:\n%x\n%x", msg, orig)
		}
	})
}

func marshal(tb testing.TB, d bson.D) bsoncore.Document {
	tb.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
