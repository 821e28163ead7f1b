package reproduce

import (
	"fmt"
	"math"
)

// Kind is how a paper's claim is compared with our measure.
type Kind int

const (
	// Approx: the paper gives a number; ours agrees when it is within Tol
	// of it (relative, or absolute when Abs), the same direction when it
	// is on the same side of Ref as the paper's, clear of the noise.
	Approx Kind = iota + 1
	// Above: the paper says the quantity exceeds Ref (a ratio above 1, a
	// difference above 0); ours agrees when it does, clear of the noise.
	Above
	// Below: the paper says the quantity is under Ref.
	Below
	// AtMost: the paper bounds the quantity by Paper (0 bound violations);
	// ours agrees when it is not clearly above it (under it once its
	// spread is taken off).
	AtMost
	// Similar: the paper says there is no real effect: ours agrees when it
	// is within Tol of Ref (relative), or within the noise of it.
	Similar
)

// Estimate is our measure of a claim: the mean over repetitions and the
// half of their range (0 from one repetition), N the repetitions.
type Estimate struct {
	V      float64 `json:"value"`
	Spread float64 `json:"spread"`
	N      int     `json:"n"`
}

// Measured reports whether the estimate holds a value.
func (e Estimate) Measured() bool { return e.N > 0 && !math.IsNaN(e.V) && !math.IsInf(e.V, 0) }

// String is "v ± spread".
func (e Estimate) String() string {
	if !e.Measured() {
		return "-"
	}
	if e.Spread == 0 {
		return fmtNum(e.V)
	}
	return fmtNum(e.V) + " ± " + fmtNum(e.Spread)
}

// Verdicts.
const (
	Agrees        = "agrees"
	SameDirection = "same direction"
	Disagrees     = "disagrees"
	NotMeasured   = "not measured"
)

// Judge compares our estimate with a claim: one of Agrees, SameDirection,
// Disagrees or NotMeasured. Noise is the estimate's spread: an effect
// counts only when it is clear of it.
func Judge(c Claim, e Estimate) string {
	if !e.Measured() {
		return NotMeasured
	}
	lo, hi := e.V-e.Spread, e.V+e.Spread
	switch c.Kind {
	case Approx:
		tol := c.Tol
		if !c.Abs {
			tol = c.Tol * math.Abs(c.Paper)
		}
		if hi >= c.Paper-tol && lo <= c.Paper+tol {
			return Agrees
		}
		switch {
		case c.Paper > c.Ref && lo > c.Ref, c.Paper < c.Ref && hi < c.Ref:
			return SameDirection
		}
		return Disagrees
	case Above:
		if lo > c.Ref {
			return Agrees
		}
		return Disagrees
	case Below:
		if hi < c.Ref {
			return Agrees
		}
		return Disagrees
	case AtMost:
		if lo <= c.Paper {
			return Agrees
		}
		return Disagrees
	case Similar:
		if math.Abs(e.V-c.Ref) <= c.Tol*math.Abs(c.Ref) || (lo <= c.Ref && hi >= c.Ref) {
			return Agrees
		}
		return Disagrees
	}
	return NotMeasured
}

// fmtNum prints a number with three significant digits at most, no
// exponent.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
