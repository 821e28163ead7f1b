package upstream

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/proxy/wire"
)

// The offsets in an OP_MSG: flagBits follows the 16-byte header.
const flagsAt = wire.HeaderLen

// request is what RoundTrip reads of a client's message before sending it.
type request struct {
	id, responseTo int32
	flags          wiremessage.MsgFlag
}

// readRequest checks that msg is one whole OP_MSG and reads its ids and
// flags. The rest (sections, checksum) is the member's to check.
func readRequest(msg []byte) (request, error) {
	if len(msg) < wire.HeaderLen+4 {
		return request{}, fmt.Errorf("%w: %d bytes, an OP_MSG needs at least %d", ErrBadRequest, len(msg), wire.HeaderLen+4)
	}
	h, err := wire.ReadHeader(msg, len(msg))
	if err != nil {
		return request{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if int(h.Length) != len(msg) {
		return request{}, fmt.Errorf("%w: messageLength %d but %d bytes given", ErrBadRequest, h.Length, len(msg))
	}
	if h.OpCode != wiremessage.OpMsg {
		return request{}, fmt.Errorf("%w: opcode %v, only OP_MSG is forwarded", ErrBadRequest, h.OpCode)
	}
	return request{id: h.RequestID, responseTo: h.ResponseTo, flags: wiremessage.MsgFlag(binary.LittleEndian.Uint32(msg[flagsAt:]))}, nil
}

// stamp writes ids and flags into msg, an OP_MSG readRequest accepted, and
// recomputes its checksum when it carries one.
func stamp(msg []byte, id, responseTo int32, flags wiremessage.MsgFlag) {
	binary.LittleEndian.PutUint32(msg[flagsAt:], uint32(flags))
	_ = wire.RewriteIDs(msg, id, responseTo) // cannot fail: readRequest checked the length
}

// stampReply makes reply answer the client's request responseTo; its own
// requestID stays the member's.
func stampReply(reply []byte, responseTo int32) {
	_ = wire.RewriteIDs(reply, int32(binary.LittleEndian.Uint32(reply[4:])), responseTo) // readReply checked it
}

// readReply checks that reply answers the request sent as id with one
// OP_MSG, not the first of a stream (moreToCome), and returns its body.
func readReply(reply []byte, id int32) (bsoncore.Document, error) {
	m, err := wire.Parse(reply)
	if err != nil {
		return nil, fmt.Errorf("%w: reply: %w", ErrProtocol, err)
	}
	switch {
	case m.Header.OpCode != wiremessage.OpMsg:
		return nil, fmt.Errorf("%w: reply opcode %v, want OP_MSG", ErrProtocol, m.Header.OpCode)
	case m.Header.ResponseTo != id:
		return nil, fmt.Errorf("%w: reply to request %d, want %d", ErrProtocol, m.Header.ResponseTo, id)
	case m.Flags&wiremessage.MoreToCome != 0:
		return nil, fmt.Errorf("%w: reply has moreToCome, but exhaustAllowed was not sent", ErrProtocol)
	}
	return m.Body, nil
}

// mayChangeState reports whether a reply's body may carry an error that
// changes what the driver knows of the member (not primary, recovering,
// shutting down, also as a write concern error): ok is not 1, or there is
// a writeConcernError. Most replies are ok:1 without one, and cost two
// lookups of top-level keys.
func mayChangeState(body bsoncore.Document) bool {
	ok, err := body.LookupErr("ok")
	if err != nil {
		return true
	}
	if f, isNum := ok.AsFloat64OK(); !isNum || f != 1 {
		return true
	}
	_, err = body.LookupErr("writeConcernError")
	return err == nil
}
