package router

import (
	"context"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/address"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

// offlineRouter is a Router with no connection, for the pure parts of the
// hot path.
func offlineRouter(f float64, mode balancer.Mode) *Router {
	r := &Router{sel: balancer.Selection{Mode: mode}, latency: CommandLatency, obs: newObserved()}
	r.served = newServed(r.recheckLag)
	for i := range r.lat {
		r.lat[i] = newSideLatency()
	}
	r.storeFraction(f)
	return r
}

// offlinePerMember is a per-member router whose members' clients never
// connect, routing with w.
func offlinePerMember(tb testing.TB, w balancer.Weights) *Router {
	tb.Helper()
	r := offlineRouter(0, balancer.PerMember)
	r.client = offlineClient(tb, "p:0")
	pol, err := balancer.ParseWeights("primary=1")
	if err != nil {
		tb.Fatal(err)
	}
	r.policy = pol
	if err := r.setPrefs(); err != nil {
		tb.Fatal(err)
	}
	withPools(r, w, func(h string) (*mongo.Client, error) { return offlineClient(tb, h), nil })
	return r
}

// withPools gives an offline per-member router its members' pools (open
// makes each one's client) and a table routing with w.
func withPools(r *Router, w balancer.Weights, open func(string) (*mongo.Client, error)) {
	r.primaryT = &target{}
	r.pools = newMemberPools(open, r.rebuild)
	for _, hw := range w.Secondaries {
		r.served.roles[hw.Host] = balancer.Secondary
		r.pools.ensure(hw.Host)
	}
	r.weights.Store(&w)
	r.rebuild()
}

// offlineClient is a client that is never used for I/O.
func offlineClient(tb testing.TB, host string) *mongo.Client {
	tb.Helper()
	c, err := mongo.Connect(options.Client().SetHosts([]string{host}).SetDirect(true).SetServerSelectionTimeout(time.Millisecond))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

func TestPickHonoursFraction(t *testing.T) {
	for _, f := range []float64{0, 0.1, 0.5, 0.7, 1} {
		r := offlineRouter(f, balancer.Split)
		const n = 200000
		sec := 0
		for range n {
			if r.pick() == balancer.Secondary {
				sec++
			}
		}
		got := float64(sec) / n
		// 5 standard deviations of a binomial share.
		tol := 5*math.Sqrt(f*(1-f)/n) + 1e-12
		if math.Abs(got-f) > tol {
			t.Errorf("fraction %v: secondary share %v, outside ±%v", f, got, tol)
		}
	}
	if s := offlineRouter(0, balancer.Nearest).pick(); s != balancer.Secondary {
		t.Errorf("driver-selected policy picked %v, want the policy's handle (secondary side)", s)
	}
}

func TestServedCountsOnlyRoutedReads(t *testing.T) {
	r := offlineRouter(0.5, balancer.Split)
	s := r.served
	s.roles["h1:1"] = balancer.Primary
	s.roles["h2:2"] = balancer.Secondary
	routed := r.mark(context.Background(), balancer.Secondary)
	child, cancel := context.WithTimeout(routed, time.Minute) // the driver derives contexts
	defer cancel()
	s.finished(routed, "find", "h2:2[-3]", time.Millisecond)
	s.finished(child, "aggregate", "h1:1[-1]", time.Millisecond)
	s.finished(routed, "getMore", "h2:2[-3]", time.Millisecond)            // continuation: not a new read
	s.finished(routed, "insert", "h1:1[-1]", time.Millisecond)             // not a read
	s.finished(context.Background(), "find", "h1:1[-2]", time.Millisecond) // unrouted
	s.finished(routed, "find", "h9:9[-2]", time.Millisecond)               // unknown role
	got := s.snapshot()
	if got.Primary != 1 || got.Secondary != 1 || got.Other != 1 {
		t.Fatalf("served %+v, want 1 primary, 1 secondary, 1 other", got)
	}
	if got.ByHost["h2:2"] != 1 || got.ByHost["h1:1"] != 1 {
		t.Fatalf("by host %v", got.ByHost)
	}
	if pct := got.SecondaryPct(); math.Abs(pct-100.0/3) > 1e-9 {
		t.Fatalf("secondary pct %v", pct)
	}
	// Every command of the unit counts towards its time on the wire,
	// including getMore; the unrouted one does not.
	if n, w := routed.cmds.Load(), time.Duration(routed.wire.Load()); n != 5 || w != 5*time.Millisecond {
		t.Fatalf("unit commands %d, wire time %v, want 5 and 5ms", n, w)
	}
}

func TestRecordKeepsBothLatencies(t *testing.T) {
	r := offlineRouter(0.5, balancer.Split)
	rc := r.mark(context.Background(), balancer.Primary)
	rc.addCommand(2 * time.Millisecond)
	rc.addCommand(time.Millisecond)
	r.record(balancer.Primary, rc, 50*time.Millisecond, nil) // 47 ms waiting for a connection
	r.record(balancer.Primary, r.mark(context.Background(), balancer.Primary), time.Second, context.Canceled)
	noCmd := r.mark(context.Background(), balancer.Secondary) // failed before any command (server selection)
	r.record(balancer.Secondary, noCmd, 30*time.Second, context.DeadlineExceeded)
	p := r.lat[balancer.Primary]
	if p.client.Count() != 1 || p.command.Count() != 1 {
		t.Fatalf("primary samples: client %d command %d, want 1 and 1 (cancelled read dropped)", p.client.Count(), p.command.Count())
	}
	if got := p.command.Snapshot().Quantile(0.5); got < 2900*time.Microsecond || got > 3100*time.Microsecond {
		t.Fatalf("command latency %v, want the unit's 3ms of commands", got)
	}
	sec := r.lat[balancer.Secondary]
	if sec.client.Count() != 1 || sec.command.Count() != 0 {
		t.Fatalf("secondary samples: client %d command %d, want 1 and 0 (no command ran)", sec.client.Count(), sec.command.Count())
	}
}

func TestPeriodFrom(t *testing.T) {
	ms := time.Millisecond
	l := Latencies{
		Primary:   SideLatencies{Client: balancer.Stats{Count: 90, P50: 40 * ms}, Command: balancer.Stats{Count: 90, P50: 4 * ms}},
		Secondary: SideLatencies{Client: balancer.Stats{Count: 10, P50: 80 * ms}, Command: balancer.Stats{Count: 9, P50: 2 * ms}},
	}
	rtt := map[string][]time.Duration{"p": {3 * ms, ms, 2 * ms}, "s1": {5 * ms, 4 * ms}, "s2": {6 * ms}, "gone": {ms / 2}}
	roles := map[string]balancer.Side{"p": balancer.Primary, "s1": balancer.Secondary, "s2": balancer.Secondary}
	tests := []struct {
		name string
		src  LatencySource
		q    float64
		want balancer.Period
	}{
		{"command latency, minimum ping", CommandLatency, 0, balancer.Period{Primary: l.Primary.Command, Secondary: l.Secondary.Command, PrimaryRTT: ms, SecondaryRTT: 4 * ms}},
		{"client latency (the Decongestant paper), median ping", ClientLatency, 0.5, balancer.Period{Primary: l.Primary.Client, Secondary: l.Secondary.Client, PrimaryRTT: 2 * ms, SecondaryRTT: 5 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := periodFrom(l, tt.src, rtt, roles, tt.q); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("period %+v, want %+v", got, tt.want)
			}
		})
	}
	if got := periodFrom(Latencies{}, CommandLatency, nil, nil, 0); !reflect.DeepEqual(got, balancer.Period{}) {
		t.Fatalf("empty period %+v", got)
	}
}

func TestSideStatsAreDifferences(t *testing.T) {
	l := newSideLatency()
	for range 10 {
		l.client.Record(10 * time.Millisecond)
		l.command.Record(time.Millisecond)
	}
	prev := l.snapshot()
	for range 4 {
		l.client.Record(100 * time.Millisecond)
	}
	l.command.Record(7 * time.Millisecond)
	got := sideStats(l.snapshot(), prev)
	if got.Client.Count != 4 || got.Command.Count != 1 {
		t.Fatalf("counts %+v, want 4 client and 1 command sample since prev", got)
	}
	if got.Client.P50 < 97*time.Millisecond || got.Command.P50 < 6*time.Millisecond || got.Command.P50 > 8*time.Millisecond {
		t.Fatalf("P50s %+v, want ~100ms and ~7ms", got)
	}
}

func TestVouch(t *testing.T) {
	sample := monitor.LagSample{Source: monitor.SourceReplSetGetStatus, Known: true, Max: 80 * time.Millisecond, Horizon: 125 * time.Millisecond, Members: []monitor.MemberLag{
		{Host: "n1:1", State: "RECOVERING"},
		{Host: "n2:2", State: "PRIMARY", Role: balancer.Primary},
		{Host: "n3:3", State: "SECONDARY", Role: balancer.Secondary, Lag: 80 * time.Millisecond},
	}}
	tests := []struct {
		name       string
		s          monitor.LagSample
		selectable []string
		known      bool
		mention    string
	}{
		{"every selectable member is a vouched-for secondary", sample, []string{"n3:3"}, true, ""},
		{"none selectable: the sample stands", sample, nil, true, ""},
		{"restarted member selectable before the primary sees it SECONDARY", sample, []string{"n3:3", "n1:1"}, false, "n1:1 (RECOVERING"},
		{"a host the primary does not list", sample, []string{"n9:9"}, false, "n9:9 (not in the replsetgetstatus poll)"},
		{"an unknown sample stays unknown", monitor.LagSample{}, []string{"n3:3"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lag, err := vouch(tt.s, tt.selectable)
			if lag.Known != tt.known {
				t.Fatalf("known %v, want %v (err %v)", lag.Known, tt.known, err)
			}
			if tt.known && (lag.Max != tt.s.Max || lag.Horizon != tt.s.Horizon) {
				t.Fatalf("lag %+v does not carry the sample's max and horizon", lag)
			}
			if tt.mention != "" && (err == nil || !strings.Contains(err.Error(), tt.mention)) {
				t.Fatalf("err %v, want it to name %q", err, tt.mention)
			}
		})
	}
}

// TestMemberTurningSecondaryStopsSecondaryReads: the driver reports a
// restarted member as a secondary before the primary's replSetGetStatus
// does; the fraction must drop to 0 at that event, not at the next poll, and
// the next poll that vouches for every member restores it.
func TestMemberTurningSecondaryStopsSecondaryReads(t *testing.T) {
	pol, err := balancer.NewDecongestant(balancer.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r := offlineRouter(0, balancer.Split)
	r.policy = pol
	var events []Event
	r.onEvent = func(e Event) { events = append(events, e) }
	poll := monitor.LagSample{Known: true, Max: 10 * time.Millisecond, Horizon: 1250 * time.Millisecond, Members: []monitor.MemberLag{
		{Host: "n1:1", State: "DOWN"},
		{Host: "n2:2", State: "PRIMARY", Role: balancer.Primary},
		{Host: "n3:3", State: "SECONDARY", Role: balancer.Secondary, Lag: 10 * time.Millisecond},
	}}
	sdam := r.served.serverMonitor(nil)
	change := func(host, kind string) {
		addr := address.Address(host)
		sdam.ServerDescriptionChanged(&event.ServerDescriptionChangedEvent{Address: addr,
			NewDescription: event.ServerDescription{Addr: addr, Kind: kind}})
	}
	change("n2:2", "RSPrimary")
	change("n3:3", "RSSecondary")
	r.observeLag(poll)
	if f := r.Fraction(); f != 0.1 {
		t.Fatalf("fraction %v after a good poll, want 0.1", f)
	}
	change("n1:1", "RSSecondary") // restarted; the primary still sees it DOWN
	if f := r.Fraction(); f != 0 {
		t.Fatalf("fraction %v right after the driver saw n1 as a secondary, want 0", f)
	}
	last := events[len(events)-1]
	if last.Kind != EventLag || last.Lag.Known || last.Lag.Err == nil || !strings.Contains(last.Lag.Err.Error(), "n1:1") {
		t.Fatalf("event %+v, want an unknown lag naming n1:1", last)
	}
	r.observeLag(poll) // the primary still reports n1 DOWN
	if f := r.Fraction(); f != 0 {
		t.Fatalf("fraction %v while the primary does not vouch for n1, want 0", f)
	}
	poll.Members[0] = monitor.MemberLag{Host: "n1:1", State: "SECONDARY", Role: balancer.Secondary, Lag: 30 * time.Second}
	poll.Max = 30 * time.Second
	r.observeLag(poll)
	if f := r.Fraction(); f != 0 {
		t.Fatalf("fraction %v with n1 30s behind, want 0", f)
	}
	poll.Members[0].Lag, poll.Max = 20*time.Millisecond, 20*time.Millisecond
	r.observeLag(poll)
	if f := r.Fraction(); f != 0.1 {
		t.Fatalf("fraction %v after n1 caught up, want 0.1 restored", f)
	}
	change("n3:3", "RSSecondary") // no change of role: no recheck, no event
	if n := len(events); events[n-1].Lag.Max != 20*time.Millisecond {
		t.Fatalf("a repeated description triggered an event: %+v", events[n-1])
	}
}

// BenchmarkRoute measures the routing hot path of one read: the biased coin
// (split) or the member draw (per-member), choosing the handle, marking the
// context and recording the latency samples.
func BenchmarkRoute(b *testing.B) {
	for _, mode := range []string{"split", "per-member", "leastwait"} {
		r := offlineRouter(0.5, balancer.Split)
		r.client = offlineClient(b, "p:0")
		if err := r.setPrefs(); err != nil {
			b.Fatal(err)
		}
		if mode != "split" {
			r = offlinePerMember(b, balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 0.4}, {Host: "s2:2", Weight: 0.4}}})
		}
		if mode == "leastwait" { // the per-read rule with its defaults, speeds measured
			pol, err := balancer.NewPerRead(balancer.LeastWait, balancer.DefaultPerReadConfig())
			if err != nil {
				b.Fatal(err)
			}
			r.sel = pol.Selection()
			r.estimates.Store(&map[string]memberEstimate{"": {0.001, true}, "s1:1": {0.001, true}, "s2:2": {0.0012, true}})
			r.rebuild()
		}
		c := r.Database("db").Collection("c")
		ctx := context.Background()
		host := r.served.stats("s1:1")
		route := func() {
			rt := c.route(ctx, false)
			rt.rc.addCommand(time.Since(rt.start)) // what the command monitor adds
			rt.rc.host.Store(host)
			c.done(rt, nil)
		}
		b.Run(mode+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				route()
			}
		})
		b.Run(mode+"/parallel64", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					route()
				}
			})
		})
	}
}

// fakeRTT is a period's pings and roles, without a monitor.
type fakeRTT struct {
	samples map[string][]time.Duration
	roles   map[string]balancer.Side
}

func (f *fakeRTT) DrainRTT() map[string][]time.Duration {
	s := f.samples
	f.samples = nil
	return s
}

func (f *fakeRTT) Roles() map[string]balancer.Side { return f.roles }

// TestEndPeriod: a period's recorded reads and pings reach the policy as
// one balancer.Period (wire time, minimum ping per role), its decision is
// in force at once, and the next period starts from zero.
func TestEndPeriod(t *testing.T) {
	pol, err := balancer.NewDecongestant(balancer.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	r := offlineRouter(0.1, balancer.Split)
	r.policy = pol
	r.rtts = &fakeRTT{samples: map[string][]time.Duration{"p": {3 * ms, ms}, "s": {2 * ms, ms / 2}},
		roles: map[string]balancer.Side{"p": balancer.Primary, "s": balancer.Secondary}}
	for i := range r.lat {
		r.lastSnap[i] = r.lat[i].snapshot()
	}
	var events []Event
	r.onEvent = func(e Event) { events = append(events, e) }
	read := func(s balancer.Side, wire, client time.Duration) {
		rc := r.mark(context.Background(), s)
		rc.addCommand(wire)
		r.record(s, rc, client, nil)
	}
	for range 20 {
		read(balancer.Primary, 9*ms, 30*ms) // a congested primary
		read(balancer.Secondary, 3*ms, 4*ms)
	}
	r.endPeriod(time.Now())
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	e := events[0]
	p := e.Period
	if p.Primary.Count != 20 || p.PrimaryRTT != ms || p.SecondaryRTT != ms/2 {
		t.Fatalf("period %+v: want 20 primary reads, RTTs 1ms and 0.5ms", p)
	}
	if p.Primary.P50 < 8700*time.Microsecond || p.Primary.P50 > 9300*time.Microsecond {
		t.Fatalf("primary P50 %v, want the 9ms wire time", p.Primary.P50)
	}
	if e.Latencies.Primary.Client.P50 < 29*ms {
		t.Fatalf("client P50 %v, want the 30ms client time in the event", e.Latencies.Primary.Client.P50)
	}
	// (9-1)/(3-0.5) = 3.2 > 1.3: primary congested, 0.1 -> 0.2, in force now.
	if e.Decision.Reason != "primary-congested" || r.Fraction() != 0.2 {
		t.Fatalf("decision %+v, fraction %v; want primary-congested and 0.2", e.Decision, r.Fraction())
	}
	r.endPeriod(time.Now())
	if got := events[1].Period; got.Primary.Count != 0 || got.Secondary.Count != 0 || got.PrimaryRTT != 0 {
		t.Fatalf("second period %+v, want nothing carried over", got)
	}
}

func TestPerMemberRefusesSRV(t *testing.T) {
	p, err := balancer.NewSpillway(balancer.DefaultSpillwayConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, err = newConfig("mongodb+srv://cluster0.example.net/?replicaSet=rs0", []Option{WithPolicy(p)})
	if !errors.Is(err, ErrBadURI) || !strings.Contains(err.Error(), "give the seed list instead") {
		t.Fatalf("error %v, want ErrBadURI asking for the seed list", err)
	}
}
