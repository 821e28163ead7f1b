package balancer

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// The replica set of the Spillway tests: h1 primary, h2 and h3 secondaries,
// until an election says otherwise.
const (
	h1 = "h1:27017"
	h2 = "h2:27018"
	h3 = "h3:27019"
)

func prim(host string) MemberLag { return MemberLag{Host: host, Role: Primary} }
func sec(host string, lag time.Duration) MemberLag {
	return MemberLag{Host: host, Role: Secondary, Lag: lag}
}

// poll is a known lag poll with the given horizon.
func poll(horizon time.Duration, members ...MemberLag) Lag {
	l := Lag{Known: true, Horizon: horizon, Members: members}
	for _, m := range members {
		if m.Role == Secondary {
			l.Max = max(l.Max, m.Lag)
		}
	}
	return l
}

// freshPoll has h1 primary and h2, h3 100 ms behind, polled every second.
var freshPoll = poll(time.Second, prim(h1), sec(h2, 100*ms), sec(h3, 100*ms))

// served is a member's reads in a period: count reads of the given mean
// latency (ms).
func served(host string, count int, meanMS float64) MemberStats {
	return MemberStats{Host: host, Count: count, Mean: time.Duration(meanMS * float64(ms))}
}

// secPeriod is a one-second period of the given members' reads.
func secPeriod(members ...MemberStats) Period {
	return Period{Length: time.Second, Members: members}
}

// shares flattens w into host -> share, the primary's under "primary".
func shares(w Weights) map[string]float64 {
	out := map[string]float64{"primary": w.Primary}
	for _, h := range w.Secondaries {
		out[h.Host] += h.Weight
	}
	return out
}

// checkWeights asserts w's invariants: shares in [0, 1] summing to 1, no
// host twice.
func checkWeights(w Weights) error {
	sum := w.Primary
	seen := map[string]bool{}
	for _, h := range w.Secondaries {
		if seen[h.Host] {
			return fmt.Errorf("%s listed twice in %v", h.Host, w)
		}
		seen[h.Host] = true
		if h.Weight < 0 || h.Weight > 1 {
			return fmt.Errorf("%s has share %v", h.Host, h.Weight)
		}
		sum += h.Weight
	}
	if w.Primary < 0 || w.Primary > 1 || math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("weights %v sum to %v", w, sum)
	}
	return nil
}

func newSpillway(t *testing.T, mutate func(*SpillwayConfig)) *Spillway {
	t.Helper()
	cfg := DefaultSpillwayConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := NewSpillway(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spStep is one observation fed to Spillway and what must hold after it.
type spStep struct {
	lag    *Lag
	period *Period
	// want, when set, is the exact routing expected (host -> share, the
	// primary's under "primary"; hosts absent must have no share).
	want map[string]float64
	// check, when set, asserts a property of the routing.
	check func(w Weights) error
	// reason, when set, is the decision's expected Reason.
	reason string
}

// Shares a fresh poll gives: the primary keeps its share, each newcomer gets
// ProbeShare, then all are scaled to sum to 1.
const (
	p2 = 1 / 1.02    // primary with two probing secondaries
	q2 = 0.01 / 1.02 // each of them
	p1 = 1 / 1.01    // primary with one probing secondary
	q1 = 0.01 / 1.01 // it
)

// primaryAtLeast checks the primary's share.
func primaryAtLeast(f float64) func(Weights) error {
	return func(w Weights) error {
		if w.Primary < f {
			return fmt.Errorf("primary share %v, want at least %v", w.Primary, f)
		}
		return nil
	}
}

func TestSpillway(t *testing.T) {
	// Light load: the primary serves 200 reads/s at 1 ms (capacity about
	// 1200/s), the secondaries a probe's worth each.
	light := secPeriod(served(h1, 200, 1), served(h2, 2, 1), served(h3, 2, 1))
	// Saturated primary: writes leave it 20 reads/s at 500 ms (capacity 22),
	// while the secondaries serve 400 reads/s at 2 ms (capacity 900).
	saturated := secPeriod(served(h1, 20, 500), served(h2, 400, 2), served(h3, 400, 2))
	// A saturated primary, h2 serving 800 reads/s at 10 ms (capacity 900),
	// h3 250 at 20 ms (capacity 300).
	unequal := secPeriod(served(h1, 20, 500), served(h2, 800, 10), served(h3, 250, 20))
	tests := []struct {
		name   string
		mutate func(*SpillwayConfig)
		steps  []spStep
	}{
		{
			name: "starts on the primary",
			steps: []spStep{
				{want: map[string]float64{"primary": 1}},
			},
		},
		{
			name: "fresh secondaries start at the probe share",
			steps: []spStep{
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
			},
		},
		{
			name: "bound 0: primary only, whatever the polls and periods",
			mutate: func(c *SpillwayConfig) {
				c.Bound = Bound{}
				c.Headroom = 0
			},
			steps: []spStep{
				{lag: l(poll(0, prim(h1), sec(h2, 0), sec(h3, 0))), want: map[string]float64{"primary": 1}},
				{period: p(saturated), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
				{period: p(saturated), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
			},
		},
		{
			name: "unknown lag: primary only until a known poll",
			steps: []spStep{
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				{lag: l(Lag{Known: false, Members: freshPoll.Members}), want: map[string]float64{"primary": 1}},
				{lag: l(Lag{}), want: map[string]float64{"primary": 1}},
				{period: p(saturated), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
				{lag: l(freshPoll), want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
			},
		},
		{
			name: "a member not SECONDARY never gets weight",
			steps: []spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, 0), MemberLag{Host: h3, Lag: 0})),
					want: map[string]float64{"primary": p1, h2: q1}},
				{period: p(saturated), reason: "spill", check: func(w Weights) error {
					if w.Of(h3) != 0 {
						return fmt.Errorf("h3 (role 0) has share %v", w.Of(h3))
					}
					return nil
				}},
			},
		},
		{
			name: "lag plus the poll's horizon at the bound is fresh, over it is stale (AutoHeadroom)",
			steps: []spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, 9*time.Second), sec(h3, 9*time.Second+ms))),
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
			name:   "unbounded: any known lag is fresh",
			mutate: func(c *SpillwayConfig) { c.Bound = Bound{Unbounded: true} },
			steps: []spStep{
				{lag: l(poll(time.Second, prim(h1), sec(h2, time.Hour), sec(h3, 0))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				// ObserveLag's doc: an unknown lag leaves no secondary, even
				// unbounded (unlike Decongestant, which ignores it).
				{lag: l(Lag{Members: freshPoll.Members}), want: map[string]float64{"primary": 1}},
			},
		},
		{
			name: "the primary's capacity is unknown: weights stay as they are",
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(secPeriod(served(h1, 9, 1), served(h2, 400, 2), served(h3, 400, 2))),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples"},
				{period: p(Period{Length: time.Second}),
					want: map[string]float64{"primary": p2, h2: q2, h3: q2}, reason: "too-few-samples"},
			},
		},
		{
			name: "no fresh secondary: primary only at the period end",
			steps: []spStep{
				{period: p(saturated), want: map[string]float64{"primary": 1}, reason: "no-fresh-secondary"},
			},
		},
		{
			name: "light load stays on the primary",
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(light), reason: "primary", want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
				{period: p(light), reason: "primary", want: map[string]float64{"primary": p2, h2: q2, h3: q2}},
			},
		},
		{
			name: "a saturated primary spills and the secondaries approach 1 - ProbeShare",
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(saturated), reason: "spill", check: func(w Weights) error {
					if w.Primary > 0.6 || w.Primary < 0.4 {
						return fmt.Errorf("primary %v: want half way from %v to the target", w.Primary, p2)
					}
					return nil
				}},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				{period: p(saturated), reason: "spill"},
				// Step 0.5 halves the gap to the target (0.99) every period
				{period: p(saturated), reason: "spill", check: func(w Weights) error {
					if s := w.Secondary(); s < 0.989 {
						return fmt.Errorf("secondaries' share %v, want close to 0.99", s)
					}
					if d := math.Abs(w.Of(h2) - w.Of(h3)); d > 1e-9 {
						return fmt.Errorf("equal secondaries differ by %v", d)
					}
					return nil
				}},
			},
		},
		{
			name: "a stale secondary drops out alone at once and its share goes to the others",
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(saturated)},
				{period: p(saturated)},
				{period: p(saturated)},
				{period: p(saturated), check: func(w Weights) error {
					if w.Of(h2) < 0.4 || w.Of(h3) < 0.4 {
						return fmt.Errorf("secondaries not serving: %v", w)
					}
					return nil
				}},
				{lag: l(poll(time.Second, prim(h1), sec(h2, 100*ms), sec(h3, 9500*ms))), check: func(w Weights) error {
					if w.Of(h3) != 0 || len(w.Secondaries) != 1 {
						return fmt.Errorf("stale h3 kept a share: %v", w)
					}
					if w.Of(h2) < 0.8 {
						return fmt.Errorf("fresh h2 has %v, want most of the stale one's share", w.Of(h2))
					}
					return nil
				}},
				// the period that ends while h3 is stale keeps it out
				{period: p(saturated), reason: "spill", check: func(w Weights) error {
					if w.Of(h3) != 0 {
						return fmt.Errorf("stale h3 back at the period end: %v", w)
					}
					return nil
				}},
				// back within the bound: a probe share first
				{lag: l(freshPoll), check: func(w Weights) error {
					if got := w.Of(h3); math.Abs(got-0.01/(1+0.01)) > 1e-9 {
						return fmt.Errorf("h3 back with %v, want the probe share", got)
					}
					return nil
				}},
			},
		},
		{
			name: "unequal secondaries: the weaker one gets the smaller share",
			steps: []spStep{
				{lag: l(freshPoll)},
				// h3 has a third of h2's capacity (300 vs 900 reads/s), and the
				// demand (1070 reads/s) needs them both
				{period: p(unequal)},
				{period: p(unequal)},
				{period: p(unequal), check: func(w Weights) error {
					if w.Of(h3) >= w.Of(h2) || w.Of(h3) < 0.05 {
						return fmt.Errorf("h2 %v, h3 %v: want the weaker h3 below h2 but serving", w.Of(h2), w.Of(h3))
					}
					return nil
				}},
			},
		},
		{
			name: "an election: the new primary takes the primary's share, the old one probes as a secondary",
			steps: []spStep{
				{lag: l(freshPoll)},
				{period: p(saturated)},
				{period: p(saturated)},
				{lag: l(poll(time.Second, prim(h2), sec(h1, 0), sec(h3, 0))), check: func(w Weights) error {
					if w.Of(h2) != 0 {
						return fmt.Errorf("the new primary h2 is still a weighted secondary: %v", w)
					}
					if w.Of(h1) == 0 || w.Of(h3) == 0 {
						return fmt.Errorf("a fresh secondary has no share: %v", w)
					}
					return nil
				}},
				// h2, measured while a secondary, is now the primary: its
				// estimate is used at once and reads stay on it under light load.
				{period: p(secPeriod(served(h2, 200, 1), served(h1, 2, 1), served(h3, 2, 1))), reason: "primary"},
				{period: p(secPeriod(served(h2, 200, 1), served(h1, 2, 1), served(h3, 2, 1))), reason: "primary"},
				{period: p(secPeriod(served(h2, 200, 1), served(h1, 2, 1), served(h3, 2, 1))), reason: "primary"},
				{period: p(secPeriod(served(h2, 200, 1), served(h1, 2, 1), served(h3, 2, 1))), reason: "primary",
					check: primaryAtLeast(0.9)},
			},
		},
		{
			name:   "an unmeasured secondary counts as capable as the best measured member",
			mutate: func(c *SpillwayConfig) { c.Step = 1 },
			steps: []spStep{
				{lag: l(freshPoll)},
				// primary capacity 1000, h2 2000, h3 too few reads to measure
				{period: p(secPeriod(served(h1, 800, 5), served(h2, 500, 1.0/1.5), served(h3, 5, 1))), reason: "spill",
					check: func(w Weights) error {
						if math.Abs(w.Of(h3)-w.Of(h2)) > 1e-9 || w.Of(h2) < 0.2 {
							return fmt.Errorf("h2 %v, unmeasured h3 %v: want equal real shares", w.Of(h2), w.Of(h3))
						}
						return nil
					}},
			},
		},
		{
			name:   "ProbeShare 0: a newcomer is admitted with no share",
			mutate: func(c *SpillwayConfig) { c.ProbeShare = 0 },
			steps: []spStep{
				{lag: l(freshPoll), want: map[string]float64{"primary": 1, h2: 0, h3: 0}},
				{period: p(light), reason: "primary", want: map[string]float64{"primary": 1, h2: 0, h3: 0}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, tt.mutate)
			for i, st := range tt.steps {
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
					if err := st.check(w); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
				}
				if st.reason != "" && dec.Reason != st.reason {
					t.Fatalf("step %d: reason %q, want %q (weights %v)", i, dec.Reason, st.reason, w)
				}
			}
		})
	}
}

func TestSpillwayStaleShareSpreadsInProportion(t *testing.T) {
	saturated := secPeriod(served(h1, 20, 500), served(h2, 800, 10), served(h3, 250, 20))
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
			s.EndPeriod(saturated)
			s.EndPeriod(saturated)
			before := s.Weights()
			gone := before.Of(h3)
			if gone < 0.05 {
				t.Fatalf("h3 has %v before it goes: the test needs a real share", gone)
			}
			s.ObserveLag(tt.poll)
			after := s.Weights()
			want := map[string]float64{"primary": before.Primary / (1 - gone), h2: before.Of(h2) / (1 - gone)}
			got := shares(after)
			if len(got) != len(want) {
				t.Fatalf("after %v: weights %v, want %v", tt.name, after, want)
			}
			for k, v := range want {
				if math.Abs(got[k]-v) > 1e-12 {
					t.Fatalf("after %v: weights %v, want %v", tt.name, after, want)
				}
			}
			if f := s.Fresh(); !slices.Equal(f, []string{h2}) {
				t.Fatalf("fresh %v, want [%s]", f, h2)
			}
		})
	}
}

func TestSpillwayCapacityEstimates(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*SpillwayConfig)
		periods []Period
		want    map[string]float64 // host -> Capacity (0: unknown)
	}{
		{
			name:    "rate plus the inverse of the mean server time",
			periods: []Period{secPeriod(served(h1, 100, 1), served(h2, 50, 4))},
			want:    map[string]float64{h1: 1100, h2: 300},
		},
		{
			name:    "the rate is over the period's length",
			periods: []Period{{Length: 2 * time.Second, Members: []MemberStats{served(h1, 200, 1)}}},
			want:    map[string]float64{h1: 1100},
		},
		{
			name:    "smoothed with weight Smoothing",
			periods: []Period{secPeriod(served(h1, 100, 1)), secPeriod(served(h1, 200, 2))}, // 1100 then 700
			want:    map[string]float64{h1: 900},
		},
		{
			name:    "Smoothing 1 keeps only the latest",
			mutate:  func(c *SpillwayConfig) { c.Smoothing = 1 },
			periods: []Period{secPeriod(served(h1, 100, 1)), secPeriod(served(h1, 200, 2))},
			want:    map[string]float64{h1: 700},
		},
		{
			name:    "MinSamples reads are enough, one fewer leaves the estimate unknown",
			periods: []Period{secPeriod(served(h1, 10, 1), served(h2, 9, 1))},
			want:    map[string]float64{h1: 1010, h2: 0},
		},
		{
			name:    "too few samples leave an estimate unchanged",
			periods: []Period{secPeriod(served(h1, 100, 1)), secPeriod(served(h1, 9, 100))},
			want:    map[string]float64{h1: 1100},
		},
		{
			name:    "reads short of MinSamples add up over periods",
			periods: []Period{secPeriod(served(h2, 9, 1)), secPeriod(served(h2, 9, 3))}, // 18 reads in 2 s, 36 ms busy
			want:    map[string]float64{h2: 9 + 18/0.036},
		},
		{
			name:    "a period without reads counts in the rate",
			periods: []Period{secPeriod(served(h2, 5, 1)), secPeriod(), secPeriod(served(h2, 5, 1))},
			want:    map[string]float64{h2: 10.0/3 + 1000},
		},
		{
			name: "the reads of an estimate are not used again",
			periods: []Period{secPeriod(served(h1, 10, 1)), secPeriod(served(h1, 5, 100)),
				{Members: []MemberStats{served(h1, 5, 100)}}}, // length 0: not counted
			want: map[string]float64{h1: 1010},
		},
		{
			name:    "a custom MinSamples",
			mutate:  func(c *SpillwayConfig) { c.MinSamples = 100 },
			periods: []Period{secPeriod(served(h1, 100, 1), served(h2, 99, 1))},
			want:    map[string]float64{h1: 1100, h2: 0},
		},
		{
			name:    "a period of length 0 changes no estimate",
			periods: []Period{secPeriod(served(h1, 100, 1)), {Members: []MemberStats{served(h1, 5000, 50), served(h2, 5000, 1)}}},
			want:    map[string]float64{h1: 1100, h2: 0},
		},
		{
			name:    "a negative length changes no estimate",
			periods: []Period{{Length: -time.Second, Members: []MemberStats{served(h1, 100, 1)}}},
			want:    map[string]float64{h1: 0},
		},
		{
			name:    "no mean latency: no estimate",
			periods: []Period{secPeriod(served(h1, 100, 0))},
			want:    map[string]float64{h1: 0},
		},
		{
			name:    "the RTT is not server time",
			periods: []Period{secPeriod(MemberStats{Host: h1, Count: 100, Mean: 3 * ms, RTT: 2 * ms})},
			want:    map[string]float64{h1: 1100},
		},
		{
			name:    "server time is floored at LatencyFloor",
			periods: []Period{secPeriod(MemberStats{Host: h1, Count: 100, Mean: 2 * ms, RTT: 3 * ms})},
			want:    map[string]float64{h1: 100 + 1/50e-6},
		},
		{
			name:    "a member not in the latest poll is still measured",
			periods: []Period{secPeriod(MemberStats{Host: "h9:1", Count: 100, Mean: ms})},
			want:    map[string]float64{"h9:1": 1100},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, tt.mutate)
			for _, per := range tt.periods {
				s.EndPeriod(per)
			}
			for h, want := range tt.want {
				if got := s.Capacity(h); math.Abs(got-want) > 1e-6 {
					t.Errorf("Capacity(%s) = %v, want %v", h, got, want)
				}
			}
		})
	}
}

// TestSpillwayDecisionRatio checks that the ratio reported is the primary's
// utilisation, smoothed demand times the primary's share over its capacity,
// and that the demand is smoothed like the capacities.
func TestSpillwayDecisionRatio(t *testing.T) {
	s := newSpillway(t, nil)
	s.ObserveLag(freshPoll)
	steps := []struct {
		period Period
		demand float64 // smoothed reads/s after the period
		reason string
	}{
		{secPeriod(served(h1, 100, 1), served(h2, 5, 1), served(h3, 5, 1)), 110, "primary"},
		{Period{Members: []MemberStats{served(h1, 1e6, 1)}}, 110, "primary"}, // length 0: no demand either
		{secPeriod(), 55, "primary"},
		{secPeriod(served(h1, 100, 1), served(h2, 5, 1), served(h3, 5, 1)), 82.5, "primary"},
	}
	for i, st := range steps {
		dec := s.EndPeriod(st.period)
		want := st.demand * s.Weights().Primary / 1100
		if math.Abs(dec.Ratio-want) > 1e-9 || dec.Reason != st.reason {
			t.Fatalf("step %d: ratio %v reason %q, want %v %q", i, dec.Ratio, dec.Reason, want, st.reason)
		}
	}
	for _, tt := range []struct {
		name string
		s    *Spillway
	}{
		{"no fresh secondary", newSpillway(t, nil)},
		{"unknown primary capacity", func() *Spillway { s := newSpillway(t, nil); s.ObserveLag(freshPoll); return s }()},
	} {
		if dec := tt.s.EndPeriod(secPeriod(served(h2, 100, 1))); !math.IsNaN(dec.Ratio) {
			t.Errorf("%s: ratio %v, want NaN (reason %q)", tt.name, dec.Ratio, dec.Reason)
		}
	}
}

// TestSpillwayStep checks that the weights move Step of the way to the
// least-cost split (the split itself is what Step 1 gives).
func TestSpillwayStep(t *testing.T) {
	saturated := secPeriod(served(h1, 20, 500), served(h2, 400, 2), served(h3, 100, 5))
	for _, step := range []float64{0.25, 0.5, 0.9} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			full := newSpillway(t, func(c *SpillwayConfig) { c.Step = 1 })
			part := newSpillway(t, func(c *SpillwayConfig) { c.Step = step })
			full.ObserveLag(freshPoll)
			part.ObserveLag(freshPoll)
			from := shares(part.Weights())
			full.EndPeriod(saturated)
			part.EndPeriod(saturated)
			target, got := shares(full.Weights()), shares(part.Weights())
			for k := range target {
				if want := from[k] + step*(target[k]-from[k]); math.Abs(got[k]-want) > 1e-12 {
					t.Fatalf("%s: %v, want %v (from %v toward %v)", k, got[k], want, from[k], target[k])
				}
			}
			if target["primary"] > 0.011 {
				t.Fatalf("Step 1 leaves %v on a saturated primary, want about the probe share", target["primary"])
			}
		})
	}
}

// TestSpillwaySpillsAtSpillAt checks what SpillAt means: between two equal
// members, the secondary gets reads only once the primary's utilisation
// would pass SpillAt.
func TestSpillwaySpillsAtSpillAt(t *testing.T) {
	for _, at := range []float64{0.5, 0.75, 0.9} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			s := newSpillway(t, func(c *SpillwayConfig) { c.SpillAt = at })
			mu := []float64{1000, 1000}
			pen := []float64{0, s.penalty / 1000}
			if got := allocate(mu, pen, 1000*at*0.99); got[1] != 0 {
				t.Errorf("utilisation %v: secondary share %v, want 0", at*0.99, got[1])
			}
			if got := allocate(mu, pen, 1000*at*1.01); got[1] <= 0 {
				t.Errorf("utilisation %v: secondary share %v, want some", at*1.01, got[1])
			}
		})
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
		{"spill at 0", func(c *SpillwayConfig) { c.SpillAt = 0 }, "spill-at"},
		{"spill at 1", func(c *SpillwayConfig) { c.SpillAt = 1 }, "spill-at"},
		{"spill at NaN", func(c *SpillwayConfig) { c.SpillAt = math.NaN() }, "spill-at"},
		{"negative probe share", func(c *SpillwayConfig) { c.ProbeShare = -0.01 }, "probe share"},
		{"probe share above 0.1", func(c *SpillwayConfig) { c.ProbeShare = 0.11 }, "probe share"},
		{"probe share NaN", func(c *SpillwayConfig) { c.ProbeShare = math.NaN() }, "probe share"},
		{"zero smoothing", func(c *SpillwayConfig) { c.Smoothing = 0 }, "smoothing"},
		{"smoothing above 1", func(c *SpillwayConfig) { c.Smoothing = 1.5 }, "smoothing"},
		{"smoothing NaN", func(c *SpillwayConfig) { c.Smoothing = math.NaN() }, "smoothing"},
		{"zero step", func(c *SpillwayConfig) { c.Step = 0 }, "step"},
		{"step above 1", func(c *SpillwayConfig) { c.Step = 1.01 }, "step"},
		{"step NaN", func(c *SpillwayConfig) { c.Step = math.NaN() }, "step"},
		{"no samples", func(c *SpillwayConfig) { c.MinSamples = 0 }, "min samples"},
		{"zero latency floor", func(c *SpillwayConfig) { c.LatencyFloor = 0 }, "latency floor"},
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
		{"extremes", func(c *SpillwayConfig) {
			c.ProbeShare, c.Smoothing, c.Step, c.MinSamples, c.Headroom = 0, 1, 1, 1, 0
		}},
		{"probe share 0.1", func(c *SpillwayConfig) { c.ProbeShare = 0.1 }},
	}
	for _, tt := range valid {
		t.Run("valid "+tt.name, func(t *testing.T) {
			cfg := DefaultSpillwayConfig()
			tt.mutate(&cfg)
			if err := cfg.Validate(); err != nil {
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
		cfg := DefaultSpillwayConfig()
		cfg.Bound, cfg.Headroom = tt.bound, tt.headroom
		s := newSpillway(t, func(c *SpillwayConfig) { *c = cfg })
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
	if p.Name() != "spillway" || p.Selection() != (Selection{Mode: PerMember}) || p.Interval() != time.Second {
		t.Fatalf("name %q selection %v interval %v", p.Name(), p.Selection(), p.Interval())
	}
	if s.Bound() != cfg.Bound || s.Config() != cfg {
		t.Fatalf("bound %v config %+v, want %v %+v", s.Bound(), s.Config(), cfg.Bound, cfg)
	}
	if s.Fraction() != 0 || s.Fresh() != nil {
		t.Fatalf("initial fraction %v fresh %v", s.Fraction(), s.Fresh())
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
}

// psModel is a synthetic replica set: members are processor-sharing queues
// with read capacities mu (reads/s; a primary busy with writes has a small
// one), served by a closed loop of clients that think between reads. Given
// the weights in force, exact mean value analysis gives the throughput and
// every member's mean response time, from which a period is built as the
// router would: counts by the member that served them, mean latencies plus
// RTT.
type psModel struct {
	hosts   []string // hosts[0] is the primary
	mu      []float64
	clients int
	think   float64 // seconds
	rtt     time.Duration
}

// run returns the period the weights produce and its throughput (reads/s).
func (m psModel) run(w Weights, length time.Duration) (Period, float64) {
	v := make([]float64, len(m.hosts)) // visits per read
	v[0] = w.Primary
	for i, h := range m.hosts[1:] {
		v[i+1] = w.Of(h)
	}
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
	per := Period{Length: length}
	for i, h := range m.hosts {
		n := int(math.Round(x * v[i] * length.Seconds()))
		if n == 0 {
			continue
		}
		mean := time.Duration(resp[i]*float64(time.Second)) + m.rtt
		per.Members = append(per.Members, MemberStats{Host: h, Count: n, Mean: mean, RTT: m.rtt})
	}
	return per, x
}

// bestStatic is the highest throughput of any static split, on a 1% grid.
func (m psModel) bestStatic() (float64, Weights) {
	var best float64
	var arg Weights
	for a := 0; a <= 100; a++ {
		for b := 0; a+b <= 100; b++ {
			w := Weights{Primary: float64(a) / 100, Secondaries: []HostWeight{
				{m.hosts[1], float64(b) / 100}, {m.hosts[2], float64(100-a-b) / 100}}}
			if _, x := m.run(w, time.Second); x > best {
				best, arg = x, w
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

// simulate feeds n periods of the model to s (one fresh poll first) and
// returns the weights and throughput after each.
func simulate(s *Spillway, m psModel, n int) ([]Weights, []float64) {
	s.ObserveLag(poll(time.Second, prim(m.hosts[0]), sec(m.hosts[1], 0), sec(m.hosts[2], 0)))
	var ws []Weights
	var xs []float64
	for range n {
		per, x := m.run(s.Weights(), time.Second)
		s.EndPeriod(per)
		ws = append(ws, s.Weights())
		xs = append(xs, x)
	}
	return ws, xs
}

// settling reports, for a run's weights and throughputs, the number of
// periods after which no share moves by eps or more, how often the
// primary's share reverses direction (by more than eps/10) after that, the
// first period whose throughput is within 10% of the last, and the
// relative throughput spread over the second half of the run.
func settling(ws []Weights, xs []float64, eps float64) (settled, flips, reach90 int, spread float64) {
	for i := 1; i < len(ws); i++ {
		if maxChange(ws[i-1], ws[i]) >= eps {
			settled = i + 1
		}
	}
	for i := max(settled, 2); i < len(ws); i++ {
		d0, d1 := ws[i-1].Primary-ws[i-2].Primary, ws[i].Primary-ws[i-1].Primary
		if d0*d1 < 0 && math.Abs(d1) > eps/10 {
			flips++
		}
	}
	final := xs[len(xs)-1]
	reach90 = len(xs)
	for i := len(xs) - 1; i >= 0 && xs[i] >= 0.9*final; i-- {
		reach90 = i + 1
	}
	lo, hi := math.Inf(1), 0.0
	for _, x := range xs[len(xs)/2:] {
		lo, hi = min(lo, x), max(hi, x)
	}
	return settled, flips, reach90, (hi - lo) / hi
}

// TestSpillwayConverges feeds Spillway periods generated from the synthetic
// model, each from the weights in force, and checks that the weights settle
// without oscillating where the issue wants them.
func TestSpillwayConverges(t *testing.T) {
	hosts := []string{h1, h2, h3}
	const (
		periods = 60
		eps     = 1e-3 // settled: no share moves more than this per period
	)
	tests := []struct {
		name   string
		model  psModel
		settle int // periods within which the weights settle
		check  func(w Weights, x, best float64) error
	}{
		{
			name:   "light load stays on the primary",
			model:  psModel{hosts: hosts, mu: []float64{2000, 2000, 2000}, clients: 4, think: 0.01, rtt: 200 * time.Microsecond},
			settle: 5,
			check: func(w Weights, x, best float64) error {
				if w.Primary < 0.9 {
					return fmt.Errorf("primary share %v under light load", w.Primary)
				}
				return nil
			},
		},
		{
			name:   "moderate load spills part of the reads",
			model:  psModel{hosts: hosts, mu: []float64{1000, 1000, 1000}, clients: 16, think: 0.01},
			settle: 30,
			check: func(w Weights, x, best float64) error {
				if w.Primary < 0.5 || w.Primary > 0.9 {
					return fmt.Errorf("primary share %v, want most but not all", w.Primary)
				}
				if x < 0.85*best {
					return fmt.Errorf("throughput %.0f, best static %.0f", x, best)
				}
				return nil
			},
		},
		{
			name:   "heavy load on equal members",
			model:  psModel{hosts: hosts, mu: []float64{1000, 1000, 1000}, clients: 64, think: 0.005},
			settle: 30,
			check: func(w Weights, x, best float64) error {
				if x < 0.98*best {
					return fmt.Errorf("throughput %.0f, best static %.0f", x, best)
				}
				return nil
			},
		},
		{
			name:   "a primary saturated by writes",
			model:  psModel{hosts: hosts, mu: []float64{20, 1000, 1000}, clients: 64, think: 0.02},
			settle: 30,
			check: func(w Weights, x, best float64) error {
				if w.Secondary() < 0.985 {
					return fmt.Errorf("secondaries' share %v, want about 1 - ProbeShare", w.Secondary())
				}
				if x < 0.95*best {
					return fmt.Errorf("throughput %.0f, best static %.0f", x, best)
				}
				return nil
			},
		},
		{
			name:   "a weak secondary gets less",
			model:  psModel{hosts: hosts, mu: []float64{1000, 1000, 333}, clients: 64, think: 0.01},
			settle: 30,
			check: func(w Weights, x, best float64) error {
				if w.Of(h3) >= w.Of(h2) || w.Of(h3) >= w.Primary {
					return fmt.Errorf("weak h3 %v, strong h2 %v, primary %v", w.Of(h3), w.Of(h2), w.Primary)
				}
				if x < 0.98*best {
					return fmt.Errorf("throughput %.0f, best static %.0f", x, best)
				}
				return nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, xs := simulate(newSpillway(t, nil), tt.model, periods)
			settled, flips, reach90, spread := settling(ws, xs, eps)
			best, bestW := tt.model.bestStatic()
			last, x := ws[len(ws)-1], xs[len(xs)-1]
			t.Logf("settled after %d periods, 90%% of the final throughput after %d: %v, %.0f reads/s (%.0f%% of the best static split %v); %d reversals after settling, throughput spread %.2g in the second half",
				settled, reach90, last, x, 100*x/best, bestW, flips, spread)
			if settled > tt.settle {
				t.Errorf("weights still moving by %v or more after period %d, want settled by %d", eps, settled-1, tt.settle)
			}
			if flips > 0 {
				t.Errorf("primary share reversed %d times after settling", flips)
			}
			if spread > 0.01 {
				t.Errorf("throughput varies by %.1f%% in the second half", 100*spread)
			}
			if err := tt.check(last, x, best); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSpillwayFollowsShifts runs the synthetic model through a change of
// load or capacity and checks that the weights reach the new optimum's
// neighbourhood within a budget of periods.
func TestSpillwayFollowsShifts(t *testing.T) {
	hosts := []string{h1, h2, h3}
	var (
		writeSaturated = psModel{hosts: hosts, mu: []float64{20, 1000, 1000}, clients: 64, think: 0.02}
		light          = psModel{hosts: hosts, mu: []float64{1000, 1000, 1000}, clients: 4, think: 0.01}
		moderate       = psModel{hosts: hosts, mu: []float64{1000, 1000, 1000}, clients: 16, think: 0.01}
		heavy          = psModel{hosts: hosts, mu: []float64{1000, 1000, 1000}, clients: 64, think: 0.005}
	)
	tests := []struct {
		name        string
		before, now psModel
		budget      int // periods after the shift
		check       func(w Weights, x, best float64) error
	}{
		{
			name: "writes stop, light load: back on the primary", before: writeSaturated, now: light, budget: 10,
			check: func(w Weights, x, best float64) error {
				if w.Primary < 0.9 {
					return fmt.Errorf("primary share %v under light load", w.Primary)
				}
				return nil
			},
		},
		{
			name: "writes stop, moderate load: the primary takes most", before: writeSaturated, now: moderate, budget: 30,
			check: func(w Weights, x, best float64) error {
				if w.Primary < 0.5 {
					return fmt.Errorf("primary share %v", w.Primary)
				}
				return nil
			},
		},
		{
			name: "writes stop, heavy load: an even split", before: writeSaturated, now: heavy, budget: 15,
			check: func(w Weights, x, best float64) error {
				if x < 0.98*best {
					return fmt.Errorf("throughput %.0f, best static %.0f", x, best)
				}
				return nil
			},
		},
		{
			name: "heavy load ends: back on the primary", before: heavy, now: light, budget: 10,
			check: func(w Weights, x, best float64) error {
				if w.Primary < 0.9 {
					return fmt.Errorf("primary share %v under light load", w.Primary)
				}
				return nil
			},
		},
		{
			name: "load rises: spills", before: light, now: heavy, budget: 20,
			check: func(w Weights, x, best float64) error {
				if x < 0.98*best {
					return fmt.Errorf("throughput %.0f, best static %.0f", x, best)
				}
				return nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpillway(t, nil)
			simulate(s, tt.before, 30)
			var ws []Weights
			var xs []float64
			for range 60 {
				per, x := tt.now.run(s.Weights(), time.Second)
				s.EndPeriod(per)
				ws, xs = append(ws, s.Weights()), append(xs, x)
			}
			settled, _, reach90, _ := settling(ws, xs, 1e-3)
			best, _ := tt.now.bestStatic()
			w, x := ws[tt.budget-1], xs[tt.budget-1]
			t.Logf("after the shift: settled after %d periods, 90%% of the final throughput after %d; after %d periods %v, %.0f reads/s (best static %.0f)",
				settled, reach90, tt.budget, w, x, best)
			if err := tt.check(w, x, best); err != nil {
				t.Errorf("%d periods after the shift: %v", tt.budget, err)
			}
		})
	}
}
