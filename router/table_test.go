package router

import (
	"math"
	"testing"

	"github.com/decongestant/decongestant/balancer"
)

func TestBuildTable(t *testing.T) {
	primary := &target{}
	pools := map[string]*target{"s1": {host: "s1"}, "s2": {host: "s2"}, "s3": {host: "s3"}}
	pool := func(h string) *target { return pools[h] }
	all := func(string) bool { return true }
	hw := func(h string, w float64) balancer.HostWeight { return balancer.HostWeight{Host: h, Weight: w} }
	tests := []struct {
		name     string
		w        balancer.Weights
		readable func(string) bool
		want     balancer.Weights
	}{
		{"primary only", balancer.PrimaryOnly(), all, balancer.PrimaryOnly()},
		{"split", balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{hw("s1", 0.4), hw("s2", 0.4)}}, all,
			balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{hw("s1", 0.4), hw("s2", 0.4)}}},
		{"an unreadable member's share is spread", balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{hw("s1", 0.4), hw("s2", 0.4)}},
			func(h string) bool { return h != "s2" }, balancer.Weights{Primary: 1. / 3, Secondaries: []balancer.HostWeight{hw("s1", 2./3)}}},
		{"a member without a pool gets nothing", balancer.Weights{Secondaries: []balancer.HostWeight{hw("s1", 0.5), hw("gone", 0.5)}}, all,
			balancer.Weights{Secondaries: []balancer.HostWeight{hw("s1", 1)}}},
		{"nothing routable: the primary", balancer.Weights{Secondaries: []balancer.HostWeight{hw("s1", 1)}}, func(string) bool { return false },
			balancer.PrimaryOnly()},
		{"zero shares are dropped", balancer.Weights{Primary: 0.5, Secondaries: []balancer.HostWeight{hw("s1", 0), hw("s3", 0.5)}}, all,
			balancer.Weights{Primary: 0.5, Secondaries: []balancer.HostWeight{hw("s3", 0.5)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := buildTable(tt.w, primary, pool, tt.readable, false)
			got := tb.weights
			if math.Abs(got.Primary-tt.want.Primary) > 1e-12 || len(got.Secondaries) != len(tt.want.Secondaries) {
				t.Fatalf("weights %v, want %v", got, tt.want)
			}
			for i, h := range tt.want.Secondaries {
				if got.Secondaries[i].Host != h.Host || math.Abs(got.Secondaries[i].Weight-h.Weight) > 1e-12 {
					t.Fatalf("weights %v, want %v", got, tt.want)
				}
			}
			if len(tb.secs) > 0 && tb.secs[len(tb.secs)-1].upTo != 1 {
				t.Fatalf("last cumulative share %v, want 1", tb.secs[len(tb.secs)-1].upTo)
			}
		})
	}
}

// drawShares picks n times and returns each target's share.
func drawShares(tb *table, n int) map[*target]float64 {
	got := map[*target]float64{}
	for range n {
		got[tb.pick()]++
	}
	for k := range got {
		got[k] /= float64(n)
	}
	return got
}

func TestTablePickHonoursShares(t *testing.T) {
	primary, s1, s2 := &target{}, &target{host: "s1"}, &target{host: "s2"}
	pools := map[string]*target{"s1": s1, "s2": s2}
	w := balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.2}, {Host: "s2", Weight: 0.6}}}
	tb := buildTable(w, primary, func(h string) *target { return pools[h] }, func(string) bool { return true }, false)
	const n = 200000
	got := drawShares(tb, n)
	for tg, want := range map[*target]float64{primary: 0.2, s1: 0.2, s2: 0.6} {
		if tol := 5 * math.Sqrt(want*(1-want)/n); math.Abs(got[tg]-want) > tol {
			t.Errorf("%q drawn %.4f, want %.2f±%.4f", tg.host, got[tg], want, tol)
		}
	}
}

func TestTablePickLeastLoaded(t *testing.T) {
	primary, s1, s2 := &target{}, &target{host: "s1"}, &target{host: "s2"}
	pools := map[string]*target{"s1": s1, "s2": s2}
	w := balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.4}, {Host: "s2", Weight: 0.4}}}
	tb := buildTable(w, primary, func(h string) *target { return pools[h] }, func(string) bool { return true }, true)
	// s1 stalls with 10 reads in flight: the two choices are always s1 and
	// s2, so every secondary read goes to s2, and the primary keeps its share.
	s1.inflight.Store(10)
	const n = 200000
	got := drawShares(tb, n)
	if math.Abs(got[primary]-0.2) > 0.01 {
		t.Errorf("primary drawn %.3f, want its share 0.2 whatever the secondaries' load", got[primary])
	}
	if got[s1] != 0 {
		t.Errorf("stalled s1 drawn %.3f, want 0: the second choice must differ from the first", got[s1])
	}
	// Idle members tie: the first draw wins, so the shares hold.
	w.Secondaries[1].Weight, w.Primary = 0.6, 0
	tb = buildTable(w, primary, func(h string) *target { return pools[h] }, func(string) bool { return true }, true)
	s1.inflight.Store(0)
	got = drawShares(tb, n)
	if math.Abs(got[s1]-0.4) > 0.01 {
		t.Errorf("s1 drawn %.3f with both idle, want its share 0.4", got[s1])
	}
}

// TestTablePickTwoDifferent: with three secondaries the second choice is
// drawn by share among the other two, so a loaded member loses every pair
// it is in, and the idle ones split its share by theirs.
func TestTablePickTwoDifferent(t *testing.T) {
	s1, s2, s3 := &target{host: "s1"}, &target{host: "s2"}, &target{host: "s3"}
	pools := map[string]*target{"s1": s1, "s2": s2, "s3": s3}
	w := balancer.Weights{Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.5}, {Host: "s2", Weight: 0.2}, {Host: "s3", Weight: 0.3}}}
	tb := buildTable(w, &target{}, func(h string) *target { return pools[h] }, func(string) bool { return true }, true)
	s1.inflight.Store(3)
	const n = 200000
	got := drawShares(tb, n)
	// s2 is first with 0.2, or second after s1 (0.5 x 0.2/0.5); s3 likewise.
	for tg, want := range map[*target]float64{s1: 0, s2: 0.2 + 0.5*0.4, s3: 0.3 + 0.5*0.6} {
		if tol := 5*math.Sqrt(want*(1-want)/n) + 1e-9; math.Abs(got[tg]-want) > tol {
			t.Errorf("%q drawn %.4f, want %.2f±%.4f", tg.host, got[tg], want, tol)
		}
	}
}

// TestTablePickProbedMemberWaitsItsTurn: a secondary on a probe share gets
// reads by its share, not whenever it is idle: with the read added it would
// be far more loaded per unit of share than a busy member with a large one.
func TestTablePickProbedMemberWaitsItsTurn(t *testing.T) {
	s1, s2 := &target{host: "s1"}, &target{host: "s2"}
	pools := map[string]*target{"s1": s1, "s2": s2}
	w := balancer.Weights{Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.999}, {Host: "s2", Weight: 0.001}}}
	tb := buildTable(w, &target{}, func(h string) *target { return pools[h] }, func(string) bool { return true }, true)
	s1.inflight.Store(40) // s1 busy, s2 (probed) idle
	const n = 200000
	if got := drawShares(tb, n)[s2]; got > 0.002 {
		t.Errorf("probed s2 drawn %.4f while idle, want about its share 0.001", got)
	}
	// Equal shares: the one with fewer in flight, even by one.
	w = balancer.Weights{Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.5}, {Host: "s2", Weight: 0.5}}}
	tb = buildTable(w, &target{}, func(h string) *target { return pools[h] }, func(string) bool { return true }, true)
	s1.inflight.Store(3)
	s2.inflight.Store(2)
	if got := drawShares(tb, n)[s2]; got != 1 {
		t.Errorf("s2 with 2 in flight against s1's 3 drawn %.4f, want 1", got)
	}
}
