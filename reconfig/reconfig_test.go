package reconfig

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/decongestant/decongestant/results"
)

// periods makes 2 s periods with the given read throughputs, the first
// ending at 2 s.
func periods(tputs ...float64) []results.Period {
	ps := make([]results.Period, len(tputs))
	for i, v := range tputs {
		ps[i] = results.Period{TS: float64(2 * (i + 1)), ReadTput: v}
	}
	return ps
}

// steady is n periods of v.
func steady(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func cat(parts ...[]float64) []float64 {
	var out []float64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func TestMeasure(t *testing.T) {
	// Most runs: 100 reads/s for 60 s (30 periods), the reconfiguration at
	// 60 s, then what follows.
	before := steady(30, 100)
	tests := []struct {
		name  string
		tputs []float64
		ends  []float64 // the periods' ends when not every 2 s
		at    float64
		ok    bool
		pre   float64
		preS  float64
		dip   float64
		dipAt float64
		// nil: null
		dipPct, recovery *float64
	}{
		{name: "no dip", tputs: cat(before, steady(40, 98)), at: 60, ok: true,
			pre: 100, preS: 30, dip: 98, dipAt: 62, dipPct: ptr(98), recovery: ptr(0)},
		{name: "a dip that recovers", tputs: cat(before, []float64{40, 50, 70, 95, 92, 90}, steady(20, 100)), at: 60, ok: true,
			pre: 100, preS: 30, dip: 40, dipAt: 62, dipPct: ptr(40), recovery: ptr(6)},
		{name: "never recovers", tputs: cat(before, []float64{30, 60, 80}, steady(30, 85)), at: 60, ok: true,
			pre: 100, preS: 30, dip: 30, dipAt: 62, dipPct: ptr(30)},
		// 95 at 64 s, and 95, 95 at 68-70 s are spikes: the first three in
		// a row start at 74 s.
		{name: "spikes do not count as recovery", tputs: cat(before, []float64{40, 95, 50, 95, 95, 45, 95, 95, 95}, steady(10, 100)), at: 60, ok: true,
			pre: 100, preS: 30, dip: 40, dipAt: 62, dipPct: ptr(40), recovery: ptr(12)},
		// 89.9 is under 90 %: not recovered until the 100s.
		{name: "just under the level", tputs: cat(before, []float64{50, 89.9, 89.9, 89.9, 100, 100, 100}), at: 60, ok: true,
			pre: 100, preS: 30, dip: 50, dipAt: 62, dipPct: ptr(50), recovery: ptr(8)},
		// A dip more than 60 s after is another matter.
		{name: "a later dip is outside the window", tputs: cat(before, steady(30, 100), []float64{10}, steady(5, 100)), at: 60, ok: true,
			pre: 100, preS: 30, dip: 100, dipAt: 62, dipPct: ptr(100), recovery: ptr(0)},
		// The pre window counts only what the run has: 10 s.
		{name: "short run: less than 30 s before", tputs: cat(steady(5, 200), []float64{20, 190, 190, 190}), at: 10, ok: true,
			pre: 200, preS: 10, dip: 20, dipAt: 12, dipPct: ptr(10), recovery: ptr(2)},
		// Two good periods before the run ends are not three.
		{name: "short run: ends before three good periods", tputs: cat(before, []float64{20, 100, 100}), at: 60, ok: true,
			pre: 100, preS: 30, dip: 20, dipAt: 62, dipPct: ptr(20)},
		// The pre window's mean weighs each period by its length.
		{name: "the mean over the 30 s before", tputs: cat(steady(15, 50), steady(15, 150), steady(5, 150)), at: 60, ok: true,
			pre: 150, preS: 30, dip: 150, dipAt: 62, dipPct: ptr(100), recovery: ptr(0)},
		// Between boundaries: the period (60, 62] holds the reconfiguration
		// and counts after it; a recovery starting there is at 0.
		{name: "between period ends", tputs: cat(before, steady(10, 100)), at: 61, ok: true,
			pre: 100, preS: 30, dip: 100, dipAt: 62, dipPct: ptr(100), recovery: ptr(0)},
		{name: "no reads before", tputs: cat(steady(30, 0), steady(10, 100)), at: 60, ok: true,
			pre: 0, preS: 30, dip: 100, dipAt: 62},
		// The period ending exactly 60 s after is in the window.
		{name: "a dip ending exactly 60 s after", tputs: cat(before, steady(29, 100), []float64{10}, steady(5, 100)), at: 60, ok: true,
			pre: 100, preS: 30, dip: 10, dipAt: 120, dipPct: ptr(10), recovery: ptr(0)},
		// Periods of 10, 30, 10 and 10 s: the three ending in (30, 60] weigh
		// 30, 10 and 10: (40x30 + 100x10 + 100x10) / 50 = 64.
		{name: "periods weighed by their length", tputs: []float64{100, 40, 100, 100, 80, 100, 100}, ends: []float64{10, 40, 50, 60, 70, 80, 90}, at: 60, ok: true,
			pre: 64, preS: 50, dip: 80, dipAt: 70, dipPct: ptr(125), recovery: ptr(0)},
		// The period ending exactly 30 s before is not in the pre window.
		{name: "a period ending exactly 30 s before", tputs: []float64{10, 100, 100, 90}, ends: []float64{30, 45, 60, 75}, at: 60, ok: true,
			pre: 100, preS: 30, dip: 90, dipAt: 75, dipPct: ptr(90)},
		// The first period after ends 70 s after: no period ends in the
		// window, that one is the dip; the recovery starts with the next.
		{name: "the first period after is longer than the window", tputs: []float64{100, 100, 100, 40, 100, 100, 100}, ends: []float64{10, 20, 30, 100, 110, 120, 130}, at: 30, ok: true,
			pre: 100, preS: 30, dip: 40, dipAt: 100, dipPct: ptr(40), recovery: ptr(70)},
		{name: "at the start: no period before", tputs: steady(10, 100), at: 0},
		{name: "at the end: no period after", tputs: steady(10, 100), at: 20},
		{name: "no periods", at: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := periods(tt.tputs...)
			for i, end := range tt.ends {
				ps[i].TS = end
			}
			r, ok := Measure(ps, Time{AtS: tt.at, Cause: "stepdown"})
			if ok != tt.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, tt.ok, r)
			}
			if !ok {
				return
			}
			if r.AtS != tt.at || r.Cause != "stepdown" || r.PreReadTput != tt.pre || r.PreS != tt.preS || r.DipReadTput != tt.dip || r.DipAtS != tt.dipAt {
				t.Errorf("at %v %q pre %v over %v s, dip %v at %v; want at %v pre %v over %v s, dip %v at %v",
					r.AtS, r.Cause, r.PreReadTput, r.PreS, r.DipReadTput, r.DipAtS, tt.at, tt.pre, tt.preS, tt.dip, tt.dipAt)
			}
			if fmtPtr(r.DipPct) != fmtPtr(tt.dipPct) || fmtPtr(r.RecoveryS) != fmtPtr(tt.recovery) {
				t.Errorf("dip %s %%, recovery %s s; want %s %%, %s s", fmtPtr(r.DipPct), fmtPtr(r.RecoveryS), fmtPtr(tt.dipPct), fmtPtr(tt.recovery))
			}
			wantDepth := "null"
			if tt.dipPct != nil {
				wantDepth = fmt.Sprint(100 - *tt.dipPct)
			}
			if fmtPtr(r.DepthPct) != wantDepth {
				t.Errorf("depth %s %%, want %s", fmtPtr(r.DepthPct), wantDepth)
			}
		})
	}
}

// TestServingMember: the member that served the most reads in the minute
// after is the serving one, and its highest miss rate there is reported
// (periods it was not measured in skipped); the old primary's misses before
// the reconfiguration and after the window do not count.
func TestServingMember(t *testing.T) {
	ps := periods(cat(steady(5, 100), steady(35, 60))...)
	member := func(name string, served int64, miss *float64) results.Member {
		return results.Member{Host: "h-" + name, Name: name, Served: served, CacheMissPct: miss}
	}
	for i := range ps {
		switch at := ps[i].TS; {
		case at <= 10:
			ps[i].Members = []results.Member{member("n1", 200, ptr(99)), member("n2", 0, ptr(0))}
		case at == 12:
			ps[i].Members = []results.Member{member("n1", 10, ptr(95)), member("n2", 100, nil)}
		case at == 14:
			ps[i].Members = []results.Member{member("n1", 0, nil), member("n2", 120, ptr(87))}
		case at <= 70:
			ps[i].Members = []results.Member{member("n1", 0, ptr(0)), member("n2", 120, ptr(31))}
		default:
			ps[i].Members = []results.Member{member("n2", 120, ptr(90))}
		}
	}
	r, ok := Measure(ps, Time{AtS: 10, Cause: "stepdown"})
	if !ok || r.ServingMember != "n2" || fmtPtr(r.ServingMaxCacheMissPct) != "87" {
		t.Errorf("serving %q max miss %s %%, want n2 87 (ok %v)", r.ServingMember, fmtPtr(r.ServingMaxCacheMissPct), ok)
	}

	// Without member stats: the member, and no miss rate; without names:
	// the host; nobody served: neither.
	for i := range ps {
		for k := range ps[i].Members {
			ps[i].Members[k].CacheMissPct, ps[i].Members[k].Name = nil, ""
		}
	}
	if r, _ := Measure(ps, Time{AtS: 10}); r.ServingMember != "h-n2" || r.ServingMaxCacheMissPct != nil {
		t.Errorf("serving %q max miss %s, want h-n2 and null", r.ServingMember, fmtPtr(r.ServingMaxCacheMissPct))
	}
	if r, _ := Measure(periods(steady(20, 100)...), Time{AtS: 10}); r.ServingMember != "" || r.ServingMaxCacheMissPct != nil {
		t.Errorf("no members: serving %q max miss %s, want neither", r.ServingMember, fmtPtr(r.ServingMaxCacheMissPct))
	}
}

// TestServingMemberChoice: which member served the reads of the minute
// after, summed over its periods, and its highest miss rate in any of them.
func TestServingMemberChoice(t *testing.T) {
	type m struct {
		name   string
		served int64
		miss   float64 // < 0: not measured
	}
	for _, tc := range []struct {
		name   string
		after  [][]m // the members of the periods ending at 12, 14... s
		member string
		miss   string
	}{
		{"the highest miss rate, not the first", [][]m{{{"n2", 100, 31}}, {{"n2", 100, 87}}, {{"n2", 100, 40}}}, "n2", "87"},
		{"the highest miss rate, not the last", [][]m{{{"n2", 100, 87}}, {{"n2", 100, 31}}, {{"n2", 100, -1}}}, "n2", "87"},
		{"reads summed over the periods", [][]m{{{"n1", 200, 5}, {"n2", 0, 6}}, {{"n1", 0, 7}, {"n2", 150, 8}}}, "n1", "7"},
		{"a tie goes to the lower name", [][]m{{{"n2", 100, 20}, {"n1", 100, 10}}}, "n1", "10"},
		{"a member that served nothing is not serving", [][]m{{{"n1", 0, 50}, {"n2", 0, 60}}}, "", "null"},
		{"the serving member's rate only", [][]m{{{"n1", 10, 99}, {"n2", 100, 12}}}, "n2", "12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := periods(steady(5+len(tc.after), 100)...) // at 10 s: 5 periods before
			for i, members := range tc.after {
				for _, x := range members {
					var miss *float64
					if x.miss >= 0 {
						miss = ptr(x.miss)
					}
					ps[5+i].Members = append(ps[5+i].Members, results.Member{Host: "h-" + x.name, Name: x.name, Served: x.served, CacheMissPct: miss})
				}
			}
			r, ok := Measure(ps, Time{AtS: 10})
			if !ok || r.ServingMember != tc.member || fmtPtr(r.ServingMaxCacheMissPct) != tc.miss {
				t.Errorf("serving %q max miss %s %%, want %q %s (ok %v)", r.ServingMember, fmtPtr(r.ServingMaxCacheMissPct), tc.member, tc.miss, ok)
			}
		})
	}
}

func TestTimes(t *testing.T) {
	cfg := results.Config{
		Phases: []results.PhaseSpec{{AtS: 0, Workload: "c"}, {AtS: 60, Actions: []string{"stepdown"}},
			{AtS: 90, Clients: 8}, {AtS: 120, Actions: []string{"kill=n1", "restart=n1"}}, {AtS: 150, Reads: "n2"}},
		ReconfigAtS: []float64{200, 60, 30},
	}
	want := []Time{{30, Given}, {60, "stepdown"}, {120, "kill=n1,restart=n1"}, {150, "reads=n2"}, {200, Given}}
	if got := Times(cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}
	if got := Times(results.Config{Phases: []results.PhaseSpec{{AtS: 30, Clients: 4}}}); got != nil {
		t.Errorf("no fault action: %v, want none", got)
	}
	ps := periods(steady(110, 100)...)
	if got := Run(ps, want); len(got) != 5 || got[1].Cause != "stepdown" || got[4].AtS != 200 {
		t.Errorf("Run: %+v", got)
	}
	if got := Run(ps, []Time{{AtS: 0}, {AtS: 500}}); got != nil {
		t.Errorf("Run with nothing measurable: %+v, want nil", got)
	}
}
