package registers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/workload"
)

// A register is the document {_id: key, v: version, val: value, log:
// [values], pad: bytes}: every write sets val, increments v and pushes val
// onto log, so versions order a key's writes as the primary applied them and
// the log read after the run is the chain of values that survived.

// register is a register's read fields.
type register struct {
	V   int64   `bson:"v"`
	Val int64   `bson:"val"`
	Log []int64 `bson:"log,omitempty"`
}

var (
	readProjection  = bson.D{{Key: "v", Value: 1}, {Key: "val", Value: 1}, {Key: "_id", Value: 0}}
	wholeProjection = bson.D{{Key: "log", Value: 0}}
)

// padding is the bytes a write rewrites so the register has size bytes
// before its log (none for 0).
func padding(size int) []byte {
	if size <= overhead {
		return nil
	}
	return []byte(strings.Repeat("x", size-overhead))
}

// reset drops the registers' collection and writes every register's
// initial state, version 0 and value 0, with majority so no member
// serves an older one.
func reset(ctx context.Context, c *mongo.Collection, keys []string, size int) error {
	if err := c.Drop(ctx); err != nil {
		return fmt.Errorf("registers: drop %s: %w", c.Name(), err)
	}
	majority := c.Database().Collection(c.Name(), options.Collection().SetWriteConcern(writeconcern.Majority()))
	docs := make([]any, len(keys))
	pad := padding(size)
	for i, k := range keys {
		d := bson.D{{Key: "_id", Value: k}, {Key: "v", Value: int64(0)}, {Key: "val", Value: int64(0)}, {Key: "log", Value: bson.A{}}}
		if pad != nil {
			d = append(d, bson.E{Key: "pad", Value: pad})
		}
		docs[i] = d
	}
	if _, err := majority.InsertMany(ctx, docs); err != nil {
		return fmt.Errorf("registers: write the registers: %w", err)
	}
	return nil
}

// readRegister reads key's version and value; whole fetches the rest of
// the register but its log too.
func readRegister(ctx context.Context, c workload.ReadCollection, key string, whole bool) (v, val int64, err error) {
	proj := readProjection
	if whole {
		proj = wholeProjection
	}
	var r register
	err = c.FindOne(ctx, bson.D{{Key: "_id", Value: key}}, options.FindOne().SetProjection(proj)).Decode(&r)
	return r.V, r.Val, err
}

// writeRegister sets key's value (for cas only when it is expect) and
// returns the version the write got; matched is false when a cas found
// another value.
func writeRegister(ctx context.Context, c *mongo.Collection, key string, value, expect int64, cas bool, pad []byte) (v int64, matched bool, err error) {
	filter := bson.D{{Key: "_id", Value: key}}
	if cas {
		filter = append(filter, bson.E{Key: "val", Value: expect})
	}
	set := bson.D{{Key: "val", Value: value}}
	if pad != nil {
		set = append(set, bson.E{Key: "pad", Value: pad})
	}
	update := bson.D{{Key: "$set", Value: set}, {Key: "$inc", Value: bson.D{{Key: "v", Value: int64(1)}}},
		{Key: "$push", Value: bson.D{{Key: "log", Value: value}}}}
	var r register
	err = c.FindOneAndUpdate(ctx, filter, update, options.FindOneAndUpdate().
		SetReturnDocument(options.After).SetProjection(readProjection)).Decode(&r)
	if cas && errors.Is(err, mongo.ErrNoDocuments) {
		return 0, false, nil
	}
	return r.V, err == nil, err
}

// ReadFinal reads every register, log included, from the primary with
// read concern majority, after a majority write: once that is acknowledged,
// every write the primary acknowledged before it is majority-committed, so
// a w:1 write the final read misses was lost, not merely unreplicated yet.
func ReadFinal(ctx context.Context, c *mongo.Collection, keys []string) ([]history.Final, error) {
	sync := c.Database().Collection(c.Name()+"_sync", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := sync.UpdateOne(ctx, bson.D{{Key: "_id", Value: "final"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}},
		options.UpdateOne().SetUpsert(true)); err != nil {
		return nil, fmt.Errorf("registers: majority write before the final read: %w", err)
	}
	out := make([]history.Final, 0, len(keys))
	for _, k := range keys {
		var r register
		err := c.FindOne(ctx, bson.D{{Key: "_id", Value: k}},
			options.FindOne().SetProjection(bson.D{{Key: "pad", Value: 0}})).Decode(&r)
		if err != nil {
			return out, fmt.Errorf("registers: read register %s after the run: %w", k, err)
		}
		out = append(out, history.Final{Key: k, Version: r.V, Value: r.Val, Log: r.Log})
	}
	return out, nil
}

// FinalCollection returns the registers with read concern majority and
// read preference primary, for ReadFinal (whatever read preference
// the client's connection string gives).
func FinalCollection(client *mongo.Client, db, coll string) *mongo.Collection {
	return client.Database(db, options.Database().SetReadConcern(readconcern.Majority()).
		SetReadPreference(readpref.Primary())).Collection(coll)
}

// mongoCausal is the session options of a client's causally consistent
// session.
func mongoCausal() *options.SessionOptionsBuilder {
	return options.Session().SetCausalConsistency(true)
}

// memberKey carries, in an operation's context, where the member that
// served it is written.
type memberKey struct{}

// memberSlot is where the monitor writes the host (atomically: a timed-out
// operation's reply may still be monitored while the client moves on).
type memberSlot struct{ host atomic.Pointer[string] }

func (m *memberSlot) get() string {
	if h := m.host.Load(); h != nil {
		return *h
	}
	return ""
}

func withMember(ctx context.Context) (context.Context, *memberSlot) {
	s := new(memberSlot)
	return context.WithValue(ctx, memberKey{}, s), s
}

// MemberMonitor records, for operations run with a context from
// withMember, the host of the connection that answered. Give it to every
// client the run's operations use (for a router, with WithClientOptions:
// the router chains it on its member pools too).
func MemberMonitor() *event.CommandMonitor {
	note := func(ctx context.Context, connID string) {
		if m, ok := ctx.Value(memberKey{}).(*memberSlot); ok {
			h, _, _ := strings.Cut(connID, "[")
			m.host.Store(&h)
		}
	}
	return &event.CommandMonitor{
		Succeeded: func(ctx context.Context, e *event.CommandSucceededEvent) { note(ctx, e.ConnectionID) },
		Failed:    func(ctx context.Context, e *event.CommandFailedEvent) { note(ctx, e.ConnectionID) },
	}
}
