package bench

import (
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
)

// soakVerdict judges the benchmark process's live heap (MiB) less the
// run's own results held at the same period end (records, MiB; nil counts
// none), and its goroutines, over the periods after the warm-up, in order:
// the growth of each over the last half of the run, and whether both stayed
// under results.SoakFlatPct (see results.Soak). Fewer than 4 periods leave
// the growths and the verdict null; fewer than results.SoakMinMeasuredS
// measured seconds leave the verdict null.
func soakVerdict(heapLiveMB, records, goroutines []float64, measuredS float64) results.Soak {
	s := results.Soak{Periods: len(heapLiveMB)}
	var heap, gor *float64
	net := make([]float64, len(heapLiveMB))
	for i, h := range heapLiveMB {
		net[i] = h
		if i < len(records) && h > 0 {
			net[i] = h - records[i]
		}
	}
	s.HeapQ2MB, s.HeapQ4MB, _ = growth(heapLiveMB)
	s.RecordsQ2MB, s.RecordsQ4MB, _ = growth(records[:min(len(records), len(heapLiveMB))])
	_, _, heap = growth(net)
	s.GoroutinesQ2, s.GoroutinesQ4, gor = growth(goroutines)
	s.HeapGrowthPct, s.GoroutineGrowthPct = heap, gor
	if heap != nil && gor != nil && measuredS >= results.SoakMinMeasuredS {
		flat := *heap < results.SoakFlatPct && *gor < results.SoakFlatPct
		s.Flat = &flat
	}
	return s
}

// growth returns the means of the second and the last quarter of xs and
// the growth from one to the other in %; the growth is nil for fewer than
// 4 values or a second quarter whose mean is not above 0 (not measured).
func growth(xs []float64) (q2, q4 float64, pct *float64) {
	n := len(xs)
	if n < 4 {
		return 0, 0, nil
	}
	q2, q4 = mean(xs[n/4:n/2]), mean(xs[3*n/4:])
	if q2 > 0 {
		g := metrics.Round3(100 * (q4 - q2) / q2)
		pct = &g
	}
	return metrics.Round3(q2), metrics.Round3(q4), pct
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
