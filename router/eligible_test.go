package router

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

// threeMembers is a table with the primary at 0.2, s1 at 0.2 and s2 at 0.6.
func threeMembers(leastLoaded bool) (*table, *target, *target, *target) {
	primary, s1, s2 := &target{}, &target{host: "s1"}, &target{host: "s2"}
	pools := map[string]*target{"s1": s1, "s2": s2}
	w := balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.2}, {Host: "s2", Weight: 0.6}}}
	return buildTable(w, primary, func(h string) *target { return pools[h] }, func(string) bool { return true }, leastLoaded), primary, s1, s2
}

func drawWhere(tb *table, ok func(*target) bool, n int) map[*target]float64 {
	got := map[*target]float64{}
	for range n {
		got[tb.pickWhere(ok)]++
	}
	for k := range got {
		got[k] /= float64(n)
	}
	return got
}

// TestPickWhereSpreadsExcludedShares: a secondary that does not qualify
// gives its share to the primary and the qualifying secondaries in
// proportion to theirs; none qualifying sends everything to the primary.
func TestPickWhereSpreadsExcludedShares(t *testing.T) {
	for _, ll := range []bool{false, true} {
		tb, primary, s1, s2 := threeMembers(ll)
		const n = 200000
		got := drawWhere(tb, func(t *target) bool { return t != s2 }, n)
		// s2's 0.6 spreads over primary 0.2 and s1 0.2: half each.
		for tg, want := range map[*target]float64{primary: 0.5, s1: 0.5, s2: 0} {
			if tol := 5*math.Sqrt(want*(1-want)/n) + 1e-9; math.Abs(got[tg]-want) > tol {
				t.Errorf("leastLoaded %v: %q drawn %.4f, want %.2f±%.4f", ll, tg.host, got[tg], want, tol)
			}
		}
		got = drawWhere(tb, func(*target) bool { return true }, n)
		for tg, want := range map[*target]float64{primary: 0.2, s1: 0.2, s2: 0.6} {
			if tol := 5 * math.Sqrt(want*(1-want)/n); math.Abs(got[tg]-want) > tol {
				t.Errorf("leastLoaded %v, all qualify: %q drawn %.4f, want %.2f±%.4f", ll, tg.host, got[tg], want, tol)
			}
		}
		if got := drawWhere(tb, func(*target) bool { return false }, 1000); got[primary] != 1 {
			t.Errorf("leastLoaded %v, none qualify: primary drawn %.3f, want 1", ll, got[primary])
		}
	}
}

func TestPickWhereLeastLoadedAmongQualifying(t *testing.T) {
	tb, primary, s1, s2 := threeMembers(true)
	s3 := &target{host: "s3"}
	tb.secs = append(tb.secs[:1:1], slot{upTo: 0.5, weight: 0.3, t: s2}, slot{upTo: 1, weight: 0.3, t: s3})
	// s2 stalls; s1 is excluded: the two choices are s2 and s3, so every
	// secondary read goes to s3 (s1, the excluded one, is never the second).
	s2.inflight.Store(10)
	got := drawWhere(tb, func(t *target) bool { return t != s1 }, 200000)
	if got[s2] != 0 || got[s1] != 0 {
		t.Errorf("stalled s2 drawn %.3f, excluded s1 %.3f, want both 0", got[s2], got[s1])
	}
	if want := 0.2 / 0.8; math.Abs(got[primary]-want) > 0.01 {
		t.Errorf("primary drawn %.3f, want %.3f", got[primary], want)
	}
}

func TestMemberViewFilter(t *testing.T) {
	tb, _, s1, s2 := threeMembers(false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := func(sec uint32) bson.Timestamp { return bson.Timestamp{T: sec, I: 1} }
	applied := map[string]bson.Timestamp{"s1": ts(100), "s2": ts(90)}
	tags := map[string]map[string]string{"s1": {"dc": "east", "use": "reporting"}, "s2": {"dc": "west"}}
	v := memberView{
		lag: monitor.LagSample{At: t0, Known: true, Members: []monitor.MemberLag{
			{Host: "p", Role: balancer.Primary},
			{Host: "s1", Role: balancer.Secondary, Lag: 2 * time.Second},
			{Host: "s2", Role: balancer.Secondary, Lag: 500 * time.Millisecond},
		}},
		now:     t0.Add(time.Second),
		applied: func(h string) bson.Timestamp { return applied[h] },
		tags:    func(h string) map[string]string { return tags[h] },
	}
	tests := []struct {
		name   string
		spec   ReadSpec
		s1, s2 bool
	}{
		{"no restriction", ReadSpec{}, true, true},
		// s1: 2 s at the poll + 1 s since = 3 s; s2: 1.5 s.
		{"max staleness 3s: both", ReadSpec{MaxStaleness: 3 * time.Second}, true, true},
		{"max staleness 2.9s: s2 only", ReadSpec{MaxStaleness: 2900 * time.Millisecond}, false, true},
		{"max staleness 1.4s: none", ReadSpec{MaxStaleness: 1400 * time.Millisecond}, false, false},
		{"after 90: both applied it", ReadSpec{After: ts(90)}, true, true},
		{"after 95: s1 only", ReadSpec{After: ts(95)}, true, false},
		{"after a later increment of 100: none", ReadSpec{After: bson.Timestamp{T: 100, I: 2}}, false, false},
		{"tags: first set that matches a member wins", ReadSpec{TagSets: []TagSet{{"dc": "north"}, {"dc": "west"}, {"dc": "east"}}}, false, true},
		{"tags: every tag of a set must match", ReadSpec{TagSets: []TagSet{{"dc": "east", "use": "oltp"}}}, false, false},
		{"tags: an empty set matches all", ReadSpec{TagSets: []TagSet{{}}}, true, true},
		{"tags: a set whose members fail another test is skipped", ReadSpec{TagSets: []TagSet{{"dc": "west"}, {"dc": "east"}}, After: ts(95)}, true, false},
		{"tags: no set matches", ReadSpec{TagSets: []TagSet{{"dc": "north"}}}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok := v.filter(tt.spec, tb)
			if ok(s1) != tt.s1 || ok(s2) != tt.s2 {
				t.Fatalf("s1 %v s2 %v, want %v %v", ok(s1), ok(s2), tt.s1, tt.s2)
			}
		})
	}
	unknown := v
	unknown.lag.Known = false
	if unknown.filter(ReadSpec{MaxStaleness: time.Hour}, tb)(s2) {
		t.Error("an unknown lag must leave no secondary within a read's max staleness")
	}
	if !unknown.filter(ReadSpec{After: ts(90)}, tb)(s2) {
		t.Error("read-your-writes alone does not need the lag")
	}
	gone := v
	gone.lag.Members = gone.lag.Members[:2]
	if gone.filter(ReadSpec{MaxStaleness: time.Hour}, tb)(s2) {
		t.Error("a member missing from the poll has no known staleness")
	}
	turned := v
	turned.lag.Members = []monitor.MemberLag{{Host: "p", Role: balancer.Secondary}, {Host: "s1", Role: balancer.Secondary}, {Host: "s2", Role: balancer.Primary}}
	if turned.filter(ReadSpec{MaxStaleness: time.Hour}, tb)(s2) || !turned.filter(ReadSpec{MaxStaleness: time.Hour}, tb)(s1) {
		t.Error("only a member the poll shows as a secondary has a staleness to vouch for")
	}
}

func TestAppliedTimesOnlyMoveForward(t *testing.T) {
	var a appliedTimes
	if !a.get("h").IsZero() {
		t.Fatal("unknown host must have applied nothing")
	}
	a.advance("h", bson.Timestamp{T: 5, I: 2})
	a.advance("h", bson.Timestamp{T: 5, I: 1})
	a.advance("h", bson.Timestamp{T: 4, I: 9})
	a.advance("h", bson.Timestamp{})
	if got := a.get("h"); got != (bson.Timestamp{T: 5, I: 2}) {
		t.Fatalf("applied %v, want 5/2 (never backwards)", got)
	}
	a.advance("h", bson.Timestamp{T: 6, I: 0})
	if got := a.get("h"); got != (bson.Timestamp{T: 6}) {
		t.Fatalf("applied %v, want 6/0", got)
	}
	if !a.get("other").IsZero() {
		t.Fatal("hosts must not share a time")
	}
}

// offlineExternal is a router made WithExternalReads routing with w.
func offlineExternal(tb testing.TB, w balancer.Weights) *Router {
	tb.Helper()
	r := offlineRouter(0, balancer.PerMember)
	r.external = true
	withPools(r, w, func(string) (*mongo.Client, error) { return nil, nil }) // the caller sends the reads
	return r
}

func TestRouteAndDone(t *testing.T) {
	w := balancer.Weights{Primary: 0, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 1}}}
	r := offlineExternal(t, w)
	r.served.roles["p:0"] = balancer.Primary
	rt, err := r.Route(ReadSpec{})
	if err != nil || rt.Host != "s1:1" || rt.Side() != balancer.Secondary || rt.Held {
		t.Fatalf("route %+v, %v; want s1:1, its whole share", rt, err)
	}
	if n := r.pools.get("s1:1").inflight.Load(); n != 1 {
		t.Fatalf("in flight %d, want 1 until Done", n)
	}
	rt.Done("s1:1", 3*time.Millisecond, nil)
	if n := r.pools.get("s1:1").inflight.Load(); n != 0 {
		t.Fatalf("in flight %d after Done", n)
	}
	s := r.Served()
	if s.Secondary != 1 || s.ByHost["s1:1"] != 1 {
		t.Fatalf("served %+v, want one secondary read by s1:1", s)
	}
	if got := r.lat[balancer.Secondary].command.Snapshot().Count(); got != 1 {
		t.Fatalf("secondary samples %d, want 1", got)
	}

	// Read-your-writes: s1 has not applied the write, so the primary.
	after := bson.Timestamp{T: 10, I: 1}
	rt, _ = r.Route(ReadSpec{After: after})
	if rt.Host != "" || !rt.Held {
		t.Fatalf("route %+v, want the primary, held", rt)
	}
	rt.Done("p:0", time.Millisecond, nil)
	r.ObserveApplied("s1:1", after)
	rt, _ = r.Route(ReadSpec{After: after})
	if rt.Host != "s1:1" || rt.Held {
		t.Fatalf("route %+v, want s1:1 once it applied the write", rt)
	}
	rt.Done("s1:1", time.Millisecond, context.Canceled)
	if got := r.ReadYourWrites(); got != (ReadYourWrites{Reads: 2, Held: 1}) {
		t.Fatalf("read-your-writes %+v, want 2 reads, 1 held", got)
	}
	if s := r.Served(); s.Primary != 1 || s.Secondary != 1 {
		t.Fatalf("served %+v: a canceled read must not count", s)
	}

	r.ObserveWrite(2 * time.Millisecond)
	if got := r.served.writes.Snapshot().Count(); got != 1 {
		t.Fatalf("writes %d, want 1", got)
	}
	if _, err := offlineRouter(0, balancer.PerMember).Route(ReadSpec{}); err == nil {
		t.Fatal("Route on a router without WithExternalReads must fail")
	}
}

func TestExternalReadsNeedAPerMemberPolicy(t *testing.T) {
	_, err := newConfig("mongodb://h:1/?replicaSet=rs", []Option{WithPolicy(balancer.NewFixed(0.5)), WithExternalReads()})
	if err == nil {
		t.Fatal("a split policy with external reads must be refused")
	}
}

// fourMembers is a table with the primary at 0.1 and three secondaries at
// 0.3 each, s4 a readable secondary without a share.
func fourMembers() (*table, *target, []*target) {
	primary := &target{}
	secs := []*target{{host: "s1"}, {host: "s2"}, {host: "s3"}, {host: "s4"}}
	pools := map[string]*target{}
	for _, s := range secs {
		pools[s.host] = s
	}
	w := balancer.Weights{Primary: 0.1, Secondaries: []balancer.HostWeight{{Host: "s1", Weight: 0.3}, {Host: "s2", Weight: 0.3}, {Host: "s3", Weight: 0.3}}}
	tb := buildTable(w, primary, func(h string) *target { return pools[h] }, func(string) bool { return true }, false).
		withSpare([]string{"s1", "s2", "s3", "s4", "gone"}, func(h string) *target { return pools[h] }, func(string) bool { return true })
	return tb, primary, secs
}

// TestThreeEligibleSecondaries: with three secondaries qualifying, each
// keeps its share; one excluded spreads its share over the other two and
// the primary, in proportion.
func TestThreeEligibleSecondaries(t *testing.T) {
	tb, primary, secs := fourMembers()
	if len(tb.spare) != 1 || tb.spare[0] != secs[3] {
		t.Fatalf("spare %v, want s4 only", tb.spare)
	}
	const n = 200000
	check := func(name string, got map[*target]float64, want map[*target]float64) {
		t.Helper()
		for tg, w := range want {
			if tol := 5*math.Sqrt(w*(1-w)/n) + 1e-9; math.Abs(got[tg]-w) > tol {
				t.Errorf("%s: %q drawn %.4f, want %.3f±%.4f", name, tg.host, got[tg], w, tol)
			}
		}
	}
	check("all three", drawWhere(tb, func(*target) bool { return true }, n),
		map[*target]float64{primary: 0.1, secs[0]: 0.3, secs[1]: 0.3, secs[2]: 0.3, secs[3]: 0})
	check("s3 excluded", drawWhere(tb, func(t *target) bool { return t != secs[2] }, n),
		map[*target]float64{primary: 0.1 / 0.7, secs[0]: 0.3 / 0.7, secs[1]: 0.3 / 0.7, secs[2]: 0})
}

// TestPickSecondaryNeverThePrimary: a read that must not go to the
// primary (ReadSpec.NoPrimary) is drawn among the qualifying secondaries
// by share, falls back to the spare ones, and finds none when none
// qualifies.
func TestPickSecondaryNeverThePrimary(t *testing.T) {
	tb, primary, secs := fourMembers()
	got := map[*target]int{}
	for range 30000 {
		got[tb.pickSecondary(func(t *target) bool { return t != secs[0] })]++
	}
	if got[primary] != 0 || got[secs[0]] != 0 || got[secs[3]] != 0 || got[nil] != 0 {
		t.Fatalf("drawn %v: want only s2 and s3", got)
	}
	if d := got[secs[1]] - got[secs[2]]; d < -1500 || d > 1500 {
		t.Fatalf("s2 %d, s3 %d: want equal shares", got[secs[1]], got[secs[2]])
	}
	if p := tb.pickSecondary(func(t *target) bool { return t == secs[3] }); p != secs[3] {
		t.Fatalf("only the spare s4 qualifies: drawn %v", p)
	}
	if p := tb.pickSecondary(func(*target) bool { return false }); p != nil {
		t.Fatalf("none qualifies: drawn %q, want none", p.host)
	}
	onlyPrimary := buildTable(balancer.PrimaryOnly(), primary, func(string) *target { return nil }, func(string) bool { return true }, false)
	if p := onlyPrimary.pickSecondary(func(*target) bool { return true }); p != nil {
		t.Fatalf("no secondary at all: drawn %v", p)
	}
}

// TestRouteModes: Route with NoPrimary never answers the primary, even
// from a policy that keeps every read there, and refuses when no
// secondary qualifies; Skip keeps the read off members.
func TestRouteModes(t *testing.T) {
	r := offlineExternal(t, balancer.Weights{Primary: 1, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 0}, {Host: "s2:2", Weight: 0}}})
	r.served.tags["s1:1"] = map[string]string{"dc": "east"}
	r.served.tags["s2:2"] = map[string]string{"dc": "west"}
	for range 50 {
		rt, err := r.Route(ReadSpec{})
		if err != nil || rt.Host != "" {
			t.Fatalf("default: %+v, %v; want the primary (the policy's whole share)", rt, err)
		}
		rt.Done("p:0", time.Millisecond, nil)
	}
	seen := map[string]int{}
	for range 200 {
		rt, err := r.Route(ReadSpec{NoPrimary: true})
		if err != nil {
			t.Fatal(err)
		}
		seen[rt.Host]++
		rt.Done(rt.Host, time.Millisecond, nil)
	}
	if seen[""] != 0 || seen["s1:1"] == 0 || seen["s2:2"] == 0 {
		t.Fatalf("secondary-only reads by member %v: want both secondaries, never the primary", seen)
	}
	for _, tc := range []struct {
		name string
		spec ReadSpec
		want string
		err  error
	}{
		{"tags in order: the first matching set wins", ReadSpec{NoPrimary: true, TagSets: []TagSet{{"dc": "north"}, {"dc": "west"}, {"dc": "east"}}}, "s2:2", nil},
		{"tags none match", ReadSpec{NoPrimary: true, TagSets: []TagSet{{"dc": "north"}}}, "", ErrNoSecondary},
		{"skip one: the other", ReadSpec{NoPrimary: true, Skip: func(h string) bool { return h == "s1:1" }}, "s2:2", nil},
		{"skip the tagged one", ReadSpec{NoPrimary: true, Skip: func(h string) bool { return h == "s2:2" }, TagSets: []TagSet{{"dc": "west"}}}, "", ErrNoSecondary},
		{"max staleness with no lag known", ReadSpec{NoPrimary: true, MaxStaleness: time.Hour}, "", ErrNoSecondary},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := r.Route(tc.spec)
			if !errors.Is(err, tc.err) || rt.Host != tc.want {
				t.Fatalf("route %+v, %v; want %q, %v", rt, err, tc.want, tc.err)
			}
			if err == nil {
				rt.Done(rt.Host, time.Millisecond, nil)
			}
		})
	}
	// Skip without NoPrimary: the skipped secondary's share goes to the
	// others and the primary.
	w := balancer.Weights{Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 1}}}
	r = offlineExternal(t, w)
	rt, err := r.Route(ReadSpec{Skip: func(h string) bool { return h == "s1:1" }})
	if err != nil || rt.Host != "" || !rt.Held {
		t.Fatalf("avoiding the only secondary: %+v, %v; want the primary", rt, err)
	}
}

// TestDoneDivertedToThePrimary: a read Route sent to a secondary that the
// caller sent to the primary instead (it saw no secondary there) counts as
// the primary's, by side and by member.
func TestDoneDivertedToThePrimary(t *testing.T) {
	r := offlineExternal(t, balancer.Weights{Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 1}}})
	rt, err := r.Route(ReadSpec{})
	if err != nil || rt.Host != "s1:1" {
		t.Fatalf("route %+v, %v; want s1:1", rt, err)
	}
	r.served.roles["p:0"] = balancer.Primary
	rt.Done("p:0", time.Millisecond, nil)
	if s := r.Served(); s.Primary != 1 || s.Secondary != 0 || s.ByHost["p:0"] != 1 || s.ByHost["s1:1"] != 0 {
		t.Fatalf("served %+v, want one primary read by p:0", s)
	}
	// The policy's samples: the primary's, not the secondary's.
	if p, s := r.lat[balancer.Primary].command.Snapshot().Count(), r.lat[balancer.Secondary].command.Snapshot().Count(); p != 1 || s != 0 {
		t.Fatalf("latency samples: primary %d, secondary %d; want 1, 0", p, s)
	}
}

// BenchmarkRouteExternal is a routed read as the wire-protocol proxy asks
// for it: Route under the proxy's default staleness bound (a constrained
// spec: the lag poll is read) and no read-your-writes fence, then Done
// with the member that served it.
func BenchmarkRouteExternal(b *testing.B) {
	w := balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 0.4}, {Host: "s2:2", Weight: 0.4}}}
	r := offlineExternal(b, w)
	r.served.roles["p:0"] = balancer.Primary
	r.lagNow.Store(&monitor.LagSample{At: time.Now(), Known: true, Members: []monitor.MemberLag{
		{Host: "p:0", Role: balancer.Primary}, {Host: "s1:1", Role: balancer.Secondary, Lag: time.Millisecond}, {Host: "s2:2", Role: balancer.Secondary, Lag: time.Millisecond}}})
	spec := ReadSpec{MaxStaleness: 10 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		rt, err := r.Route(spec)
		if err != nil {
			b.Fatal(err)
		}
		host := rt.Host
		if host == "" {
			host = "p:0"
		}
		rt.Done(host, time.Millisecond, nil)
	}
}
