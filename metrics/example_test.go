package metrics_test

import (
	"fmt"
	"time"

	"github.com/decongestant/decongestant/metrics"
)

// A balancing period's median and tail, as the router measures them: one
// cumulative histogram that every read records into, and a snapshot at each
// period end; the difference of two snapshots is the period. Quantiles are
// the upper bound of a bucket (at most 3.1% wide), capped by the largest
// sample: 2 ms reads show as 2.03 ms.
func ExampleHistogram() {
	h := metrics.NewHistogram()
	prev := h.Snapshot() // at the start of the first period

	// First period: a quiet primary, 90 fast reads and 10 slow ones.
	for i := range 100 {
		if i < 90 {
			h.Record(2 * time.Millisecond)
		} else {
			h.Record(40 * time.Millisecond)
		}
	}
	cur := h.Snapshot()
	p := cur.Sub(prev)
	fmt.Printf("period 1: %d reads, p50 %v, p90 %v, p95 %v, max %v\n",
		p.Count(), p.Quantile(0.5), p.Quantile(0.9), p.Quantile(0.95), p.Max())

	// Second period: congested, every read takes 8 ms.
	prev = cur
	for range 100 {
		h.Record(8 * time.Millisecond)
	}
	cur = h.Snapshot()
	p = cur.Sub(prev)
	fmt.Printf("period 2: %d reads, p50 %v, mean %v\n", p.Count(), p.Quantile(0.5), p.Mean())
	fmt.Printf("since the start: %d reads, p50 %v, mean %v\n", cur.Count(), cur.Quantile(0.5), cur.Mean())
	// Output:
	// period 1: 100 reads, p50 2.031615ms, p90 2.031615ms, p95 40ms, max 40ms
	// period 2: 100 reads, p50 8.126463ms, mean 8ms
	// since the start: 200 reads, p50 8.126463ms, mean 6.9ms
}

// Quantile of a list of samples (a bench run's latencies, say) is the
// nearest rank, exact: 0.5 is the lower median.
func ExampleQuantile() {
	lat := []time.Duration{9 * time.Millisecond, 1 * time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond}
	fmt.Println(metrics.Quantile(lat, 0), metrics.Quantile(lat, 0.5), metrics.Quantile(lat, 0.75), metrics.Quantile(lat, 1))
	fmt.Println(metrics.Round3(metrics.MS(1234567 * time.Nanosecond)))
	// Output:
	// 1ms 2ms 3ms 9ms
	// 1.235
}
