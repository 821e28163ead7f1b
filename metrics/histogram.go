// Package metrics records latencies without locks and reads them back per
// period: the histogram used on the routing hot path and by the bench runner,
// and the quantile and rounding helpers the results share.
//
// A Histogram is cumulative and safe for concurrent Record calls. Periods are
// measured by taking a Snapshot at each tick and subtracting the previous one
// (Snapshot.Sub), so no sample is lost at a period boundary and recording never
// takes a lock:
//
//	h := metrics.NewHistogram()
//	h.Record(3 * time.Millisecond) // from any goroutine
//	prev := h.Snapshot()
//	// ... one period later
//	cur := h.Snapshot()
//	p80 := cur.Sub(prev).Quantile(0.80)
package metrics

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

const (
	// subBits sets the relative precision: each power of two is split into
	// 2^subBits buckets, so a bucket is at most 1/32 (3.1%) wide.
	subBits    = 5
	subBuckets = 1 << subBits
	// maxExp bounds recorded values at 2^maxExp ns (about 36 minutes);
	// larger values land in the last bucket.
	maxExp     = 41
	numBuckets = (maxExp - subBits + 1) * subBuckets
)

// Histogram counts durations in log-linear buckets. The zero value is not
// usable; call NewHistogram.
type Histogram struct {
	counts [numBuckets]atomic.Uint64
	total  atomic.Uint64
	sum    atomic.Uint64 // nanoseconds, wraps after ~584 years of latency
	max    atomic.Uint64
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram { return &Histogram{} }

// bucketOf maps a value in nanoseconds to its bucket index.
func bucketOf(v uint64) int {
	if v < subBuckets {
		return int(v)
	}
	exp := bits.Len64(v) - 1 // v in [2^exp, 2^(exp+1))
	if exp >= maxExp {
		return numBuckets - 1
	}
	sub := (v >> (exp - subBits)) & (subBuckets - 1)
	return (exp-subBits+1)*subBuckets + int(sub)
}

// bucketUpper is the largest value that maps to bucket i.
func bucketUpper(i int) uint64 {
	if i < subBuckets {
		return uint64(i)
	}
	exp := i/subBuckets + subBits - 1
	sub := uint64(i % subBuckets)
	lo := uint64(1)<<exp | sub<<(exp-subBits)
	return lo + uint64(1)<<(exp-subBits) - 1
}

// Record adds one sample. Negative durations are recorded as 0.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(0)
	if d > 0 {
		v = uint64(d)
	}
	h.counts[bucketOf(v)].Add(1)
	h.total.Add(1)
	h.sum.Add(v)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			break
		}
	}
}

// Count returns the number of samples recorded so far.
func (h *Histogram) Count() uint64 { return h.total.Load() }

// Sum returns the sum of the samples recorded so far (a sample being
// recorded may be in Count and not yet in Sum).
func (h *Histogram) Sum() time.Duration { return time.Duration(h.sum.Load()) }

// Snapshot copies the current counts. Concurrent Records may or may not be
// included; each is included in exactly one of two consecutive snapshots'
// differences.
func (h *Histogram) Snapshot() *Snapshot {
	s := &Snapshot{}
	for i := range h.counts {
		c := h.counts[i].Load()
		s.counts[i] = c
		s.total += c
	}
	s.sum = h.sum.Load()
	s.max = h.max.Load()
	return s
}

// Snapshot is an immutable copy of a histogram's counts.
type Snapshot struct {
	counts [numBuckets]uint64
	total  uint64
	sum    uint64
	max    uint64 // cumulative max; after Sub, an upper bound from buckets
}

// Sub returns the samples recorded between prev and s. prev may be nil.
func (s *Snapshot) Sub(prev *Snapshot) *Snapshot {
	if prev == nil {
		c := *s
		return &c
	}
	d := &Snapshot{sum: s.sum - prev.sum}
	top := -1
	for i := range s.counts {
		c := s.counts[i] - prev.counts[i]
		d.counts[i] = c
		d.total += c
		if c > 0 {
			top = i
		}
	}
	if top >= 0 {
		d.max = min(bucketUpper(top), s.max)
	}
	return d
}

// Merge adds o's counts into s.
func (s *Snapshot) Merge(o *Snapshot) {
	for i := range s.counts {
		s.counts[i] += o.counts[i]
	}
	s.total += o.total
	s.sum += o.sum
	s.max = max(s.max, o.max)
}

// Count returns the number of samples.
func (s *Snapshot) Count() uint64 { return s.total }

// Quantile returns the nearest-rank q-quantile (0 <= q <= 1; 0 gives the
// smallest sample) as the upper bound of the bucket holding it, capped by the
// largest sample, or 0 when there are no samples.
func (s *Snapshot) Quantile(q float64) time.Duration {
	if s.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(s.total)))
	rank = max(rank, 1)
	var seen uint64
	for i := range s.counts {
		seen += s.counts[i]
		if seen >= rank {
			return time.Duration(min(bucketUpper(i), s.max))
		}
	}
	return time.Duration(s.max)
}

// Mean returns the mean sample, or 0 when empty.
func (s *Snapshot) Mean() time.Duration {
	if s.total == 0 {
		return 0
	}
	return time.Duration(s.sum / s.total)
}

// Max returns the largest sample (within bucket precision after Sub).
func (s *Snapshot) Max() time.Duration { return time.Duration(s.max) }

// MS converts a duration to float milliseconds, the unit of results files.
func MS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
