package router

import (
	"context"
	"errors"
	"maps"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

const ms = time.Millisecond

// serve records one routed read answered by host: its command on the
// wire, then the unit's client time, as the command monitor and Done do.
func serve(r *Router, side balancer.Side, host string, wire, client time.Duration) {
	rc := r.mark(context.Background(), side)
	r.served.finished(rc, "find", host+"[-1]", wire)
	r.record(side, rc, client, nil)
}

// near reports whether got is within the histograms' 3% of want.
func near(got, want time.Duration) bool {
	return math.Abs(float64(got-want)) <= 0.035*float64(want)
}

func poll(members ...monitor.MemberLag) monitor.LagSample {
	s := monitor.LagSample{At: time.Now(), Source: monitor.SourceHello, Known: true, Horizon: 250 * ms, Members: members}
	for _, m := range members {
		s.Max = max(s.Max, m.Lag)
	}
	return s
}

func primaryLag(host string) monitor.MemberLag {
	return monitor.MemberLag{Host: host, State: "PRIMARY", Role: balancer.Primary}
}

func secondaryLag(host string, lag time.Duration) monitor.MemberLag {
	return monitor.MemberLag{Host: host, State: "SECONDARY", Role: balancer.Secondary, Lag: lag}
}

// splitRouter is an offline Decongestant router over a primary p:1 and a
// secondary s:2, with the period's pings in rtt.
func splitRouter(t *testing.T) (*Router, *fakeRTT) {
	t.Helper()
	pol, err := balancer.NewDecongestant(balancer.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r := offlineRouter(pol.Fraction(), balancer.Split)
	r.policy = pol
	rtt := &fakeRTT{roles: map[string]balancer.Side{"p:1": balancer.Primary, "s:2": balancer.Secondary}}
	r.rtts = rtt
	r.served.roles["p:1"], r.served.roles["s:2"] = balancer.Primary, balancer.Secondary
	for i := range r.lat {
		r.lastSnap[i] = r.lat[i].snapshot()
	}
	return r, rtt
}

// TestStatsSplit follows a split policy through two periods and four lag
// polls: cumulative reads per member, the latest period's latencies and
// pings, the decisions by reason, the lag per member and what the bound did.
func TestStatsSplit(t *testing.T) {
	r, rtt := splitRouter(t)
	var decisions []balancer.Decision
	r.onEvent = func(e Event) {
		if e.Kind == EventPeriod {
			decisions = append(decisions, e.Decision)
		}
	}
	st := r.Stats()
	if st.Policy != "decongestant" || st.Mode != balancer.Split || st.PerMember || st.Fraction != 0.1 {
		t.Fatalf("stats before anything: %+v", st)
	}
	if st.Decision.Reason != "" || !math.IsNaN(st.Decision.Ratio) || !st.PeriodEnd.IsZero() || len(st.Members) != 0 || st.HintsOn {
		t.Fatalf("stats before the first period: decision %+v, period end %v, members %v", st.Decision, st.PeriodEnd, st.Members)
	}

	// Period 1: a congested primary (wire 9 ms) and a fast secondary.
	rtt.samples = map[string][]time.Duration{"p:1": {3 * ms, ms}, "s:2": {2 * ms, ms / 2}}
	for range 20 {
		serve(r, balancer.Primary, "p:1", 9*ms, 30*ms)
		serve(r, balancer.Secondary, "s:2", 3*ms, 4*ms)
	}
	t1 := time.Now()
	r.endPeriod(t1)
	// Period 2: only 4 primary reads, slower; one ping of the primary.
	rtt.samples = map[string][]time.Duration{"p:1": {4 * ms}}
	for range 4 {
		serve(r, balancer.Primary, "p:1", 20*ms, 40*ms)
	}
	t2 := t1.Add(10 * time.Second)
	r.endPeriod(t2)

	st = r.Stats()
	if len(decisions) != 2 || decisions[0].Reason != "primary-congested" {
		t.Fatalf("decisions %+v, want primary-congested first", decisions)
	}
	want := map[string]int64{}
	for _, d := range decisions {
		want[d.Reason]++
	}
	if !maps.Equal(st.Decisions, want) || st.Decision.Reason != decisions[1].Reason {
		t.Fatalf("decisions %v latest %+v, want %v and %+v", st.Decisions, st.Decision, want, decisions[1])
	}
	if !st.PeriodEnd.Equal(t2) || st.PeriodLength != 10*time.Second {
		t.Fatalf("period end %v length %v, want %v and 10s", st.PeriodEnd, st.PeriodLength, t2)
	}
	if st.Served.Primary != 24 || st.Served.Secondary != 20 || st.Served.ByHost["p:1"] != 24 {
		t.Fatalf("served %+v, want 24 primary and 20 secondary", st.Served)
	}
	if len(st.Members) != 2 {
		t.Fatalf("members %+v, want p:1 and s:2", st.Members)
	}
	p, s := st.Members[0], st.Members[1]
	if p.Host != "p:1" || p.Role != balancer.Primary || p.Served != 24 || s.Host != "s:2" || s.Served != 20 {
		t.Fatalf("members %+v", st.Members)
	}
	// The latest period only: the primary's 4 slower reads, no secondary
	// read, one ping of the primary.
	if p.Wire.PeriodCount != 4 || !near(p.Wire.P50, 20*ms) || !near(p.Wire.P80, 20*ms) || !near(p.Client.P50, 40*ms) || p.MinRTT != 4*ms {
		t.Fatalf("primary's latest period: %+v", p)
	}
	if s.Wire.PeriodCount != 0 || s.Client.P50 != 0 || s.MinRTT != 0 {
		t.Fatalf("secondary's latest period: %+v, want nothing", s)
	}
	// Since Connect: 20 x 9 + 4 x 20 ms on the wire, 20 x 30 + 4 x 40 ms
	// client observed.
	if p.Wire.Count != 24 || p.Wire.Sum != 260*ms || p.Client.Count != 24 || p.Client.Sum != 760*ms || s.Client.Sum != 80*ms {
		t.Fatalf("totals: primary wire %+v client %+v, secondary client %+v", p.Wire, p.Client, s.Client)
	}
	if p.Weight != 0 || s.Weight != 0 {
		t.Fatalf("weights %v %v for a split policy, want 0", p.Weight, s.Weight)
	}

	// Lag polls: known, unknown (the bound forces 0), unknown again (no
	// new event), known (restored).
	frac := r.Fraction()
	known := poll(primaryLag("p:1"), secondaryLag("s:2", 40*ms))
	unknown := monitor.LagSample{At: time.Now(), Source: monitor.SourceHello, Err: errors.New("poll timed out")}
	for _, s := range []monitor.LagSample{known, unknown, unknown, known} {
		r.observeLag(s)
	}
	st = r.Stats()
	if st.Bound.LagUnknown != 1 || st.Bound.ForcedZero != 1 || st.Bound.Restored != 1 || len(st.Bound.Excluded) != 0 {
		t.Fatalf("bound %+v, want the lag unknown once, forced to 0 once and restored once", st.Bound)
	}
	if st.Fraction != frac || !st.Lag.Known || st.Lag.Max != 40*ms {
		t.Fatalf("fraction %v lag %+v, want %v restored and the last poll", st.Fraction, st.Lag, frac)
	}
	p, s = st.Members[0], st.Members[1]
	if !p.LagKnown || p.Lag != 0 || !s.LagKnown || s.Lag != 40*ms {
		t.Fatalf("member lag: primary %v %v, secondary %v %v", p.Lag, p.LagKnown, s.Lag, s.LagKnown)
	}
	r.observeLag(unknown)
	if st = r.Stats(); st.Members[1].LagKnown || st.Lag.Known || st.Fraction != 0 || st.Bound.ForcedZero != 2 {
		t.Fatalf("after an unknown poll: %+v fraction %v bound %+v", st.Members[1], st.Fraction, st.Bound)
	}
}

// TestStatsPerMember: the shares per member and the members a lag poll
// excluded and included; a Reweight is the application's doing, not the
// bound's.
func TestStatsPerMember(t *testing.T) {
	r := offlinePerMember(t, balancer.Weights{Primary: 1, Secondaries: []balancer.HostWeight{{Host: "s1:1"}, {Host: "s2:2"}}})
	pol, err := balancer.ParseWeights("primary=0.2,s1:1=0.4,s2:2=0.4")
	if err != nil {
		t.Fatal(err)
	}
	r.policy = pol
	r.served.roles["p:0"] = balancer.Primary
	for _, h := range []string{"p:0", "s1:1", "s2:2"} {
		serve(r, balancer.Secondary, h, ms, ms)
	}
	up := poll(primaryLag("p:0"), secondaryLag("s1:1", 10*ms), secondaryLag("s2:2", 20*ms))
	down := poll(primaryLag("p:0"), secondaryLag("s1:1", 10*ms), monitor.MemberLag{Host: "s2:2", State: "RECOVERING"})
	tests := []struct {
		name               string
		act                func()
		weights            map[string]float64
		excluded, included map[string]int64
	}{
		{"first poll: both secondaries included", func() { r.observeLag(up) },
			map[string]float64{"p:0": 0.2, "s1:1": 0.4, "s2:2": 0.4}, map[string]int64{}, map[string]int64{"s1:1": 1, "s2:2": 1}},
		{"same poll: no change", func() { r.observeLag(up) },
			map[string]float64{"p:0": 0.2, "s1:1": 0.4, "s2:2": 0.4}, map[string]int64{}, map[string]int64{"s1:1": 1, "s2:2": 1}},
		{"s2 recovering: excluded", func() { r.observeLag(down) },
			map[string]float64{"p:0": 0.2 / 0.6, "s1:1": 0.4 / 0.6}, map[string]int64{"s2:2": 1}, map[string]int64{"s1:1": 1, "s2:2": 1}},
		{"s2 back: included", func() { r.observeLag(up) },
			map[string]float64{"p:0": 0.2, "s1:1": 0.4, "s2:2": 0.4}, map[string]int64{"s2:2": 1}, map[string]int64{"s1:1": 1, "s2:2": 2}},
		{"reweighted to s1: nothing excluded", func() {
			if err := r.Reweight("s1:1=1"); err != nil {
				t.Fatal(err)
			}
			r.observeLag(up)
		}, map[string]float64{"s1:1": 1}, map[string]int64{"s2:2": 1}, map[string]int64{"s1:1": 1, "s2:2": 2}},
	}
	for _, tt := range tests {
		tt.act()
		st := r.Stats()
		if !st.PerMember || len(st.Members) != 3 {
			t.Fatalf("%s: per member %v, members %+v", tt.name, st.PerMember, st.Members)
		}
		for _, m := range st.Members {
			if math.Abs(m.Weight-tt.weights[m.Host]) > 1e-9 {
				t.Errorf("%s: %s weight %v, want %v (%v)", tt.name, m.Host, m.Weight, tt.weights[m.Host], st.Weights)
			}
		}
		if math.Abs(st.Fraction-st.Weights.Secondary()) > 1e-9 {
			t.Errorf("%s: fraction %v, secondaries' share %v", tt.name, st.Fraction, st.Weights.Secondary())
		}
		if !maps.Equal(st.Bound.Excluded, tt.excluded) || !maps.Equal(st.Bound.Included, tt.included) {
			t.Errorf("%s: excluded %v included %v, want %v and %v", tt.name, st.Bound.Excluded, st.Bound.Included, tt.excluded, tt.included)
		}
		// The first poll lifts the policy's own 0 (primary only until a
		// poll): that is no bound lifted.
		if st.Bound.ForcedZero != 0 || st.Bound.Restored != 0 {
			t.Errorf("%s: bound forced 0 %d times, restored %d", tt.name, st.Bound.ForcedZero, st.Bound.Restored)
		}
	}
}

// TestStatsPeriodOfAStaticPolicy: a policy without a period (weights:) has
// its latest second in Stats, ended by the loop that drains the pings.
func TestStatsPeriodOfAStaticPolicy(t *testing.T) {
	r := offlinePerMember(t, balancer.Weights{Primary: 1, Secondaries: []balancer.HostWeight{{Host: "s1:1"}}})
	rtt := &fakeRTT{samples: map[string][]time.Duration{"s1:1": {3 * ms, 2 * ms}}}
	r.rtts = rtt
	for range 10 {
		serve(r, balancer.Secondary, "s1:1", 5*ms, 6*ms)
	}
	t1 := time.Now()
	r.drainRTT(t1)
	st := r.Stats()
	if m := st.Members[0]; !st.PeriodEnd.Equal(t1) || m.Wire.PeriodCount != 10 || !near(m.Wire.P50, 5*ms) || m.MinRTT != 2*ms {
		t.Fatalf("after the first second: end %v, %+v", st.PeriodEnd, m)
	}
	t2 := t1.Add(time.Second)
	r.drainRTT(t2)
	st = r.Stats()
	if m := st.Members[0]; st.PeriodLength != time.Second || m.Wire.PeriodCount != 0 || m.MinRTT != 0 || m.Wire.Count != 10 {
		t.Fatalf("after an idle second: length %v, %+v", st.PeriodLength, m)
	}
}

// TestStatsIsASnapshot: the maps a snapshot returns are its own, and Stats
// may be called while periods end, polls arrive and reads are counted
// (run with -race), also from an event callback.
func TestStatsIsASnapshot(t *testing.T) {
	r, rtt := splitRouter(t)
	rtt.samples = map[string][]time.Duration{}
	var fromCallback Stats
	r.onEvent = func(Event) { fromCallback = r.Stats() }
	r.observeLag(poll(primaryLag("p:1"), secondaryLag("s:2", ms)))
	if !fromCallback.Lag.Known {
		t.Fatalf("Stats from the event callback: %+v", fromCallback.Lag)
	}
	r.onEvent = nil
	st := r.Stats()
	st.Decisions["mine"] = 1
	st.Bound.Included["mine"] = 1
	st.Served.ByHost["mine"] = 1
	if again := r.Stats(); again.Decisions["mine"] != 0 || again.Bound.Included["mine"] != 0 || again.Served.ByHost["mine"] != 0 {
		t.Fatal("a snapshot's maps are shared with the router")
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for range 200 {
			serve(r, balancer.Secondary, "s:2", ms, ms)
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 20 {
			r.mu.Lock()
			rtt.samples = map[string][]time.Duration{"s:2": {ms}}
			r.mu.Unlock()
			r.endPeriod(time.Now())
			r.observeLag(poll(primaryLag("p:1"), secondaryLag("s:2", time.Duration(i)*ms)))
		}
	}()
	go func() {
		defer wg.Done()
		for range 50 {
			st := r.Stats()
			var sum int64
			for _, m := range st.Members {
				sum += m.Served
			}
			if sum != st.Served.ByHost["p:1"]+st.Served.ByHost["s:2"] {
				t.Errorf("members served %d, by host %v", sum, st.Served.ByHost)
			}
		}
	}()
	wg.Wait()
	if m := r.Stats().Members; len(m) != 1 || m[0].Host != "s:2" || m[0].Served != 200 {
		t.Fatalf("members %+v, want s:2 with 200 reads served", m)
	}
}

// BenchmarkStats measures a snapshot of a router with three members and a
// period behind it: what a scrape costs.
func BenchmarkStats(b *testing.B) {
	r := offlinePerMember(b, balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 0.4}, {Host: "s2:2", Weight: 0.4}}})
	r.served.roles["p:0"] = balancer.Primary
	r.rtts = &fakeRTT{samples: map[string][]time.Duration{"p:0": {ms}, "s1:1": {ms}, "s2:2": {ms}}}
	for _, h := range []string{"p:0", "s1:1", "s2:2"} {
		for range 100 {
			serve(r, balancer.Secondary, h, ms, 2*ms)
		}
	}
	r.drainRTT(time.Now())
	r.observeLag(poll(primaryLag("p:0"), secondaryLag("s1:1", ms), secondaryLag("s2:2", ms)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Stats()
	}
}
