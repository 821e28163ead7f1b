package router

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

// memberView is what decides whether a secondary may take a read with a
// ReadSpec: the latest lag poll, the optimes the members are known to have
// applied, and their tags. It is pure given its functions.
type memberView struct {
	lag     monitor.LagSample
	now     time.Time
	applied func(host string) bson.Timestamp
	tags    func(host string) map[string]string
}

// filter returns the test a secondary's target must pass for spec among
// the table's secondaries (with spec.NoPrimary, its spare ones too): not
// spec.Skip, fresh enough for MaxStaleness, past After, and matching the
// first of spec's tag sets that some such secondary matches, in the
// server-selection spec's order (none matching: no secondary qualifies).
func (v memberView) filter(spec ReadSpec, tb *table) func(*target) bool {
	base := func(t *target) bool {
		return (spec.Skip == nil || !spec.Skip(t.host)) && v.fresh(t.host, spec.MaxStaleness) && v.hasApplied(t.host, spec.After)
	}
	if spec.TagSets == nil {
		return base
	}
	for _, set := range spec.TagSets {
		match := func(t *target) bool { return base(t) && matches(v.tags(t.host), set) }
		for _, s := range tb.secs {
			if match(s.t) {
				return match
			}
		}
		if !spec.NoPrimary {
			continue
		}
		for _, t := range tb.spare {
			if match(t) {
				return match
			}
		}
	}
	return func(*target) bool { return false }
}

// fresh reports whether host's staleness is within bound now: its lag in
// the latest known poll plus the time since the poll was sent (a lag grows
// by at most the time passed). A bound of 0 restricts nothing.
func (v memberView) fresh(host string, bound time.Duration) bool {
	if bound <= 0 {
		return true
	}
	if !v.lag.Known {
		return false
	}
	for _, m := range v.lag.Members {
		if m.Host == host {
			return m.Role == balancer.Secondary && m.Lag+v.now.Sub(v.lag.At) <= bound
		}
	}
	return false
}

// hasApplied reports whether host is known to have applied ts (a zero ts
// restricts nothing).
func (v memberView) hasApplied(host string, ts bson.Timestamp) bool {
	return ts.IsZero() || !v.applied(host).Before(ts)
}

// matches reports whether a member's tags carry every tag of set.
func matches(tags map[string]string, set TagSet) bool {
	for k, want := range set {
		if got, ok := tags[k]; !ok || got != want {
			return false
		}
	}
	return true
}

// pickWhere draws a target as pick does, among the primary and the
// secondaries that pass ok: the others' shares are spread over those, the
// primary included, in proportion. With none passing, the primary.
func (tb *table) pickWhere(ok func(*target) bool) *target {
	if tb.choice.Rule != balancer.ByShare {
		return tb.choose(ok, true)
	}
	if t := tb.pickAmong(ok, tb.primaryShare); t != nil {
		return t
	}
	return tb.primary
}

// pickSecondary draws a secondary that passes ok, never the primary: by
// share among those with one, else evenly among the spare ones (readable,
// no share); nil when none passes.
func (tb *table) pickSecondary(ok func(*target) bool) *target {
	if tb.choice.Rule != balancer.ByShare {
		if t := tb.choose(ok, false); t != nil {
			return t
		}
	} else if t := tb.pickAmong(ok, 0); t != nil {
		return t
	}
	var elig []*target
	for _, t := range tb.spare {
		if ok(t) {
			elig = append(elig, t)
		}
	}
	if len(elig) == 0 {
		return nil
	}
	return elig[rand.IntN(len(elig))]
}

// pickAmong draws among the primary, with share primaryShare, and the
// secondaries that pass ok, by share; nil when none of them has a share.
func (tb *table) pickAmong(ok func(*target) bool, primaryShare float64) *target {
	var elig []slot
	sum := primaryShare
	for _, s := range tb.secs {
		if ok(s.t) {
			elig = append(elig, s)
			sum += s.weight
		}
	}
	if len(elig) == 0 || sum <= 0 {
		return nil
	}
	x := rand.Float64() * sum
	if x < primaryShare {
		return tb.primary
	}
	x -= primaryShare
	draw := func() *slot {
		for i := range elig {
			if x < elig[i].weight {
				return &elig[i]
			}
			x -= elig[i].weight
		}
		return &elig[len(elig)-1]
	}
	a := draw()
	if !tb.leastLoaded || len(elig) == 1 {
		return a.t
	}
	for i := range elig {
		elig[i].rel = elig[i].weight / (sum - primaryShare)
	}
	return lessLoaded(a, drawOther(elig, a))
}

// appliedTimes are the latest optimes the members are known to have
// applied, from lag polls and from their replies; they only move forward.
type appliedTimes struct{ m sync.Map } // host -> *atomic.Uint64 (T<<32 | I)

func pack(ts bson.Timestamp) uint64 { return uint64(ts.T)<<32 | uint64(ts.I) }

func (a *appliedTimes) advance(host string, ts bson.Timestamp) {
	if ts.IsZero() || host == "" {
		return
	}
	v, ok := a.m.Load(host)
	if !ok {
		v, _ = a.m.LoadOrStore(host, new(atomic.Uint64))
	}
	p, n := v.(*atomic.Uint64), pack(ts)
	for {
		cur := p.Load()
		if cur >= n || p.CompareAndSwap(cur, n) {
			return
		}
	}
}

func (a *appliedTimes) get(host string) bson.Timestamp {
	v, ok := a.m.Load(host)
	if !ok {
		return bson.Timestamp{}
	}
	n := v.(*atomic.Uint64).Load()
	return bson.Timestamp{T: uint32(n >> 32), I: uint32(n)}
}
