package hints

import (
	"fmt"
	"time"
)

// OverloadConfig decides when a member is too strained to take hints (the
// read-hints paper, §4.8: a replica turns hints off while overloaded and back
// on after).
type OverloadConfig struct {
	// Period is how often each member's load is judged (1 s).
	Period time.Duration
	// Strain is how much slower than its baseline (the least period median
	// of its replays over Window periods) a member's replays may get before
	// the period counts as strained (4).
	Strain float64
	// Floor is a replay median that never counts as strain (5 ms): an idle
	// member answers in 0.1 ms, and a 4 x slower answer is still cheap.
	Floor time.Duration
	// LagLimit is the replication lag past which a member counts as
	// strained: hints must not be what makes a secondary fall behind (1 s).
	LagLimit time.Duration
	// Hold is how many strained periods in a row switch a member's hints
	// off, and how many calm ones switch them back on (3).
	Hold int
	// Window is the number of periods the baseline looks back (60).
	Window int
	// ProbeApply is the fraction replayed on a member while its hints are
	// off, so its latency stays measured (0.02).
	ProbeApply float64
}

// DefaultOverloadConfig returns the defaults above.
func DefaultOverloadConfig() OverloadConfig {
	return OverloadConfig{Period: time.Second, Strain: 4, Floor: 5 * time.Millisecond, LagLimit: time.Second, Hold: 3,
		Window: 60, ProbeApply: 0.02}
}

// Validate checks the settings.
func (c OverloadConfig) Validate() error {
	switch {
	case c.Period <= 0:
		return fmt.Errorf("%w: overload period %v must be positive", ErrConfig, c.Period)
	case !(c.Strain > 1):
		return fmt.Errorf("%w: strain %v must be above 1", ErrConfig, c.Strain)
	case c.Floor < 0 || c.LagLimit <= 0:
		return fmt.Errorf("%w: floor %v must not be negative and lag limit %v must be positive", ErrConfig, c.Floor, c.LagLimit)
	case c.Hold < 1 || c.Window < 1:
		return fmt.Errorf("%w: hold %d and window %d must be at least 1", ErrConfig, c.Hold, c.Window)
	case !(c.ProbeApply >= 0 && c.ProbeApply <= 1):
		return fmt.Errorf("%w: probe apply %v must be in [0, 1]", ErrConfig, c.ProbeApply)
	}
	return nil
}

// Load is what one period showed of a member.
type Load struct {
	// Latency is the median time of the member's replays in the period
	// (0: none finished).
	Latency time.Duration
	// Lag is the member's replication lag in the latest poll; LagKnown is
	// false when there was none (the primary's lag is 0 and known).
	Lag      time.Duration
	LagKnown bool
	// Behind reports that the member had not finished its previous batch
	// when the next one came.
	Behind bool
}

// Switch turns one member's hints off after Hold strained periods in a row
// and on after Hold calm ones. It starts on. Pure: the caller feeds it one
// Load per period.
type Switch struct {
	cfg            OverloadConfig
	off            bool
	strained, calm int
	least          []time.Duration // ring of period medians
	next           int
}

// NewSwitch returns a switch that is on.
func NewSwitch(cfg OverloadConfig) *Switch { return &Switch{cfg: cfg} }

// On reports whether the member takes hints.
func (s *Switch) On() bool { return !s.off }

// Apply is the fraction to replay on the member: apply while on,
// ProbeApply (at most apply) while off.
func (s *Switch) Apply(apply float64) float64 {
	if s.off {
		return min(apply, s.cfg.ProbeApply)
	}
	return apply
}

// Observe judges a period and returns whether it switched the member and
// why the period counted as strained ("" when calm).
func (s *Switch) Observe(l Load) (changed bool, why string) {
	why = s.strain(l)
	if l.Latency > 0 {
		if len(s.least) < s.cfg.Window {
			s.least = append(s.least, l.Latency)
		} else {
			s.least[s.next] = l.Latency
			s.next = (s.next + 1) % s.cfg.Window
		}
	}
	if why != "" {
		s.strained, s.calm = s.strained+1, 0
	} else {
		s.strained, s.calm = 0, s.calm+1
	}
	switch {
	case !s.off && s.strained >= s.cfg.Hold:
		s.off = true
		return true, why
	case s.off && s.calm >= s.cfg.Hold:
		s.off = false
		return true, why
	}
	return false, why
}

// strain says why l is strained, "" when it is not.
func (s *Switch) strain(l Load) string {
	if l.LagKnown && l.Lag > s.cfg.LagLimit {
		return fmt.Sprintf("lag %v over %v", l.Lag.Round(time.Millisecond), s.cfg.LagLimit)
	}
	if l.Behind {
		return "previous batch not finished"
	}
	if base := s.baseline(); base > 0 && l.Latency > s.cfg.Floor && float64(l.Latency) > s.cfg.Strain*float64(base) {
		return fmt.Sprintf("replay median %v over %g x baseline %v", l.Latency.Round(10*time.Microsecond), s.cfg.Strain,
			base.Round(10*time.Microsecond))
	}
	return ""
}

// baseline is the least period median in the window, 0 when none.
func (s *Switch) baseline() time.Duration {
	var b time.Duration
	for _, d := range s.least {
		if b == 0 || d < b {
			b = d
		}
	}
	return b
}
