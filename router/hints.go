package router

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
)

// WithHints turns read hints on: routed finds and aggregations are captured and replayed on
// the members that did not serve them, to keep their caches warm (see
// package hints). Off by default.
func WithHints(cfg hints.Config) Option {
	return func(c *config) error {
		if err := cfg.Validate(); err != nil {
			return err
		}
		c.hints = &cfg
		return nil
	}
}

// hintProjection makes a replay fetch every document it matches (no
// covered plan can return a field no index holds) and return only its _id.
var hintProjection = bson.D{{Key: "_decongestant_hint", Value: 1}}

// prepareHints sets up the hints module: its own direct pool per member
// (replays are never counted as routed reads), opened as the routed client
// discovers members, and the capture of routed finds.
func (r *Router) prepareHints(uri string, cfg *hints.Config, clientOpts []*options.ClientOptions) error {
	if cfg == nil {
		return nil
	}
	base := []*options.ClientOptions{options.Client().ApplyURI(uri)}
	for _, o := range clientOpts {
		c := *o
		c.Monitor = nil // the application's command monitor never sees a replay
		base = append(base, &c)
	}
	open := func(host string) (*mongo.Client, error) {
		return mongo.Connect(memberClientOptions(base, host)...)
	}
	r.hintPools = newMemberPools(open, func() {})
	m, err := hints.New(*cfg, hintReplayer{r.hintPools}, r.hintMembers, r.hintEvent)
	if err != nil {
		return err
	}
	r.hints = m
	onMember, onRemoved := r.served.onMember, r.served.onRemoved
	r.served.onMember = func(host string) {
		r.hintPools.ensure(host)
		if onMember != nil {
			onMember(host)
		}
	}
	r.served.onRemoved = func(host string) {
		r.hintPools.remove(host)
		if onRemoved != nil {
			onRemoved(host)
		}
	}
	r.served.capture = m.Capture
	return nil
}

func (r *Router) startHints() {
	if r.hints != nil {
		r.hints.Start()
	}
}

func (r *Router) closeHints(ctx context.Context) error {
	if r.hints == nil {
		return nil
	}
	r.hints.Close()
	return r.hintPools.closeAll(ctx)
}

// Hints returns the read hints' counters, and false when hints are off.
func (r *Router) Hints() (hints.Stats, bool) {
	if r.hints == nil {
		return hints.Stats{}, false
	}
	return r.hints.Stats(), true
}

// hintMembers are the members the routed client sees as primary or
// secondary, with their lag from the latest poll.
func (r *Router) hintMembers() []hints.Member {
	lag := r.mon.Last()
	var out []hints.Member
	for _, host := range r.served.members() {
		m := hints.Member{Host: host, Name: r.served.name(host), Primary: r.served.role(host) == balancer.Primary}
		for _, ml := range lag.Members {
			if ml.Host == host && lag.Known && ml.Role != 0 {
				m.Lag, m.LagKnown = ml.Lag, true
			}
		}
		out = append(out, m)
	}
	return out
}

// hintEvent reports a member's hints switched off or on.
func (r *Router) hintEvent(e hints.Event) {
	r.evMu.Lock()
	defer r.evMu.Unlock()
	r.logHints(e)
	if r.onEvent != nil {
		r.onEvent(Event{At: e.At, Kind: EventHints, Fraction: r.Fraction(), Previous: r.Fraction(), Hints: e})
	}
}

// hintReplayer replays over the hint pools.
type hintReplayer struct{ pools *memberPools }

func (h hintReplayer) Replay(ctx context.Context, host string, rp hints.Replay) error {
	t := h.pools.get(host)
	if t == nil {
		return fmt.Errorf("hints: no connection to %s", host)
	}
	coll := t.client.Database(rp.DB).Collection(rp.Coll)
	if rp.Pipeline != nil {
		// The captured pipeline is an array's bytes: as a bson.Raw the
		// driver would take it for one document and refuse it.
		cur, err := coll.Aggregate(ctx, bsoncore.Array(rp.Pipeline))
		if err != nil {
			return err
		}
		for cur.Next(ctx) {
		}
		return errors.Join(cur.Err(), cur.Close(ctx))
	}
	opts := options.Find().SetProjection(hintProjection)
	if rp.Limit > 0 {
		opts.SetLimit(rp.Limit)
	}
	if rp.Sort != nil {
		opts.SetSort(rp.Sort)
	}
	cur, err := coll.Find(ctx, rp.Filter, opts)
	if err != nil {
		return err
	}
	for cur.Next(ctx) {
	}
	return errors.Join(cur.Err(), cur.Close(ctx))
}
