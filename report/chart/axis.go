package chart

import (
	"math"
	"strconv"
)

// axis is a nice numeric axis: it spans lo..hi, with ticks every step.
type axis struct {
	lo, hi, step float64
	ticks        []float64
}

// niceAxis returns an axis covering [lo, hi] with about n ticks placed at
// multiples of 1, 2 or 5 × 10^k (Heckbert, "Nice numbers for graph labels",
// Graphics Gems, 1990). The axis always has a positive span: an empty range
// is widened, and non-finite bounds fall back to 0..1.
func niceAxis(lo, hi float64, n int) axis {
	if n < 2 {
		n = 2
	}
	if !finite(lo) || !finite(hi) {
		lo, hi = 0, 1
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		if lo == 0 {
			hi = 1
		} else {
			d := math.Abs(lo) * 0.1
			lo, hi = lo-d, hi+d
		}
	}
	span := niceNum(hi-lo, false)
	step := niceNum(span/float64(n-1), true)
	if !finite(span) || !finite(step) || step <= 0 {
		return axis{lo: 0, hi: 1, step: 1, ticks: []float64{0, 1}}
	}
	// The epsilon keeps 0.6/0.2 = 3.0000000000000004 from adding a tick.
	const eps = 1e-9
	a := axis{lo: math.Floor(lo/step+eps) * step, hi: math.Ceil(hi/step-eps) * step, step: step}
	count := int(math.Round((a.hi-a.lo)/step)) + 1
	if count < 2 || count > 1000 || a.hi <= a.lo {
		// Rounding broke down (span tiny relative to the magnitude): keep
		// the raw range with ticks at its ends.
		return axis{lo: lo, hi: hi, step: hi - lo, ticks: []float64{lo, hi}}
	}
	a.ticks = make([]float64, count)
	for i := range a.ticks {
		// Multiply rather than accumulate, so 0.1 steps stay exact-ish.
		a.ticks[i] = a.lo + float64(i)*step
	}
	return a
}

// niceNum returns a nice number close to x: 1, 2, 5 or 10 × 10^k, rounded
// to the nearest when round, else the smallest not below x.
func niceNum(x float64, round bool) float64 {
	if x <= 0 || !finite(x) {
		return 0
	}
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nf float64
	if round {
		switch {
		case f < 1.5:
			nf = 1
		case f < 3:
			nf = 2
		case f < 7:
			nf = 5
		default:
			nf = 10
		}
	} else {
		switch {
		case f <= 1:
			nf = 1
		case f <= 2:
			nf = 2
		case f <= 5:
			nf = 5
		default:
			nf = 10
		}
	}
	return nf * math.Pow(10, exp)
}

// label formats tick v of a: as many decimals as the step needs, and a k/M
// suffix when the numbers get long (12k rather than 12000).
func (a axis) label(v float64) string {
	if math.Abs(v) < a.step*1e-9 {
		v = 0 // avoid "-0" and 1e-17 from floating error
	}
	maxAbs := math.Max(math.Abs(a.lo), math.Abs(a.hi))
	step, suffix := a.step, ""
	switch {
	case maxAbs >= 1e7 && step >= 1e5:
		v, step, suffix = v/1e6, step/1e6, "M"
	case maxAbs >= 1e4 && step >= 100:
		v, step, suffix = v/1e3, step/1e3, "k"
	}
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
		if dec > 10 {
			dec = 10
		}
		// A step of 2.5 × 10^-k needs one more digit than its decade.
		if r := step * math.Pow(10, float64(dec)); math.Abs(r-math.Round(r)) > 1e-6 {
			dec++
		}
	} else if step >= 1 && step != math.Trunc(step) {
		dec = 1
	}
	return strconv.FormatFloat(v, 'f', dec, 64) + suffix
}

// dataRange returns the min and max of the finite values of vs.
func dataRange(vs []float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if finite(v) {
			lo, hi, ok = math.Min(lo, v), math.Max(hi, v), true
		}
	}
	return lo, hi, ok
}
