package balancer

import (
	"errors"
	"testing"
	"time"
)

// Every out-of-range setting is a *SettingError naming the config field, so a caller can name its
// own flag; it still wraps ErrInvalidPolicy.
func TestValidateNamesTheSetting(t *testing.T) {
	dec := func(f func(*Config)) error { c := DefaultConfig(); f(&c); return c.Validate() }
	spill := func(f func(*SpillwayConfig)) error { c := DefaultSpillwayConfig(); f(&c); return c.Validate() }
	rpm := func(f func(*RPMConfig)) error { c := DefaultRPMConfig(); f(&c); return c.Validate() }
	tests := []struct {
		name, setting string
		err           error
	}{
		{"decongestant interval", "Interval", dec(func(c *Config) { c.Interval = 0 })},
		{"delta", "Delta", dec(func(c *Config) { c.Delta = 1.5 })},
		{"low bal", "LowBal", dec(func(c *Config) { c.LowBal = 0 })},
		{"high bal", "HighBal", dec(func(c *Config) { c.LowBal, c.HighBal = 0.5, 0.4 })},
		{"low ratio", "LowRatio", dec(func(c *Config) { c.LowRatio = 0 })},
		{"high ratio", "HighRatio", dec(func(c *Config) { c.LowRatio, c.HighRatio = 2, 2 })},
		{"history", "History", dec(func(c *Config) { c.History = 0 })},
		{"decongestant min samples", "MinSamples", dec(func(c *Config) { c.MinSamples = 0 })},
		{"decongestant latency floor", "LatencyFloor", dec(func(c *Config) { c.LatencyFloor = 0 })},
		{"negative headroom", "Headroom", dec(func(c *Config) { c.Headroom = -time.Second })},
		{"negative bound", "Bound", dec(func(c *Config) { c.Bound = Bound{Max: -time.Second} })},
		{"headroom at the bound", "Headroom", dec(func(c *Config) { c.Bound, c.Headroom = Bound{Max: time.Second}, time.Second })},
		{"spillway interval", "Interval", spill(func(c *SpillwayConfig) { c.Interval = 0 })},
		{"primary floor", "PrimaryFloor", spill(func(c *SpillwayConfig) { c.PrimaryFloor = -1 })},
		{"gain", "Gain", spill(func(c *SpillwayConfig) { c.Gain = 3 })},
		{"deadband", "Deadband", spill(func(c *SpillwayConfig) { c.Deadband = -0.1 })},
		{"probe rate", "ProbeRate", spill(func(c *SpillwayConfig) { c.ProbeRate = -1 })},
		{"probe share", "ProbeShare", spill(func(c *SpillwayConfig) { c.ProbeShare = 0.2 })},
		{"smoothing", "Smoothing", spill(func(c *SpillwayConfig) { c.Smoothing = 0 })},
		{"spillway min samples", "MinSamples", spill(func(c *SpillwayConfig) { c.MinSamples = 0 })},
		{"spillway latency floor", "LatencyFloor", spill(func(c *SpillwayConfig) { c.LatencyFloor = 0 })},
		{"rtt window", "RTTWindow", spill(func(c *SpillwayConfig) { c.RTTWindow = c.Interval / 2 })},
		{"spillway headroom at the bound", "Headroom", spill(func(c *SpillwayConfig) { c.Bound, c.Headroom = Bound{Max: time.Second}, 2*time.Second })},
		{"rpm interval", "Interval", rpm(func(c *RPMConfig) { c.Interval = 0 })},
		{"rpm exploration", "Exploration", rpm(func(c *RPMConfig) { c.Exploration = 0.5 })},
		{"rpm threshold", "Threshold", rpm(func(c *RPMConfig) { c.Threshold = 0 })},
		{"rpm min samples", "MinSamples", rpm(func(c *RPMConfig) { c.MinSamples = 0 })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var se *SettingError
			if !errors.As(tt.err, &se) {
				t.Fatalf("error %v is not a *SettingError", tt.err)
			}
			if se.Setting != tt.setting {
				t.Errorf("setting %q, want %q (%v)", se.Setting, tt.setting, tt.err)
			}
			if !errors.Is(tt.err, ErrInvalidPolicy) {
				t.Errorf("%v does not wrap ErrInvalidPolicy", tt.err)
			}
		})
	}
	for _, ok := range []error{DefaultConfig().Validate(), DefaultSpillwayConfig().Validate(), DefaultRPMConfig().Validate()} {
		if ok != nil {
			t.Errorf("a default config is invalid: %v", ok)
		}
	}
}
