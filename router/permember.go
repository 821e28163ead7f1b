package router

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
)

// preparePools sets up per-member routing for a Weighted policy: the
// primary's target, the pools opened as the routed client discovers members,
// and a first table that sends every read to the primary.
func (r *Router) preparePools(uri string, clientOpts []*options.ClientOptions) {
	if r.sel.Mode != balancer.PerMember {
		return
	}
	r.primaryT = &target{}
	r.tab.Store(&table{primaryShare: 1, primary: r.primaryT, weights: balancer.PrimaryOnly()})
	open := func(host string) (*mongo.Client, error) {
		if r.external {
			return nil, nil // the caller sends the reads
		}
		co, userCmd, _ := withUserMonitors(uri, clientOpts)
		co = append(memberClientOptions(co, host), options.Client().SetMonitor(r.served.commandMonitor(userCmd)))
		return mongo.Connect(co...)
	}
	r.pools = newMemberPools(open, r.rebuild)
	r.served.onMember = r.pools.ensure
	r.served.onRemoved = r.pools.remove
}

func (r *Router) closePools(ctx context.Context) error {
	if r.pools == nil {
		return nil
	}
	return r.pools.closeAll(ctx)
}

// setWeights stores a Weighted policy's weights and rebuilds the table;
// called with r.mu held after every policy call.
func (r *Router) setWeights() {
	wp, ok := r.policy.(balancer.Weighted)
	if !ok {
		return
	}
	w := wp.Weights()
	r.weights.Store(&w)
	if ep, ok := r.policy.(balancer.Estimator); ok {
		est := map[string]memberEstimate{"": {ep.Estimate(""), ep.NeedsProbe("")}}
		for _, hw := range w.Secondaries {
			est[hw.Host] = memberEstimate{ep.Estimate(hw.Host), ep.NeedsProbe(hw.Host)}
		}
		r.estimates.Store(&est)
	}
	r.rebuild()
}

// rebuild swaps in a table for the latest weights and the members as the
// routed client sees them now: a member it does not see as primary or
// secondary, or saw turn secondary after the latest lag poll was sent, gets
// no reads until a poll vouches for it again.
func (r *Router) rebuild() {
	if r.pools == nil {
		return
	}
	r.tabMu.Lock()
	defer r.tabMu.Unlock()
	w := balancer.PrimaryOnly()
	if p := r.weights.Load(); p != nil {
		w = *p
	}
	poll := time.Unix(0, r.pollAt.Load())
	readable := func(host string) bool {
		return r.served.role(host) != 0 && !r.served.turnedAfter(host, poll)
	}
	var est func(host string) memberEstimate
	if p := r.estimates.Load(); p != nil {
		m := *p
		est = func(host string) memberEstimate { return m[host] }
	}
	r.tab.Store(buildTable(w, r.primaryT, r.pools.get, readable, r.sel.LeastLoaded).
		withSpare(r.served.selectable(), r.pools.get, readable).
		withChoice(r.sel.Choice, est, &r.served.writing))
}

// Weights returns the per-member shares in force as routed, and false for
// policies that do not route per member.
func (r *Router) Weights() (balancer.Weights, bool) {
	if r.pools == nil {
		return balancer.Weights{}, false
	}
	return r.tab.Load().weights, true
}

func (r *Router) appliedWeights() balancer.Weights {
	w, _ := r.Weights()
	return w
}

// SecondaryCollection returns collection coll of database db on a secondary
// drawn by the shares in force, on its own pool, and its host; ok is false
// for policies that do not route per member and when no secondary has a
// share. The S probe reads with it where the policy would send a read.
func (r *Router) SecondaryCollection(db, coll string) (*mongo.Collection, string, bool) {
	if r.pools == nil {
		return nil, "", false
	}
	tb := r.tab.Load()
	if len(tb.secs) == 0 || r.external {
		return nil, "", false
	}
	t := tb.draw().t
	return t.client.Database(db).Collection(coll), t.host, true
}

// Reweight replaces a "weights:" policy's split at run time (arg as after
// "weights:", e.g. "n2=1"), so an experiment can move reads between
// members; other policies refuse.
func (r *Router) Reweight(arg string) error {
	sw, ok := r.policy.(*balancer.StaticWeights)
	if !ok {
		return fmt.Errorf("router: %s cannot be reweighted (only weights: policies)", r.policy.Name())
	}
	r.mu.Lock()
	if err := sw.Reset(arg); err != nil {
		r.mu.Unlock()
		return fmt.Errorf("router: %w", err)
	}
	r.storeFraction(sw.Fraction())
	r.setWeights()
	w := r.appliedWeights()
	r.obs.rebase(w)
	r.mu.Unlock()
	r.logReweight(arg, w)
	return nil
}
