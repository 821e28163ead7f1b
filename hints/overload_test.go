package hints

import (
	"testing"
	"time"
)

// TestSwitchSteps feeds the switch periods with small hand-picked loads and
// checks, after each, whether hints are on and whether Observe reported a
// switch.
func TestSwitchSteps(t *testing.T) {
	ms := time.Millisecond
	lat := func(d time.Duration) Load { return Load{Latency: d, LagKnown: true} }
	lag := func(d time.Duration) Load { return Load{Lag: d, LagKnown: true} }
	behind := Load{Behind: true}
	type step struct {
		load    Load
		on      bool
		changed bool
	}
	tests := []struct {
		name   string
		mutate func(*OverloadConfig)
		steps  []step
	}{
		{"off and on are reported once each", func(c *OverloadConfig) { c.Hold = 2 }, []step{
			{behind, true, false}, {behind, false, true}, {behind, false, false}, {behind, false, false},
			{lat(ms), false, false}, {lat(ms), true, true}, {lat(ms), true, false},
		}},
		{"a strained period restarts the calm count", func(c *OverloadConfig) { c.Hold = 2 }, []step{
			{behind, true, false}, {behind, false, true}, {lat(ms), false, false}, {behind, false, false},
			{lat(ms), false, false}, {lat(ms), true, true},
		}},
		{"lag at the limit is not strain, past it is", func(c *OverloadConfig) { c.Hold = 1 }, []step{
			{lag(time.Second), true, false}, {lag(time.Second + time.Nanosecond), false, true},
		}},
		{"no baseline yet: a slow first period is not strain", func(c *OverloadConfig) { c.Hold = 1 }, []step{
			{lat(20 * ms), true, false}, {lat(80 * ms), true, false}, {lat(80*ms + time.Nanosecond), false, true},
		}},
		{"a median at the floor is not strain, over it is", func(c *OverloadConfig) { c.Hold = 1 }, []step{
			{lat(ms), true, false}, {lat(5 * ms), true, false}, {lat(5*ms + time.Nanosecond), false, true},
		}},
		{"exactly Strain x the baseline is not strain, over it is", func(c *OverloadConfig) { c.Hold = 1 }, []step{
			{lat(2 * ms), true, false}, {lat(8 * ms), true, false}, {lat(8*ms + time.Nanosecond), false, true},
		}},
		{"a period without replays leaves the baseline alone", func(c *OverloadConfig) { c.Hold = 1 }, []step{
			{lat(2 * ms), true, false}, {lat(0), true, false}, {lat(20 * ms), false, true},
		}},
		// Window 2: the baseline is the least of the last two medians
		// (3 1 | 3 1 3 | 3 3 | 10 3 | 13 > 4 x 3).
		{"the baseline forgets medians older than Window", func(c *OverloadConfig) { c.Hold, c.Window, c.Floor = 1, 2, 0 }, []step{
			{lat(3 * ms), true, false}, {lat(ms), true, false}, {lat(3 * ms), true, false}, {lat(3 * ms), true, false},
			{lat(10 * ms), true, false}, {lat(13 * ms), false, true},
		}},
		// The defaults: Strain 4, Floor 5 ms, Hold 3.
		{"defaults", nil, []step{
			{lat(2 * ms), true, false}, {lat(8 * ms), true, false},
			{lat(8*ms + time.Microsecond), true, false}, {lat(9 * ms), true, false}, {lat(9 * ms), false, true},
			{lat(2 * ms), false, false}, {lat(2 * ms), false, false}, {lat(2 * ms), true, true},
			{lag(time.Second + time.Nanosecond), true, false}, {lag(2 * time.Second), true, false}, {lag(3 * time.Second), false, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultOverloadConfig()
			if tt.mutate != nil {
				tt.mutate(&cfg)
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			s := NewSwitch(cfg)
			for i, st := range tt.steps {
				changed, why := s.Observe(st.load)
				if s.On() != st.on || changed != st.changed {
					t.Fatalf("step %d (%+v): on=%v changed=%v, want on=%v changed=%v (why %q)", i, st.load, s.On(), changed, st.on, st.changed, why)
				}
			}
		})
	}
}

// TestSwitchApply checks the fraction replayed: apply while on, ProbeApply
// (the default 0.02) but never more than apply while off.
func TestSwitchApply(t *testing.T) {
	s := NewSwitch(DefaultOverloadConfig())
	for apply, want := range map[float64]float64{1: 1, 0.5: 0.5, 0.01: 0.01} {
		if got := s.Apply(apply); got != want {
			t.Errorf("on: Apply(%v) = %v, want %v", apply, got, want)
		}
	}
	for range 3 {
		s.Observe(Load{Behind: true})
	}
	if s.On() {
		t.Fatal("3 periods behind left the switch on")
	}
	for apply, want := range map[float64]float64{1: 0.02, 0.5: 0.02, 0.02: 0.02, 0.01: 0.01} {
		if got := s.Apply(apply); got != want {
			t.Errorf("off: Apply(%v) = %v, want %v", apply, got, want)
		}
	}
}
