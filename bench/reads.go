package bench

import (
	"context"
	"errors"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
)

// routedReads adapts a routed database to workload.Reads, counting every
// routed read it hands out as it returns.
type routedReads struct {
	rt   *router.Router
	name string
	db   *router.Database
	n    *readCount
}

func (r routedReads) Collection(name string) workload.ReadCollection {
	return countedCollection{c: r.db.Collection(name), n: r.n}
}

func (r routedReads) Begin(ctx context.Context) workload.Unit {
	rd := r.rt.Begin(ctx)
	return workload.Unit{Ctx: rd.Ctx, DB: rd.Database(r.name), Secondary: rd.Side == balancer.Secondary,
		Done: func(err error) {
			rd.Done(err)
			r.n.units.Add(1)
		}}
}

// readCount is the runner's own count of the routed reads, for the reads
// check (see results.ReadsCheck): the calls that returned (failed or cut
// off ones too), the multi-query units, and the read commands that failed
// on the routed client or the members' pools.
type readCount struct {
	routed, failed, cancelled, units, failedCommands atomic.Int64
}

// snapshot is the counts so far.
func (n *readCount) snapshot() readCounts {
	return readCounts{routed: n.routed.Load(), failed: n.failed.Load(), cancelled: n.cancelled.Load(),
		units: n.units.Load(), failedCommands: n.failedCommands.Load()}
}

// done counts a call that returned err; one whose context was cancelled
// was cut off.
func (n *readCount) done(ctx context.Context, err error) {
	n.routed.Add(1)
	switch {
	case err == nil:
	case errors.Is(ctx.Err(), context.Canceled):
		n.cancelled.Add(1)
	default:
		n.failed.Add(1)
	}
}

// readCommands are the commands the router counts as reads
// (router/tracker.go).
var readCommands = map[string]bool{"find": true, "aggregate": true, "count": true, "distinct": true}

// monitor counts the read commands that fail, then hands every event to
// next (the caller's own monitor, may be nil).
func (n *readCount) monitor(next *event.CommandMonitor) *event.CommandMonitor {
	m := &event.CommandMonitor{}
	if next != nil {
		*m = *next
	}
	m.Failed = func(ctx context.Context, e *event.CommandFailedEvent) {
		if readCommands[e.CommandName] {
			n.failedCommands.Add(1)
		}
		if next != nil && next.Failed != nil {
			next.Failed(ctx, e)
		}
	}
	return m
}

// userMonitor is the command monitor the caller's client options set, the
// last one winning as in the driver; nil when none does.
func userMonitor(opts []*options.ClientOptions) *event.CommandMonitor {
	var m *event.CommandMonitor
	for _, o := range opts {
		if o != nil && o.Monitor != nil {
			m = o.Monitor
		}
	}
	return m
}

// countedCollection is a routed collection whose calls are counted.
type countedCollection struct {
	c workload.ReadCollection
	n *readCount
}

var _ workload.ReadCollection = countedCollection{}

func (c countedCollection) FindOne(ctx context.Context, filter any, opts ...options.Lister[options.FindOneOptions]) *mongo.SingleResult {
	res := c.c.FindOne(ctx, filter, opts...)
	err := res.Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		err = nil
	}
	c.n.done(ctx, err)
	return res
}

func (c countedCollection) Find(ctx context.Context, filter any, opts ...options.Lister[options.FindOptions]) (*mongo.Cursor, error) {
	cur, err := c.c.Find(ctx, filter, opts...)
	c.n.done(ctx, err)
	return cur, err
}

func (c countedCollection) Aggregate(ctx context.Context, pipeline any, opts ...options.Lister[options.AggregateOptions]) (*mongo.Cursor, error) {
	cur, err := c.c.Aggregate(ctx, pipeline, opts...)
	c.n.done(ctx, err)
	return cur, err
}

func (c countedCollection) CountDocuments(ctx context.Context, filter any, opts ...options.Lister[options.CountOptions]) (int64, error) {
	v, err := c.c.CountDocuments(ctx, filter, opts...)
	c.n.done(ctx, err)
	return v, err
}

func (c countedCollection) Distinct(ctx context.Context, fieldName string, filter any, opts ...options.Lister[options.DistinctOptions]) *mongo.DistinctResult {
	res := c.c.Distinct(ctx, fieldName, filter, opts...)
	c.n.done(ctx, res.Err())
	return res
}
