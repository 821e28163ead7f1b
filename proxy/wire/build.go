package wire

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// castagnoli is the CRC-32C table of OP_MSG checksums (read-only).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// AppendMsg appends an OP_MSG with one kind-0 section, body, to dst: a reply
// the proxy produces itself (responseTo set to the request's requestID), or
// a command it sends on its own (responseTo 0). With ChecksumPresent in
// flags the CRC-32C is appended.
func AppendMsg(dst []byte, requestID, responseTo int32, flags wiremessage.MsgFlag, body bsoncore.Document) []byte {
	start := len(dst)
	_, dst = wiremessage.AppendHeaderStart(dst, requestID, responseTo, wiremessage.OpMsg)
	dst = wiremessage.AppendMsgFlags(dst, flags)
	dst = wiremessage.AppendMsgSectionType(dst, wiremessage.SingleDocument)
	dst = append(dst, body...)
	if flags&wiremessage.ChecksumPresent != 0 {
		dst = append(dst, 0, 0, 0, 0)
	}
	finish(dst[start:])
	return dst
}

// AppendReply appends an OP_REPLY to dst, the answer to an OP_QUERY: the
// given response flags, cursorID 0, startingFrom 0 and docs (one, the
// command's reply, for a command).
func AppendReply(dst []byte, requestID, responseTo int32, flags wiremessage.ReplyFlag, docs ...bsoncore.Document) []byte {
	start := len(dst)
	_, dst = wiremessage.AppendHeaderStart(dst, requestID, responseTo, wiremessage.OpReply)
	dst = wiremessage.AppendReplyFlags(dst, flags)
	dst = wiremessage.AppendReplyCursorID(dst, 0)
	dst = wiremessage.AppendReplyStartingFrom(dst, 0)
	dst = wiremessage.AppendReplyNumberReturned(dst, int32(len(docs)))
	for _, d := range docs {
		dst = append(dst, d...)
	}
	finish(dst[start:])
	return dst
}

// finish writes msg's messageLength and, for an OP_MSG that flags one, its
// checksum over everything before the checksum's last four bytes.
func finish(msg []byte) {
	putInt32(msg, int32(len(msg)))
	putChecksum(msg)
}

// putChecksum recomputes the checksum of an OP_MSG that flags one.
func putChecksum(msg []byte) {
	if len(msg) < HeaderLen+4+4 || wiremessage.OpCode(binary.LittleEndian.Uint32(msg[12:])) != wiremessage.OpMsg {
		return
	}
	if wiremessage.MsgFlag(binary.LittleEndian.Uint32(msg[HeaderLen:]))&wiremessage.ChecksumPresent == 0 {
		return
	}
	binary.LittleEndian.PutUint32(msg[len(msg)-4:], checksum(msg[:len(msg)-4]))
}

// RewriteIDs sets a whole message's requestID and responseTo in place, as
// the proxy does to every message it forwards (a client's requestIDs are
// not unique on the member connection, a member's replies answer the
// proxy's ids). An OP_MSG that carries a checksum gets it recomputed, since
// the checksum covers the header.
func RewriteIDs(msg []byte, requestID, responseTo int32) error {
	if len(msg) < HeaderLen {
		return fmt.Errorf("%w: %d bytes, a header needs %d", ErrTruncated, len(msg), HeaderLen)
	}
	if n := int32(binary.LittleEndian.Uint32(msg)); int64(n) != int64(len(msg)) {
		return fmt.Errorf("%w: messageLength %d but %d bytes given", ErrBadLength, n, len(msg))
	}
	putInt32(msg[4:], requestID)
	putInt32(msg[8:], responseTo)
	putChecksum(msg)
	return nil
}
