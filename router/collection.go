package router

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
)

// Database hands out routed collections of one database.
type Database struct {
	r   *Router
	dbs [3]*mongo.Database // by side
}

// Database returns the routed database name. Handles are cached.
func (r *Router) Database(name string) *Database {
	if d, ok := r.dbs.Load(name); ok {
		return d.(*Database)
	}
	d := &Database{r: r}
	for _, s := range []balancer.Side{balancer.Primary, balancer.Secondary} {
		d.dbs[s] = r.client.Database(name, options.Database().SetReadPreference(r.prefs[s]))
	}
	actual, _ := r.dbs.LoadOrStore(name, d)
	return actual.(*Database)
}

// Collection returns a routed collection. Writes should use
// Router.Client() (or Primary()) and go to the primary unchanged.
func (d *Database) Collection(name string) *Collection {
	c := &Collection{r: d.r}
	for _, s := range []balancer.Side{balancer.Primary, balancer.Secondary} {
		c.colls[s] = d.dbs[s].Collection(name)
	}
	return c
}

// Collection routes each read by the router's policy. Its read methods have
// the signatures of *mongo.Collection's.
type Collection struct {
	r     *Router
	colls [3]*mongo.Collection
}

// Primary returns the collection with read preference primary, for writes
// and reads that must not be routed.
func (c *Collection) Primary() *mongo.Collection { return c.colls[balancer.Primary] }

// route picks a side, returns its handle and the marked context.
func (c *Collection) route(ctx context.Context) (*mongo.Collection, balancer.Side, *routedCtx, time.Time) {
	s := c.r.pick()
	return c.colls[s], s, c.r.mark(ctx, s), time.Now()
}

// FindOne is a routed mongo.Collection.FindOne.
func (c *Collection) FindOne(ctx context.Context, filter any, opts ...options.Lister[options.FindOneOptions]) *mongo.SingleResult {
	coll, s, mctx, start := c.route(ctx)
	res := coll.FindOne(mctx, filter, opts...)
	err := res.Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		err = nil
	}
	c.r.record(s, mctx, time.Since(start), err)
	return res
}

// Find is a routed mongo.Collection.Find. The latency recorded is the time
// to the first batch.
func (c *Collection) Find(ctx context.Context, filter any, opts ...options.Lister[options.FindOptions]) (*mongo.Cursor, error) {
	coll, s, mctx, start := c.route(ctx)
	cur, err := coll.Find(mctx, filter, opts...)
	c.r.record(s, mctx, time.Since(start), err)
	return cur, err
}

// Aggregate is a routed mongo.Collection.Aggregate. Pipelines that write
// ($out, $merge) must not be routed: use Primary().
func (c *Collection) Aggregate(ctx context.Context, pipeline any, opts ...options.Lister[options.AggregateOptions]) (*mongo.Cursor, error) {
	coll, s, mctx, start := c.route(ctx)
	cur, err := coll.Aggregate(mctx, pipeline, opts...)
	c.r.record(s, mctx, time.Since(start), err)
	return cur, err
}

// CountDocuments is a routed mongo.Collection.CountDocuments.
func (c *Collection) CountDocuments(ctx context.Context, filter any, opts ...options.Lister[options.CountOptions]) (int64, error) {
	coll, s, mctx, start := c.route(ctx)
	n, err := coll.CountDocuments(mctx, filter, opts...)
	c.r.record(s, mctx, time.Since(start), err)
	return n, err
}

// Distinct is a routed mongo.Collection.Distinct.
func (c *Collection) Distinct(ctx context.Context, fieldName string, filter any, opts ...options.Lister[options.DistinctOptions]) *mongo.DistinctResult {
	coll, s, mctx, start := c.route(ctx)
	res := coll.Distinct(mctx, fieldName, filter, opts...)
	c.r.record(s, mctx, time.Since(start), res.Err())
	return res
}
