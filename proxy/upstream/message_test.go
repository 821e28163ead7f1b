package upstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/proxy/wire"
)

func doc(t *testing.T, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadRequest(t *testing.T) {
	ping := doc(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	good := wire.AppendMsg(nil, 77, 5, wiremessage.ExhaustAllowed|wiremessage.ChecksumPresent, ping)
	long := append(bytes.Clone(good), 0)
	query := wiremessage.AppendHeader(nil, 16+4, 1, 0, wiremessage.OpQuery)
	query = append(query, 0, 0, 0, 0)
	for _, tt := range []struct {
		name string
		msg  []byte
		want request
		err  error
	}{
		{"op_msg", good, request{id: 77, responseTo: 5, flags: wiremessage.ExhaustAllowed | wiremessage.ChecksumPresent}, nil},
		{"short", good[:19], request{}, ErrBadRequest},
		{"bytes after the message", long, request{}, ErrBadRequest},
		{"truncated", good[:len(good)-1], request{}, ErrBadRequest},
		{"op_query", query, request{}, ErrBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readRequest(tt.msg)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) || got != tt.want {
				t.Errorf("readRequest = %+v, %v; want %+v, %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// TestStampRestores: the message goes out with the pool's id and flags and a
// valid checksum, and stamping the client's back gives the bytes it sent.
func TestStampRestores(t *testing.T) {
	for _, flags := range []wiremessage.MsgFlag{0, wiremessage.ExhaustAllowed, wiremessage.ExhaustAllowed | wiremessage.ChecksumPresent} {
		msg := wire.AppendMsg(nil, 77, 0, flags, doc(t, bson.D{{Key: "getMore", Value: int64(9)}, {Key: "collection", Value: "c"}, {Key: "$db", Value: "d"}}))
		orig := bytes.Clone(msg)
		req, err := readRequest(msg)
		if err != nil {
			t.Fatal(err)
		}
		stamp(msg, 1234, 0, req.flags&^wiremessage.ExhaustAllowed)
		m, err := wire.Parse(msg)
		if err != nil {
			t.Fatalf("flags %v: the stamped message does not parse: %v", flags, err)
		}
		if m.Header.RequestID != 1234 || m.Header.ResponseTo != 0 || m.Flags != flags&^wiremessage.ExhaustAllowed {
			t.Errorf("flags %v: stamped header %+v flags %v; want id 1234, flags %v", flags, m.Header, m.Flags, flags&^wiremessage.ExhaustAllowed)
		}
		stamp(msg, req.id, req.responseTo, req.flags)
		if !bytes.Equal(msg, orig) {
			t.Errorf("flags %v: restored message differs from the original", flags)
		}
	}
}

func TestReadReply(t *testing.T) {
	ok := doc(t, bson.D{{Key: "ok", Value: 1.0}})
	opReply := wire.AppendReply(nil, 3, 1234, 0, ok)
	for _, tt := range []struct {
		name  string
		reply []byte
		err   error
	}{
		{"answer", wire.AppendMsg(nil, 3, 1234, 0, ok), nil},
		{"answer with checksum", wire.AppendMsg(nil, 3, 1234, wiremessage.ChecksumPresent, ok), nil},
		{"another request's", wire.AppendMsg(nil, 3, 1233, 0, ok), ErrProtocol},
		{"stream", wire.AppendMsg(nil, 3, 1234, wiremessage.MoreToCome, ok), ErrProtocol},
		{"op_reply", opReply, ErrProtocol},
		{"truncated", wire.AppendMsg(nil, 3, 1234, 0, ok)[:20], ErrProtocol},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, err := readReply(tt.reply, 1234)
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("readReply: %v, want %v", err, tt.err)
			}
			if err == nil && !bytes.Equal(body, ok) {
				t.Errorf("body %v, want %v", bson.Raw(body), bson.Raw(ok))
			}
		})
	}
}

func TestStampReply(t *testing.T) {
	reply := wire.AppendMsg(nil, 555, 1234, wiremessage.ChecksumPresent, doc(t, bson.D{{Key: "ok", Value: 1.0}}))
	stampReply(reply, 77)
	m, err := wire.Parse(reply)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.RequestID != 555 || m.Header.ResponseTo != 77 {
		t.Errorf("header %+v, want requestID 555 (the member's), responseTo 77 (the client's)", m.Header)
	}
	if got := int32(binary.LittleEndian.Uint32(reply[8:])); got != 77 {
		t.Errorf("responseTo bytes %d", got)
	}
}

func TestMayChangeState(t *testing.T) {
	for _, tt := range []struct {
		name string
		body bson.D
		want bool
	}{
		{"ok double", bson.D{{Key: "cursor", Value: bson.D{}}, {Key: "ok", Value: 1.0}}, false},
		{"ok int", bson.D{{Key: "ok", Value: int32(1)}}, false},
		{"failed", bson.D{{Key: "ok", Value: 0.0}, {Key: "code", Value: int32(10107)}}, true},
		{"no ok", bson.D{{Key: "n", Value: 1}}, true},
		{"ok string", bson.D{{Key: "ok", Value: "1"}}, true},
		{"write concern error", bson.D{{Key: "ok", Value: 1.0}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: int32(91)}}}}, true},
	} {
		if got := mayChangeState(doc(t, tt.body)); got != tt.want {
			t.Errorf("%s: mayChangeState = %v, want %v", tt.name, got, tt.want)
		}
	}
}
