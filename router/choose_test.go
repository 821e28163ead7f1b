package router

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/decongestant/decongestant/balancer"
)

// ruleTable is a table of the primary and secondaries s1, s2 under a
// per-read rule, with per-read times per (host "" the primary) and the
// primary's writes in flight counted in writes.
func ruleTable(ch balancer.Choice, per map[string]float64, writes *atomic.Int64) (*table, map[string]*target) {
	ts := map[string]*target{"": {}, "s1": {host: "s1"}, "s2": {host: "s2"}}
	w := balancer.Weights{Primary: 0.4, Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.3}, {Host: "s2", Weight: 0.3}}}
	tb := buildTable(w, ts[""], func(h string) *target { return ts[h] }, func(string) bool { return true }, false)
	return tb.withChoice(ch, func(h string) memberEstimate { return memberEstimate{per[h], true} }, writes), ts
}

// TestChooseLeastWait: the read goes to the member of least (in flight +
// 1) x per-read time, the primary's writes counted; the primary while its
// wait is under the floor; never the primary for a NoPrimary read; never
// a member the spec rules out.
func TestChooseLeastWait(t *testing.T) {
	ms := 0.001
	cases := []struct {
		name     string
		inflight map[string]int64
		writes   int64
		per      map[string]float64
		floor    float64
		ok       func(*target) bool
		noPrim   bool
		want     string
	}{
		{"fewest in flight at equal speed", map[string]int64{"": 5, "s1": 3, "s2": 4}, 0, map[string]float64{"": ms, "s1": ms, "s2": ms}, 0, nil, false, "s1"},
		{"the primary's writes count", map[string]int64{"": 1, "s1": 3, "s2": 4}, 5, map[string]float64{"": ms, "s1": ms, "s2": ms}, 0, nil, false, "s1"},
		{"without them the primary", map[string]int64{"": 1, "s1": 3, "s2": 4}, 0, map[string]float64{"": ms, "s1": ms, "s2": ms}, 0, nil, false, ""},
		{"a slow member takes fewer", map[string]int64{"": 6, "s1": 5, "s2": 1}, 0, map[string]float64{"": ms, "s1": ms, "s2": 5 * ms}, 0, nil, false, "s1"},
		{"a fast member takes more", map[string]int64{"": 6, "s1": 10, "s2": 6}, 0, map[string]float64{"": 2 * ms, "s1": ms / 2, "s2": 2 * ms}, 0, nil, false, "s1"},
		{"an unmeasured member is tried", map[string]int64{"": 2, "s1": 2, "s2": 1}, 0, map[string]float64{"": ms, "s1": ms, "s2": 0}, 0, nil, false, "s2"},
		{"under the floor, the primary", map[string]int64{"": 3, "s1": 0, "s2": 0}, 0, map[string]float64{"": ms, "s1": ms, "s2": ms}, 5 * ms, nil, false, ""},
		{"over the floor, elsewhere", map[string]int64{"": 3, "s1": 0, "s2": 1}, 2, map[string]float64{"": ms, "s1": ms, "s2": ms}, 5 * ms, nil, false, "s1"},
		{"the spec rules out the best", map[string]int64{"": 5, "s1": 0, "s2": 4}, 0, map[string]float64{"": ms, "s1": ms, "s2": ms}, 0, func(t *target) bool { return t.host != "s1" }, false, "s2"},
		{"NoPrimary", map[string]int64{"": 0, "s1": 7, "s2": 4}, 0, map[string]float64{"": ms, "s1": ms, "s2": ms}, 0, nil, true, "s2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var writes atomic.Int64
			writes.Store(tc.writes)
			tb, ts := ruleTable(balancer.Choice{Rule: balancer.LeastWait, Floor: tc.floor}, tc.per, &writes)
			for h, n := range tc.inflight {
				ts[h].inflight.Store(n)
			}
			for range 20 { // ties aside, the rule does not draw
				var got *target
				switch {
				case tc.noPrim:
					got = tb.pickSecondary(func(*target) bool { return true })
				case tc.ok != nil:
					got = tb.pickWhere(tc.ok)
				default:
					got = tb.pick()
				}
				if got != ts[tc.want] {
					t.Fatalf("read went to %q, want %q", got.host, tc.want)
				}
			}
		})
	}
}

// TestChooseProbes: a member that has had no read for ProbeEvery gets the
// next one whatever the rule says, once; then the rule decides again.
func TestChooseProbes(t *testing.T) {
	ms := 0.001
	tb, ts := ruleTable(balancer.Choice{Rule: balancer.LeastWait, ProbeEvery: time.Hour},
		map[string]float64{"": ms, "s1": ms, "s2": 50 * ms}, nil)
	now := time.Now().UnixNano()
	ts[""].last.Store(now)
	ts["s1"].last.Store(now)
	if got := tb.pick(); got != ts["s2"] {
		t.Fatalf("first read went to %q, want the unprobed s2", got.host)
	}
	for range 20 {
		if got := tb.pick(); got == ts["s2"] {
			t.Fatal("s2, 50x slower, got a read again within the probe interval")
		}
	}
	ts["s2"].last.Store(now - int64(2*time.Hour))
	if got := tb.pick(); got != ts["s2"] {
		t.Fatalf("read went to %q, want s2 probed after the interval", got.host)
	}
	// a primary its writes measure is not probed
	tb = tb.withChoice(tb.choice, func(h string) memberEstimate {
		return memberEstimate{map[string]float64{"": 50 * ms, "s1": ms, "s2": ms}[h], h != ""}
	}, nil)
	ts[""].last.Store(0)
	for range 20 {
		if got := tb.pick(); got == ts[""] {
			t.Fatal("the primary, 50x slower and measured by its writes, was probed")
		}
	}
}

// TestChooseTwoChoices: of the two members drawn, the one with fewer in
// flight; the member with most in flight never gets a read, and each of
// the others does.
func TestChooseTwoChoices(t *testing.T) {
	tb, ts := ruleTable(balancer.Choice{Rule: balancer.TwoChoices}, nil, nil)
	ts[""].inflight.Store(9)
	ts["s1"].inflight.Store(1)
	ts["s2"].inflight.Store(2)
	got := map[string]int{}
	for range 3000 {
		got[tb.pick().host]++
	}
	if got[""] != 0 || got["s1"] < 1800 || got["s2"] < 800 {
		t.Fatalf("reads %v: want none on the primary, s1 in 2 of 3 pairs, s2 in 1", got)
	}
}

// TestEstimatesReachTheTable: after a per-read policy's period, the table
// in force carries its rule and its per-read times, and the router's
// writes in flight.
func TestEstimatesReachTheTable(t *testing.T) {
	w := balancer.Weights{Primary: 0.5, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 0.5}}}
	r := offlinePerMember(t, w)
	pol, err := balancer.NewPerRead(balancer.LeastWait, balancer.DefaultPerReadConfig())
	if err != nil {
		t.Fatal(err)
	}
	r.policy, r.sel = pol, pol.Selection()
	pol.ObserveLag(balancer.Lag{Known: true, Members: []balancer.MemberLag{{Host: "p:0", Role: balancer.Primary}, {Host: "s1:1", Role: balancer.Secondary}}})
	pol.EndPeriod(balancer.Period{Length: time.Second, Members: []balancer.MemberStats{
		{Host: "p:0", Count: 100, Mean: 30 * time.Millisecond}, {Host: "s1:1", Count: 1000, Mean: 4 * time.Millisecond}}})
	r.setWeights()
	tb := r.tab.Load()
	if tb.choice.Rule != balancer.LeastWait || tb.writes != &r.served.writing {
		t.Fatalf("table rule %v, writes %p: want leastwait and the router's counter", tb.choice.Rule, tb.writes)
	}
	if tb.primaryEst.perRead != pol.Estimate("") || len(tb.secs) != 1 || tb.secs[0].est.perRead != pol.Estimate("s1:1") || tb.primaryEst.perRead == 0 {
		t.Fatalf("table per-read primary %v, secondaries %+v; want the policy's %v and %v", tb.primaryEst, tb.secs, pol.Estimate(""), pol.Estimate("s1:1"))
	}
	if !tb.primaryEst.probe || !tb.secs[0].est.probe {
		t.Fatal("no writes timed, yet a member is not probed")
	}
	pol.EndPeriod(balancer.Period{Length: time.Second, Writes: balancer.Stats{Count: 50, P50: 10 * time.Millisecond}})
	r.setWeights()
	if tb = r.tab.Load(); tb.primaryEst.probe || !tb.secs[0].est.probe {
		t.Fatalf("with writes timed: primary probed %v, secondary %v; want only the secondary", tb.primaryEst.probe, tb.secs[0].est.probe)
	}
}

// TestWritesInFlight: the command monitor counts the routed client's
// writes in flight until they end, failed or not, and counts no read.
func TestWritesInFlight(t *testing.T) {
	s := newServed(nil)
	mon := s.commandMonitor(nil)
	ctx := context.Background()
	start := func(name string) {
		mon.Started(ctx, &event.CommandStartedEvent{CommandName: name, ConnectionID: "p:0[-1]"})
	}
	start("insert")
	start("update")
	start("find")
	if n := s.writing.Load(); n != 2 {
		t.Fatalf("%d writes in flight, want 2", n)
	}
	mon.Succeeded(ctx, &event.CommandSucceededEvent{CommandFinishedEvent: event.CommandFinishedEvent{CommandName: "insert", ConnectionID: "p:0[-1]"}})
	mon.Failed(ctx, &event.CommandFailedEvent{CommandFinishedEvent: event.CommandFinishedEvent{CommandName: "update", ConnectionID: "p:0[-1]"}})
	if n := s.writing.Load(); n != 0 {
		t.Fatalf("%d writes in flight after both ended, want 0", n)
	}
	routed := (&Router{}).mark(ctx, balancer.Secondary)
	mon.Started(routed, &event.CommandStartedEvent{CommandName: "insert", ConnectionID: "s1:1[-1]"})
	if n := s.writing.Load(); n != 0 {
		t.Fatalf("a command on a routed read's context counted as a write (%d)", n)
	}
}
