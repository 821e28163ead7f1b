package router

import (
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/decongestant/decongestant/balancer"
)

// table is an immutable per-member routing: the primary's share and the
// secondaries' with cumulative shares. The router swaps in a new one
// whenever the weights, the pools or the members' roles change; reads pick
// from the one in force without a lock.
type table struct {
	primaryShare float64
	primary      *target
	secs         []slot // cumulative over the secondaries' part, last upTo 1
	// leastLoaded: of two different secondaries drawn by share, a read goes
	// to the less loaded per unit of share (see lessLoaded).
	leastLoaded bool
	weights     balancer.Weights // as applied: the shares that could be routed
	// spare are the readable secondaries without a share, for reads that
	// must not go to the primary (ReadSpec.NoPrimary).
	spare []*target
	// choice, when its Rule is not ByShare, picks each read among the
	// primary and the secondaries with a share instead of a draw by
	// share (see choose); primaryEst is the primary's estimate and writes
	// the router's writes in flight there (nil: none counted).
	choice     balancer.Choice
	primaryEst memberEstimate
	writes     *atomic.Int64
}

// memberEstimate is what a per-read rule knows of a member from the
// policy (balancer.Estimator): its per-read time (s, 0 unknown) and
// whether it needs probe reads to stay measured.
type memberEstimate struct {
	perRead float64
	probe   bool
}

// withChoice sets tb's per-read rule, the members' estimates (est, host
// "" the primary; nil: none known, every member probed) and the primary's
// writes in flight. It returns tb.
func (tb *table) withChoice(ch balancer.Choice, est func(host string) memberEstimate, writes *atomic.Int64) *table {
	tb.choice, tb.writes = ch, writes
	if est == nil {
		est = func(string) memberEstimate { return memberEstimate{probe: true} }
	}
	tb.primaryEst = est("")
	for i := range tb.secs {
		tb.secs[i].est = est(tb.secs[i].t.host)
	}
	return tb
}

// withSpare sets tb's spare secondaries: those of hosts that are readable,
// have a pool and no share in tb. It returns tb.
func (tb *table) withSpare(hosts []string, pool func(host string) *target, readable func(host string) bool) *table {
	for _, h := range hosts {
		t := pool(h)
		if t == nil || !readable(h) || tb.has(t) {
			continue
		}
		tb.spare = append(tb.spare, t)
	}
	return tb
}

// has reports whether t is one of tb's secondaries with a share.
func (tb *table) has(t *target) bool {
	for _, s := range tb.secs {
		if s.t == t {
			return true
		}
	}
	return false
}

type slot struct {
	upTo   float64        // cumulative share within the secondaries
	weight float64        // the secondary's share of all reads
	rel    float64        // its share within the secondaries drawn from (upTo less the previous)
	est    memberEstimate // for a per-read rule
	t      *target
}

// buildTable applies weights to the members that can take reads now: a
// secondary's share is routed only when its pool is open and the routed
// client sees it as a primary or a secondary; unroutable shares are spread
// over the rest in proportion, and with no share left every read goes to
// the primary. It is pure: pool and readable are the router's view.
func buildTable(w balancer.Weights, primary *target, pool func(host string) *target, readable func(host string) bool, leastLoaded bool) *table {
	applied := balancer.Weights{Primary: w.Primary}
	var secs []*target
	for _, hw := range w.Secondaries {
		if hw.Weight <= 0 || !readable(hw.Host) {
			continue
		}
		t := pool(hw.Host)
		if t == nil {
			continue
		}
		applied.Secondaries = append(applied.Secondaries, hw)
		secs = append(secs, t)
	}
	sum := applied.Primary + applied.Secondary()
	if sum <= 0 || len(secs) == 0 {
		return &table{primaryShare: 1, primary: primary, weights: balancer.PrimaryOnly()}
	}
	tb := &table{primary: primary, leastLoaded: leastLoaded}
	applied.Primary /= sum
	tb.primaryShare = applied.Primary
	secSum := applied.Secondary() / sum
	acc := 0.0
	for i := range applied.Secondaries {
		applied.Secondaries[i].Weight /= sum
		rel := applied.Secondaries[i].Weight / secSum
		acc += rel
		tb.secs = append(tb.secs, slot{upTo: acc, weight: applied.Secondaries[i].Weight, rel: rel, t: secs[i]})
	}
	tb.secs[len(tb.secs)-1].upTo = 1
	tb.weights = applied
	return tb
}

// pick draws a target with the table's shares, or picks it by the table's
// per-read rule.
func (tb *table) pick() *target {
	if tb.choice.Rule != balancer.ByShare && len(tb.secs) > 0 {
		return tb.choose(nil, tb.primaryShare > 0)
	}
	if len(tb.secs) == 0 || (tb.primaryShare > 0 && rand.Float64() < tb.primaryShare) {
		return tb.primary
	}
	a := tb.draw()
	if !tb.leastLoaded || len(tb.secs) == 1 {
		return a.t
	}
	return lessLoaded(a, drawOther(tb.secs, a))
}

// lessLoaded returns a's target unless b's, with this read added, would
// have no more reads in flight per unit of share than a's has now. Between
// equal shares that is the one with fewer in flight (a tie keeps a, the
// first draw, so idle members keep their shares); a member on a probe share
// (a stalled one, say) does not take a read just for being idle, as it
// would if only the reads already in flight were compared.
func lessLoaded(a, b *slot) *target {
	if float64(b.t.inflight.Load()+1)*a.weight <= float64(a.t.inflight.Load())*b.weight {
		return b.t
	}
	return a.t
}

// drawOther draws a slot of secs (at least two, rel summing to 1) other
// than a, by share: the second of two different choices. Drawn with
// replacement, two secondaries would be the same one half the time and
// offer no choice; the driver's own selection draws two different servers.
func drawOther(secs []slot, a *slot) *slot {
	x := rand.Float64() * (1 - a.rel)
	var last *slot
	for i := range secs {
		s := &secs[i]
		if s == a {
			continue
		}
		if x < s.rel {
			return s
		}
		x -= s.rel
		last = s
	}
	return last
}

// draw draws a secondary by share.
func (tb *table) draw() *slot {
	x := rand.Float64()
	for i := range tb.secs {
		if x < tb.secs[i].upTo {
			return &tb.secs[i]
		}
	}
	return &tb.secs[len(tb.secs)-1]
}

// maxChoices is how many members a per-read rule weighs (the primary
// first); a larger set's other secondaries get no reads from the rule.
const maxChoices = 16

// choose picks by tb's per-read rule among the primary (withPrimary) and
// the secondaries with a share that pass ok (nil: all); nil when there is
// none. A member that has gone ProbeEvery without a read gets this one,
// so its estimate follows it (unless the policy measures it otherwise: a
// primary by its writes); otherwise the rule decides from the
// operations in flight (the primary's writes counted) and the estimates.
// It does not allocate.
func (tb *table) choose(ok func(*target) bool, withPrimary bool) *target {
	var ts [maxChoices]*target
	var cs [maxChoices]balancer.Candidate
	var probe [maxChoices]bool
	n := 0
	if withPrimary {
		ts[0], cs[0], probe[0] = tb.primary, balancer.Candidate{InFlight: tb.primary.inflight.Load(), PerRead: tb.primaryEst.perRead}, tb.primaryEst.probe
		if tb.writes != nil {
			cs[0].InFlight += tb.writes.Load()
		}
		n++
	}
	for i := range tb.secs {
		if n == maxChoices {
			break
		}
		s := &tb.secs[i]
		if ok != nil && !ok(s.t) {
			continue
		}
		ts[n], cs[n], probe[n] = s.t, balancer.Candidate{InFlight: s.t.inflight.Load(), PerRead: s.est.perRead}, s.est.probe
		n++
	}
	if n == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	if every := int64(tb.choice.ProbeEvery); every > 0 {
		for i, t := range ts[:n] {
			if last := t.last.Load(); probe[i] && now-last >= every && t.last.CompareAndSwap(last, now) {
				return t
			}
		}
	}
	t := ts[tb.choice.Choose(cs[:n], withPrimary, rand.Uint64())]
	t.last.Store(now)
	return t
}
