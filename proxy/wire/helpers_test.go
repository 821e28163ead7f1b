package wire

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// d builds a bson.D from keys and values in turn: d("find", "c", "$db", "db").
func d(kv ...any) bson.D {
	if len(kv)%2 != 0 {
		panic(fmt.Sprintf("d: %d arguments, want key-value pairs", len(kv)))
	}
	out := make(bson.D, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// doc marshals cmd.
func doc(tb testing.TB, cmd bson.D) bsoncore.Document {
	tb.Helper()
	b, err := bson.Marshal(cmd)
	if err != nil {
		tb.Fatalf("marshal %v: %v", cmd, err)
	}
	return b
}

// seq is a kind-1 section to build.
type seq struct {
	id   string
	docs []bsoncore.Document
}

// opMsg builds an OP_MSG with requestID 7: flags, the body, then the
// sequences (a checksum when flags ask for one).
func opMsg(flags wiremessage.MsgFlag, body bsoncore.Document, seqs ...seq) []byte {
	idx, b := wiremessage.AppendHeaderStart(nil, 7, 0, wiremessage.OpMsg)
	b = wiremessage.AppendMsgFlags(b, flags)
	b = wiremessage.AppendMsgSectionType(b, wiremessage.SingleDocument)
	b = append(b, body...)
	for _, s := range seqs {
		b = wiremessage.AppendMsgSectionType(b, wiremessage.DocumentSequence)
		start := len(b)
		b = append(b, 0, 0, 0, 0)
		b = append(b, s.id...)
		b = append(b, 0)
		for _, d := range s.docs {
			b = append(b, d...)
		}
		putInt32(b[start:], int32(len(b)-start))
	}
	if flags&wiremessage.ChecksumPresent != 0 {
		b = append(b, 0, 0, 0, 0)
	}
	putInt32(b[idx:], int32(len(b)-int(idx)))
	putChecksum(b)
	return b
}

// opQuery builds an OP_QUERY with requestID 7 on ns, numberToReturn -1.
func opQuery(ns string, query bsoncore.Document, fields bsoncore.Document) []byte {
	idx, b := wiremessage.AppendHeaderStart(nil, 7, 0, wiremessage.OpQuery)
	b = wiremessage.AppendQueryFlags(b, wiremessage.SecondaryOK)
	b = wiremessage.AppendQueryFullCollectionName(b, ns)
	b = wiremessage.AppendQueryNumberToSkip(b, 0)
	b = wiremessage.AppendQueryNumberToReturn(b, -1)
	b = append(b, query...)
	b = append(b, fields...)
	putInt32(b[idx:], int32(len(b)-int(idx)))
	return b
}

// rawMsg builds a message of opcode op around payload.
func rawMsg(op wiremessage.OpCode, payload []byte) []byte {
	b := wiremessage.AppendHeader(nil, int32(HeaderLen+len(payload)), 7, 0, op)
	return append(b, payload...)
}

// header builds a bare header announcing length.
func header(length int32, op wiremessage.OpCode) []byte {
	return wiremessage.AppendHeader(nil, length, 7, 0, op)
}

// withTail appends tail to msg and fixes its messageLength.
func withTail(msg []byte, tail ...byte) []byte {
	b := append(append([]byte{}, msg...), tail...)
	putInt32(b, int32(len(b)))
	return b
}
