package metrics

import (
	"cmp"
	"math"
	"slices"
)

// Quantile returns the nearest-rank q-quantile of ds: the smallest sample
// with at least a share q of the samples at or below it (q = 0 gives the
// minimum, 0.5 the lower median, 1 the maximum; q outside [0, 1] is
// clamped), or 0 for no samples. ds is not modified. This is the project's
// one quantile of a sample list; the Histogram's is Snapshot.Quantile.
func Quantile[T cmp.Ordered](ds []T, q float64) T {
	if len(ds) == 0 {
		var zero T
		return zero
	}
	c := slices.Clone(ds)
	slices.Sort(c)
	i := int(math.Ceil(q*float64(len(c)))) - 1
	return c[max(0, min(i, len(c)-1))]
}

// Round3 rounds to three decimals, the precision of the results JSON.
func Round3(v float64) float64 { return math.Round(v*1000) / 1000 }
