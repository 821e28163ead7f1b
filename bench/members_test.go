package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
)

func TestUnknownKeys(t *testing.T) {
	members := []monitor.ConfigMember{{Host: "h1:1", Name: "n1"}, {Host: "h2:2", Name: "n2"}, {Host: "h3:3"}}
	tests := []struct {
		keys    []string
		unknown string // "" = accepted
	}{
		{[]string{"primary", "n2", "h3:3"}, ""},
		{[]string{"N1", "H2:2"}, ""},
		{[]string{"primary", "n4"}, "n4"},
		{[]string{"n3", "h9:9"}, "n3, h9:9"},
	}
	for _, tt := range tests {
		err := unknownKeys(tt.keys, members)
		switch {
		case tt.unknown == "" && err != nil:
			t.Errorf("%v: %v", tt.keys, err)
		case tt.unknown != "" && (err == nil || !strings.Contains(err.Error(), "no member "+tt.unknown+" ")):
			t.Errorf("%v: error %v, want one naming %s", tt.keys, err, tt.unknown)
		case err != nil && !strings.Contains(err.Error(), "n1 (h1:1)"):
			t.Errorf("%v: error %v does not list the members", tt.keys, err)
		}
	}
}

func TestMemberPeriods(t *testing.T) {
	snap := func(host string, role balancer.Side, served int64, lat ...time.Duration) router.MemberSnapshot {
		c, w, r := metrics.NewHistogram(), metrics.NewHistogram(), metrics.NewHistogram()
		for _, d := range lat {
			c.Record(d)
			w.Record(d / 2)
		}
		r.Record(100 * time.Microsecond)
		return router.MemberSnapshot{Host: host, Role: role, Served: served, Client: c.Snapshot(), Wire: w.Snapshot(), RTT: r.Snapshot()}
	}
	prev := []router.MemberSnapshot{snap("p", balancer.Primary, 10, time.Millisecond)}
	cur := []router.MemberSnapshot{snap("p", balancer.Primary, 30, time.Millisecond, 4*time.Millisecond), snap("s", balancer.Secondary, 5, 2*time.Millisecond), snap("d", 0, 0)}
	lag := monitor.LagSample{Known: true, Members: []monitor.MemberLag{{Host: "p", Role: balancer.Primary}, {Host: "s", Role: balancer.Secondary, Lag: 250 * time.Millisecond}, {Host: "d", State: "DOWN"}}}
	w := balancer.Weights{Primary: 0.7, Secondaries: []balancer.HostWeight{{Host: "s", Weight: 0.3}}}
	got := memberPeriods(cur, prev, lag, w, true)
	if len(got) != 3 {
		t.Fatalf("%d members, want 3", len(got))
	}
	p, s, d := got[0], got[1], got[2]
	if p.Served != 20 || p.Role != "primary" || *p.Weight != 0.7 || *p.LagMS != 0 {
		t.Errorf("primary %+v: want 20 served in the period, weight 0.7, lag 0", p)
	}
	if p.ClientP50MS < 3.8 || p.ClientP50MS > 4.2 {
		t.Errorf("primary client p50 %v ms, want the period's one read of 4 ms", p.ClientP50MS)
	}
	if s.Served != 5 || *s.Weight != 0.3 || *s.LagMS != 250 || s.ServerMS <= 0.8 || s.ServerMS > 1 {
		t.Errorf("secondary %+v: want 5 served, weight 0.3, lag 250, server ~0.9 ms", s)
	}
	if d.LagMS != nil || d.Role != "other" || *d.Weight != 0 {
		t.Errorf("down member %+v: want no lag, role other, weight 0", d)
	}
	if got := memberPeriods(cur, prev, monitor.LagSample{}, w, false); got[1].Weight != nil || got[1].LagMS != nil {
		t.Errorf("driver-selected policy / unknown lag: %+v, want no weight and no lag", got[1])
	}
}

// TestAddHintsPerPeriod: a period's replays, keys and failed replays are
// the differences since the last period, per member; a member only the
// hints know gets a record of its own.
func TestAddHintsPerPeriod(t *testing.T) {
	prev := hints.Stats{Members: []hints.MemberStats{{Host: "a", On: true, Replays: 10, Keys: 40, Errors: 1}}}
	cur := hints.Stats{Members: []hints.MemberStats{{Host: "a", On: true, Replays: 15, Keys: 60, Errors: 4}, {Host: "b", Replays: 2, Keys: 2, Errors: 7}}}
	got := addHints([]results.Member{{Host: "a", Role: "secondary"}}, cur, prev)
	if len(got) != 2 {
		t.Fatalf("members %+v: want a and b", got)
	}
	if a := got[0]; a.HintReplays != 5 || a.HintKeys != 20 || a.HintErrors != 3 || a.HintsOff {
		t.Errorf("a: %+v; want 5 replays, 20 keys, 3 errors, hints on", a)
	}
	if b := got[1]; b.Host != "b" || b.Role != "other" || b.HintReplays != 2 || b.HintErrors != 7 || !b.HintsOff {
		t.Errorf("b: %+v; want its own record, 2 replays, 7 errors, hints off", b)
	}
}
