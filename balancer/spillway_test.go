package balancer

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// newSpillway returns a Spillway with the defaults but a 1 ms primary
// floor, no deadband and no probe rate (the probe share is ProbeShare
// whatever the read rate), the values the tables below were worked out
// with, changed by mutate.
func newSpillway(t *testing.T, mutate func(*SpillwayConfig)) *Spillway {
	t.Helper()
	return newDefaultSpillway(t, func(cfg *SpillwayConfig) {
		cfg.PrimaryFloor, cfg.Deadband, cfg.ProbeRate = time.Millisecond, 0, 0
		if mutate != nil {
			mutate(cfg)
		}
	})
}

// med is a member's reads in a period: count reads of the given median
// latency (ms), with no RTT known, so the median is all server time.
func med(host string, count int, p50MS float64) MemberStats {
	return MemberStats{Host: host, Count: count, P50: dur(p50MS)}
}

// dur converts milliseconds.
func dur(msec float64) time.Duration { return time.Duration(msec * float64(ms)) }

// withWrites adds count writes of the given median (ms) to a period.
func withWrites(p Period, count int, p50MS float64) Period {
	p.Writes = Stats{Count: count, P50: dur(p50MS)}
	return p
}

// repeat is n copies of a step.
func repeat(n int, st spStep) []spStep {
	out := make([]spStep, n)
	for i := range out {
		out[i] = st
	}
	return out
}

// spStep is one observation fed to Spillway and what must hold after it.
type spStep struct {
	lag    *Lag
	period *Period
	// want, when set, is the exact routing expected (host -> share, the
	// primary's under "primary"; hosts absent must have no share).
	want map[string]float64
	// check, when set, asserts a property of the routing, given the
	// routing before the step.
	check func(before, w Weights) error
	// reason, when set, is the decision's expected Reason.
	reason string
	// ratio, when set, is the decision's expected Ratio (NaN: want NaN).
	ratio *float64
}

// Shares a fresh poll gives: the primary keeps its share, each newcomer gets
// ProbeShare, then all are scaled to sum to 1.
const (
	p2 = 1 / 1.02    // primary with two probing secondaries
	q2 = 0.01 / 1.02 // each of them
	p1 = 1 / 1.01    // primary with one probing secondary
	q1 = 0.01 / 1.01 // it
)

func ratio(v float64) *float64 { return &v }

// primaryAtLeast checks the primary's share.
func primaryAtLeast(f float64) func(_, w Weights) error {
	return func(_, w Weights) error {
		if w.Primary < f-1e-12 {
			return fmt.Errorf("primary share %v, want at least %v", w.Primary, f)
		}
		return nil
	}
}

// primaryFalls checks that the primary's share went down, to at most f.
func primaryFalls(f float64) func(before, w Weights) error {
	return func(before, w Weights) error {
		if w.Primary >= before.Primary || w.Primary > f {
			return fmt.Errorf("primary share %v -> %v, want it down to at most %v", before.Primary, w.Primary, f)
		}
		return nil
	}
}

// noShare checks that host has no share.
func noShare(host string) func(_, w Weights) error {
	return func(_, w Weights) error {
		if w.Of(host) != 0 || slices.ContainsFunc(w.Secondaries, func(h HostWeight) bool { return h.Host == host }) {
			return fmt.Errorf("%s is weighted: %v", host, w)
		}
		return nil
	}
}

// runSteps feeds the steps to s and checks each.
func runSteps(t *testing.T, s *Spillway, steps []spStep) {
	t.Helper()
	for i, st := range steps {
		before := s.Weights()
		var dec Decision
		switch {
		case st.period != nil:
			dec = s.EndPeriod(*st.period)
			if dec.Fraction != s.Fraction() {
				t.Fatalf("step %d: decision fraction %v but Fraction() %v", i, dec.Fraction, s.Fraction())
			}
		case st.lag != nil:
			if got := s.ObserveLag(*st.lag); got != s.Fraction() {
				t.Fatalf("step %d: ObserveLag returned %v but Fraction() %v", i, got, s.Fraction())
			}
		}
		w := s.Weights()
		if err := checkWeights(w); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if math.Abs(s.Fraction()-w.Secondary()) > 1e-12 {
			t.Fatalf("step %d: Fraction %v, secondaries' share %v", i, s.Fraction(), w.Secondary())
		}
		if st.want != nil {
			got := shares(w)
			for _, h := range w.Secondaries {
				if _, ok := st.want[h.Host]; !ok {
					t.Fatalf("step %d: weights %v give %s a share, want %v", i, w, h.Host, st.want)
				}
			}
			for k, v := range st.want {
				if _, ok := got[k]; !ok {
					t.Fatalf("step %d: weights %v lack %s, want %v", i, w, k, st.want)
				}
				if math.Abs(got[k]-v) > 1e-9 {
					t.Fatalf("step %d: weights %v, want %v", i, w, st.want)
				}
			}
		}
		if st.check != nil {
			if err := st.check(before, w); err != nil {
				t.Fatalf("step %d: %v (decision %+v)", i, err, dec)
			}
		}
		if st.reason != "" && dec.Reason != st.reason {
			t.Fatalf("step %d: reason %q, want %q (weights %v, %s)", i, dec.Reason, st.reason, w, dec.Detail)
		}
		if st.ratio != nil {
			if want := *st.ratio; math.IsNaN(want) != math.IsNaN(dec.Ratio) || !math.IsNaN(want) && math.Abs(dec.Ratio-want) > 1e-9 {
				t.Fatalf("step %d: ratio %v, want %v (%s)", i, dec.Ratio, want, dec.Detail)
			}
		}
	}
}

func TestSpillway(t *testing.T) {
	// Idle: the secondaries answer in 0.1 ms, the primary in 0.6.
	idle := secPeriod(med(h1, 200, 0.6), med(h2, 20, 0.1), med(h3, 20, 0.1))
	// Light load: the primary 3 times slower than the secondaries but
	// under the 1 ms PrimaryFloor.
	light := secPeriod(med(h1, 200, 0.6), med(h2, 20, 0.2), med(h3, 20, 0.2))
	// A congested primary: its reads take 20 ms, the secondaries' 5 ms.
	congested := secPeriod(med(h1, 200, 20), med(h2, 200, 5), med(h3, 200, 5))
	// The primary's reads are fine (2 ms) but its writes take 500 ms.
	writeSaturated := withWrites(secPeriod(med(h1, 100, 2), med(h2, 100, 0.5), med(h3, 100, 0.5)), 100, 500)
	// h3 is 3 times slower than h2.
	unequal := secPeriod(med(h1, 200, 20), med(h2, 200, 2), med(h3, 200, 6))
	// After an election h2 is the primary, congested.
	congestedH2 := secPeriod(med(h2, 200, 20), med(h1, 200, 5), med(h3, 200, 5))
	lightH2 := secPeriod(med(h2, 200, 0.6), med(h1, 20, 0.2), med(h3, 20, 0.2))
	elected := poll(time.Second, prim(h2), sec(h1, 0), sec(h3, 0))
	// h3 is 50 times slower than h2.
	slowH3 := secPeriod(med(h1, 200, 20), med(h2, 200, 1), med(h3, 20, 50))
	// Light load, h3 25 times slower than h2.
	slowSecondary := secPeriod(med(h1, 200, 0.6), med(h2, 20, 0.2), med(h3, 20, 5))

	tests := []struct {
		name   string
		mutate func(*SpillwayConfig)
		steps  []spStep
	}{
		{
			name:  "starts on the primary",
			steps: []spStep{{want: map[string]float64{"primary": 1}}},
		},
		{
			name: "fresh secondaries start at the probe share",
			steps: []spStep{
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				// a second poll keeps the shares
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
			},
		},
		{
			name: "bound 0: primary only, whatever the polls and periods",
			mutate: func(c *SpillwayConfig) {
				c.Bound = Bound{}
				c.Headroom = 0
			},
			steps: append([]spStep{
				{lag: l(poll(0, prim(h1), sec(h2, 0), sec(h3, 0))), want: map[string]float64{"primary": 1}},
				{period: p(idle), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary", ratio: ratio(nan())},
			}, repeat(5, spStep{period: p(congested), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"})...),
		},
		{
			name: "bound 0 with AutoHeadroom",
			mutate: func(c *SpillwayConfig) {
				c.Bound = Bound{}
			},
			steps: []spStep{
				{lag: l(poll(0, prim(h1), sec(h2, 0), sec(h3, 0))), want: map[string]float64{"primary": 1}},
				{period: p(congested), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
			},
		},
		{
			name: "an unknown or expired poll: primary only until a known one",
			steps: []spStep{
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				{period: p(idle)},
				{period: p(congested), reason: "spill"},
				// expired: the monitor says unknown, with the members it last saw
				{lag: l(Lag{Known: false, Horizon: time.Second, Members: freshPoll.Members}), want: map[string]float64{"primary": 1}},
				{period: p(congested), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
				// failed: nothing known at all
				{lag: l(Lag{}), want: map[string]float64{"primary": 1}},
				{period: p(congested), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
				// known again: probe shares first
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				{period: p(congested), reason: "spill", check: primaryFalls(0.9)},
			},
		},
		{
			name: "a member not SECONDARY (Role 0) never gets weight",
			steps: append([]spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, 0), MemberLag{Host: h3, Lag: 0})),
					want: map[string]float64{"primary": p1, h2: q1}},
				{period: p(idle)},
			}, repeat(10, spStep{period: p(congested), reason: "spill", check: noShare(h3)})...),
		},
		{
			name: "lag plus the poll's horizon at the bound is fresh, over it is stale (AutoHeadroom)",
			steps: []spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, 9*time.Second), sec(h3, 9*time.Second+time.Nanosecond))),
					want: map[string]float64{"primary": p1, h2: q1}},
				{lag: l(poll(2*time.Second, prim(h1), sec(h2, 8*time.Second), sec(h3, 9*time.Second))),
					want: map[string]float64{"primary": p1, h2: q1}},
				{lag: l(poll(0, prim(h1), sec(h2, 10*time.Second), sec(h3, 10*time.Second+ms))),
					want: map[string]float64{"primary": p1, h2: q1}},
			},
		},
		{
			name:   "a fixed headroom ignores the horizon",
			mutate: func(c *SpillwayConfig) { c.Headroom = 2 * time.Second },
			steps: []spStep{
				{lag: l(poll(5*time.Second, prim(h1), sec(h2, 8*time.Second), sec(h3, 8*time.Second+ms))),
					want: map[string]float64{"primary": p1, h2: q1}},
			},
		},
		{
			name:   "headroom 0: the lag alone against the bound",
			mutate: func(c *SpillwayConfig) { c.Headroom = 0 },
			steps: []spStep{
				{lag: l(poll(5*time.Second, prim(h1), sec(h2, 10*time.Second), sec(h3, 10*time.Second+ms))),
					want: map[string]float64{"primary": p1, h2: q1}},
			},
		},
		{
			name:   "unbounded: any known lag is fresh, an unknown one none",
			mutate: func(c *SpillwayConfig) { c.Bound = Bound{Unbounded: true} },
			steps: []spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, time.Hour), sec(h3, 0))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				{lag: l(Lag{Members: freshPoll.Members}), want: map[string]float64{"primary": 1}},
			},
		},
		{
			name: "a host listed twice counts once",
			steps: []spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, 0), sec(h2, 0))), want: map[string]float64{"primary": p1, h2: q1}},
			},
		},
		{
			name: "a stale secondary drops out alone at the poll and the other keeps serving",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
				{period: p(congested)},
				{period: p(congested)},
				{period: p(congested), check: func(_, w Weights) error {
					if w.Of(h2) < 0.2 || w.Of(h3) < 0.2 {
						return fmt.Errorf("secondaries not serving: %v", w)
					}
					return nil
				}},
				{lag: l(poll(time.Second, prim(h1), sec(h2, 100*ms), sec(h3, 9500*ms))), check: func(before, w Weights) error {
					if w.Of(h3) != 0 || len(w.Secondaries) != 1 {
						return fmt.Errorf("stale h3 kept a share: %v", w)
					}
					if want := before.Of(h2) + before.Of(h3); math.Abs(w.Of(h2)-want) > 1e-12 {
						return fmt.Errorf("fresh h2 has %v, want %v (h3's share added: the primary's load unchanged)", w.Of(h2), want)
					}
					return nil
				}},
			},
				// the periods that end while h3 is stale keep it out, and h2 serves
				repeat(3, spStep{period: p(congested), reason: "spill", check: func(_, w Weights) error {
					if w.Of(h3) != 0 || w.Of(h2) < 0.5 {
						return fmt.Errorf("want h2 serving alone: %v", w)
					}
					return nil
				}})...),
				// back within the bound: a probe share first
				spStep{lag: l(freshPoll), check: func(before, w Weights) error {
					if got, want := w.Of(h3), 0.01/1.01; math.Abs(got-want) > 1e-12 {
						return fmt.Errorf("h3 back with %v, want the probe share %v", got, want)
					}
					if got, want := w.Of(h2), before.Of(h2)/1.01; math.Abs(got-want) > 1e-12 {
						return fmt.Errorf("h2 %v, want its share scaled %v", got, want)
					}
					return nil
				}}),
		},
		{
			name: "the primary's or the secondaries' cost unknown: weights stay as they are",
			steps: []spStep{
				{lag: l(freshPoll)},
				// the secondaries are measured from their few reads, the
				// primary not at all
				{period: p(secPeriod(med(h2, 9, 5), med(h3, 9, 5))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples", ratio: ratio(nan())},
				{period: p(secPeriod(med(h2, 400, 0.5), med(h3, 400, 0.5))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples"},
				{period: p(Period{Length: time.Second}),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples"},
				// the primary measured at last, from a few reads: 20 ms, 9
				// reads/s, so 0.18 in flight; the secondaries (both only
				// probed, so the least) 2.75 ms (5 then 0.5, smoothed by
				// 0.5), with no reads in this period, so none in flight
				{period: p(secPeriod(med(h1, 9, 20))), reason: "spill",
					ratio: ratio(0.020 * 1.18 / 0.00275), check: primaryFalls(0.9)},
			},
		},
		{
			name: "no fresh secondary: primary only at the period end",
			steps: []spStep{
				{period: p(congested), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary", ratio: ratio(nan())},
			},
		},
		{
			// the primary's 0.6 ms against the 1 ms floor: ratio 0.6, though
			// its marginal cost is 6.7 times the secondaries'
			name: "light load under the primary floor stays on the primary",
			steps: append([]spStep{
				{lag: l(freshPoll)},
				{period: p(idle), reason: "primary", ratio: ratio(0.6), want: map[string]float64{"primary": 0.98, h2: 0.01, h3: 0.01}},
			}, repeat(10, spStep{period: p(light), reason: "primary", ratio: ratio(0.6),
				want: map[string]float64{"primary": 0.98, h2: 0.01, h3: 0.01}})...),
		},
		{
			name:   "without the floor the same light load spills",
			mutate: func(c *SpillwayConfig) { c.PrimaryFloor = 0 },
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
				// the primary 0.6 ms at 200 reads/s (0.12 in flight) against
				// the least secondary (both only probed), 0.15 ms (0.1 then
				// 0.2, smoothed) at 20 reads/s
				{period: p(light), reason: "spill", ratio: ratio(0.0006 * 1.12 / (0.00015 * (1 + 20*0.00015))), check: primaryFalls(0.97)},
			},
		},
		{
			name: "a congested primary spills until only its probe share is left",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
			}, repeat(15, spStep{period: p(congested), reason: "spill", check: func(before, w Weights) error {
				if w.Primary > before.Primary || w.Primary < 0.01-1e-12 {
					return fmt.Errorf("primary %v -> %v", before.Primary, w.Primary)
				}
				if d := math.Abs(w.Of(h2) - w.Of(h3)); d > 1e-12 {
					return fmt.Errorf("equal secondaries differ by %v", d)
				}
				return nil
			}})...),
				spStep{period: p(congested), reason: "spill", want: map[string]float64{"primary": 0.01, h2: 0.495, h3: 0.495}}),
		},
		{
			name: "a primary saturated by writes gives the secondaries every read (its writes are its probe)",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
			}, repeat(20, spStep{period: p(writeSaturated), reason: "spill"})...),
				spStep{period: p(writeSaturated), reason: "spill", check: func(_, w Weights) error {
					if s := w.Secondary(); s < 1-1e-6 {
						return fmt.Errorf("secondaries' share %v, want all but a vanishing share", s)
					}
					return nil
				}}),
		},
		{
			name: "a primary left no reads by its writes takes back primaryStep when they ease",
			// no read reached it: its writes' 1 ms alone is under the 2.5 ms floor
			mutate: func(c *SpillwayConfig) { c.PrimaryFloor, c.Smoothing = 2500*time.Microsecond, 1 },
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
			}, repeat(20, spStep{period: p(writeSaturated), reason: "spill"})...),
				spStep{period: p(withWrites(secPeriod(med(h2, 150, 0.5), med(h3, 150, 0.5)), 100, 1)), reason: "primary",
					check: func(before, w Weights) error {
						if want := before.Primary + primaryStep; math.Abs(w.Primary-want) > 1e-9 {
							return fmt.Errorf("primary share %v, want %v (primaryStep from %v)", w.Primary, want, before.Primary)
						}
						return nil
					}}),
		},
		{
			name:   "the same reads without the writes stay under a 2.5 ms floor",
			mutate: func(c *SpillwayConfig) { c.PrimaryFloor = 2500 * time.Microsecond },
			steps: append([]spStep{
				{lag: l(freshPoll)},
			}, repeat(5, spStep{period: p(secPeriod(med(h1, 100, 2), med(h2, 100, 0.5), med(h3, 100, 0.5))),
				reason: "primary", check: primaryAtLeast(0.98)})...),
		},
		{
			name: "unequal secondaries: the slower one ends with the smaller share",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
			}, repeat(10, spStep{period: p(unequal)})...),
				spStep{period: p(unequal), check: func(_, w Weights) error {
					if w.Of(h3) >= w.Of(h2)/2 {
						return fmt.Errorf("h2 %v, h3 %v: want the slower h3 well below h2", w.Of(h2), w.Of(h3))
					}
					return nil
				}}),
		},
		{
			// The floor is ProbeShare of all reads: with the primary at 0.98
			// both secondaries are held at it, however slow (a floor of
			// ProbeShare of the secondaries' part would leave h3 0.0002).
			name: "a slow secondary keeps ProbeShare of all reads while the primary holds the rest",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
			}, repeat(30, spStep{period: p(slowSecondary), reason: "primary", check: func(_, w Weights) error {
				if w.Primary < 0.98-1e-12 || w.Of(h3) < 0.01-1e-12 || w.Of(h3) > w.Of(h2)+1e-12 {
					return fmt.Errorf("want the primary at 0.98, h3 at least ProbeShare and no more than h2: %v", w)
				}
				return nil
			}})...),
				spStep{period: p(slowSecondary), reason: "primary", want: map[string]float64{"primary": 0.98, h2: 0.01, h3: 0.01}}),
		},
		{
			// With reads spilled, a secondary 50 times slower falls to the
			// floor: ProbeShare of all reads, not of the secondaries' part.
			name: "a slow secondary keeps ProbeShare of all reads while reads spill",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
			}, repeat(40, spStep{period: p(slowH3), reason: "spill", check: func(_, w Weights) error {
				if w.Of(h3) < 0.01-1e-12 {
					return fmt.Errorf("h3 %v under ProbeShare of all reads: %v", w.Of(h3), w)
				}
				return nil
			}})...),
				spStep{period: p(slowH3), reason: "spill", check: func(_, w Weights) error {
					if math.Abs(w.Of(h3)-0.01) > 1e-12 || w.Primary > 0.5 {
						return fmt.Errorf("want h3 at ProbeShare of all reads, the primary spilled: %v", w)
					}
					return nil
				}}),
		},
		{
			name: "a slow secondary at its probe share does not keep the reads on a congested primary",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
				// both secondaries only probed: the spilled reads' marginal
				// cost is the least of theirs, h2's 1.2 ms (1 ms, 0.2 in
				// flight), h3's is 100 ms; the primary's 100 ms (20 ms, 4
				// in flight) is 83 times it, but its time only 20 times the
				// 1 ms floor: the ratio is 20
				{period: p(slowH3), reason: "spill", ratio: ratio(20), check: primaryFalls(p2*math.Pow(20, -0.25) + 1e-12)},
			}, repeat(10, spStep{period: p(slowH3), reason: "spill"})...),
				spStep{period: p(slowH3), reason: "spill", check: func(before, w Weights) error {
					if w.Primary > 0.5 {
						return fmt.Errorf("primary %v, want the reads spilled", w.Primary)
					}
					if w.Of(h3) >= w.Of(h2)/10 {
						return fmt.Errorf("slow h3 %v, h2 %v", w.Of(h3), w.Of(h2))
					}
					return nil
				}}),
		},
		{
			name: "an election: the new primary takes the primary's share, the old one probes as a secondary",
			steps: append(append(append([]spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
				{period: p(congested)},
				{period: p(congested)},
				{lag: l(elected), check: func(before, w Weights) error {
					if err := noShare(h2)(before, w); err != nil {
						return fmt.Errorf("the new primary: %v", err)
					}
					if w.Of(h1) == 0 || w.Of(h3) == 0 {
						return fmt.Errorf("a fresh secondary has no share: %v", w)
					}
					// h2's secondary share goes to h3; h1 probes.
					if want := before.Primary / 1.01; math.Abs(w.Primary-want) > 1e-12 {
						return fmt.Errorf("primary %v, want the primary's share %v (less h1's probe share)", w.Primary, want)
					}
					if want := (before.Of(h3) + before.Of(h2)) / 1.01; math.Abs(w.Of(h3)-want) > 1e-12 {
						return fmt.Errorf("h3 %v, want its share with h2's %v", w.Of(h3), want)
					}
					return nil
				}},
			},
				// the new primary is congested: reads spill to h1 and h3
				repeat(3, spStep{period: p(congestedH2), reason: "spill", check: func(before, w Weights) error {
					if err := noShare(h2)(before, w); err != nil {
						return err
					}
					return primaryFalls(1)(before, w)
				}})...),
				// then light: the reads go back to the new primary
				repeat(60, spStep{period: p(lightH2)})...),
				spStep{period: p(lightH2), reason: "primary", check: func(_, w Weights) error {
					// the secondaries' split is where the spill left it: h1,
					// slow when it stepped down, holds little of it
					if math.Abs(w.Primary-0.98) > 1e-12 || w.Of(h1) <= 0 || w.Of(h3) <= w.Of(h1) {
						return fmt.Errorf("want the primary at 0.98, h1 and h3 weighted: %v", w)
					}
					return nil
				}}),
		},
		{
			name:   "ProbeShare 0: a newcomer is admitted with no share, and gets one when reads spill",
			mutate: func(c *SpillwayConfig) { c.ProbeShare = 0 },
			steps: []spStep{
				{lag: l(freshPoll), want: map[string]float64{"primary": 1, h2: 0, h3: 0}},
				{period: p(idle), reason: "primary", want: map[string]float64{"primary": 1, h2: 0, h3: 0}},
				{period: p(congested), reason: "spill", check: func(_, w Weights) error {
					if w.Of(h2) <= 0 || math.Abs(w.Of(h2)-w.Of(h3)) > 1e-12 {
						return fmt.Errorf("want equal positive secondary shares: %v", w)
					}
					return nil
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, newSpillway(t, tt.mutate), tt.steps)
		})
	}
}

func TestNormalise(t *testing.T) {
	tests := []struct {
		name string
		in   Weights
		want map[string]float64
	}{
		{"scaled to sum to 1", Weights{Primary: 1, Secondaries: []HostWeight{{h2, 0.5}, {h3, 0.5}}},
			map[string]float64{"primary": 0.5, h2: 0.25, h3: 0.25}},
		{"nothing: all on the primary", Weights{}, map[string]float64{"primary": 1}},
		{"zero shares: all on the primary", Weights{Secondaries: []HostWeight{{h2, 0}}}, map[string]float64{"primary": 1}},
		{"NaN: all on the primary", Weights{Primary: nan(), Secondaries: []HostWeight{{h2, 1}}}, map[string]float64{"primary": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shares(normalise(tt.in))
			if len(got) != len(tt.want) {
				t.Fatalf("normalise(%v) = %v, want %v", tt.in, got, tt.want)
			}
			for k, v := range tt.want {
				if math.Abs(got[k]-v) > 1e-15 {
					t.Fatalf("normalise(%v) = %v, want %v", tt.in, got, tt.want)
				}
			}
		})
	}
}

func TestSpillwayStaleShareGoesToTheFreshSecondaries(t *testing.T) {
	congested := secPeriod(med(h1, 200, 20), med(h2, 200, 2), med(h3, 200, 4))
	tests := []struct {
		name string
		poll Lag
	}{
		{"h3 over the bound", poll(time.Second, prim(h1), sec(h2, 0), sec(h3, 20*time.Second))},
		{"h3 down", poll(time.Second, prim(h1), sec(h2, 0), MemberLag{Host: h3})},
		{"h3 removed from the set", poll(time.Second, prim(h1), sec(h2, 0))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
			s.ObserveLag(freshPoll)
			for range 3 {
				s.EndPeriod(congested)
			}
			before := s.Weights()
			gone := before.Of(h3)
			if gone < 0.05 || math.Abs(before.Of(h2)-gone) < 0.01 {
				t.Fatalf("weights %v before h3 goes: the test needs real, unequal shares", before)
			}
			s.ObserveLag(tt.poll)
			after := s.Weights()
			// h3's share goes to h2, the fresh secondary: the primary's
			// load stays where the controller left it.
			want := map[string]float64{"primary": before.Primary, h2: before.Of(h2) + gone}
			got := shares(after)
			if len(got) != len(want) {
				t.Fatalf("weights %v, want %v", after, want)
			}
			for k, v := range want {
				if math.Abs(got[k]-v) > 1e-12 {
					t.Fatalf("weights %v, want %v", after, want)
				}
			}
			if f := s.Fresh(); !slices.Equal(f, []string{h2}) {
				t.Fatalf("fresh %v, want [%s]", f, h2)
			}
		})
	}
}

// TestSpillwayDecision checks each branch of EndPeriod's arithmetic with
// Smoothing 1 (a period's latencies and rates are taken as they are) and no
// primary floor unless a row sets one. A member's marginal cost is its time
// t (s) x (1 + rate x t).
func TestSpillwayDecision(t *testing.T) {
	const gain = 0.25
	mc := func(reads, ms float64) float64 { return ms / 1000 * (1 + reads*ms/1000) }
	congested := secPeriod(med(h1, 100, 20), med(h2, 100, 5), med(h3, 100, 5)) // 0.06 s against 0.0075: 8
	tests := []struct {
		name    string
		mutate  func(*SpillwayConfig)
		periods []Period // the last one is decided on
		// primary is the primary's share expected, given its share before
		// the last period; ratio the decision's Ratio.
		primary func(before float64) float64
		ratio   float64
		reason  string
	}{
		{
			name:    "spill: the share shrinks by ratio^-Gain",
			periods: []Period{congested},
			primary: func(b float64) float64 { return b * math.Pow(8, -gain) },
			ratio:   8, reason: "spill",
		},
		{
			name: "the primary's time over the floor bounds the ratio",
			// marginal costs 7.4 times apart, the primary's time 3 ms: 3 x the floor
			mutate:  func(c *SpillwayConfig) { c.PrimaryFloor = time.Millisecond },
			periods: []Period{secPeriod(med(h1, 100, 3), med(h2, 100, 0.5), med(h3, 100, 0.5))},
			primary: func(b float64) float64 { return b * math.Pow(3, -gain) },
			ratio:   3, reason: "spill",
		},
		{
			name: "primary: the secondaries' share shrinks by ratio^gain, the gain halved by the reversal",
			// first spill, then the primary at 2 ms against the secondaries' 5 ms
			periods: []Period{congested, secPeriod(med(h1, 100, 2), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return 1 - (1-b)*math.Pow(mc(100, 2)/mc(100, 5), gain/2) },
			ratio:   mc(100, 2) / mc(100, 5), reason: "primary",
		},
		{
			name:    "a second step the same way: the gain stays at Gain",
			periods: []Period{congested, secPeriod(med(h1, 100, 10), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return b * math.Pow(mc(100, 10)/mc(100, 5), -gain) },
			ratio:   mc(100, 10) / mc(100, 5), reason: "spill",
		},
		{
			name: "after a reversal the gain grows back by 1.25 a step",
			periods: []Period{congested, secPeriod(med(h1, 100, 2), med(h2, 100, 5), med(h3, 100, 5)),
				secPeriod(med(h1, 100, 2), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return 1 - (1-b)*math.Pow(mc(100, 2)/mc(100, 5), gain/2*1.25) },
			ratio:   mc(100, 2) / mc(100, 5), reason: "primary",
		},
		{
			name:    "equal marginal costs: no change",
			periods: []Period{congested, secPeriod(med(h1, 100, 5), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return b },
			ratio:   1, reason: "primary",
		},
		{
			name: "deadband: a primary within 1+Deadband of the others keeps its share",
			// 5.5 ms at 100 reads/s against 5 ms: 1.137 < 1.25
			mutate:  func(c *SpillwayConfig) { c.Deadband = 0.25 },
			periods: []Period{secPeriod(med(h1, 100, 5.5), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return min(b, 0.98) }, // 1 - n x ProbeShare
			ratio:   mc(100, 5.5) / mc(100, 5), reason: "primary",
		},
		{
			name:    "deadband: a larger error moves the share by the part beyond it",
			mutate:  func(c *SpillwayConfig) { c.Deadband = 0.25 },
			periods: []Period{congested},
			primary: func(b float64) float64 { return b * math.Pow(8/1.25, -gain) },
			ratio:   8, reason: "spill",
		},
		{
			name:    "deadband: below the others too",
			mutate:  func(c *SpillwayConfig) { c.Deadband = 0.25 },
			periods: []Period{congested, secPeriod(med(h1, 100, 2), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return 1 - (1-b)*math.Pow(mc(100, 2)/mc(100, 5)*1.25, gain/2) },
			ratio:   mc(100, 2) / mc(100, 5), reason: "primary",
		},
		{
			name:    "clamped at ProbeShare",
			mutate:  func(c *SpillwayConfig) { c.Gain = 2 },
			periods: []Period{secPeriod(med(h1, 100, 1000), med(h2, 100, 0.1), med(h3, 100, 0.1))},
			primary: func(float64) float64 { return 0.01 },
			ratio:   mc(100, 1000) / mc(100, 0.1), reason: "spill",
		},
		{
			name: "the primary's share at most doubles in a period",
			// the primary's 0.1 ms is a tenth of the 1 ms floor; the gain, 2,
			// halves at the reversal: 1 - 0.95 x 0.1 = 0.905, but 2 x 0.05
			mutate: func(c *SpillwayConfig) { c.Gain, c.ProbeShare, c.PrimaryFloor = 2, 0.05, time.Millisecond },
			periods: []Period{
				secPeriod(med(h1, 100, 1000), med(h2, 100, 0.1), med(h3, 100, 0.1)), // to the floor
				secPeriod(med(h1, 100, 0.1), med(h2, 100, 0.1), med(h3, 100, 0.1)),
			},
			primary: func(float64) float64 { return 0.1 },
			ratio:   0.1, reason: "primary",
		},
		{
			name: "from its probe share the primary takes back primaryStep in a period",
			// 0.01, then 0.06 where doubling alone would give 0.02
			mutate: func(c *SpillwayConfig) { c.Gain, c.PrimaryFloor = 2, time.Millisecond },
			periods: []Period{
				secPeriod(med(h1, 100, 1000), med(h2, 100, 0.1), med(h3, 100, 0.1)), // to the floor
				secPeriod(med(h1, 100, 0.1), med(h2, 100, 0.1), med(h3, 100, 0.1)),
			},
			primary: func(b float64) float64 { return b + primaryStep },
			ratio:   0.1, reason: "primary",
		},
		{
			name:   "clamped at 1 - n x ProbeShare",
			mutate: func(c *SpillwayConfig) { c.Gain, c.ProbeShare, c.PrimaryFloor = 2, 0.05, time.Millisecond },
			periods: append([]Period{secPeriod(med(h1, 100, 1000), med(h2, 100, 0.1), med(h3, 100, 0.1))}, // to the floor
				slices.Repeat([]Period{secPeriod(med(h1, 100, 0.1), med(h2, 100, 0.1), med(h3, 100, 0.1))}, 5)...), // 0.1, 0.2, 0.4, 0.8, 0.9
			primary: func(float64) float64 { return 0.9 },
			ratio:   0.1, reason: "primary",
		},
		{
			name: "rates are per second of the period",
			// a 2 s period of 200 reads of 20 ms: 100 a second, as congested
			periods: []Period{{Length: 2 * time.Second, Members: []MemberStats{med(h1, 200, 20), med(h2, 200, 5), med(h3, 200, 5)}}},
			primary: func(b float64) float64 { return b * math.Pow(8, -gain) },
			ratio:   8, reason: "spill",
		},
		{
			name: "the primary's writes count in its rate and time",
			// 300 reads of 2 ms and 100 writes of 10 ms: 1.6 in flight, 4
			// ms per operation, so 10.4 ms against the secondaries' 1.1
			periods: []Period{withWrites(secPeriod(med(h1, 300, 2), med(h2, 100, 1), med(h3, 100, 1)), 100, 10)},
			primary: func(b float64) float64 { return b * math.Pow(0.004*2.6/mc(100, 1), -gain) },
			ratio:   0.004 * 2.6 / mc(100, 1), reason: "spill",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, func(c *SpillwayConfig) {
				c.Smoothing, c.PrimaryFloor = 1, 0
				if tt.mutate != nil {
					tt.mutate(c)
				}
			})
			s.ObserveLag(freshPoll)
			var dec Decision
			var before float64
			for _, per := range tt.periods {
				before = s.Weights().Primary
				dec = s.EndPeriod(per)
			}
			w := s.Weights()
			if err := checkWeights(w); err != nil {
				t.Fatal(err)
			}
			if want := tt.primary(before); math.Abs(w.Primary-want) > 1e-12 {
				t.Errorf("primary %v -> %v, want %v", before, w.Primary, want)
			}
			if math.Abs(dec.Ratio-tt.ratio) > 1e-9 || dec.Reason != tt.reason {
				t.Errorf("ratio %v reason %q, want %v %q", dec.Ratio, dec.Reason, tt.ratio, tt.reason)
			}
			if d := math.Abs(w.Of(h2) - w.Of(h3)); d > 1e-12 {
				t.Errorf("equal secondaries differ by %v: %v", d, w)
			}
			if dec.Fraction != w.Secondary() || dec.Detail == "" {
				t.Errorf("decision %+v, weights %v", dec, w)
			}
		})
	}
}

// TestSpillwaySampleWeight checks how far a period's median of n reads
// moves an average.
func TestSpillwaySampleWeight(t *testing.T) {
	tests := []struct {
		minSamples int
		smoothing  float64
		n          int
		want       float64
	}{
		{10, 0.5, 0, 0},
		{10, 0.5, 1, 0.05},
		{10, 0.5, 5, 0.25},
		{10, 0.5, 9, 0.45},
		{10, 0.5, 10, 0.5},
		{10, 0.5, 11, 0.5},
		{10, 0.5, 100000, 0.5},
		{100, 0.5, 50, 0.25},
		{100, 0.5, 100, 0.5},
		{10, 1, 4, 0.4},
		{10, 1, 10, 1},
		{1, 0.5, 1, 0.5},
	}
	for _, tt := range tests {
		s := newSpillway(t, func(c *SpillwayConfig) { c.MinSamples, c.Smoothing = tt.minSamples, tt.smoothing })
		if got := s.sampleWeight(tt.n); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("MinSamples %d Smoothing %v: sampleWeight(%d) = %v, want %v", tt.minSamples, tt.smoothing, tt.n, got, tt.want)
		}
	}
}

// TestSpillwayPrimaryCap checks the primary's share cap, 1 - n x
// ProbeShare but never under ProbeShare: with many secondaries the primary
// keeps its probe share and the secondaries split the rest.
func TestSpillwayPrimaryCap(t *testing.T) {
	type split struct{ primary, each float64 }
	tests := []struct {
		name         string
		n            int   // fresh secondaries
		light, heavy split // the shares after light load (the cap), then heavy (the floor)
	}{
		{"5 secondaries: 1 - n x ProbeShare", 5, split{0.5, 0.1}, split{0.1, 0.18}},
		{"9 secondaries: 1 - n x ProbeShare = ProbeShare", 9, split{0.1, 0.1}, split{0.1, 0.1}},
		{"10 secondaries: ProbeShare, not 0", 10, split{0.1, 0.09}, split{0.1, 0.09}},
		{"11 secondaries: ProbeShare, not negative", 11, split{0.1, 0.9 / 11}, split{0.1, 0.9 / 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, func(c *SpillwayConfig) { c.ProbeShare, c.Gain, c.Smoothing = 0.1, 2, 1 })
			members := []MemberLag{prim(h1)}
			light := secPeriod(med(h1, 200, 0.6))
			heavy := secPeriod(med(h1, 200, 1000))
			for i := range tt.n {
				h := fmt.Sprintf("s%d:27017", i)
				members = append(members, sec(h, 0))
				light.Members = append(light.Members, med(h, 20, 0.1))
				heavy.Members = append(heavy.Members, med(h, 20, 0.1))
			}
			s.ObserveLag(poll(time.Second, members...))
			for _, ph := range []struct {
				name   string
				period Period
				reason string
				want   split
			}{{"light", light, "primary", tt.light}, {"heavy", heavy, "spill", tt.heavy}} {
				var dec Decision
				for range 10 {
					dec = s.EndPeriod(ph.period)
				}
				w := s.Weights()
				if err := checkWeights(w); err != nil {
					t.Fatal(err)
				}
				if dec.Reason != ph.reason || math.Abs(dec.Fraction-(1-ph.want.primary)) > 1e-12 {
					t.Fatalf("%s: decision %+v, want %q with fraction %v", ph.name, dec, ph.reason, 1-ph.want.primary)
				}
				if math.Abs(w.Primary-ph.want.primary) > 1e-12 || len(w.Secondaries) != tt.n {
					t.Fatalf("%s: weights %v, want the primary at %v", ph.name, w, ph.want.primary)
				}
				for _, h := range w.Secondaries {
					if math.Abs(h.Weight-ph.want.each) > 1e-12 {
						t.Fatalf("%s: weights %v, want each secondary at %v", ph.name, w, ph.want.each)
					}
				}
			}
		})
	}
}

func TestWindow(t *testing.T) {
	type op struct {
		advance bool
		key     string
		v       time.Duration
	}
	adv := op{advance: true}
	add := func(key string, v time.Duration) op { return op{key: key, v: v} }
	tests := []struct {
		name string
		n    int
		ops  []op
		want map[string]time.Duration
	}{
		{"empty", 3, nil, map[string]time.Duration{"a": 0}},
		{"add before the first advance is ignored", 3, []op{add("a", 5)}, map[string]time.Duration{"a": 0}},
		{"add keeps the least of a period", 3, []op{adv, add("a", 5), add("a", 3), add("a", 4)},
			map[string]time.Duration{"a": 3}},
		{"zero and negative values are none", 3, []op{adv, add("a", 0), add("a", -1), add("a", 4), add("a", 0)},
			map[string]time.Duration{"a": 4}},
		{"least over the window", 3, []op{adv, add("a", 5), adv, add("a", 3), adv, add("a", 9)},
			map[string]time.Duration{"a": 3}},
		{"a period with no value does not count", 3, []op{adv, add("a", 5), adv, adv},
			map[string]time.Duration{"a": 5}},
		{"advance clears the slot it reuses", 3, []op{adv, add("a", 1), adv, add("a", 3), adv, add("a", 9), adv},
			map[string]time.Duration{"a": 3}},
		{"... for every key", 2, []op{adv, add("a", 1), add("b", 2), adv, add("a", 4), adv},
			map[string]time.Duration{"a": 4, "b": 0}},
		{"n periods later a value is gone", 2, []op{adv, add("a", 1), adv, adv},
			map[string]time.Duration{"a": 0}},
		{"keys are apart", 3, []op{adv, add("a", 1), add("b", 2)}, map[string]time.Duration{"a": 1, "b": 2, "c": 0}},
		{"n below 1 is 1", 0, []op{adv, add("a", 1), adv, add("a", 2)}, map[string]time.Duration{"a": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWindow(tt.n)
			for _, o := range tt.ops {
				if o.advance {
					w.advance()
				} else {
					w.add(o.key, o.v)
				}
			}
			for k, want := range tt.want {
				if got := w.least(k); got != want {
					t.Errorf("least(%q) = %v, want %v", k, got, want)
				}
			}
		})
	}
}

func TestSmooth(t *testing.T) {
	tests := []struct{ old, v, alpha, want float64 }{
		{0, 3, 0.5, 3}, // no estimate yet: the value
		{1, 3, 0.5, 2},
		{3, 1, 0.5, 2},
		{1, 3, 1, 3},
		{1, 3, 0.25, 1.5},
	}
	for _, tt := range tests {
		if got := smooth(tt.old, tt.v, tt.alpha); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("smooth(%v, %v, %v) = %v, want %v", tt.old, tt.v, tt.alpha, got, tt.want)
		}
	}
}

func TestSpillwayConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*SpillwayConfig)
		say    string // in the error
	}{
		{"zero interval", func(c *SpillwayConfig) { c.Interval = 0 }, "interval"},
		{"negative interval", func(c *SpillwayConfig) { c.Interval = -time.Second }, "interval"},
		{"negative primary floor", func(c *SpillwayConfig) { c.PrimaryFloor = -1 }, "primary floor"},
		{"zero gain", func(c *SpillwayConfig) { c.Gain = 0 }, "gain"},
		{"gain above 2", func(c *SpillwayConfig) { c.Gain = 2.01 }, "gain"},
		{"gain NaN", func(c *SpillwayConfig) { c.Gain = math.NaN() }, "gain"},
		{"negative probe rate", func(c *SpillwayConfig) { c.ProbeRate = -1 }, "probe rate"},
		{"infinite probe rate", func(c *SpillwayConfig) { c.ProbeRate = math.Inf(1) }, "probe rate"},
		{"probe rate NaN", func(c *SpillwayConfig) { c.ProbeRate = math.NaN() }, "probe rate"},
		{"negative probe share", func(c *SpillwayConfig) { c.ProbeShare = -0.01 }, "probe share"},
		{"probe share above 0.1", func(c *SpillwayConfig) { c.ProbeShare = 0.11 }, "probe share"},
		{"probe share NaN", func(c *SpillwayConfig) { c.ProbeShare = math.NaN() }, "probe share"},
		{"zero smoothing", func(c *SpillwayConfig) { c.Smoothing = 0 }, "smoothing"},
		{"smoothing above 1", func(c *SpillwayConfig) { c.Smoothing = 1.5 }, "smoothing"},
		{"smoothing NaN", func(c *SpillwayConfig) { c.Smoothing = math.NaN() }, "smoothing"},
		{"no samples", func(c *SpillwayConfig) { c.MinSamples = 0 }, "min samples"},
		{"zero latency floor", func(c *SpillwayConfig) { c.LatencyFloor = 0 }, "latency floor"},
		{"RTT window under the interval", func(c *SpillwayConfig) { c.RTTWindow = c.Interval - 1 }, "RTT window"},
		{"negative bound", func(c *SpillwayConfig) { c.Bound = Bound{Max: -time.Second} }, "staleness bound"},
		{"negative headroom", func(c *SpillwayConfig) { c.Headroom = -2 * time.Second }, "headroom"},
		{"headroom at the bound", func(c *SpillwayConfig) { c.Bound, c.Headroom = Bound{Max: time.Second}, time.Second }, "headroom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultSpillwayConfig()
			tt.mutate(&cfg)
			_, err := NewSpillway(cfg)
			if !errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("err %v, want ErrInvalidPolicy saying %q", err, tt.say)
			}
		})
	}
	valid := []struct {
		name   string
		mutate func(*SpillwayConfig)
	}{
		{"default", func(*SpillwayConfig) {}},
		{"bound 0", func(c *SpillwayConfig) { c.Bound = Bound{} }},
		{"unbounded", func(c *SpillwayConfig) { c.Bound = Bound{Unbounded: true} }},
		{"lower extremes", func(c *SpillwayConfig) {
			c.PrimaryFloor, c.ProbeShare, c.MinSamples, c.Headroom = 0, 0, 1, 0
			c.RTTWindow = c.Interval
		}},
		{"upper extremes", func(c *SpillwayConfig) { c.Gain, c.ProbeShare, c.Smoothing = 2, 0.1, 1 }},
	}
	for _, tt := range valid {
		t.Run("valid "+tt.name, func(t *testing.T) {
			cfg := DefaultSpillwayConfig()
			tt.mutate(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			if _, err := NewSpillway(cfg); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSpillwayCheckLagInterval(t *testing.T) {
	tests := []struct {
		bound    Bound
		headroom time.Duration
		interval time.Duration
		ok       bool
	}{
		{Bound{Max: 500 * ms}, AutoHeadroom, 100 * ms, true},
		{Bound{Max: 500 * ms}, AutoHeadroom, 500 * ms, false},
		{Bound{Max: 500 * ms}, AutoHeadroom, time.Second, false},
		{Bound{Max: 500 * ms}, 100 * ms, time.Second, true}, // a fixed headroom is the user's choice
		{Bound{}, AutoHeadroom, time.Second, true},
		{Bound{Unbounded: true}, AutoHeadroom, time.Hour, true},
	}
	for _, tt := range tests {
		s := newSpillway(t, func(c *SpillwayConfig) { c.Bound, c.Headroom = tt.bound, tt.headroom })
		err := s.CheckLagInterval(tt.interval)
		if (err == nil) != tt.ok {
			t.Errorf("bound %v headroom %v interval %v: err %v, want ok=%v", tt.bound, tt.headroom, tt.interval, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("error %v does not wrap ErrInvalidPolicy", err)
		}
	}
}

func TestSpillwayAccessors(t *testing.T) {
	cfg := DefaultSpillwayConfig()
	cfg.Bound = Bound{Max: 3 * time.Second}
	s := newSpillway(t, func(c *SpillwayConfig) { *c = cfg })
	var p Policy = s
	if p.Name() != "spillway" || p.Selection() != (Selection{Mode: PerMember, LeastLoaded: true}) || p.Interval() != time.Second {
		t.Fatalf("name %q selection %+v interval %v", p.Name(), p.Selection(), p.Interval())
	}
	if s.Bound() != cfg.Bound || s.Config() != cfg {
		t.Fatalf("bound %v config %+v, want %v %+v", s.Bound(), s.Config(), cfg.Bound, cfg)
	}
	if s.Fraction() != 0 || len(s.Fresh()) != 0 || s.Latency(h1) != 0 {
		t.Fatalf("initial fraction %v fresh %v latency %v", s.Fraction(), s.Fresh(), s.Latency(h1))
	}
	s.ObserveLag(freshPoll)
	f := s.Fresh()
	if !slices.Equal(f, []string{h2, h3}) {
		t.Fatalf("fresh %v, want [%s %s] in poll order", f, h2, h3)
	}
	f[0] = "changed"
	if s.Fresh()[0] != h2 {
		t.Fatal("Fresh returns the policy's own slice")
	}
	if got := s.Weights().Secondaries; got[0].Host != h2 || got[1].Host != h3 {
		t.Fatalf("secondaries %v, want in poll order", got)
	}
	s.EndPeriod(secPeriod(med(h1, 100, 1.5)))
	if got := s.Latency(h1); got != 1500*time.Microsecond {
		t.Fatalf("latency %v, want 1.5ms", got)
	}
}

// loadModel is a synthetic replica set whose members slow down with the
// reads they are given: period is the one-second period the weights in
// force produce, as the router would report it (reads by the member that
// served them, their median, the member's ping and fastest read), and
// meanLatency the mean latency of a read under the weights (s).
type loadModel interface {
	period(w Weights) Period
	meanLatency(w Weights) float64
}

// visits is each host's share of the reads under w, hosts[0] the primary.
func visits(hosts []string, w Weights) []float64 {
	v := make([]float64, len(hosts))
	v[0] = w.Primary
	for i, h := range hosts[1:] {
		v[i+1] = w.Of(h)
	}
	return v
}

// modelPeriod is the period of rate reads/s split by v, each member's
// median its latency (s) plus the RTT, its fastest read an idle one.
func modelPeriod(hosts []string, v, lat, service []float64, rate float64, rtt time.Duration) Period {
	per := Period{Length: time.Second}
	for i, h := range hosts {
		n := int(math.Round(rate * v[i]))
		if n == 0 {
			continue
		}
		per.Members = append(per.Members, MemberStats{Host: h, Count: n, P50: seconds(lat[i]) + rtt,
			Min: seconds(service[i]) + rtt, RTT: rtt})
	}
	return per
}

// openModel is an open system: demand reads/s arrive whatever their
// latency, and a member that serves a read in service[i] when idle takes
// service[i]/(1-util) at utilisation util = demand x share x service[i]
// (plus, on the primary, writeUtil of its time taken by writes), util
// capped at 0.99 so an overloaded member stays finite. writes is the
// primary's writes per period; each takes what a read there takes.
type openModel struct {
	hosts     []string
	service   []float64 // s
	demand    float64
	writeUtil float64
	writes    int
	rtt       time.Duration
}

func (m openModel) latencies(w Weights) []float64 {
	v := visits(m.hosts, w)
	lat := make([]float64, len(v))
	for i := range v {
		util := m.demand * v[i] * m.service[i]
		if i == 0 {
			util += m.writeUtil
		}
		lat[i] = m.service[i] / (1 - min(util, 0.99))
	}
	return lat
}

func (m openModel) period(w Weights) Period {
	lat := m.latencies(w)
	per := modelPeriod(m.hosts, visits(m.hosts, w), lat, m.service, m.demand, m.rtt)
	if m.writes > 0 {
		per.Writes = Stats{Count: m.writes, P50: seconds(lat[0]) + m.rtt}
	}
	return per
}

func (m openModel) meanLatency(w Weights) float64 {
	var sum float64
	for i, l := range m.latencies(w) {
		sum += visits(m.hosts, w)[i] * l
	}
	return sum
}

// psModel is a closed loop: clients read one after another with think
// seconds between reads, from members that are processor-sharing queues of
// mu reads/s. Exact mean value analysis gives the throughput and every
// member's mean response time (taken as its median).
type psModel struct {
	hosts   []string
	mu      []float64
	clients int
	think   float64
	rtt     time.Duration
	// stall, when set, is a member's fixed response time (s) whatever its
	// load: a gray failure, the member answering pings but holding every
	// read (0: a processor-sharing queue as the others).
	stall []float64
}

// solve returns the throughput (reads/s) and each member's response time.
func (m psModel) solve(w Weights) (float64, []float64) {
	v := visits(m.hosts, w)
	q := make([]float64, len(v))    // mean queue lengths with n-1 clients
	resp := make([]float64, len(v)) // mean response time per visit
	var x float64
	for n := 1; n <= m.clients; n++ {
		sum := m.think
		for i := range v {
			resp[i] = (1 + q[i]) / m.mu[i]
			if i < len(m.stall) && m.stall[i] > 0 {
				resp[i] = m.stall[i]
			}
			sum += v[i] * resp[i]
		}
		x = float64(n) / sum
		for i := range v {
			q[i] = x * v[i] * resp[i]
		}
	}
	return x, resp
}

func (m psModel) period(w Weights) Period {
	x, resp := m.solve(w)
	service := make([]float64, len(m.mu))
	for i, mu := range m.mu {
		service[i] = 1 / mu
	}
	return modelPeriod(m.hosts, visits(m.hosts, w), resp, service, x, m.rtt)
}

// meanLatency is the mean response time; the throughput is clients /
// (think + it), so the least is the most throughput.
func (m psModel) meanLatency(w Weights) float64 {
	_, resp := m.solve(w)
	var sum float64
	for i, r := range resp {
		sum += visits(m.hosts, w)[i] * r
	}
	return sum
}

// bestStatic is the static split with the least mean latency, on a 1% grid.
func bestStatic(m loadModel, hosts []string) (float64, Weights) {
	best := math.Inf(1)
	var arg Weights
	for a := 0; a <= 100; a++ {
		for b := 0; a+b <= 100; b++ {
			w := Weights{Primary: float64(a) / 100, Secondaries: []HostWeight{
				{hosts[1], float64(b) / 100}, {hosts[2], float64(100-a-b) / 100}}}
			if l := m.meanLatency(w); l < best {
				best, arg = l, w
			}
		}
	}
	return best, arg
}

// maxChange is the largest change of any member's share between a and b.
func maxChange(a, b Weights) float64 {
	sa, sb := shares(a), shares(b)
	var d float64
	for k, v := range sa {
		d = max(d, math.Abs(v-sb[k]))
	}
	for k, v := range sb {
		d = max(d, math.Abs(v-sa[k]))
	}
	return d
}

// simulate feeds n periods of the model to s and returns the weights and
// decisions after each.
func simulate(s *Spillway, m loadModel, n int) ([]Weights, []Decision) {
	var ws []Weights
	var ds []Decision
	for range n {
		ds = append(ds, s.EndPeriod(m.period(s.Weights())))
		ws = append(ws, s.Weights())
	}
	return ws, ds
}

// settleBand is how near its final value every share must stay for the
// weights to count as settled: a hundredth of the reads.
const settleBand = 0.01

// settledAfter is the number of periods after which the weights are
// settled: the least k such that after period k and after every later
// period, every member's share is within settleBand of its share after the
// last period (a member without a share has 0). from is the weights before
// the first period, ws[i] those after period i+1; 0 when from already was
// within the band and the weights stayed there.
func settledAfter(from Weights, ws []Weights) int {
	final := ws[len(ws)-1]
	for i := len(ws) - 1; i >= 0; i-- {
		if maxChange(ws[i], final) > settleBand {
			return i + 2
		}
	}
	if maxChange(from, final) > settleBand {
		return 1
	}
	return 0
}

// reversals counts the periods after period k (weights as in settledAfter)
// in which the primary's share reverses direction by more than eps.
func reversals(from Weights, ws []Weights, k int, eps float64) int {
	all := append([]Weights{from}, ws...) // all[i]: after period i
	var n int
	for i := max(k+2, 2); i < len(all); i++ {
		d0, d1 := all[i-1].Primary-all[i-2].Primary, all[i].Primary-all[i-1].Primary
		if d0*d1 < 0 && math.Abs(d1) > eps {
			n++
		}
	}
	return n
}

// lastMove is the largest change of any share from one period to the next
// over the last n periods of ws.
func lastMove(ws []Weights, n int) float64 {
	var d float64
	for i := max(len(ws)-n, 1); i < len(ws); i++ {
		d = max(d, maxChange(ws[i-1], ws[i]))
	}
	return d
}

// meanLatencyOver is the model's mean read latency (s) averaged over periods
// first to len(ws), counted from 1, every period weighing the same; a
// period's reads are served under the weights in force in it, those the end
// of the period before set (from in the first).
func meanLatencyOver(m loadModel, from Weights, ws []Weights, first int) float64 {
	var sum float64
	for k := first; k <= len(ws); k++ {
		w := from
		if k >= 2 {
			w = ws[k-2]
		}
		sum += m.meanLatency(w)
	}
	return sum / float64(len(ws)-first+1)
}

// gap says how far got is over target.
func gap(got, target float64) string {
	if got <= target {
		return "met"
	}
	return fmt.Sprintf("%.3g over it", got-target)
}

// The members of the synthetic replica sets serve a read in 0.2 ms when
// idle (5000 reads/s), over a 0.1 ms network.
const (
	svc     = 0.0002
	modelRT = 100 * time.Microsecond
)

var modelHosts = []string{h1, h2, h3}

// open is an openModel of the three hosts at demand reads/s, each member's
// idle service time svc unless given.
func open(demand float64, service ...float64) openModel {
	if len(service) == 0 {
		service = []float64{svc, svc, svc}
	}
	return openModel{hosts: modelHosts, service: service, demand: demand, rtt: modelRT}
}

// What Spillway should reach in every synthetic model: a mean read latency
// within targetRatio of the best static split's, and weights settled
// (settledAfter) within targetSettle periods.
const (
	targetRatio  = 1.15
	targetSettle = 30
)

// TestSpillwayConverges feeds Spillway 300 periods generated from each
// synthetic model, each period from the weights in force, and measures
// (deterministically: the models draw no random numbers, and every run
// starts from the same state):
//   - settled: settledAfter, the period from which every share stays within
//     settleBand (0.01) of its share after the last period;
//   - Spillway's mean latency: the model's mean read latency under the
//     weights in force in each of periods targetSettle+1 to 300, every period
//     weighing the same (meanLatencyOver), so a run that settles late pays
//     for its moves;
//   - the best split: bestStatic, the least mean read latency of any fixed
//     split on a 1% grid (freshness and ProbeShare ignored).
//
// Every row asserts the target: a mean latency within targetRatio of the
// best split's and weights settled within targetSettle periods. The rows
// run without the primary floor (PrimaryFloor 0), which trades latency for
// freshness on purpose; the light-load row checks that trade instead.
func TestSpillwayConverges(t *testing.T) {
	const (
		periods = 300
		eps     = 1e-3 // after settling, the primary's share reverses by more than eps at most 5 times
		tail    = 30   // over the last periods, no share moves by eps/10
	)
	writeSaturated := open(3000)
	writeSaturated.writeUtil, writeSaturated.writes = 0.95, 200
	writeLoaded := open(6000)
	writeLoaded.writeUtil, writeLoaded.writes = 0.3, 1000
	closed := func(clients int, mu ...float64) psModel {
		if len(mu) == 0 {
			mu = []float64{5000, 5000, 5000}
		}
		return psModel{hosts: modelHosts, mu: mu, clients: clients, think: 0.001, rtt: modelRT}
	}
	tests := []struct {
		name  string
		model loadModel
		floor time.Duration // PrimaryFloor
		check func(w Weights, d Decision, deadband float64) error
	}{
		{
			name: "moderate load (every member 40% busy at the best split)", model: open(6000),
			check: atTarget(0.3, 0.4),
		},
		{
			name: "heavy load", model: open(10000),
			check: atTarget(0.3, 0.4),
		},
		{
			name: "every member 87% busy", model: open(13000),
			check: atTarget(0.3, 0.4),
		},
		{
			// the primary's idle read (1 ms) is slower than the loaded
			// secondaries': it keeps a little
			name: "a primary 5 times slower", model: open(8000, 5*svc, svc, svc),
			check: atTarget(0.03, 0.1),
		},
		{
			// its probe share: 2 of the 3000 reads a second
			name: "a primary saturated by writes keeps no read share", model: writeSaturated,
			check: func(w Weights, d Decision, deadband float64) error {
				if w.Primary > 1e-6 || d.Reason != "spill" {
					return fmt.Errorf("primary's share %v (%s), want none: its writes measure it", w.Primary, d.Reason)
				}
				return nil
			},
		},
		{
			name: "a primary 30% busy with writes takes fewer reads", model: writeLoaded,
			check: atTarget(0.15, 0.25),
		},
		{
			name: "a secondary 3 times slower gets less", model: open(8000, svc, svc, 3*svc),
			check: func(w Weights, d Decision, deadband float64) error {
				if w.Of(h3) >= w.Of(h2)/2 {
					return fmt.Errorf("slow h3 %v, h2 %v", w.Of(h3), w.Of(h2))
				}
				return atTarget(0.4, 0.5)(w, d, deadband)
			},
		},
		{
			name: "closed loop, 16 clients", model: closed(16),
			check: atTarget(0.3, 0.4),
		},
		{
			name: "closed loop, 64 clients: every member saturated", model: closed(64),
			check: atTarget(0.3, 0.4),
		},
		{
			name: "closed loop, 180 clients", model: closed(180),
			check: atTarget(0.3, 0.4),
		},
		{
			// members of 0.35, 0.7 and 0.2 cores: shares near the capacity
			// split (0.28, 0.56, 0.16)
			name: "closed loop, 64 clients, uneven members", model: closed(64, 3500, 7000, 2000),
			check: func(w Weights, d Decision, deadband float64) error {
				if !(w.Of(h2) > w.Primary && w.Primary > w.Of(h3)) {
					return fmt.Errorf("want h2 > primary > h3: %v", w)
				}
				return atTarget(0.2, 0.35)(w, d, deadband)
			},
		},
		{
			name: "closed loop, 64 clients, a secondary 2.5 times slower", model: closed(64, 5000, 5000, 2000),
			check: func(w Weights, d Decision, deadband float64) error {
				if w.Of(h3) >= w.Of(h2)/2 {
					return fmt.Errorf("slow h3 %v, h2 %v", w.Of(h3), w.Of(h2))
				}
				return atTarget(0.35, 0.45)(w, d, deadband)
			},
		},
	}
	for _, tt := range tests {
		for _, deadband := range []float64{0, DefaultSpillwayConfig().Deadband} {
			t.Run(fmt.Sprintf("%s, deadband %v", tt.name, deadband), func(t *testing.T) {
				s := newSpillway(t, func(c *SpillwayConfig) {
					c.PrimaryFloor, c.Deadband, c.ProbeRate = tt.floor, deadband, DefaultSpillwayConfig().ProbeRate
				})
				s.ObserveLag(freshPoll)
				from := s.Weights()
				ws, ds := simulate(s, tt.model, periods)
				settled := settledAfter(from, ws)
				flips, moving := reversals(from, ws, settled, eps), lastMove(ws, tail)
				best, bestW := bestStatic(tt.model, modelHosts)
				mean := meanLatencyOver(tt.model, from, ws, targetSettle+1)
				ratio := mean / best
				last, dec := ws[len(ws)-1], ds[len(ds)-1]
				t.Logf("best split %v: %.4f ms; Spillway over periods %d-%d: %.4f ms, %.4f x; settled after %d periods, %d reversals after, last %d periods move <= %.2g: %v, ratio %.3f; %s",
					bestW, best*1000, targetSettle+1, periods, mean*1000, ratio, settled, flips, tail, moving, last, dec.Ratio, dec.Detail)
				if ratio > targetRatio {
					t.Errorf("mean latency over periods %d-%d %.4f ms is %.4f x the best split's %.4f ms (%v), want at most %.2f x",
						targetSettle+1, periods, mean*1000, ratio, best*1000, bestW, targetRatio)
				}
				if settled > targetSettle {
					t.Errorf("weights settled (every share within %v of its final value) after %d periods, want at most %d",
						settleBand, settled, targetSettle)
				}
				if flips > 5 {
					t.Errorf("the primary's share reversed by more than %v %d times after settling", eps, flips)
				}
				if moving > eps/10 {
					t.Errorf("weights still moving by %.2g over the last %d periods", moving, tail)
				}
				if err := tt.check(last, dec, deadband); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestSpillwayFloorKeepsLightLoad: under light load (the primary 59% busy,
// its reads 0.5 ms) the 1 ms primary floor keeps 98% of the reads on the
// primary, the freshest member, where the best split spreads them evenly
// (0.25 ms against 0.49: the latency the floor trades for freshness); with
// no floor they spread.
func TestSpillwayFloorKeepsLightLoad(t *testing.T) {
	for _, tt := range []struct {
		floor time.Duration
		keeps bool
	}{{time.Millisecond, true}, {0, false}} {
		s := newSpillway(t, func(c *SpillwayConfig) { c.PrimaryFloor = tt.floor })
		s.ObserveLag(freshPoll)
		ws, _ := simulate(s, open(3000), 100)
		for i, w := range ws {
			if tt.keeps && w.Primary < 0.98-1e-12 {
				t.Fatalf("floor %v: primary share %v after period %d, want 0.98 throughout", tt.floor, w.Primary, i+1)
			}
		}
		if last := ws[len(ws)-1]; !tt.keeps && last.Primary > 0.4 {
			t.Fatalf("no floor: primary share %v after 100 periods, want the reads spread (best split: a third each)", last.Primary)
		}
	}
}

// atTarget checks that the primary's share is in [lo, hi] and its marginal
// cost within 2% of the secondaries' (beyond the deadband: the decision's
// Ratio within [1/(1.02 band), 1.02 band]).
func atTarget(lo, hi float64) func(Weights, Decision, float64) error {
	return func(w Weights, d Decision, deadband float64) error {
		if w.Primary < lo || w.Primary > hi {
			return fmt.Errorf("primary share %v, want in [%v, %v]", w.Primary, lo, hi)
		}
		if band := 1.02 * (1 + deadband); d.Ratio > band || d.Ratio < 1/band {
			return fmt.Errorf("primary's marginal cost / the secondaries' %v, want within %v of 1", d.Ratio, band)
		}
		return nil
	}
}

// TestSpillwayFollowsShifts runs a synthetic model until the weights settle,
// changes the load, and checks how many periods the weights take to move
// and to settle again.
func TestSpillwayFollowsShifts(t *testing.T) {
	const (
		before = 30
		after  = 55
		eps    = 1e-3 // reversals by more than eps are logged
	)
	light, heavy := open(3000), open(10000)
	writes := open(3000)
	writes.writeUtil, writes.writes = 0.95, 200
	closed := psModel{hosts: modelHosts, mu: []float64{5000, 5000, 5000}, clients: 64, think: 0.001, rtt: modelRT}
	stalled := closed
	stalled.stall = []float64{0, 0, 0.2} // h3's reads held 200 ms
	tests := []struct {
		name          string
		before, after loadModel
		moved         func(Weights) bool // the weights have answered the shift
		moveBy        int                // periods after the shift
		settleBy      int
		check         func(Weights, Decision) error
	}{
		{
			name: "load rises", before: light, after: heavy,
			moved: func(w Weights) bool { return w.Primary < 0.9 }, moveBy: 1, settleBy: 25,
			check: func(w Weights, d Decision) error { return atTarget(0.3, 0.6)(w, d, 0) },
		},
		{
			name: "load falls", before: heavy, after: light,
			moved: func(w Weights) bool { return w.Primary >= 0.98-1e-12 }, moveBy: 20, settleBy: 20,
			check: func(w Weights, _ Decision) error { return primaryAtLeast(0.98)(w, w) },
		},
		{
			name: "writes saturate the primary", before: light, after: writes,
			moved: func(w Weights) bool { return w.Secondary() >= 0.99-1e-12 }, moveBy: 10, settleBy: 10,
			check: func(w Weights, _ Decision) error { return nil },
		},
		{
			// a gray failure: h3 answers pings but holds every read 200 ms
			// its probe share: 2 of the ~10 000 reads a second the others serve
			name: "a secondary stalls: its share falls to its probe share", before: closed, after: stalled,
			moved: func(w Weights) bool { return w.Of(h3) <= 0.01 }, moveBy: 5, settleBy: 20,
			check: func(w Weights, _ Decision) error {
				if w.Of(h3) > 0.0005 || math.Abs(w.Primary-w.Of(h2)) > 0.02 {
					return fmt.Errorf("want h3 at its probe share (2 reads a second) and the rest split evenly: %v", w)
				}
				return nil
			},
		},
		{
			name: "the stall ends: it takes reads again", before: stalled, after: closed,
			moved: func(w Weights) bool { return w.Of(h3) >= 0.2 }, moveBy: 15, settleBy: 30,
			check: func(w Weights, d Decision) error { return atTarget(0.3, 0.4)(w, d, 0) },
		},
		{
			name: "writes stop", before: writes, after: light,
			moved: func(w Weights) bool { return w.Primary >= 0.98-1e-12 }, moveBy: 25, settleBy: 30,
			check: func(w Weights, _ Decision) error { return primaryAtLeast(0.98)(w, w) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, func(c *SpillwayConfig) { c.ProbeRate = DefaultSpillwayConfig().ProbeRate })
			s.ObserveLag(freshPoll)
			simulate(s, tt.before, before)
			from := s.Weights()
			ws, ds := simulate(s, tt.after, after)
			moved := slices.IndexFunc(ws, tt.moved) + 1
			settled := settledAfter(from, ws)
			t.Logf("from %v: answered after %d periods, settled after %d (%d reversals after): %v, ratio %.3f",
				from, moved, settled, reversals(from, ws, settled, eps), ws[len(ws)-1], ds[len(ds)-1].Ratio)
			if moved == 0 || moved > tt.moveBy {
				t.Errorf("weights answered the shift after %d periods (0: never), want within %d", moved, tt.moveBy)
			}
			if settled > tt.settleBy {
				t.Errorf("weights settled (every share within %v of its final value) %d periods after the shift, want within %d",
					settleBand, settled, tt.settleBy)
			}
			if err := tt.check(ws[len(ws)-1], ds[len(ds)-1]); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSpillwayDefaultFloorKeepsLightLoad: with the default 5 ms floor, a
// primary whose reads take 2.8 ms while idle secondaries answer in 0.5 ms
// (4 clients on a 0.35-CPU primary, measured) keeps the reads; at 8 ms it
// spills.
func TestSpillwayDefaultFloorKeepsLightLoad(t *testing.T) {
	for _, tt := range []struct {
		primaryMS float64
		spills    bool
	}{{2.8, false}, {8, true}} {
		s, err := NewSpillway(DefaultSpillwayConfig())
		if err != nil {
			t.Fatal(err)
		}
		s.ObserveLag(freshPoll)
		for range 20 {
			s.EndPeriod(secPeriod(med(h1, 1000, tt.primaryMS), med(h2, 20, 0.5), med(h3, 20, 0.5)))
		}
		if got := s.Weights().Primary; (got < 0.98-1e-9) != tt.spills {
			t.Errorf("primary at %v ms: share %v, want spilling %v", tt.primaryMS, got, tt.spills)
		}
	}
}

// TestSpillwaySpillsAtLowReadRates is the TPC-C read-write mix measured
// live: 7 Stock-Levels a second, a primary saturated by writes answering in
// 300 ms, the probed secondaries in 5 ms from 0–3 reads a period. The
// secondaries' few reads measure them, so the reads spill.
func TestSpillwaySpillsAtLowReadRates(t *testing.T) {
	s, err := NewSpillway(DefaultSpillwayConfig())
	if err != nil {
		t.Fatal(err)
	}
	s.ObserveLag(freshPoll)
	for i := range 30 {
		n := i % 4 // 0..3 reads on each secondary
		s.EndPeriod(secPeriod(med(h1, 7, 300), med(h2, n, 5), med(h3, 3-n, 5)))
	}
	if got := s.Fraction(); got < 0.9 {
		t.Fatalf("secondaries' share %v after 30 periods, want at least 0.9 (%v)", got, s.Weights())
	}
}

// TestSpillwayAdmit: a stale secondary's share goes to the fresh secondaries
// that had one, in proportion; with none of them left it goes to the
// primary; a newcomer gets the probe share.
func TestSpillwayAdmit(t *testing.T) {
	w := Weights{Primary: 0.4, Secondaries: []HostWeight{{h2, 0.2}, {h3, 0.4}}}
	for _, tt := range []struct {
		name  string
		fresh []string
		want  map[string]float64
	}{
		{"all fresh", []string{h2, h3}, map[string]float64{"primary": 0.4, h2: 0.2, h3: 0.4}},
		{"h3 stale: h2 takes its share", []string{h2}, map[string]float64{"primary": 0.4, h2: 0.6}},
		{"both stale: the primary", nil, map[string]float64{"primary": 1}},
		{"h3 stale, h4 new: h2 takes h3's, h4 probes", []string{h2, "h4:27020"},
			map[string]float64{"primary": 0.4 / 1.01, h2: 0.6 / 1.01, "h4:27020": 0.01 / 1.01}},
		{"only a newcomer left: the primary takes the rest", []string{"h4:27020"},
			map[string]float64{"primary": 0.4 / 0.41, "h4:27020": 0.01 / 0.41}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
			s.fresh = tt.fresh
			got := shares(s.admit(w))
			if len(got) != len(tt.want) {
				t.Fatalf("shares %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if math.Abs(got[k]-v) > 1e-12 {
					t.Fatalf("shares %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// TestSpillwayForgetsGoneMembers checks that Spillway's per-member state
// (latency averages, round-trip windows) stays bounded as members come and
// go: a member that no poll names and no period measures for RTTWindow
// periods (30) is forgotten; one back sooner keeps its state.
func TestSpillwayForgetsGoneMembers(t *testing.T) {
	const window = 30 // RTTWindow / Interval
	name := func(i int) string { return fmt.Sprintf("m%d:27017", i) }
	measured := func(host string) MemberStats {
		return MemberStats{Host: host, Count: 100, P50: 2 * ms, RTT: 100 * time.Microsecond}
	}
	// step is one poll naming hosts (the first the primary) and one period
	// measuring them, the period also listing listed without reads or
	// pings, as the router lists every member it has ever seen.
	step := func(s *Spillway, lag *Lag, listed []string, hosts ...string) {
		members := []MemberLag{prim(hosts[0])}
		var stats []MemberStats
		for i, h := range hosts {
			if i > 0 {
				members = append(members, sec(h, 0))
			}
			stats = append(stats, measured(h))
		}
		for _, h := range listed {
			stats = append(stats, MemberStats{Host: h})
		}
		if lag == nil {
			l := poll(time.Second, members...)
			lag = &l
		}
		s.ObserveLag(*lag)
		s.EndPeriod(secPeriod(stats...))
	}
	keys := func(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }

	t.Run("membership churn", func(t *testing.T) {
		s := newSpillway(t, nil)
		// a and b stay; the third member changes every 5 periods, 200
		// names over 1000 periods
		var listed []string
		for i := range 1000 {
			if i%5 == 0 {
				listed = append(listed, name(i/5))
			}
			step(s, nil, listed, "a:1", "b:1", name(i/5))
			if n, m, k := len(s.lat), len(s.rtt.by), len(s.seen); max(n, m, k) > 2+window/5+1 {
				t.Fatalf("period %d: %d latencies, %d round-trip windows, %d members seen kept, want at most %d",
					i+1, n, m, k, 2+window/5+1)
			}
		}
		// left: the members named in the last 30 periods (971-1000)
		want := []string{"a:1", "b:1", name(194), name(195), name(196), name(197), name(198), name(199)}
		slices.Sort(want)
		if got := keys(s.lat); !slices.Equal(got, want) {
			t.Fatalf("latencies of %v, want %v", got, want)
		}
		if got := slices.Sorted(maps.Keys(s.rtt.by)); !slices.Equal(got, want) {
			t.Fatalf("round-trip windows of %v, want %v", got, want)
		}
		if got := slices.Sorted(maps.Keys(s.seen)); !slices.Equal(got, want) {
			t.Fatalf("members seen %v, want %v", got, want)
		}
		if got := s.Latency(name(199)); got != 2*ms-100*time.Microsecond {
			t.Fatalf("latest member's latency %v, want 1.9ms", got)
		}
	})

	for _, tt := range []struct {
		name   string
		absent int  // periods
		failed bool // the polls meanwhile fail, naming no member
		kept   bool
	}{
		{"one period away: kept", 1, false, true},
		{"one failed poll: kept", 1, true, true},
		{"29 periods away: kept", window - 1, false, true},
		{"29 periods of failed polls, the primary still read: kept", window - 1, true, true},
		{"30 periods away: forgotten", window, false, false},
		{"30 periods of failed polls: forgotten", window, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
			for range 5 {
				step(s, nil, nil, "a:1", "b:1", "c:1")
			}
			lat, rtt := s.Latency("c:1"), s.rtt.least("c:1")
			if lat == 0 || rtt == 0 {
				t.Fatalf("c measured: latency %v, round trip %v", lat, rtt)
			}
			for range tt.absent {
				var lag *Lag
				if tt.failed {
					lag = &Lag{}
				}
				step(s, lag, []string{"c:1"}, "a:1", "b:1")
			}
			// back: a poll names it again
			s.ObserveLag(poll(time.Second, prim("a:1"), sec("b:1", 0), sec("c:1", 0)))
			_, inLat := s.lat["c:1"]
			_, inRTT := s.rtt.by["c:1"]
			if got, want := s.seen["c:1"], 5+tt.absent+1; got != want {
				t.Fatalf("c last seen in period %d, want %d (the period under way)", got, want)
			}
			gotLat, gotRTT := s.Latency("c:1"), s.rtt.least("c:1")
			if tt.kept && (gotLat != lat || gotRTT != rtt) {
				t.Fatalf("after %d periods away: latency %v, round trip %v, want its %v and %v kept", tt.absent, gotLat, gotRTT, lat, rtt)
			}
			if !tt.kept && (inLat || inRTT) {
				t.Fatalf("after %d periods away: latency %v (kept %v), round trip %v (kept %v), want it forgotten",
					tt.absent, gotLat, inLat, gotRTT, inRTT)
			}
			if got := s.Latency("a:1"); got == 0 {
				t.Fatal("the primary, measured every period, was forgotten")
			}
		})
	}
}
