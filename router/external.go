package router

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

// The second front door: a caller that sends the reads itself (the wire
// protocol proxy, which forwards the application's own messages) asks the
// router where each read goes (Route) and reports how it went (Done), so the
// same policy, lag polls, per-member table, Stats and metrics decide and
// count its reads as the library's own.

// WithExternalReads makes a router that routes reads its caller sends
// itself: Route picks the member and Routed.Done reports the read. It needs
// a per-member policy (leastwait, spillway, weights:). The router opens
// no per-member pools (Begin and Database then send every read to the
// primary); it still connects its own client, to follow the members' roles,
// and its monitor, for RTT and lag.
func WithExternalReads() Option {
	return func(c *config) error { c.external = true; return nil }
}

// ReadSpec restricts where one read may go; the zero ReadSpec restricts
// nothing beyond the policy.
type ReadSpec struct {
	// MaxStaleness tightens the policy's staleness bound for this read (a
	// read preference's maxStalenessSeconds): a secondary qualifies only
	// when its lag in the latest known lag poll plus the time since that
	// poll was sent is within it. Zero: the policy's bound alone.
	MaxStaleness time.Duration
	// TagSets are a read preference's tag sets in order of preference: the
	// read may go only to the secondaries matching the first set that some
	// secondary with a share matches (an empty set matches every member),
	// else to the primary. Nil: no restriction.
	TagSets []TagSet
	// After is an operation time the serving member must have applied: the
	// operationTime of the connection's or session's latest acknowledged
	// write (read-your-writes). A secondary qualifies only when the router
	// has seen it apply After or later: in a lag poll, or in a reply
	// reported with ObserveApplied. Zero: no such restriction.
	After bson.Timestamp
	// NoPrimary keeps the read off the primary (read preference
	// secondary, or primaryPreferred without a primary): Route picks among
	// the secondaries that meet the rest of the spec, by their shares, or
	// evenly among the readable ones when none has a share (a policy
	// keeping every read on the primary), and answers ErrNoSecondary when
	// none qualifies.
	NoPrimary bool
	// Skip, when set, names members the read must not go to: those the
	// caller's own view shows down, or the one a first attempt failed on
	// when the caller retries elsewhere. Nil: none.
	Skip func(host string) bool
}

// TagSet is one tag set of a read preference: a member matches it when it
// carries every name with that value.
type TagSet map[string]string

// Routed is where Route sent one read. Call Done exactly once.
type Routed struct {
	r *Router
	t *target
	// Host is the member to send the read to; "" means the primary.
	Host string
	// Held is true when the read went to the primary although the policy
	// had shares on secondaries, because no secondary with a share met the
	// ReadSpec (with After set: a read-your-writes fallback).
	Held bool
}

// Side is where the read goes: the primary, or one secondary (Host).
func (rt Routed) Side() balancer.Side {
	if rt.Host == "" {
		return balancer.Primary
	}
	return balancer.Secondary
}

// ErrNoSecondary: a read with ReadSpec.NoPrimary found no secondary that
// meets its spec.
var ErrNoSecondary = errors.New("router: no eligible secondary")

// errExternal: Route on a router without WithExternalReads.
var errExternal = errors.New("router: Route needs a router made WithExternalReads")

// Route picks the member for one read the caller sends itself, by the
// per-member shares in force restricted to the members spec allows (their
// shares spread over the rest, the primary included, in proportion, as for
// a member that cannot take reads). A Routed with Host "" goes to the
// primary. With spec.NoPrimary the primary is never chosen: no secondary
// meeting spec is ErrNoSecondary.
func (r *Router) Route(spec ReadSpec) (Routed, error) {
	if !r.external {
		return Routed{}, errExternal
	}
	tb := r.tab.Load()
	var t *target
	held := false
	if spec.NoPrimary {
		if t = tb.pickSecondary(r.view().filter(spec, tb)); t == nil {
			return Routed{}, ErrNoSecondary
		}
	} else if spec.constrains() && len(tb.secs) > 0 {
		t = tb.pickWhere(r.view().filter(spec, tb))
		held = t == tb.primary
	} else {
		t = tb.pick()
	}
	t.inflight.Add(1)
	if held && !spec.After.IsZero() {
		r.ryw.held.Add(1)
	}
	if !spec.After.IsZero() {
		r.ryw.reads.Add(1)
	}
	return Routed{r: r, t: t, Host: t.host, Held: held}, nil
}

// Done reports the read: the member that served it (its address as the
// router names members, e.g. "127.0.0.1:27017"; for a primary read the
// caller's own view of the primary; "" when it reached none), the time from
// sending it to the reply, and its error. A read sent elsewhere than Host
// (the caller saw no secondary there: an election) counts as the
// primary's. Reads the caller gave up on (context.Canceled) are not
// counted as the server's speed.
func (rt Routed) Done(servedBy string, d time.Duration, err error) {
	rt.t.inflight.Add(-1)
	if servedBy == "" || err != nil && errors.Is(err, context.Canceled) {
		return
	}
	s := balancer.Primary
	if rt.Host != "" && servedBy == rt.Host {
		s = balancer.Secondary // not diverted to the primary
	}
	rt.r.lat[s].client.Record(d)
	rt.r.lat[s].command.Record(d)
	if servedBy != "" {
		h := rt.r.served.count(servedBy)
		h.client.Record(d)
		h.wire.Record(d)
	}
}

// WriteStarted counts a write the caller sends to the primary as in flight
// there until WriteEnded: a per-read rule (leastwait, p2c, prequal) weighs
// the primary's writes in flight with its reads, as for the router's own
// client's writes.
func (r *Router) WriteStarted() { r.served.writing.Add(1) }

// WriteEnded ends a write counted by WriteStarted.
func (r *Router) WriteEnded() { r.served.writing.Add(-1) }

// ObserveWrite reports a write the caller sent to the primary and the time
// it took there; per-member policies weigh the primary's write load with its
// reads, as for the writes of the router's own client.
func (r *Router) ObserveWrite(d time.Duration) { r.served.writes.Record(d) }

// ObserveApplied reports that host has applied every write up to ts: a
// reply it sent carried operationTime ts. Read-your-writes routing
// (ReadSpec.After) trusts the later of this and the latest lag poll.
func (r *Router) ObserveApplied(host string, ts bson.Timestamp) { r.applied.advance(host, ts) }

// ReadYourWrites counts the reads routed with an operation time to wait
// for (ReadSpec.After, or a causally consistent session's), and how many of
// them went to the primary because no secondary with a share had applied
// it yet.
type ReadYourWrites struct {
	Reads, Held int64
}

// ReadYourWrites returns the read-your-writes counters since Connect.
func (r *Router) ReadYourWrites() ReadYourWrites {
	return ReadYourWrites{Reads: r.ryw.reads.Load(), Held: r.ryw.held.Load()}
}

func (spec ReadSpec) constrains() bool {
	return spec.MaxStaleness > 0 || spec.TagSets != nil || !spec.After.IsZero() || spec.Skip != nil
}

// view is the router's current view of the members for constrained reads.
func (r *Router) view() memberView {
	var lag monitor.LagSample
	if p := r.lagNow.Load(); p != nil {
		lag = *p
	}
	return memberView{lag: lag, now: time.Now(), applied: r.applied.get, tags: r.served.tagsOf}
}
