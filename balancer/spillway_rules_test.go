package balancer

// Spillway's rules on small hand-computed inputs. The file uses only the
// helpers of member_test.go and decongestant_test.go, so it stands apart
// from spillway_test.go's tables.

import (
	"math"
	"testing"
	"time"
)

// newDefaultSpillway returns a Spillway with the defaults changed by mutate.
func newDefaultSpillway(t *testing.T, mutate func(*SpillwayConfig)) *Spillway {
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

// p50 is a member's reads in a period: count reads of median d, no RTT known.
func p50(host string, count int, d time.Duration) MemberStats {
	return MemberStats{Host: host, Count: count, P50: d}
}

// TestFloorShares checks floorShares on small hand-computed inputs: shares
// under the floor are raised to it, the others scaled down in proportion so
// that all still sum to 1, and the floor is capped at an equal split.
func TestFloorShares(t *testing.T) {
	tests := []struct {
		name  string
		rel   []float64
		floor float64
		want  []float64
	}{
		{"none under the floor", []float64{0.3, 0.7}, 0.2, []float64{0.3, 0.7}},
		{"one under, raised; the other takes the rest", []float64{0.1, 0.9}, 0.2, []float64{0.2, 0.8}},
		// 0.05 is raised to 0.2; scaling the others by 0.8/0.95 would take
		// 0.2 below the floor, so it stays at 0.2 and 0.75 takes the rest.
		{"one under, one at the floor", []float64{0.05, 0.2, 0.75}, 0.2, []float64{0.2, 0.2, 0.6}},
		// 0.01 is raised to 0.1; x 0.9/0.99 would take 0.105 to 0.0955, under
		// the floor: it is floored as well and 0.885 takes 0.8.
		{"scaling takes one under the floor", []float64{0.01, 0.105, 0.885}, 0.1, []float64{0.1, 0.1, 0.8}},
		{"two under, scaled once", []float64{0.02, 0.03, 0.45, 0.5}, 0.1, []float64{0.1, 0.1, 0.8 * 0.45 / 0.95, 0.8 * 0.5 / 0.95}},
		{"floor above an equal split is capped at it", []float64{0.9, 0.1}, 0.7, []float64{0.5, 0.5}},
		{"all under the floor: an equal split", []float64{0.25, 0.25, 0.25, 0.25}, 0.3, []float64{0.25, 0.25, 0.25, 0.25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := floorShares(append([]float64(nil), tt.rel...), tt.floor)
			var sum float64
			for i := range tt.want {
				if math.Abs(got[i]-tt.want[i]) > 1e-12 {
					t.Fatalf("floorShares(%v, %v) = %v, want %v", tt.rel, tt.floor, got, tt.want)
				}
				sum += got[i]
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("floorShares(%v, %v) = %v sums to %v, want 1", tt.rel, tt.floor, got, sum)
			}
		})
	}
}

// TestSpillwayWriteTime checks which periods' writes feed the primary's
// write time: only those with writes counted and a median known.
func TestSpillwayWriteTime(t *testing.T) {
	tests := []struct {
		name   string
		writes []Stats
		want   float64 // seconds
	}{
		{"no writes", []Stats{{}}, 0},
		{"a median without a count is no measurement", []Stats{{Count: 0, P50: 50 * ms}}, 0},
		{"a count without a median is no measurement", []Stats{{Count: 10}}, 0},
		{"the first measurement is taken as it is", []Stats{{Count: 0, P50: 50 * ms}, {Count: 10, P50: ms}}, 0.001},
		// then smoothed with weight Smoothing x min(1, count/MinSamples):
		// 0.001 + 0.5 x 1/2 x (0.005 - 0.001)
		{"then smoothed by its count", []Stats{{Count: 10, P50: ms}, {Count: 1, P50: 5 * ms}}, 0.002},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newDefaultSpillway(t, nil)
			s.ObserveLag(freshPoll)
			for _, w := range tt.writes {
				s.EndPeriod(Period{Writes: w, Members: []MemberStats{p50(h1, 100, ms)}})
			}
			if math.Abs(s.write-tt.want) > 1e-12 {
				t.Fatalf("write time %v s, want %v s", s.write, tt.want)
			}
		})
	}
}

// TestSpillwayDefaultDeadband checks the default deadband (0.3): a primary
// whose marginal cost is 1.24 x the secondaries' keeps its share, one 1.34 x
// theirs spills by the part of the error beyond 1.3.
func TestSpillwayDefaultDeadband(t *testing.T) {
	// h2 and h3 answer one read a second in 20 ms: marginal cost 20.4 ms.
	// The primary's 100 reads a second of d cost d x (1 + 100 d), and its
	// time is over the 5 ms floor.
	ratio := func(d time.Duration) float64 { return d.Seconds() * (1 + 100*d.Seconds()) / 0.0204 }
	tests := []struct {
		name    string
		primary time.Duration // its reads' median
		reason  string
		share   float64 // the primary's after the period
	}{
		// within the band: the share stays, capped at 1 - 2 x ProbeShare
		{"1.24 x the secondaries' marginal cost", 11700 * time.Microsecond, "primary", 0.98},
		// beyond: 1/1.02 (its share after the poll) x exp(-Gain x (ln 1.34 - ln 1.3))
		{"1.34 x", 12300 * time.Microsecond, "spill", 1 / 1.02 * math.Pow(1.3/ratio(12300*time.Microsecond), 0.25)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newDefaultSpillway(t, nil)
			s.ObserveLag(freshPoll) // h2 and h3 get ProbeShare: 1/1.02 and 2 x 0.01/1.02
			dec := s.EndPeriod(Period{Members: []MemberStats{p50(h1, 100, tt.primary), p50(h2, 1, 20*ms), p50(h3, 1, 20*ms)}})
			if dec.Reason != tt.reason || math.Abs(dec.Ratio-ratio(tt.primary)) > 1e-9 {
				t.Fatalf("decision %+v, want %s at ratio %v", dec, tt.reason, ratio(tt.primary))
			}
			w := s.Weights()
			if err := checkWeights(w); err != nil {
				t.Fatal(err)
			}
			got := shares(w)
			want := map[string]float64{"primary": tt.share, h2: (1 - tt.share) / 2, h3: (1 - tt.share) / 2}
			if len(got) != len(want) {
				t.Fatalf("weights %v, want %v", w, want)
			}
			for k, v := range want {
				if math.Abs(got[k]-v) > 1e-9 {
					t.Fatalf("weights %v, want %v", w, want)
				}
			}
		})
	}
}

// TestSpillwaySecondaryShareAtMostDoubles: a secondary far cheaper than the
// spilled reads' marginal cost takes at most twice its relative share in a
// period. After an even spill, h2 at 0.1 ms (marginal 0.101 ms) and h3 at
// 5 ms (7.5 ms) average 3.75 ms: h2's step, (3.75/0.101)^0.25 = 2.47, is
// capped at 2; h3's is (3.75/7.5)^0.25.
func TestSpillwaySecondaryShareAtMostDoubles(t *testing.T) {
	s := newDefaultSpillway(t, func(c *SpillwayConfig) { c.Smoothing, c.PrimaryFloor, c.Deadband = 1, 0, 0 })
	s.ObserveLag(freshPoll)
	s.EndPeriod(secPeriod(p50(h1, 100, 20*ms), p50(h2, 100, 5*ms), p50(h3, 100, 5*ms)))
	if w := s.Weights(); math.Abs(w.Of(h2)-w.Of(h3)) > 1e-12 {
		t.Fatalf("after an even spill %v, want h2 and h3 equal", w)
	}
	s.EndPeriod(secPeriod(p50(h1, 100, 20*ms), p50(h2, 100, 100*time.Microsecond), p50(h3, 100, 5*ms)))
	w := s.Weights()
	m2, m3 := 0.0001*1.01, 0.005*1.5
	r3 := 0.5 * math.Pow((m2+m3)/2/m3, 0.25)
	if got, want := w.Of(h2)/w.Secondary(), 1/(1+r3); math.Abs(got-want) > 1e-9 {
		t.Fatalf("h2's part of the secondaries' share %v, want %v (doubled, against h3's %v): %v", got, want, r3, w)
	}
}

// TestSpillwayProbeRate: the least share is ProbeShare (1%) or ProbeRate (2
// reads a second) over the reads per second routed, whichever is less. A
// secondary whose marginal cost is far over the others' falls to it.
func TestSpillwayProbeRate(t *testing.T) {
	for _, tt := range []struct {
		name      string
		probeRate float64
		reads     int // a second, on each member
		want      float64
	}{
		{"a busy router: 2 of 3000 reads a second", 2, 1000, 2.0 / 3000},
		{"a quiet one: ProbeShare", 2, 50, 0.01},
		{"ProbeRate 0: ProbeShare", 0, 1000, 0.01},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newDefaultSpillway(t, func(c *SpillwayConfig) { c.ProbeRate, c.PrimaryFloor = tt.probeRate, 0 })
			s.ObserveLag(freshPoll)
			// h3 stalls: 200 ms a read against the others' 5 ms
			for range 40 {
				s.EndPeriod(secPeriod(p50(h1, tt.reads, 5*ms), p50(h2, tt.reads, 5*ms), p50(h3, tt.reads, 200*ms)))
			}
			if got := s.Weights().Of(h3); math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("stalled h3's share %v, want %v (%v)", got, tt.want, s.Weights())
			}
		})
	}
}

// TestSpillwayGainFloor: each reversal of a share's error halves its gain,
// down to Gain/64 and no lower, however long the oscillation; steps the
// same way grow it back by 1.25 up to Gain, never beyond; an error inside
// the deadband (0) keeps it. Each share (key) has its own gain.
func TestSpillwayGainFloor(t *testing.T) {
	s := newDefaultSpillway(t, func(c *SpillwayConfig) { c.Gain = 0.5 })
	const g = 0.5
	steps := []struct {
		e    float64
		want float64
	}{
		{1, g},             // the first step: the starting gain
		{-1, g / 2},        // a reversal halves it
		{1, g / 4},         //
		{-1, g / 8},        //
		{1, g / 16},        //
		{-1, g / 32},       //
		{1, g / 64},        // the floor
		{-1, g / 64},       // held there
		{1, g / 64},        //
		{0, g / 64},        // inside the deadband: kept
		{1, g / 64},        // no previous error to compare: kept
		{1, g / 64 * 1.25}, // the same way: grows
	}
	for i, st := range steps {
		if got := s.adapt("", st.e); math.Abs(got-st.want) > 1e-15 {
			t.Fatalf("step %d (error %v): gain %v, want %v", i, st.e, got, st.want)
		}
	}
	for range 40 {
		s.adapt("", 1)
	}
	if got := s.adapt("", 1); got != g {
		t.Fatalf("after many steps the same way: gain %v, want the cap %v", got, g)
	}
	if got := s.adapt("other", -1); got != g {
		t.Fatalf("another share's first step: gain %v, want %v (gains are per share)", got, g)
	}
}
