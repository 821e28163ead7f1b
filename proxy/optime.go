package proxy

import (
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// opTime is the latest operationTime any member's reply carried through the
// proxy: what a mongos, which keeps a logical clock advanced by its shards'
// replies, puts in the replies it makes itself (ping). A client reads it as
// "now" for a change stream's startAtOperationTime, or to order its own
// reads (the drivers' change-streams specification tests take it from a
// ping). Kept as T<<32 | I, so it only moves forward with one atomic.
type opTime struct{ v atomic.Uint64 }

// note advances the clock to t, if later.
func (o *opTime) note(t wire.Timestamp) {
	n := uint64(t.T)<<32 | uint64(t.I)
	for {
		cur := o.v.Load()
		if n <= cur || o.v.CompareAndSwap(cur, n) {
			return
		}
	}
}

// get returns the latest operationTime, zero before any.
func (o *opTime) get() wire.Timestamp {
	n := o.v.Load()
	return wire.Timestamp{T: uint32(n >> 32), I: uint32(n)}
}

// withOperationTime returns doc with operationTime t appended (doc itself
// when t is zero).
func withOperationTime(doc bsoncore.Document, t wire.Timestamp) bsoncore.Document {
	if t.IsZero() {
		return doc
	}
	out := bsoncore.AppendTimestampElement(append([]byte(nil), doc[:len(doc)-1]...), "operationTime", t.T, t.I)
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}
