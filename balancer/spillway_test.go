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

// newSpillway returns a Spillway with the defaults but a 1 ms allowance
// floor and no deadband, the values the tables below were worked out with,
// changed by mutate.
func newSpillway(t *testing.T, mutate func(*SpillwayConfig)) *Spillway {
	t.Helper()
	return newDefaultSpillway(t, func(cfg *SpillwayConfig) {
		cfg.AllowanceFloor, cfg.Deadband = time.Millisecond, 0
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
	// The baseline: idle secondaries answer in 0.1 ms, the primary in 0.6.
	idle := secPeriod(med(h1, 200, 0.6), med(h2, 20, 0.1), med(h3, 20, 0.1))
	// Light load: the primary 6 times the baseline (over Allowance x
	// baseline, 0.4 ms) but under AllowanceFloor (1 ms).
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
			name: "the baseline or the primary's latency unknown: weights stay as they are",
			steps: []spStep{
				{lag: l(freshPoll)},
				// the secondaries are measured from their few reads, but a
				// period under MinSamples reads makes no baseline
				{period: p(secPeriod(med(h2, 9, 5), med(h3, 9, 5))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples", ratio: ratio(nan())},
				// the baseline known, the primary still not measured
				{period: p(secPeriod(med(h2, 400, 0.5), med(h3, 400, 0.5))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples"},
				{period: p(Period{Length: time.Second}),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples"},
				// the primary measured at last, from a few reads: against the
				// secondaries' 2.75 ms (5 then 0.5, smoothed), all only probed
				{period: p(secPeriod(med(h1, 9, 20))), reason: "spill", ratio: ratio(20 / 2.75), check: primaryFalls(0.9)},
			},
		},
		{
			name:   "a baseline gone out of BaselineWindow is unknown: weights stay as they are",
			mutate: func(c *SpillwayConfig) { c.BaselineWindow = 2 * time.Second },
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
				{period: p(congested), reason: "spill"},
				// no reads measured: the latencies stay as they were, the
				// baseline while it is in the window
				{period: p(secPeriod()), reason: "primary"},
				{period: p(secPeriod()), reason: "too-few-samples", ratio: ratio(nan()), check: func(before, w Weights) error {
					if maxChange(before, w) != 0 {
						return fmt.Errorf("weights %v -> %v", before, w)
					}
					return nil
				}},
			},
		},
		{
			name: "no fresh secondary: primary only at the period end",
			steps: []spStep{
				{period: p(congested), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary", ratio: ratio(nan())},
			},
		},
		{
			name: "light load under the allowance floor stays on the primary, though over Allowance x baseline",
			steps: append([]spStep{
				{lag: l(freshPoll)},
				{period: p(idle), reason: "primary", want: map[string]float64{"primary": 0.98, h2: 0.01, h3: 0.01}},
			}, repeat(10, spStep{period: p(light), reason: "primary", ratio: ratio(0.6),
				want: map[string]float64{"primary": 0.98, h2: 0.01, h3: 0.01}})...),
		},
		{
			name:   "without the floor the same light load spills",
			mutate: func(c *SpillwayConfig) { c.AllowanceFloor = 0 },
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(idle)},
				// target = Allowance x 0.1 ms: the primary at 0.6 ms is 1.5 times over
				{period: p(light), reason: "spill", ratio: ratio(0.6 / 0.4), check: primaryFalls(0.97)},
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
			name: "a primary saturated by writes gives the secondaries 1 - ProbeShare",
			steps: append(append([]spStep{
				{lag: l(freshPoll)},
			}, repeat(20, spStep{period: p(writeSaturated), reason: "spill"})...),
				spStep{period: p(writeSaturated), reason: "spill", check: func(_, w Weights) error {
					if s := w.Secondary(); math.Abs(s-0.99) > 1e-12 {
						return fmt.Errorf("secondaries' share %v, want 1 - ProbeShare", s)
					}
					return nil
				}}),
		},
		{
			name: "the same reads without the writes do not spill",
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
				// both secondaries only probed: the spill latency is the
				// least of theirs, h2's 1 ms, under Allowance x baseline
				// (4 ms), so the primary's 20 ms spills from the first period
				{period: p(slowH3), reason: "spill", ratio: ratio(5), check: primaryFalls(p2*math.Pow(5, -0.25) + 1e-12)},
			}, repeat(10, spStep{period: p(slowH3), reason: "spill"})...),
				spStep{period: p(slowH3), reason: "spill", check: func(before, w Weights) error {
					if err := primaryFalls(0.5)(before, w); err != nil {
						return err
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
// Smoothing 1 (a period's latencies are taken as they are).
func TestSpillwayDecision(t *testing.T) {
	const gain = 0.25
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
			name: "spill: the share shrinks by ratio^-Gain (target: the secondaries' latency)",
			// baseline 5 ms (the secondaries), Allowance 1: target 5 ms
			mutate:  func(c *SpillwayConfig) { c.Allowance = 1 },
			periods: []Period{secPeriod(med(h1, 100, 20), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return b * math.Pow(4, -gain) },
			ratio:   4, reason: "spill",
		},
		{
			name: "spill: target Allowance x baseline",
			// baseline 1 ms from the first period: target 4 ms > 2 ms of the secondaries
			periods: []Period{
				secPeriod(med(h1, 100, 1), med(h2, 100, 1), med(h3, 100, 1)),
				secPeriod(med(h1, 100, 8), med(h2, 100, 2), med(h3, 100, 2)),
			},
			primary: func(b float64) float64 { return b * math.Pow(2, -gain) },
			ratio:   2, reason: "spill",
		},
		{
			name: "spill: target AllowanceFloor",
			// baseline 0.1 ms: 4 x 0.1 < 1 ms floor > 0.5 ms of the secondaries
			periods: []Period{secPeriod(med(h1, 100, 0.1), med(h2, 100, 0.1), med(h3, 100, 0.1)),
				secPeriod(med(h1, 100, 3), med(h2, 100, 0.5), med(h3, 100, 0.5))},
			primary: func(b float64) float64 { return b * math.Pow(3, -gain) },
			ratio:   3, reason: "spill",
		},
		{
			name: "primary: the secondaries' share shrinks by ratio^Gain",
			// first spill, then the primary at 2 ms against the secondaries' 5 ms
			mutate: func(c *SpillwayConfig) { c.Allowance = 1 },
			periods: []Period{
				secPeriod(med(h1, 100, 20), med(h2, 100, 5), med(h3, 100, 5)),
				secPeriod(med(h1, 100, 2), med(h2, 100, 5), med(h3, 100, 5)),
			},
			primary: func(b float64) float64 { return 1 - (1-b)*math.Pow(0.4, gain) },
			ratio:   0.4, reason: "primary",
		},
		{
			name: "primary at the target exactly: no change",
			// target 4 x 1 ms (a power of two, so exactly 4 ms)
			periods: []Period{
				secPeriod(med(h1, 100, 20), med(h2, 100, 1), med(h3, 100, 1)),
				secPeriod(med(h1, 100, 4), med(h2, 100, 1), med(h3, 100, 1)),
			},
			primary: func(b float64) float64 { return b },
			ratio:   1, reason: "primary",
		},
		{
			name: "deadband: a primary within 1+Deadband of its target keeps its share",
			// target 5 ms (the secondaries), primary 6 ms: 1.2 < 1.25
			mutate:  func(c *SpillwayConfig) { c.Allowance = 1; c.Deadband = 0.25 },
			periods: []Period{secPeriod(med(h1, 100, 6), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return min(b, 0.98) }, // 1 - n x ProbeShare
			ratio:   1.2, reason: "primary",
		},
		{
			name: "deadband: a larger error moves the share by the part beyond it",
			// ratio 4 less the band 1.25: the share shrinks by 3.2^-Gain
			mutate:  func(c *SpillwayConfig) { c.Allowance = 1; c.Deadband = 0.25 },
			periods: []Period{secPeriod(med(h1, 100, 20), med(h2, 100, 5), med(h3, 100, 5))},
			primary: func(b float64) float64 { return b * math.Pow(4/1.25, -gain) },
			ratio:   4, reason: "spill",
		},
		{
			name: "deadband: below the target too",
			// first spill, then the primary at 2 ms against 5 ms: 0.4 x 1.25 = 0.5
			mutate: func(c *SpillwayConfig) { c.Allowance = 1; c.Deadband = 0.25 },
			periods: []Period{
				secPeriod(med(h1, 100, 20), med(h2, 100, 5), med(h3, 100, 5)),
				secPeriod(med(h1, 100, 2), med(h2, 100, 5), med(h3, 100, 5)),
			},
			primary: func(b float64) float64 { return 1 - (1-b)*math.Pow(0.5, gain) },
			ratio:   0.4, reason: "primary",
		},
		{
			name:    "clamped at ProbeShare",
			mutate:  func(c *SpillwayConfig) { c.Gain = 2 },
			periods: []Period{secPeriod(med(h1, 100, 1000), med(h2, 100, 0.1), med(h3, 100, 0.1))},
			primary: func(float64) float64 { return 0.01 },
			ratio:   1000, reason: "spill",
		},
		{
			name:   "clamped at 1 - n x ProbeShare",
			mutate: func(c *SpillwayConfig) { c.Gain = 2; c.ProbeShare = 0.05 },
			periods: []Period{
				secPeriod(med(h1, 100, 1000), med(h2, 100, 0.1), med(h3, 100, 0.1)), // to the floor
				secPeriod(med(h1, 100, 0.1), med(h2, 100, 0.1), med(h3, 100, 0.1)),
			},
			primary: func(float64) float64 { return 0.9 },
			ratio:   0.1, reason: "primary",
		},
		{
			name: "the primary's writes count by their number",
			// reads 2 ms x 300, writes 10 ms x 100: 4 ms against 1 ms
			mutate:  func(c *SpillwayConfig) { c.Allowance = 1 },
			periods: []Period{withWrites(secPeriod(med(h1, 300, 2), med(h2, 100, 1), med(h3, 100, 1)), 100, 10)},
			primary: func(b float64) float64 { return b * math.Pow(4, -gain) },
			ratio:   4, reason: "spill",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, func(c *SpillwayConfig) {
				c.Smoothing = 1
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

// TestSpillwayPrimaryCost checks the mix of the primary's reads and writes.
func TestSpillwayPrimaryCost(t *testing.T) {
	tests := []struct {
		name        string
		read, write float64 // smoothed server times (s)
		period      Period
		want        float64
	}{
		{"no read latency: 0, whatever the writes", 0, 0.01, withWrites(secPeriod(med(h1, 100, 1)), 100, 10), 0},
		{"no write latency: the reads'", 0.002, 0, withWrites(secPeriod(med(h1, 100, 1)), 100, 10), 0.002},
		{"count-weighted", 0.002, 0.010, withWrites(secPeriod(med(h1, 300, 1)), 100, 10), (300*0.002 + 100*0.010) / 400},
		{"no writes this period: the reads'", 0.002, 0.010, secPeriod(med(h1, 300, 1)), 0.002},
		{"no primary reads this period: the writes'", 0.002, 0.010, withWrites(secPeriod(med(h2, 300, 1)), 100, 10), 0.010},
		{"no operations at all: the reads'", 0.002, 0.010, secPeriod(med(h2, 300, 1)), 0.002},
		{"reads counted even under MinSamples", 0.002, 0.010, withWrites(secPeriod(med(h1, 5, 1)), 15, 10), (5*0.002 + 15*0.010) / 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
			s.primary = h1
			s.lat[h1] = tt.read
			s.write = tt.write
			if got := s.primaryCost(tt.period); math.Abs(got-tt.want) > 1e-15 {
				t.Fatalf("cost %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSpillwaySecondaryShares checks the secondaries' relative shares,
// unfloored, and the spill latency they are moved toward.
func TestSpillwaySecondaryShares(t *testing.T) {
	g := DefaultSpillwayConfig().Gain
	norm := func(r ...float64) []float64 {
		var sum float64
		for _, v := range r {
			sum += v
		}
		for i := range r {
			r[i] /= sum
		}
		return r
	}
	tests := []struct {
		name     string
		w        Weights
		lat      map[string]float64
		wantRel  []float64 // h2, h3
		wantMean float64
	}{
		{
			name:     "equal latencies keep the shares",
			w:        Weights{Primary: 0.5, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.2}}},
			lat:      map[string]float64{h2: 0.002, h3: 0.002},
			wantRel:  []float64{0.6, 0.4},
			wantMean: 0.002,
		},
		{
			name:     "each moves by (mean/latency)^Gain, the mean weighted by share beyond ProbeShare",
			w:        Weights{Primary: 0.5, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.2}}},
			lat:      map[string]float64{h2: 0.001, h3: 0.004},
			wantMean: (0.29*0.001 + 0.19*0.004) / 0.48,
			wantRel: norm(0.6*math.Pow((0.29*0.001+0.19*0.004)/0.48/0.001, g),
				0.4*math.Pow((0.29*0.001+0.19*0.004)/0.48/0.004, g)),
		},
		{
			name:     "an unmeasured secondary keeps its share and is left out of the mean",
			w:        Weights{Primary: 0.6, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.1}}},
			lat:      map[string]float64{h2: 0.003},
			wantRel:  []float64{0.75, 0.25},
			wantMean: 0.003,
		},
		{
			name:     "none measured: shares kept, mean 0",
			w:        Weights{Primary: 0.6, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.1}}},
			wantRel:  []float64{0.75, 0.25},
			wantMean: 0,
		},
		{
			name: "no secondary share yet: from equal, each moved toward the least latency",
			// none is beyond ProbeShare: the mean is the least latency
			w:        Weights{Primary: 1, Secondaries: []HostWeight{{h2, 0}, {h3, 0}}},
			lat:      map[string]float64{h2: 0.001, h3: 0.004},
			wantRel:  norm(0.5, 0.5*math.Pow(0.25, g)),
			wantMean: 0.001,
		},
		{
			name: "not floored here: a slow member falls below ProbeShare (EndPeriod floors the shares)",
			// h3 holds 1% of the secondaries' part, at its probe share of all
			// reads, and is 16 times slower: the mean is h2's alone, h3 halves
			w:        Weights{Primary: 0.5, Secondaries: []HostWeight{{h2, 0.495}, {h3, 0.005}}},
			lat:      map[string]float64{h2: 0.001, h3: 0.016},
			wantMean: 0.001,
			wantRel:  norm(0.99, 0.01*math.Pow(1.0/16, g)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
			s.fresh = []string{h2, h3}
			s.w = tt.w
			for h, v := range tt.lat {
				s.lat[h] = v
			}
			rel, mean := s.secondaryShares()
			if math.Abs(mean-tt.wantMean) > 1e-15 {
				t.Errorf("mean %v, want %v", mean, tt.wantMean)
			}
			if len(rel) != 2 || math.Abs(rel[0]-tt.wantRel[0]) > 1e-12 || math.Abs(rel[1]-tt.wantRel[1]) > 1e-12 {
				t.Errorf("relative shares %v, want %v", rel, tt.wantRel)
			}
		})
	}
}

// TestSpillwaySpillLatency checks the latency spilled reads are judged by:
// the secondaries' weighted by their shares beyond ProbeShare, the least
// when all are only probed, 0 when none is measured.
func TestSpillwaySpillLatency(t *testing.T) {
	tests := []struct {
		name  string
		probe float64
		w     Weights
		lat   map[string]float64 // s
		want  float64            // s
	}{
		{
			name: "weighted by the shares beyond ProbeShare",
			w:    Weights{Primary: 0.5, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.2}}},
			lat:  map[string]float64{h2: 0.001, h3: 0.004},
			want: (0.29*0.001 + 0.19*0.004) / 0.48,
		},
		{
			name: "a member only probed takes no part",
			w:    Weights{Primary: 0.49, Secondaries: []HostWeight{{h2, 0.5}, {h3, 0.01}}},
			lat:  map[string]float64{h2: 0.001, h3: 0.05},
			want: 0.001,
		},
		{
			name: "all only probed: the least of them",
			w:    Weights{Primary: 0.98, Secondaries: []HostWeight{{h2, 0.01}, {h3, 0.01}}},
			lat:  map[string]float64{h2: 0.003, h3: 0.002},
			want: 0.002,
		},
		{
			name: "all under their probe share (a fresh poll's): the least of them",
			w:    Weights{Primary: p2, Secondaries: []HostWeight{{h2, q2}, {h3, q2}}},
			lat:  map[string]float64{h2: 0.001, h3: 0.05},
			want: 0.001,
		},
		{
			name: "an unmeasured member takes no part, whatever its share",
			w:    Weights{Primary: 0.4, Secondaries: []HostWeight{{h2, 0.5}, {h3, 0.1}}},
			lat:  map[string]float64{h3: 0.004},
			want: 0.004,
		},
		{
			name: "the primary's latency takes no part",
			w:    Weights{Primary: 0.98, Secondaries: []HostWeight{{h2, 0.01}, {h3, 0.01}}},
			lat:  map[string]float64{h1: 0.0001, h2: 0.003, h3: 0.002},
			want: 0.002,
		},
		{
			name: "none measured: 0",
			w:    Weights{Primary: 0.5, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.2}}},
			want: 0,
		},
		{
			name:  "ProbeShare 0: weighted by the whole shares",
			probe: -1,
			w:     Weights{Primary: 0.5, Secondaries: []HostWeight{{h2, 0.3}, {h3, 0.2}}},
			lat:   map[string]float64{h2: 0.001, h3: 0.004},
			want:  (0.3*0.001 + 0.2*0.004) / 0.5,
		},
		{
			name:  "ProbeShare 0 and no share yet: the least",
			probe: -1,
			w:     Weights{Primary: 1, Secondaries: []HostWeight{{h2, 0}, {h3, 0}}},
			lat:   map[string]float64{h2: 0.001, h3: 0.004},
			want:  0.001,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, func(c *SpillwayConfig) {
				if tt.probe < 0 {
					c.ProbeShare = 0
				}
			})
			s.fresh = []string{h2, h3}
			s.primary = h1
			s.w = tt.w
			for h, v := range tt.lat {
				s.lat[h] = v
			}
			if got := s.spillLatency(); math.Abs(got-tt.want) > 1e-15 {
				t.Fatalf("spill latency %v, want %v", got, tt.want)
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

// TestSpillwayWritesNewPrimary checks that the writes' estimate is the
// primary's in the latest poll: a poll that names another primary resets
// it, so the old primary's writes do not count against the new one.
func TestSpillwayWritesNewPrimary(t *testing.T) {
	elected := poll(time.Second, prim(h2), sec(h1, 0), sec(h3, 0))
	type step struct {
		lag    *Lag
		period *Period
		write  float64 // ms after the step
	}
	steps := []step{
		{lag: l(freshPoll), write: 0},
		{period: p(withWrites(secPeriod(med(h1, 100, 2), med(h2, 100, 1), med(h3, 100, 1)), 100, 8)), write: 8},
		// the same primary: kept
		{lag: l(freshPoll), write: 8},
		// a failed poll names no primary: kept
		{lag: l(Lag{}), write: 8},
		{lag: l(freshPoll), write: 8},
		// an election: reset
		{lag: l(elected), write: 0},
		// the new primary's first writes are taken as they are (with the old
		// estimate kept they would average to 14 ms)
		{period: p(withWrites(secPeriod(med(h2, 100, 3), med(h1, 100, 1), med(h3, 100, 1)), 100, 20)), write: 20},
		{lag: l(elected), write: 20},
		// and back
		{lag: l(freshPoll), write: 0},
	}
	s := newSpillway(t, nil)
	for i, st := range steps {
		switch {
		case st.lag != nil:
			s.ObserveLag(*st.lag)
		case st.period != nil:
			s.EndPeriod(*st.period)
		}
		if got := s.write * 1000; math.Abs(got-st.write) > 1e-9 {
			t.Fatalf("step %d: writes %vms, want %vms", i, got, st.write)
		}
	}

	// Right after an election the new primary's cost is its reads' alone,
	// though writes are counted in the period.
	s = newSpillway(t, func(c *SpillwayConfig) { c.Smoothing = 1 })
	s.ObserveLag(freshPoll)
	s.EndPeriod(withWrites(secPeriod(med(h1, 100, 2), med(h2, 100, 1), med(h3, 100, 1)), 100, 500))
	s.ObserveLag(elected)
	s.lat[h2] = 0.003
	if got := s.primaryCost(withWrites(secPeriod(med(h2, 100, 3)), 100, 0)); math.Abs(got-0.003) > 1e-15 {
		t.Fatalf("new primary's cost %v, want its reads' 0.003 (the old primary's writes forgotten)", got)
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

// TestSpillwayObserve checks the latencies a period leaves: median less
// the least round trip, smoothed, and the baseline.
func TestSpillwayObserve(t *testing.T) {
	rtt := func(host string, count int, p50, ping, least float64) MemberStats {
		return MemberStats{Host: host, Count: count, P50: dur(p50), RTT: dur(ping), Min: dur(least)}
	}
	tests := []struct {
		name    string
		mutate  func(*SpillwayConfig)
		periods []Period
		want    map[string]float64 // host -> Latency (ms), "writes" the primary's writes
		base    float64            // the baseline (ms)
	}{
		{
			name:    "no RTT known: the median is server time",
			periods: []Period{secPeriod(med(h1, 10, 2))},
			want:    map[string]float64{h1: 2},
			base:    2,
		},
		{
			name:    "the ping when it is below the fastest read",
			periods: []Period{secPeriod(rtt(h1, 10, 3, 0.5, 0.8))},
			want:    map[string]float64{h1: 2.5},
			base:    2.5,
		},
		{
			name:    "the fastest read when it is below the ping",
			periods: []Period{secPeriod(rtt(h1, 10, 3, 0.8, 0.5))},
			want:    map[string]float64{h1: 2.5},
			base:    2.5,
		},
		{
			name:    "the fastest read when no ping",
			periods: []Period{secPeriod(rtt(h1, 10, 3, 0, 0.5))},
			want:    map[string]float64{h1: 2.5},
			base:    2.5,
		},
		{
			name:    "the least round trip over the window",
			periods: []Period{secPeriod(rtt(h1, 10, 3, 0.5, 0)), secPeriod(rtt(h1, 10, 3, 2, 0))},
			want:    map[string]float64{h1: 2.5},
			base:    2.5,
		},
		{
			name:   "a round trip older than RTTWindow is forgotten",
			mutate: func(c *SpillwayConfig) { c.RTTWindow = 2 * time.Second },
			periods: []Period{secPeriod(rtt(h1, 10, 3, 0.5, 0)), secPeriod(rtt(h1, 10, 3, 1, 0)),
				secPeriod(rtt(h1, 10, 3, 2, 0))},
			// server time 2.5, 2.5, then 2 once the 0.5 ms ping has left the window
			want: map[string]float64{h1: 2.25},
			base: 2,
		},
		{
			name:    "a round trip from a period without reads still counts",
			periods: []Period{secPeriod(rtt(h1, 0, 0, 0.5, 0)), secPeriod(rtt(h1, 10, 3, 2, 0))},
			want:    map[string]float64{h1: 2.5},
			base:    2.5,
		},
		{
			name: "a round trip from a period under MinSamples reads counts too",
			// 1 ms (3 less 2), then 2.5 ms (3 less 0.5) with weight 0.45
			periods: []Period{secPeriod(rtt(h1, 10, 3, 2, 0)), secPeriod(rtt(h1, 9, 3, 0.5, 0))},
			want:    map[string]float64{h1: 1 + 0.45*1.5},
			base:    1,
		},
		{
			name:    "floored at LatencyFloor",
			periods: []Period{secPeriod(rtt(h1, 10, 1, 3, 0))},
			want:    map[string]float64{h1: 0.02},
			base:    0.02,
		},
		{
			name:    "smoothed with weight Smoothing",
			periods: []Period{secPeriod(med(h1, 10, 2)), secPeriod(med(h1, 10, 4))},
			want:    map[string]float64{h1: 3},
			base:    2,
		},
		{
			name:    "Smoothing 1 keeps only the latest",
			mutate:  func(c *SpillwayConfig) { c.Smoothing = 1 },
			periods: []Period{secPeriod(med(h1, 10, 2)), secPeriod(med(h1, 10, 4))},
			want:    map[string]float64{h1: 4},
			base:    2,
		},
		{
			name:    "a first measurement from few reads is taken as it is, and makes the baseline too",
			periods: []Period{secPeriod(med(h1, 10, 2), med(h2, 9, 1), med(h3, 1, 0.5))},
			want:    map[string]float64{h1: 2, h2: 1, h3: 0.5},
			base:    0.5,
		},
		{
			name: "MinSamples reads or more move the average by Smoothing, fewer in proportion",
			periods: []Period{secPeriod(med(h1, 10, 2), med(h2, 10, 2), med(h3, 500, 2)),
				secPeriod(med(h1, 10, 4), med(h2, 9, 4), med(h3, 500, 4))},
			want: map[string]float64{h1: 3, h2: 2 + 0.45*2, h3: 3},
			base: 2,
		},
		{
			name:    "a few reads move the latency in proportion and count toward the baseline",
			periods: []Period{secPeriod(med(h1, 10, 2)), secPeriod(med(h1, 9, 0.5))},
			want:    map[string]float64{h1: 2 - 0.45*1.5},
			base:    0.5,
		},
		{
			name:    "one read moves it by Smoothing / MinSamples",
			periods: []Period{secPeriod(med(h1, 10, 2)), secPeriod(med(h1, 1, 0.5))},
			want:    map[string]float64{h1: 2 - 0.05*1.5},
			base:    0.5,
		},
		{
			name:    "no reads leave the latency as it was",
			periods: []Period{secPeriod(med(h1, 10, 2)), secPeriod(med(h1, 0, 0.5))},
			want:    map[string]float64{h1: 2},
			base:    2,
		},
		{
			name:   "a custom MinSamples",
			mutate: func(c *SpillwayConfig) { c.MinSamples = 100 },
			periods: []Period{secPeriod(med(h1, 100, 2), med(h2, 100, 2), med(h3, 99, 1)),
				secPeriod(med(h1, 100, 4), med(h2, 50, 4))},
			want: map[string]float64{h1: 3, h2: 2.5, h3: 1},
			base: 1,
		},
		{
			name:    "no median: skipped",
			periods: []Period{secPeriod(med(h1, 100, 0), MemberStats{Host: h2, Count: 100, P50: -ms})},
			want:    map[string]float64{h1: 0, h2: 0},
			base:    0,
		},
		{
			name:    "the baseline is the least of any member",
			periods: []Period{secPeriod(med(h1, 10, 2), med(h2, 10, 0.3), med(h3, 10, 0.7))},
			want:    map[string]float64{h1: 2, h2: 0.3, h3: 0.7},
			base:    0.3,
		},
		{
			name:   "the baseline forgets periods older than BaselineWindow",
			mutate: func(c *SpillwayConfig) { c.BaselineWindow = 2 * time.Second },
			periods: []Period{secPeriod(med(h2, 10, 0.3)), secPeriod(med(h2, 10, 0.7)),
				secPeriod(med(h2, 10, 0.9))},
			want: map[string]float64{h2: 0.7}, // 0.3 -> 0.5 -> 0.7
			base: 0.7,
		},
		{
			name: "writes: their median less the primary's round trip",
			periods: []Period{withWrites(secPeriod(rtt(h1, 10, 3, 0.5, 0)), 10, 8.5),
				withWrites(secPeriod(rtt(h1, 10, 3, 0.5, 0)), 10, 4.5)},
			want: map[string]float64{h1: 2.5, "writes": 6}, // 8 then 4, smoothed
			base: 2.5,
		},
		{
			name:    "a few writes move their latency in proportion",
			periods: []Period{withWrites(secPeriod(), 10, 8), withWrites(secPeriod(), 9, 1)},
			want:    map[string]float64{"writes": 8 - 0.45*7},
			base:    0,
		},
		{
			name:    "no writes leave their latency as it was",
			periods: []Period{withWrites(secPeriod(), 10, 8), withWrites(secPeriod(), 0, 1)},
			want:    map[string]float64{"writes": 8},
			base:    0,
		},
		{
			name:    "a first few writes are taken as they are",
			periods: []Period{withWrites(secPeriod(), 1, 8)},
			want:    map[string]float64{"writes": 8},
			base:    0,
		},
		{
			name:    "writes without a median are skipped",
			periods: []Period{withWrites(secPeriod(), 10, 0)},
			want:    map[string]float64{"writes": 0},
			base:    0,
		},
		{
			name:    "a member not in the latest poll is still measured",
			periods: []Period{secPeriod(med("h9:1", 100, 1))},
			want:    map[string]float64{"h9:1": 1},
			base:    1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, tt.mutate)
			s.ObserveLag(freshPoll)
			for _, per := range tt.periods {
				s.EndPeriod(per)
			}
			for h, want := range tt.want {
				got := s.Latency(h)
				if h == "writes" {
					got = seconds(s.write)
				}
				if math.Abs(got.Seconds()*1000-want) > 1e-6 {
					t.Errorf("%s: %v, want %vms", h, got, want)
				}
			}
			if got := s.base.least(""); math.Abs(got.Seconds()*1000-tt.base) > 1e-6 {
				t.Errorf("baseline %v, want %vms", got, tt.base)
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

func TestSpillwayDescribe(t *testing.T) {
	s := newSpillway(t, nil)
	s.ObserveLag(freshPoll)
	s.lat[h1], s.lat[h2] = 0.002, 0.0015
	s.write = 0.003
	want := "primary ops 2.50ms (reads 2.00ms, writes 3.00ms) vs target 4.00ms (baseline 1.00ms), " +
		h2 + " 1.50ms, " + h3 + " 0.00ms"
	if got := s.describe(0.0025, 0.004, 0.001); got != want {
		t.Fatalf("describe:\n got %q\nwant %q", got, want)
	}
	// EndPeriod's Detail is describe's
	s2 := newSpillway(t, func(c *SpillwayConfig) { c.Smoothing = 1 })
	s2.ObserveLag(freshPoll)
	dec := s2.EndPeriod(secPeriod(med(h1, 100, 8), med(h2, 100, 2), med(h3, 100, 2)))
	want = "primary ops 8.00ms (reads 8.00ms, writes 0.00ms) vs target 8.00ms (baseline 2.00ms), " +
		h2 + " 2.00ms, " + h3 + " 2.00ms"
	if dec.Detail != want {
		t.Fatalf("detail:\n got %q\nwant %q", dec.Detail, want)
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
		{"allowance under 1", func(c *SpillwayConfig) { c.Allowance = 0.99 }, "allowance 0.99"},
		{"allowance NaN", func(c *SpillwayConfig) { c.Allowance = math.NaN() }, "allowance NaN"},
		{"negative allowance floor", func(c *SpillwayConfig) { c.AllowanceFloor = -1 }, "allowance floor"},
		{"zero gain", func(c *SpillwayConfig) { c.Gain = 0 }, "gain"},
		{"gain above 2", func(c *SpillwayConfig) { c.Gain = 2.01 }, "gain"},
		{"gain NaN", func(c *SpillwayConfig) { c.Gain = math.NaN() }, "gain"},
		{"negative probe share", func(c *SpillwayConfig) { c.ProbeShare = -0.01 }, "probe share"},
		{"probe share above 0.1", func(c *SpillwayConfig) { c.ProbeShare = 0.11 }, "probe share"},
		{"probe share NaN", func(c *SpillwayConfig) { c.ProbeShare = math.NaN() }, "probe share"},
		{"zero smoothing", func(c *SpillwayConfig) { c.Smoothing = 0 }, "smoothing"},
		{"smoothing above 1", func(c *SpillwayConfig) { c.Smoothing = 1.5 }, "smoothing"},
		{"smoothing NaN", func(c *SpillwayConfig) { c.Smoothing = math.NaN() }, "smoothing"},
		{"no samples", func(c *SpillwayConfig) { c.MinSamples = 0 }, "min samples"},
		{"zero latency floor", func(c *SpillwayConfig) { c.LatencyFloor = 0 }, "latency floor"},
		{"RTT window under the interval", func(c *SpillwayConfig) { c.RTTWindow = c.Interval - 1 }, "RTT window"},
		{"baseline window under the interval", func(c *SpillwayConfig) { c.BaselineWindow = c.Interval / 2 }, "baseline window"},
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
			c.Allowance, c.AllowanceFloor, c.ProbeShare, c.MinSamples, c.Headroom = 1, 0, 0, 1, 0
			c.RTTWindow, c.BaselineWindow = c.Interval, c.Interval
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
// Where today's policy meets the target (targetRatio, targetSettle) the row
// asserts it. Where it does not, the row's comment says why and the row
// asserts what holds today, the measured ratio plus 0.005 rounded up to the
// hundredth and the measured settle period, so a regression fails; the
// failure message says how far the run is from the target, and a row whose
// bound is looser than the target fails once the run meets it, so that its
// comment is revised. Meeting the target everywhere is the policy's to do;
// these tests say where it stands.
//
// The reasons, read from the per-period weights, baseline and target of
// each run, and confirmed by rerunning with one setting changed:
//  1. The allowance. The primary's target is the largest of Allowance (4) x
//     baseline, AllowanceFloor (1 ms in these tests) and the spilled reads'
//     latency, so at equilibrium the primary's reads are up to 4 times
//     slower than the secondaries': latency traded for freshness, which the
//     best split (freshness ignored) does not make. With Allowance 1 and no
//     floor the models of equal members reach 1.00 x.
//  2. The baseline drift. The baseline is the least median of any member
//     over BaselineWindow (60 periods); under sustained load no member is
//     idle, so once the first periods' idle reads leave the window, at
//     period 61, the baseline is a loaded secondary's median, Allowance x
//     baseline overtakes the floor and the primary takes reads back. That
//     move's transient leaves lower medians in the window, which expire one
//     window later, so the weights step again near periods 122 and 183, by
//     less each time: that is what settles late. With a BaselineWindow
//     longer than the run every model settles within 22 periods.
//  3. Equal latencies are not the least mean latency. The secondaries' split
//     (and, with Allowance 1, the primary's) equalises latencies; the least
//     mean latency equalises marginal costs, which gives a slower member
//     more than the equal-latency split does. A member whose idle read is as
//     slow as the others' loaded ones falls to its probe share.
//
// Not covered, because the weights do not settle there: every member 85%
// busy or more (open(13000)), or a saturated closed loop (64 clients); the
// primary's share then cycles between about 0.22 and 0.47.
func TestSpillwayConverges(t *testing.T) {
	const (
		periods = 300
		eps     = 1e-3 // after settling, the primary's share reverses by more than eps at most 5 times
		tail    = 30   // over the last periods, no share moves by eps/10
	)
	writeSaturated := open(3000)
	writeSaturated.writeUtil, writeSaturated.writes = 0.95, 200
	tests := []struct {
		name  string
		model loadModel
		// ratio is the most Spillway's mean latency may be, over the best
		// split's; settle the most periods it may take to settle. Both are
		// the target where the policy meets it.
		ratio  float64
		settle int
		check  func(w Weights, d Decision) error
	}{
		{
			// Ratio not met, by design (reason 1): the primary's reads
			// take 0.49 ms, under AllowanceFloor and 4 x the 0.2 ms
			// baseline, so 98% of the reads stay on it from the first
			// period; the best split spreads them evenly (0.25 ms).
			name: "light load (primary 59% busy, 0.5 ms) stays on the primary", model: open(3000),
			ratio: 1.93, settle: 0,
			check: func(w Weights, d Decision) error {
				if w.Primary < 0.98-1e-12 {
					return fmt.Errorf("primary share %v under light load", w.Primary)
				}
				return nil
			},
		},
		{
			// Ratio not met (reason 1): the primary is held at the 1 ms
			// floor, 4 times the secondaries' 0.25 ms (0.75 ms against
			// 0.33). Its share falls to 0.12 in period 5 and comes back
			// to 2/3 by period 15.
			name: "moderate load spills to keep the primary at the allowance floor", model: open(6000),
			ratio: 2.26, settle: targetSettle,
			check: atTarget(0.5, 0.9),
		},
		{
			// Neither met (reasons 1 and 2): until period 60 the primary
			// is held at the 1 ms floor, twice the secondaries' 0.5 ms
			// (0.70 ms, 1.16 x); from period 61 its target is 4 x the
			// secondaries' loaded 0.42, later 0.45 ms, and its share goes
			// from 0.40 to 0.44 (1.05 ms, 1.75 x), settled after period 75.
			name: "heavy load", model: open(10000),
			ratio: 1.66, settle: 75,
			check: atTarget(0.3, 0.6),
		},
		{
			// Ratio met; settling not (reason 2): the primary's idle read
			// (1 ms) is slower than the loaded secondaries', so its share
			// is at the 0.01 clamp by period 5 (reason 3); from period 61
			// its target is 4 x the baseline, now the loaded secondaries'
			// least median (2.7 ms, later 3 ms), its share 0.08, and the
			// baseline's step near period 122 moves it by 0.02.
			name: "a primary 5 times slower", model: open(8000, 5*svc, svc, svc),
			ratio: targetRatio, settle: 123,
			check: atTarget(0.01, 0.2),
		},
		{
			// Met: the primary keeps its probe share (its reads 4.5 ms),
			// where the best split gives it none.
			name: "a primary saturated by writes keeps only its probe share", model: writeSaturated,
			ratio: targetRatio, settle: targetSettle,
			check: func(w Weights, d Decision) error {
				if s := w.Secondary(); math.Abs(s-0.99) > 1e-9 || d.Reason != "spill" {
					return fmt.Errorf("secondaries' share %v (%s), want 1 - ProbeShare", s, d.Reason)
				}
				return nil
			},
		},
		{
			// Neither met (reasons 2 and 3): from period 61 the primary
			// is held at 4 x h2's 0.6 ms, 2.4 ms, with 0.57 of the reads
			// (best split: 0.45); h3, whose idle read (0.6 ms) is as slow
			// as h2's loaded one, falls to its probe share (best: 0.10).
			// Before the drift (periods 20-60) 1.15 x.
			name: "a secondary 3 times slower gets less", model: open(8000, svc, svc, 3*svc),
			ratio: 1.99, settle: 78,
			check: func(w Weights, d Decision) error {
				if w.Of(h3) >= w.Of(h2)/2 {
					return fmt.Errorf("slow h3 %v, h2 %v", w.Of(h3), w.Of(h2))
				}
				return atTarget(0.3, 0.7)(w, d)
			},
		},
		{
			// Neither met (reasons 1 and 2): until period 60 the primary
			// is held at the 1 ms floor (0.68 ms, 1.28 x), from period 61
			// at 4 x the secondaries' 0.32 ms (0.85 ms, 1.60 x).
			name:  "closed loop, 16 clients",
			model: psModel{hosts: modelHosts, mu: []float64{5000, 5000, 5000}, clients: 16, think: 0.001, rtt: modelRT},
			ratio: 1.57, settle: 65,
			check: atTarget(0.4, 0.7),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
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
			if ratio > tt.ratio {
				t.Errorf("mean latency over periods %d-%d %.4f ms is %.4f x the best split's %.4f ms (%v), want at most %.2f x (the %.2f x target: %s)",
					targetSettle+1, periods, mean*1000, ratio, best*1000, bestW, tt.ratio, targetRatio, gap(ratio, targetRatio))
			}
			if settled > tt.settle {
				t.Errorf("weights settled (every share within %v of its final value) after %d periods, want at most %d (the %d-period target: %s)",
					settleBand, settled, tt.settle, targetSettle, gap(float64(settled), targetSettle))
			}
			if tt.ratio > targetRatio && ratio <= targetRatio {
				t.Errorf("mean latency %.4f x the best split's meets the %.2f x target now: assert the target and revise the comment", ratio, targetRatio)
			}
			if tt.settle > targetSettle && settled <= targetSettle {
				t.Errorf("settled after %d periods meets the %d-period target now: assert the target and revise the comment", settled, targetSettle)
			}
			if flips > 5 {
				t.Errorf("the primary's share reversed by more than %v %d times after settling", eps, flips)
			}
			if moving > eps/10 {
				t.Errorf("weights still moving by %.2g over the last %d periods", moving, tail)
			}
			if err := tt.check(last, dec); err != nil {
				t.Error(err)
			}
		})
	}
}

// atTarget checks that the primary's share is in [lo, hi] and its
// operations within 2% of their target.
func atTarget(lo, hi float64) func(Weights, Decision) error {
	return func(w Weights, d Decision) error {
		if w.Primary < lo || w.Primary > hi {
			return fmt.Errorf("primary share %v, want in [%v, %v]", w.Primary, lo, hi)
		}
		if math.Abs(d.Ratio-1) > 0.02 {
			return fmt.Errorf("primary's cost / target %v, want 1", d.Ratio)
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
		after  = 55   // within BaselineWindow of the first period
		eps    = 1e-3 // reversals by more than eps are logged
	)
	light, heavy := open(3000), open(10000)
	writes := open(3000)
	writes.writeUtil, writes.writes = 0.95, 200
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
			check: atTarget(0.3, 0.6),
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
			name: "writes stop", before: writes, after: light,
			moved: func(w Weights) bool { return w.Primary >= 0.98-1e-12 }, moveBy: 25, settleBy: 25,
			check: func(w Weights, _ Decision) error { return primaryAtLeast(0.98)(w, w) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
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
// secondaries' few reads set the baseline, so the reads spill.
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
