package router

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
)

// Database hands out routed collections of one database.
type Database struct {
	r       *Router
	name    string
	dbs     [3]*mongo.Database // by side
	members sync.Map           // *target -> *mongo.Database on the member's pool
}

// handle returns the database handle for side, or for t's pool when t is a
// member's.
func (d *Database) handle(s balancer.Side, t *target) *mongo.Database {
	if t == nil || t.client == nil {
		return d.dbs[s]
	}
	if h, ok := d.members.Load(t); ok {
		return h.(*mongo.Database)
	}
	h, _ := d.members.LoadOrStore(t, t.client.Database(d.name))
	return h.(*mongo.Database)
}

// Database returns the routed database name. Handles are cached.
func (r *Router) Database(name string) *Database {
	if d, ok := r.dbs.Load(name); ok {
		return d.(*Database)
	}
	d := &Database{r: r, name: name}
	for _, s := range []balancer.Side{balancer.Primary, balancer.Secondary} {
		d.dbs[s] = r.client.Database(name, options.Database().SetReadPreference(r.prefs[s]))
	}
	actual, _ := r.dbs.LoadOrStore(name, d)
	return actual.(*Database)
}

// Collection returns a routed collection. Writes should use
// Router.Client() (or Primary()) and go to the primary unchanged.
func (d *Database) Collection(name string) *Collection {
	c := &Collection{r: d.r, db: d, name: name}
	for _, s := range []balancer.Side{balancer.Primary, balancer.Secondary} {
		c.colls[s] = d.dbs[s].Collection(name)
	}
	return c
}

// Collection routes each read by the router's policy. Its read methods have
// the signatures of *mongo.Collection's.
type Collection struct {
	r       *Router
	db      *Database
	name    string
	colls   [3]*mongo.Collection
	members sync.Map // *target -> *mongo.Collection on the member's pool
}

// Primary returns the collection with read preference primary, for writes
// and reads that must not be routed.
func (c *Collection) Primary() *mongo.Collection { return c.colls[balancer.Primary] }

// routed is one routed call: the handle, the marked context (with a
// bridged session when needed) and what record needs.
type routed struct {
	coll  *mongo.Collection
	side  balancer.Side
	rc    *routedCtx
	ctx   context.Context
	br    *bridge
	start time.Time
}

// route picks where the call goes and returns its handle and context. A
// call returning a cursor (cursor true) in a session of the routed client
// stays on the primary under a per-member policy: its getMores would need
// the bridged session after the call returns; use Begin/Done for those.
func (c *Collection) route(ctx context.Context, cursor bool) routed {
	s, t := c.r.choose(ctx)
	if cursor && t != nil && t.client != nil && mongo.SessionFromContext(ctx) != nil {
		s, t = balancer.Primary, c.r.primaryT
	}
	rc := c.r.mark(ctx, s)
	rt := routed{side: s, rc: rc, ctx: rc, start: time.Now()}
	if t == nil || t.client == nil {
		rc.assign(t)
		rt.coll = c.colls[s]
		return rt
	}
	bctx, br, err := bridgeSession(rc, t)
	if err != nil {
		rc.assign(c.r.primaryT)
		rt.coll, rt.side, rc.side = c.colls[balancer.Primary], balancer.Primary, uint8(balancer.Primary)
		return rt
	}
	rc.assign(t)
	rt.ctx, rt.br = bctx, br
	if h, ok := c.members.Load(t); ok {
		rt.coll = h.(*mongo.Collection)
		return rt
	}
	h, _ := c.members.LoadOrStore(t, c.db.handle(s, t).Collection(c.name))
	rt.coll = h.(*mongo.Collection)
	return rt
}

// done records the call.
func (c *Collection) done(rt routed, err error) {
	rt.br.done()
	c.r.record(rt.side, rt.rc, time.Since(rt.start), err)
}

// FindOne is a routed mongo.Collection.FindOne.
func (c *Collection) FindOne(ctx context.Context, filter any, opts ...options.Lister[options.FindOneOptions]) *mongo.SingleResult {
	rt := c.route(ctx, false)
	res := rt.coll.FindOne(rt.ctx, filter, opts...)
	err := res.Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		err = nil
	}
	c.done(rt, err)
	return res
}

// Find is a routed mongo.Collection.Find. The latency recorded is the time
// to the first batch.
func (c *Collection) Find(ctx context.Context, filter any, opts ...options.Lister[options.FindOptions]) (*mongo.Cursor, error) {
	rt := c.route(ctx, true)
	cur, err := rt.coll.Find(rt.ctx, filter, opts...)
	c.done(rt, err)
	return cur, err
}

// Aggregate is a routed mongo.Collection.Aggregate. Pipelines that write
// ($out, $merge) must not be routed: use Primary().
func (c *Collection) Aggregate(ctx context.Context, pipeline any, opts ...options.Lister[options.AggregateOptions]) (*mongo.Cursor, error) {
	rt := c.route(ctx, true)
	cur, err := rt.coll.Aggregate(rt.ctx, pipeline, opts...)
	c.done(rt, err)
	return cur, err
}

// CountDocuments is a routed mongo.Collection.CountDocuments.
func (c *Collection) CountDocuments(ctx context.Context, filter any, opts ...options.Lister[options.CountOptions]) (int64, error) {
	rt := c.route(ctx, false)
	n, err := rt.coll.CountDocuments(rt.ctx, filter, opts...)
	c.done(rt, err)
	return n, err
}

// Distinct is a routed mongo.Collection.Distinct.
func (c *Collection) Distinct(ctx context.Context, fieldName string, filter any, opts ...options.Lister[options.DistinctOptions]) *mongo.DistinctResult {
	rt := c.route(ctx, false)
	res := rt.coll.Distinct(rt.ctx, fieldName, filter, opts...)
	c.done(rt, res.Err())
	return res
}
