package reproduce

import (
	"fmt"
	"math"
)

// Kind is how a paper's claim is compared with our measure.
type Kind int

const (
	// Approx: the paper gives a number; ours agrees when our confidence
	// interval lies within Tol of it (relative, or absolute when Abs; or
	// within a factor Factor when set), the same direction when the
	// interval lies outside that band but on the same side of Ref as the
	// paper's number.
	Approx Kind = iota + 1
	// Above: the paper says the quantity exceeds Ref (a ratio above 1, a
	// difference above 0); ours agrees when the whole interval does.
	Above
	// Below: the paper says the quantity is under Ref.
	Below
	// AtMost: the paper bounds the quantity by Paper (0 bound
	// violations); ours agrees when the whole interval is at most Paper.
	AtMost
	// Similar: the paper says there is no real effect: ours agrees when
	// the whole interval is within Tol of Ref (relative, or absolute when
	// Abs).
	Similar
)

// MinRepeats is the number of repetitions below which no claim is
// judged: with fewer, the verdict is Inconclusive.
const MinRepeats = 3

// Estimate is our measure of a claim over N repetitions: their mean V and
// the half-width Spread of its 95 % confidence interval (Student's t; see
// estimate). NotExercised, when set, says why the runs never put the claim
// to the test (a bound never approached, a policy that never decided, a
// number the harness was told to produce), whatever V is.
type Estimate struct {
	V            float64 `json:"value"`
	Spread       float64 `json:"ci95"`
	N            int     `json:"n"`
	NotExercised string  `json:"not_exercised,omitempty"`
	// Exact: V counts checks that each pass or fail (N of them: tests of
	// a TPC-C clause), not a sample of a noisy quantity, so it is judged
	// as it is, with no interval and whatever N.
	Exact bool `json:"exact,omitempty"`
	// Note is what a reader needs beside the number to read the verdict
	// (a drop's placebo: how deep the same statistic goes where nothing
	// happened); shown under the claim, never used to judge.
	Note string `json:"note,omitempty"`
}

// Measured reports whether the estimate holds a value.
func (e Estimate) Measured() bool { return e.N > 0 && !math.IsNaN(e.V) && !math.IsInf(e.V, 0) }

// Interval is the confidence interval [V-Spread, V+Spread].
func (e Estimate) Interval() (lo, hi float64) { return e.V - e.Spread, e.V + e.Spread }

// String is "v ± ci (n=N)".
func (e Estimate) String() string {
	if !e.Measured() {
		return "-"
	}
	return fmt.Sprintf("%s ± %s (n=%d)", fmtNum(e.V), fmtNum(e.Spread), e.N)
}

// Verdicts.
const (
	Agrees        = "agrees"
	SameDirection = "same direction"
	Disagrees     = "disagrees"
	// Inconclusive: the interval covers both the claim and its negation,
	// or fewer than MinRepeats repetitions were run.
	Inconclusive = "inconclusive"
	// NotExercised: the runs never put the claim to the test.
	NotExercised = "not exercised"
	NotMeasured  = "not measured"
)

// Judge compares our estimate with a claim. It returns the verdict and
// the rule that gave it, in words ("95 % CI [1.1, 1.3] above 1"), so a
// reader can check the one against the other.
func Judge(c Claim, e Estimate) (verdict, rule string) {
	if !e.Measured() {
		return NotMeasured, "no value"
	}
	if e.NotExercised != "" {
		return NotExercised, e.NotExercised
	}
	if e.N < MinRepeats && !e.Exact {
		return Inconclusive, fmt.Sprintf("n=%d, fewer than %d repetitions", e.N, MinRepeats)
	}
	lo, hi := e.Interval()
	ci := fmt.Sprintf("95 %% CI [%s, %s] of n=%d", fmtNum(lo), fmtNum(hi), e.N)
	if e.Exact {
		ci = fmt.Sprintf("%s of %d checks", fmtNum(e.V), e.N)
	}
	// inside, outside: the interval against a band [a, b] (the claim)
	band := func(a, b float64) (inside, outside bool) { return lo >= a && hi <= b, hi < a || lo > b }
	switch c.Kind {
	case Approx:
		a, b := c.Band()
		rule := fmt.Sprintf("%s against %s ± %s", ci, fmtNum(c.Paper), fmtNum((b-a)/2))
		if c.Factor > 1 {
			rule = fmt.Sprintf("%s against %s to %s (within %s× of %s)", ci, fmtNum(a), fmtNum(b), fmtNum(c.Factor), fmtNum(c.Paper))
		}
		in, out := band(a, b)
		switch {
		case in:
			return Agrees, rule + ": inside"
		case !out:
			return Inconclusive, rule + ": overlaps its edge"
		case c.Paper > c.Ref && lo > c.Ref, c.Paper < c.Ref && hi < c.Ref:
			return SameDirection, fmt.Sprintf("%s: outside, on the paper's side of %s", rule, fmtNum(c.Ref))
		}
		return Disagrees, rule + ": outside"
	case Above:
		return sided(lo > c.Ref, hi <= c.Ref, fmt.Sprintf("%s above %s", ci, fmtNum(c.Ref)))
	case Below:
		return sided(hi < c.Ref, lo >= c.Ref, fmt.Sprintf("%s below %s", ci, fmtNum(c.Ref)))
	case AtMost:
		return sided(hi <= c.Paper, lo > c.Paper, fmt.Sprintf("%s at most %s", ci, fmtNum(c.Paper)))
	case Similar:
		a, b := c.Band()
		in, out := band(a, b)
		return sided(in, out, fmt.Sprintf("%s within %s ± %s", ci, fmtNum(c.Ref), fmtNum((b-a)/2)))
	}
	return NotMeasured, "unknown kind of claim"
}

// Band is the values the claim allows, [lo, hi], infinite on an open
// side: the tolerance band around the paper's number (Approx) or the
// reference (Similar), the side of the reference (Above, Below), up to the
// bound (AtMost).
func (c Claim) Band() (lo, hi float64) {
	switch c.Kind {
	case Approx:
		if c.Factor > 1 {
			lo, hi = c.Paper/c.Factor, c.Paper*c.Factor
			if c.Paper < 0 {
				lo, hi = hi, lo
			}
			return lo, hi
		}
		tol := c.Tol
		if !c.Abs {
			tol = c.Tol * math.Abs(c.Paper)
		}
		return c.Paper - tol, c.Paper + tol
	case Above:
		return c.Ref, math.Inf(1)
	case Below:
		return math.Inf(-1), c.Ref
	case AtMost:
		return math.Inf(-1), c.Paper
	case Similar:
		tol := c.Tol * math.Abs(c.Ref)
		if c.Abs {
			tol = c.Tol
		}
		return c.Ref - tol, c.Ref + tol
	}
	return math.NaN(), math.NaN()
}

// sided is the verdict of a claim that holds when yes, fails when no, and
// is open otherwise (the interval straddles its edge).
func sided(yes, no bool, rule string) (string, string) {
	switch {
	case yes:
		return Agrees, rule + ": yes"
	case no:
		return Disagrees, rule + ": no"
	}
	return Inconclusive, rule + ": the interval straddles it"
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
