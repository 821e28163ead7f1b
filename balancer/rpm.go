package balancer

import (
	"time"
)

// RPMConfig holds the constants of the Read Preference Manager (RPM), as
// the Read Preference Manager poster gives them.
type RPMConfig struct {
	// Interval is the decision period (one minute in the RPM poster).
	Interval time.Duration
	// Exploration is the share of reads sent against the recommendation
	// (10%).
	Exploration float64
	// Threshold: when P50(secondary)/P50(primary) is below it, recommend
	// secondary (0.5).
	Threshold float64
	// MinSamples per side for a decision (5); fewer keeps the recommendation.
	MinSamples int
}

// DefaultRPMConfig returns the RPM poster's constants.
func DefaultRPMConfig() RPMConfig {
	return RPMConfig{Interval: time.Minute, Exploration: 0.10, Threshold: 0.5, MinSamples: 5}
}

// Validate checks the constants.
func (c RPMConfig) Validate() error {
	switch {
	case c.Interval <= 0:
		return invalid("Interval", "rpm interval %v must be positive", c.Interval)
	case c.Exploration < 0 || c.Exploration >= 0.5:
		return invalid("Exploration", "rpm exploration %v must be in [0, 0.5)", c.Exploration)
	case c.Threshold <= 0:
		return invalid("Threshold", "rpm threshold %v must be positive", c.Threshold)
	case c.MinSamples < 1:
		return invalid("MinSamples", "rpm min samples %d must be at least 1", c.MinSamples)
	}
	return nil
}

// RPM is the Read Preference Manager of the RPM poster: each period it
// recommends primary or secondary as a whole; an exploration share of reads
// goes the other way so both sides keep being measured. It knows no staleness
// bound, as published.
type RPM struct {
	cfg       RPMConfig
	secondary bool // current recommendation
}

var _ Policy = (*RPM)(nil)

// NewRPM starts recommending primary, as the RPM poster does.
func NewRPM(cfg RPMConfig) (*RPM, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &RPM{cfg: cfg}, nil
}

// Name returns "rpm".
func (r *RPM) Name() string { return "rpm" }

// Selection returns Split.
func (r *RPM) Selection() Selection { return Selection{Mode: Split} }

// Interval returns the decision period.
func (r *RPM) Interval() time.Duration { return r.cfg.Interval }

// Fraction is 1-exploration when recommending secondary, else exploration.
func (r *RPM) Fraction() float64 {
	if r.secondary {
		return 1 - r.cfg.Exploration
	}
	return r.cfg.Exploration
}

// ObserveLag is ignored: RPM does not bound staleness.
func (r *RPM) ObserveLag(Lag) float64 { return r.Fraction() }

// EndPeriod recommends secondary when the secondaries' median latency is
// below Threshold times the primary's.
func (r *RPM) EndPeriod(p Period) Decision {
	if p.Primary.Count < r.cfg.MinSamples || p.Secondary.Count < r.cfg.MinSamples || p.Primary.P50 <= 0 {
		return Decision{Fraction: r.Fraction(), Ratio: nan(), Reason: "too-few-samples"}
	}
	ratio := ratioOf(p.Secondary.P50, p.Primary.P50)
	r.secondary = ratio < r.cfg.Threshold
	reason := "recommend-primary"
	if r.secondary {
		reason = "recommend-secondary"
	}
	return Decision{Fraction: r.Fraction(), Ratio: ratio, Reason: reason}
}
