package wire

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// WithReadPreference appends to dst a copy of the OP_MSG m (parsed from
// its whole bytes) whose body's $readPreference is {mode: mode} in place of
// whatever it had: what the proxy sends when it moves a read that carries
// no read preference, or primary, to a secondary, which refuses such a read
// (NotPrimaryNoSecondaryOk). Header ids, flags and document sequences are
// kept; a checksum, when flagged, is recomputed.
func WithReadPreference(dst []byte, m *Message, mode Mode) []byte {
	rp, rpDoc := bsoncore.AppendDocumentStart(nil)
	rpDoc = bsoncore.AppendStringElement(rpDoc, "mode", mode.String())
	rpDoc, _ = bsoncore.AppendDocumentEnd(rpDoc, rp)
	return rewrite(dst, m, "$readPreference", func(body []byte) []byte {
		return bsoncore.AppendDocumentElement(body, "$readPreference", rpDoc)
	})
}

// WithoutField appends to dst a copy of the OP_MSG m (parsed from its
// whole bytes) whose body lacks the top-level field key, as WithReadPreference
// copies it: what the proxy sends back for a member's reply carrying the
// member's topologyVersion (see Reply.TopologyVersion).
func WithoutField(dst []byte, m *Message, key string) []byte {
	return rewrite(dst, m, key, nil)
}

// WithAfterClusterTime appends to dst a copy of the OP_MSG m (parsed from
// its whole bytes) whose body's readConcern has afterClusterTime t, its
// other fields (level) kept and an afterClusterTime it had replaced; a body
// without readConcern gets {afterClusterTime: t}. What the proxy sends for a
// majority read it routes to a secondary after a write on the connection:
// the member then waits until its majority-committed snapshot holds t
// (readConcern afterClusterTime), where it would otherwise read a snapshot
// from before the write it has applied. The copy is made as
// WithReadPreference makes it.
func WithAfterClusterTime(dst []byte, m *Message, t Timestamp) []byte {
	var rc bsoncore.Document
	e := newElems(m.Body)
	for {
		key, v, ok := e.next()
		if !ok {
			break
		}
		if string(key) == "readConcern" {
			rc, _ = docValue(v)
		}
	}
	return rewrite(dst, m, "readConcern", func(body []byte) []byte {
		idx, body := bsoncore.AppendDocumentElementStart(body, "readConcern")
		f := newElems(rc)
		for {
			key, v, ok := f.next()
			if !ok {
				break
			}
			if string(key) == "afterClusterTime" {
				continue
			}
			body = bsoncore.AppendHeader(body, v.Type, string(key))
			body = append(body, v.Data...)
		}
		body = bsoncore.AppendTimestampElement(body, "afterClusterTime", t.T, t.I)
		body, _ = bsoncore.AppendDocumentEnd(body, idx)
		return body
	})
}

// rewriteRoom is what rewrite reserves past the message's own length for
// what add appends (a $readPreference with a mode: 48 bytes; a
// readConcern's afterClusterTime: 26).
const rewriteRoom = 64

// rewrite appends m to dst with the body's field drop left out and add's
// elements appended to the body (add may be nil). It grows dst once, to
// the message's length and rewriteRoom, rather than element by element.
func rewrite(dst []byte, m *Message, drop string, add func(body []byte) []byte) []byte {
	if need := max(int(m.Header.Length), 0) + rewriteRoom; cap(dst)-len(dst) < need {
		// Not slices.Grow: built with -race, it allocates twice.
		grown := make([]byte, len(dst), len(dst)+need)
		copy(grown, dst)
		dst = grown
	}
	start := len(dst)
	_, dst = wiremessage.AppendHeaderStart(dst, m.Header.RequestID, m.Header.ResponseTo, wiremessage.OpMsg)
	dst = wiremessage.AppendMsgFlags(dst, m.Flags)
	dst = wiremessage.AppendMsgSectionType(dst, wiremessage.SingleDocument)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	e := newElems(m.Body)
	for {
		key, v, ok := e.next()
		if !ok {
			break
		}
		if string(key) == drop {
			continue
		}
		dst = bsoncore.AppendHeader(dst, v.Type, string(key))
		dst = append(dst, v.Data...)
	}
	if add != nil {
		dst = add(dst)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	for _, s := range m.Sequences {
		dst = wiremessage.AppendMsgSectionType(dst, wiremessage.DocumentSequence)
		size := int32(4 + len(s.Identifier) + 1 + len(s.Docs))
		dst = bsoncore.AppendInt32(dst, size)
		dst = append(dst, s.Identifier...)
		dst = append(dst, 0)
		dst = append(dst, s.Docs...)
	}
	if m.Flags&wiremessage.ChecksumPresent != 0 {
		dst = append(dst, 0, 0, 0, 0)
	}
	finish(dst[start:])
	return dst
}

// Reply is what the proxy reads of a member's reply to a command.
type Reply struct {
	// OK is the reply's ok field (1 for success).
	OK bool
	// OperationTime is the operationTime a replica-set member puts in its
	// replies: for a write, its optime; for a read, the member's applied
	// optime it read at. Zero when absent.
	OperationTime Timestamp
	// Cursor is set when the reply has cursor.id: CursorID and
	// Namespace (cursor.ns) follow.
	Cursor    bool
	CursorID  int64
	Namespace string
	// TopologyVersion: the reply carries the member's topologyVersion (a
	// state-change error's). Drivers must not see it: they would take the
	// proxy for a server that streams its monitoring (see the proxy's
	// hello), which it does not.
	TopologyVersion bool
}

// InspectReply reads a member's reply (a whole OP_MSG). ok is false when
// the bytes are not a well-formed OP_MSG.
func InspectReply(b []byte) (Reply, bool) {
	var r Reply
	m, err := Parse(b)
	if err != nil || m.Header.OpCode != wiremessage.OpMsg {
		return r, false
	}
	e := newElems(m.Body)
	for {
		key, v, ok := e.next()
		if !ok {
			break
		}
		switch string(key) {
		case "ok":
			r.OK = truthy(v)
		case "operationTime":
			if t, i, ok := v.TimestampOK(); ok {
				r.OperationTime = Timestamp{T: t, I: i}
			}
		case "topologyVersion":
			r.TopologyVersion = true
		case "cursor":
			cur, ok := docValue(v)
			if !ok {
				continue
			}
			if id, ok := cur.Lookup("id").AsInt64OK(); ok {
				r.Cursor, r.CursorID = true, id
				r.Namespace, _ = cur.Lookup("ns").StringValueOK()
			}
		}
	}
	return r, true
}
