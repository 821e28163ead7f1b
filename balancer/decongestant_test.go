package balancer

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// period builds a period from client P50s (ms) with n samples per side and
// the given RTTs (ms).
func period(n int, primary, secondary, rttP, rttS float64) Period {
	d := func(v float64) time.Duration { return time.Duration(v * float64(ms)) }
	return Period{
		Primary:      Stats{Count: n, P50: d(primary)},
		Secondary:    Stats{Count: n, P50: d(secondary)},
		PrimaryRTT:   d(rttP),
		SecondaryRTT: d(rttS),
	}
}

var (
	congestedPrimary     = period(100, 8, 2, 0, 0) // ratio 4
	congestedSecondaries = period(100, 2, 8, 0, 0) // ratio 0.25
	balanced             = period(100, 2, 2, 0, 0) // ratio 1
	okLag                = Lag{Max: 100 * ms, Known: true}
	badLag               = Lag{Max: 11 * time.Second, Known: true}
)

func newD(t *testing.T, mutate func(*Config)) *Decongestant {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Headroom = 0 // Algorithm 1's exact check; headroom has its own test
	if mutate != nil {
		mutate(&cfg)
	}
	d, err := NewDecongestant(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// step is one observation fed to the balancer and the fraction expected after it.
type step struct {
	period *Period
	lag    *Lag
	want   float64
	reason string
}

func p(x Period) *Period { return &x }
func l(x Lag) *Lag       { return &x }

func TestAlgorithm1(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
		steps  []step
	}{
		{
			name:  "starts at LOWBAL",
			steps: []step{{lag: l(okLag), want: 0.10}},
		},
		{
			name: "congested primary raises by DELTA up to HIGHBAL",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2, reason: "primary-congested"},
				{period: p(congestedPrimary), want: 0.3},
				{period: p(congestedPrimary), want: 0.4},
				{period: p(congestedPrimary), want: 0.5},
				{period: p(congestedPrimary), want: 0.6},
				{period: p(congestedPrimary), want: 0.7},
				{period: p(congestedPrimary), want: 0.8},
				{period: p(congestedPrimary), want: 0.9},
				{period: p(congestedPrimary), want: 0.9, reason: "primary-congested"},
			},
		},
		{
			name: "congested secondaries lower by DELTA down to LOWBAL",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2},
				{period: p(congestedPrimary), want: 0.3},
				{period: p(congestedSecondaries), want: 0.2, reason: "secondaries-congested"},
				{period: p(congestedSecondaries), want: 0.1},
				{period: p(congestedSecondaries), want: 0.1, reason: "secondaries-congested"},
			},
		},
		{
			name: "ratio exactly at the thresholds is normal",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2},
				{period: p(period(100, 1.3, 1, 0, 0)), want: 0.2, reason: "balanced"},
				{period: p(period(100, 0.75, 1, 0, 0)), want: 0.2, reason: "balanced"},
			},
		},
		{
			name: "normal ratio holds until the last 4 fractions are equal, then explores down",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2},
				{period: p(congestedPrimary), want: 0.3},
				{period: p(congestedPrimary), want: 0.4},
				{period: p(congestedPrimary), want: 0.5},
				{period: p(balanced), want: 0.5, reason: "balanced"}, // recent 0.3 0.4 0.5 0.5
				{period: p(balanced), want: 0.5, reason: "balanced"}, // 0.4 0.5 0.5 0.5
				{period: p(balanced), want: 0.5, reason: "balanced"}, // 0.5 0.5 0.5 0.5
				{period: p(balanced), want: 0.4, reason: "explore-down"},
				{period: p(congestedPrimary), want: 0.5, reason: "primary-congested"},
			},
		},
		{
			name: "exactly MinSamples reads on each side give a ratio; one fewer on either side does not",
			steps: []step{
				{period: p(period(5, 8, 2, 0, 0)), want: 0.2, reason: "primary-congested"},
				{period: p(Period{Primary: Stats{Count: 4, P50: 8 * ms}, Secondary: Stats{Count: 5, P50: 2 * ms}}), want: 0.2, reason: "too-few-samples"},
				{period: p(Period{Primary: Stats{Count: 5, P50: 8 * ms}, Secondary: Stats{Count: 4, P50: 2 * ms}}), want: 0.2, reason: "too-few-samples"},
			},
		},
		{
			name: "too few samples at LOWBAL explores down no lower than LOWBAL",
			steps: []step{
				{period: p(Period{}), want: 0.1, reason: "too-few-samples-explore-down"},
				{period: p(Period{}), want: 0.1, reason: "too-few-samples-explore-down"},
			},
		},
		{
			name:  "initial history is all LOWBAL so a normal first period explores down at the floor",
			steps: []step{{period: p(balanced), want: 0.1, reason: "explore-down"}},
		},
		{
			name: "server-side latency subtracts RTT: client P50s equal, primary RTT high means secondaries are slower",
			steps: []step{
				// L_ss primary = 5-4 = 1, secondary = 5-1 = 4 => ratio 0.25
				{period: p(congestedPrimary), want: 0.2},
				{period: p(period(100, 5, 5, 4, 1)), want: 0.1, reason: "secondaries-congested"},
			},
		},
		{
			name: "RTT larger than latency is floored, not negative",
			steps: []step{
				// primary L_ss floored to 10us, secondary 1ms => ratio 0.01
				{period: p(congestedPrimary), want: 0.2},
				{period: p(period(100, 1, 2, 3, 1)), want: 0.1, reason: "secondaries-congested"},
			},
		},
		{
			name: "lag over the bound forces 0 immediately and restores the latest recorded fraction",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2},
				{period: p(congestedPrimary), want: 0.3},
				{lag: l(badLag), want: 0},
				{lag: l(okLag), want: 0.3},
			},
		},
		{
			name: "lag exactly at the bound is acceptable",
			steps: []step{
				{lag: l(Lag{Max: 10 * time.Second, Known: true}), want: 0.1},
				{lag: l(Lag{Max: 10*time.Second + time.Millisecond, Known: true}), want: 0},
			},
		},
		{
			name:   "headroom: lag plus headroom over the bound counts as over",
			mutate: func(c *Config) { c.Headroom = time.Second },
			steps: []step{
				{lag: l(Lag{Max: 9 * time.Second, Known: true}), want: 0.1},
				{lag: l(Lag{Max: 9*time.Second + time.Millisecond, Known: true}), want: 0},
				{lag: l(Lag{Max: 8 * time.Second, Known: true}), want: 0.1},
			},
		},
		{
			name: "period end while stale records the decision but keeps 0 in force",
			steps: []step{
				{lag: l(badLag), want: 0},
				{period: p(congestedPrimary), want: 0, reason: "primary-congested"},
				{period: p(congestedPrimary), want: 0},
				{lag: l(okLag), want: 0.3},
			},
		},
		{
			name: "unknown lag is treated as over the bound",
			steps: []step{
				{lag: l(Lag{}), want: 0},
				{lag: l(okLag), want: 0.1},
			},
		},
		{
			name:   "bound 0 means never a secondary read",
			mutate: func(c *Config) { c.Bound = Bound{} },
			steps: []step{
				{want: 0},
				{lag: l(Lag{Max: 0, Known: true}), want: 0},
				{period: p(congestedPrimary), want: 0},
				{period: p(congestedPrimary), want: 0},
			},
		},
		{
			name:   "unbounded ignores lag, even unknown",
			mutate: func(c *Config) { c.Bound = Bound{Unbounded: true} },
			steps: []step{
				{lag: l(Lag{Max: time.Hour, Known: true}), want: 0.1},
				{lag: l(Lag{}), want: 0.1},
			},
		},
		{
			name: "too few samples while the bound forced 0: no change and no history push",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2},
				{period: p(congestedPrimary), want: 0.3},
				{lag: l(badLag), want: 0},
				{lag: l(okLag), want: 0.3},
				{period: p(period(4, 8, 2, 0, 0)), want: 0.3, reason: "stale-too-few-samples"},
				{lag: l(badLag), want: 0},
				{period: p(Period{Primary: Stats{Count: 100, P50: ms}}), want: 0, reason: "stale-too-few-samples"},
				{lag: l(okLag), want: 0.3},
				// history is 0.1 0.1 0.2 0.3 still, so a normal period holds
				{period: p(balanced), want: 0.3, reason: "balanced"},
			},
		},
		{
			name: "stale for a whole period, still stale at its end: the next period is frozen too",
			steps: []step{
				{period: p(congestedPrimary), want: 0.2},
				{lag: l(badLag), want: 0},
				{period: p(Period{Primary: Stats{Count: 100, P50: ms}}), want: 0, reason: "stale-too-few-samples"},
				{period: p(Period{Primary: Stats{Count: 100, P50: ms}}), want: 0, reason: "stale-too-few-samples"},
				{lag: l(okLag), want: 0.2},
			},
		},
		{
			name:   "too few samples under light load counts as normal: at HIGHBAL the primary starves, yet the fraction explores down",
			mutate: func(c *Config) { c.Delta = 0.2 },
			steps: []step{
				{period: p(congestedPrimary), want: 0.3},
				{period: p(congestedPrimary), want: 0.5},
				{period: p(congestedPrimary), want: 0.7},
				{period: p(congestedPrimary), want: 0.9},
				{lag: l(okLag), want: 0.9},                                               // lag within the bound: no shortage is the bound's doing
				{period: p(period(3, 1, 1, 0, 0)), want: 0.9, reason: "too-few-samples"}, // 0.5 0.7 0.9 0.9
				{period: p(Period{Secondary: Stats{Count: 40, P50: ms}}), want: 0.9, reason: "too-few-samples"},
				{period: p(Period{Secondary: Stats{Count: 40, P50: ms}}), want: 0.9, reason: "too-few-samples"},
				{period: p(Period{Secondary: Stats{Count: 40, P50: ms}}), want: 0.7, reason: "too-few-samples-explore-down"},
				{period: p(Period{}), want: 0.7, reason: "too-few-samples"},
			},
		},
		{
			name: "custom constants",
			mutate: func(c *Config) {
				c.Delta, c.LowBal, c.HighBal, c.History = 0.25, 0.25, 0.75, 2
				c.HighRatio, c.LowRatio = 2, 0.5
			},
			steps: []step{
				{want: 0.25},
				{period: p(period(100, 3, 2, 0, 0)), want: 0.25, reason: "explore-down"}, // ratio 1.5 normal; history 0.25 0.25
				{period: p(congestedPrimary), want: 0.5},
				{period: p(congestedPrimary), want: 0.75},
				{period: p(congestedPrimary), want: 0.75},
				{period: p(balanced), want: 0.5, reason: "explore-down"}, // history 0.75 0.75
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newD(t, tt.mutate)
			for i, s := range tt.steps {
				var got float64
				var dec Decision
				switch {
				case s.period != nil:
					dec = d.EndPeriod(*s.period)
					got = dec.Fraction
					if d.Fraction() != got {
						t.Fatalf("step %d: decision fraction %v but Fraction() %v", i, got, d.Fraction())
					}
				case s.lag != nil:
					got = d.ObserveLag(*s.lag)
				default:
					got = d.Fraction()
				}
				if math.Abs(got-s.want) > 1e-9 {
					t.Fatalf("step %d: fraction %v, want %v (recent %v)", i, got, s.want, d.Recent())
				}
				if s.reason != "" && dec.Reason != s.reason {
					t.Fatalf("step %d: reason %q, want %q", i, dec.Reason, s.reason)
				}
			}
		})
	}
}

func TestDecisionRatio(t *testing.T) {
	tests := []struct {
		name   string
		period Period
		ratio  float64 // NaN: want NaN
		reason string
	}{
		{"server-side latencies", period(50, 6, 3, 1, 1), 2.5, "primary-congested"}, // (6-1)/(3-1)
		{"too few samples", period(1, 6, 3, 1, 1), math.NaN(), "too-few-samples-explore-down"},
		// the secondaries' RTT exceeds their P50: floored to LatencyFloor
		// (10 µs), never negative: 2 ms / 10 µs
		{"secondary floored", period(50, 2, 1, 0, 3), 200, "primary-congested"},
		// both floored: 10 µs / 10 µs
		{"both floored", period(50, 1, 1, 3, 2), 1, "explore-down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dec := newD(t, nil).EndPeriod(tt.period)
			if math.IsNaN(tt.ratio) != math.IsNaN(dec.Ratio) || !math.IsNaN(tt.ratio) && math.Abs(dec.Ratio-tt.ratio) > 1e-9 {
				t.Errorf("ratio %v, want %v", dec.Ratio, tt.ratio)
			}
			if dec.Reason != tt.reason {
				t.Errorf("reason %q, want %q", dec.Reason, tt.reason)
			}
		})
	}
}

func TestRecent(t *testing.T) {
	d := newD(t, nil)
	steps := []struct {
		period Period
		want   []float64 // oldest first
	}{
		{congestedPrimary, []float64{0.1, 0.1, 0.1, 0.2}},
		{congestedPrimary, []float64{0.1, 0.1, 0.2, 0.3}},
		{congestedPrimary, []float64{0.1, 0.2, 0.3, 0.4}},
		{congestedPrimary, []float64{0.2, 0.3, 0.4, 0.5}},
		{congestedSecondaries, []float64{0.3, 0.4, 0.5, 0.4}},
	}
	if got := d.Recent(); !slices.Equal(got, []float64{0.1, 0.1, 0.1, 0.1}) {
		t.Fatalf("initial Recent() = %v, want 4 x LOWBAL", got)
	}
	for i, s := range steps {
		d.EndPeriod(s.period)
		if got := d.Recent(); !slices.Equal(got, s.want) {
			t.Fatalf("step %d: Recent() = %v, want %v", i, got, s.want)
		}
	}
}

func TestFractionsStayExactOverLongRuns(t *testing.T) {
	d := newD(t, nil)
	for range 8 {
		d.EndPeriod(congestedPrimary)
	}
	for range 3 {
		d.EndPeriod(congestedSecondaries)
	}
	if got := d.Fraction(); got != 0.6 {
		t.Fatalf("after +8 and -3 steps: %v, want exactly 0.6", got)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Config)
	}{
		{"zero interval", func(c *Config) { c.Interval = 0 }},
		{"zero delta", func(c *Config) { c.Delta = 0 }},
		{"delta above 1", func(c *Config) { c.Delta = 1.5 }},
		{"zero low balance", func(c *Config) { c.LowBal = 0 }},
		{"zero latency floor", func(c *Config) { c.LatencyFloor = 0 }},
		{"low above high", func(c *Config) { c.LowBal, c.HighBal = 0.9, 0.1 }},
		{"high above 1", func(c *Config) { c.HighBal = 1.1 }},
		{"ratios inverted", func(c *Config) { c.LowRatio, c.HighRatio = 1.3, 0.75 }},
		{"no history", func(c *Config) { c.History = 0 }},
		{"no samples", func(c *Config) { c.MinSamples = 0 }},
		{"negative bound", func(c *Config) { c.Bound = Bound{Max: -time.Second} }},
		{"negative headroom", func(c *Config) { c.Headroom = -time.Second }},
		{"headroom at the bound", func(c *Config) { c.Bound, c.Headroom = Bound{Max: time.Second}, time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.mutate(&cfg)
			if _, err := NewDecongestant(cfg); !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("err %v, want ErrInvalidPolicy", err)
			}
		})
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config invalid: %v", err)
	}
}

func TestAutoHeadroomUsesTheObservationsHorizon(t *testing.T) {
	d, err := NewDecongestant(DefaultConfig().withBound(500 * ms))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		lag  Lag
		want float64
	}{
		{Lag{Max: 390 * ms, Known: true, Horizon: 110 * ms}, 0.1}, // 500: at the bound is within it
		{Lag{Max: 391 * ms, Known: true, Horizon: 110 * ms}, 0},
		{Lag{Max: 300 * ms, Known: true, Horizon: 110 * ms}, 0.1},
		{Lag{Max: 300 * ms, Known: true, Horizon: 300 * ms}, 0}, // a slow poll widens the horizon
		{Lag{Max: 499 * ms, Known: true}, 0.1},                  // no horizon known: the exact check
	}
	for i, s := range steps {
		if got := d.ObserveLag(s.lag); got != s.want {
			t.Fatalf("step %d (%+v): fraction %v, want %v", i, s.lag, got, s.want)
		}
	}
	// A fixed headroom ignores the horizon.
	cfg := DefaultConfig().withBound(500 * ms)
	cfg.Headroom = 200 * ms
	d, _ = NewDecongestant(cfg)
	if got := d.ObserveLag(Lag{Max: 250 * ms, Known: true, Horizon: time.Second}); got != 0.1 {
		t.Fatalf("fixed headroom 200ms, lag 250ms, horizon 1s: fraction %v, want 0.1", got)
	}
	if got := d.ObserveLag(Lag{Max: 301 * ms, Known: true}); got != 0 {
		t.Fatalf("fixed headroom 200ms, lag 301ms: fraction %v, want 0", got)
	}
}

func (c Config) withBound(d time.Duration) Config {
	c.Bound = Bound{Max: d}
	return c
}

func TestLagIntervalFor(t *testing.T) {
	tests := []struct {
		bound Bound
		want  time.Duration
	}{
		{Bound{Max: 10 * time.Second}, time.Second},
		{Bound{Max: 5 * time.Second}, time.Second},
		{Bound{Max: 2 * time.Second}, 400 * ms},
		{Bound{Max: 500 * ms}, 100 * ms},
		{Bound{Max: 100 * ms}, 50 * ms},
		{Bound{Max: 10 * ms}, 50 * ms},
		{Bound{}, time.Second},
		{Bound{Unbounded: true}, time.Second},
	}
	for _, tt := range tests {
		if got := LagIntervalFor(tt.bound); got != tt.want {
			t.Errorf("LagIntervalFor(%v) = %v, want %v", tt.bound, got, tt.want)
		}
	}
}

func TestCheckLagInterval(t *testing.T) {
	tests := []struct {
		bound    Bound
		headroom time.Duration
		interval time.Duration
		ok       bool
	}{
		{Bound{Max: 500 * ms}, AutoHeadroom, 100 * ms, true},
		{Bound{Max: 500 * ms}, AutoHeadroom, time.Second, false}, // the old default: every read to the primary
		{Bound{Max: 500 * ms}, AutoHeadroom, 500 * ms, false},
		{Bound{Max: 50 * ms}, AutoHeadroom, LagIntervalFor(Bound{Max: 50 * ms}), false},
		{Bound{Max: 500 * ms}, 0, time.Second, true}, // fixed headroom: the user chose the exact check
		{Bound{}, AutoHeadroom, time.Second, true},
		{Bound{Unbounded: true}, AutoHeadroom, time.Hour, true},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.Bound, cfg.Headroom = tt.bound, tt.headroom
		err := cfg.CheckLagInterval(tt.interval)
		if (err == nil) != tt.ok {
			t.Errorf("bound %v headroom %v interval %v: err %v, want ok=%v", tt.bound, tt.headroom, tt.interval, err, tt.ok)
		}
		if err != nil && (!errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), "poll more often")) {
			t.Errorf("error %q does not say what to change", err)
		}
	}
}
