package router

import (
	"math/rand/v2"

	"github.com/decongestant/decongestant/balancer"
)

// table is an immutable per-member routing: targets with cumulative
// shares. The router swaps in a new one whenever the weights, the pools or
// the members' roles change; reads pick from the one in force without a
// lock.
type table struct {
	slots   []slot
	weights balancer.Weights // as applied: the shares that could be routed
}

type slot struct {
	upTo float64 // cumulative share
	t    *target
}

// buildTable applies weights to the members that can take reads now: a
// secondary's share is routed only when its pool is open and the routed
// client sees it as a primary or a secondary; unroutable shares are spread
// over the rest in proportion, and with no share left every read goes to
// the primary. It is pure: pool and readable are the router's view.
func buildTable(w balancer.Weights, primary *target, pool func(host string) *target, readable func(host string) bool) *table {
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
	if sum <= 0 {
		return &table{slots: []slot{{upTo: 1, t: primary}}, weights: balancer.PrimaryOnly()}
	}
	tb := &table{}
	acc := 0.0
	if applied.Primary > 0 {
		applied.Primary /= sum
		acc = applied.Primary
		tb.slots = append(tb.slots, slot{upTo: acc, t: primary})
	}
	for i := range applied.Secondaries {
		applied.Secondaries[i].Weight /= sum
		acc += applied.Secondaries[i].Weight
		tb.slots = append(tb.slots, slot{upTo: acc, t: secs[i]})
	}
	tb.slots[len(tb.slots)-1].upTo = 1
	tb.weights = applied
	return tb
}

// pick draws a target with the table's shares.
func (tb *table) pick() *target {
	if len(tb.slots) == 1 {
		return tb.slots[0].t
	}
	x := rand.Float64()
	for _, s := range tb.slots {
		if x < s.upTo {
			return s.t
		}
	}
	return tb.slots[len(tb.slots)-1].t
}
