package balancer

import (
	"strconv"
	"time"
)

// Static is a policy whose routing never changes: a constant split (primary,
// secondary, fixed:f) or a driver read preference (secondarypreferred, nearest,
// maxstaleness:d). Hard-coded baselines, as in the Decongestant paper (§4.1.3),
// do not look at staleness.
type Static struct {
	name     string
	sel      Selection
	fraction float64
}

var _ Policy = (*Static)(nil)

// NewFixed returns a policy that sends fraction f of reads to the secondaries.
func NewFixed(f float64) *Static {
	return &Static{name: "fixed:" + strconv.FormatFloat(f, 'f', -1, 64), sel: Selection{Mode: Split}, fraction: f}
}

// Name returns the policy's spec.
func (s *Static) Name() string { return s.name }

// Selection returns the policy's routing.
func (s *Static) Selection() Selection { return s.sel }

// Interval returns 0: a static policy never rebalances.
func (s *Static) Interval() time.Duration { return 0 }

// Fraction returns the constant fraction. For driver read preferences it is
// 1: every read may be served by a secondary.
func (s *Static) Fraction() float64 { return s.fraction }

// EndPeriod returns the constant fraction.
func (s *Static) EndPeriod(Period) Decision {
	return Decision{Fraction: s.fraction, Ratio: nan(), Reason: "static"}
}

// ObserveLag returns the constant fraction.
func (s *Static) ObserveLag(Lag) float64 { return s.fraction }
