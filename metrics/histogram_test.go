package metrics

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"
)

func TestBucketRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 31, 32, 33, 63, 64, 100, 1000, 12345, 1 << 20, 999_999_999, 1 << 40, 1<<41 - 1} {
		b := bucketOf(v)
		if up := bucketUpper(b); up < v {
			t.Errorf("value %d in bucket %d whose upper bound %d is below it", v, b, up)
		}
		if b > 0 && bucketUpper(b-1) >= v {
			t.Errorf("value %d in bucket %d but previous bucket's upper bound %d covers it", v, b, bucketUpper(b-1))
		}
	}
}

// Values of 40 minutes and more (2^41 ns and up) land in the last bucket;
// they used to index past the buckets, and Record panicked.
func TestRecordBeyondTheLastBucket(t *testing.T) {
	last := numBuckets - 1
	for _, v := range []uint64{1<<41 - 1, 1 << 41, 1<<42 - 1, 1 << 42, math.MaxInt64, math.MaxUint64} {
		if b := bucketOf(v); b != last {
			t.Errorf("bucketOf(%d) = %d, want the last bucket %d", v, b, last)
		}
	}
	if up := bucketUpper(last); up != 1<<41-1 {
		t.Errorf("last bucket's upper bound %d, want 2^41-1", up)
	}
	h := NewHistogram()
	h.Record(40 * time.Minute)
	h.Record(math.MaxInt64)
	s := h.Snapshot()
	if s.Count() != 2 || s.Max() != math.MaxInt64 || s.Quantile(0.5) != 1<<41-1 {
		t.Errorf("count %d max %v p50 %v, want 2, %v and the last bucket's bound %v",
			s.Count(), s.Max(), s.Quantile(0.5), time.Duration(math.MaxInt64), time.Duration(1<<41-1))
	}
}

// Small samples, hand-computed: values below 32 ns have a bucket each, so
// the quantiles are exact; 1000 ns is in the bucket [992, 1007], whose
// upper bound is capped by the largest sample.
func TestSnapshotQuantile(t *testing.T) {
	if lo, up := bucketUpper(bucketOf(1000)-1)+1, bucketUpper(bucketOf(1000)); lo != 992 || up != 1007 {
		t.Fatalf("1000 ns in bucket [%d, %d], the cases below assume [992, 1007]", lo, up)
	}
	for _, tc := range []struct {
		name    string
		samples []time.Duration
		q       float64
		want    time.Duration
	}{
		{"q 0 is the smallest", []time.Duration{4, 1, 3, 2}, 0, 1},
		{"rank exactly 1 of 4", []time.Duration{4, 1, 3, 2}, 0.25, 1},
		{"rank 1.04 rounds up to 2", []time.Duration{4, 1, 3, 2}, 0.26, 2},
		{"rank exactly 2 of 4", []time.Duration{4, 1, 3, 2}, 0.5, 2},
		{"rank 2.4 rounds up to 3", []time.Duration{4, 1, 3, 2}, 0.6, 3},
		{"rank exactly 3 of 4", []time.Duration{4, 1, 3, 2}, 0.75, 3},
		{"q 1 is the largest", []time.Duration{4, 1, 3, 2}, 1, 4},
		{"repeated values", []time.Duration{7, 7, 7, 9}, 0.75, 7},
		{"the bucket bound is capped by the max", []time.Duration{1000}, 0.5, 1000},
		{"the max caps only the top bucket", []time.Duration{3, 1000}, 0.5, 3},
		{"capped at q 1", []time.Duration{3, 1000}, 1, 1000},
		{"below the max, the bucket's bound", []time.Duration{1000, 2000}, 0.5, 1007},
		{"negative is recorded as 0", []time.Duration{-5, 0}, 1, 0},
		{"no samples", nil, 0.5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistogram()
			for _, d := range tc.samples {
				h.Record(d)
			}
			if got := h.Snapshot().Quantile(tc.q); got != tc.want {
				t.Errorf("Quantile(%v) of %v = %d ns, want %d", tc.q, tc.samples, got, tc.want)
			}
		})
	}
}

// snap records ds (in ns) in a new histogram and snapshots it.
func snap(ds ...time.Duration) *Snapshot {
	h := NewHistogram()
	for _, d := range ds {
		h.Record(d)
	}
	return h.Snapshot()
}

// stats is what a snapshot reports, for exact comparisons.
type stats struct {
	count     uint64
	mean, max time.Duration
	p50, p100 time.Duration
}

func statsOf(s *Snapshot) stats {
	return stats{s.Count(), s.Mean(), s.Max(), s.Quantile(0.5), s.Quantile(1)}
}

func TestSnapshotMerge(t *testing.T) {
	for _, tc := range []struct {
		name string
		s, o *Snapshot
		want stats
	}{
		// 5, 7, 1000, 2000: mean 3012/4 = 753; p50 rank 2 is 7.
		{"the larger max in the merged one", snap(5, 1000), snap(7, 2000), stats{4, 753, 2000, 7, 2000}},
		{"the larger max in the receiver", snap(7, 2000), snap(5, 1000), stats{4, 753, 2000, 7, 2000}},
		{"into an empty one", snap(), snap(3, 1000), stats{2, 501, 1000, 3, 1000}},
		{"an empty one", snap(3, 1000), snap(), stats{2, 501, 1000, 3, 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Merge(tc.o)
			if got := statsOf(tc.s); got != tc.want {
				t.Errorf("merged %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSnapshotSub(t *testing.T) {
	for _, tc := range []struct {
		name         string
		before, then []time.Duration // recorded before prev, and after it
		want         stats
	}{
		// The period's max is the upper bound of its top bucket (1007 for
		// 1000), capped by the cumulative max when the period holds it.
		{"the cumulative max is older", []time.Duration{2000}, []time.Duration{5, 1000}, stats{2, 502, 1007, 5, 1007}},
		{"the period holds the max", []time.Duration{5}, []time.Duration{6, 1000}, stats{2, 503, 1000, 6, 1000}},
		{"small exact values", []time.Duration{2000, 9}, []time.Duration{3, 4, 4}, stats{3, 3, 4, 4, 4}},
		{"only zeros", []time.Duration{2000}, []time.Duration{0, -1}, stats{2, 0, 0, 0, 0}},
		{"nothing in the period", []time.Duration{2000}, nil, stats{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistogram()
			for _, d := range tc.before {
				h.Record(d)
			}
			prev := h.Snapshot()
			for _, d := range tc.then {
				h.Record(d)
			}
			if got := statsOf(h.Snapshot().Sub(prev)); got != tc.want {
				t.Errorf("period %+v, want %+v", got, tc.want)
			}
		})
	}
	// Without a previous snapshot, everything since the start.
	if got, want := statsOf(snap(5, 1000).Sub(nil)), (stats{2, 502, 1000, 5, 1000}); got != want {
		t.Errorf("Sub(nil) %+v, want %+v", got, want)
	}
}

func TestRecordCountSumMax(t *testing.T) {
	for _, tc := range []struct {
		name     string
		samples  []time.Duration
		sum, max time.Duration
	}{
		{"increasing", []time.Duration{1, 2, 3000}, 3003, 3000},
		{"decreasing", []time.Duration{3000, 2, 1}, 3003, 3000},
		{"negatives count as 0", []time.Duration{-7, 4, -1}, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistogram()
			for _, d := range tc.samples {
				h.Record(d)
			}
			if h.Count() != uint64(len(tc.samples)) || h.Sum() != tc.sum || h.Snapshot().Max() != tc.max {
				t.Errorf("count %d sum %d max %d, want %d %d %d", h.Count(), h.Sum(), h.Snapshot().Max(), len(tc.samples), tc.sum, tc.max)
			}
		})
	}
}

func TestQuantileMatchesExactWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := NewHistogram()
	vals := make([]time.Duration, 20000)
	for i := range vals {
		vals[i] = time.Duration(r.ExpFloat64() * float64(2*time.Millisecond))
		h.Record(vals[i])
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	s := h.Snapshot()
	for _, q := range []float64{0.5, 0.8, 0.99} {
		exact := vals[int(q*float64(len(vals)))-1]
		got := s.Quantile(q)
		if got < exact || float64(got) > float64(exact)*1.04 {
			t.Errorf("q%.2f = %v, exact %v: outside the 3.1%% bucket precision", q, got, exact)
		}
	}
	if s.Count() != uint64(len(vals)) {
		t.Errorf("count %d, want %d", s.Count(), len(vals))
	}
}

func TestSubIsolatesAPeriod(t *testing.T) {
	h := NewHistogram()
	for range 1000 {
		h.Record(10 * time.Millisecond)
	}
	prev := h.Snapshot()
	for range 100 {
		h.Record(time.Millisecond)
	}
	d := h.Snapshot().Sub(prev)
	if d.Count() != 100 {
		t.Fatalf("period count %d, want 100", d.Count())
	}
	if p := d.Quantile(0.99); p > 1100*time.Microsecond || p < time.Millisecond {
		t.Errorf("period p99 %v, want about 1ms: earlier samples leaked in", p)
	}
	if m := d.Max(); m > 1100*time.Microsecond {
		t.Errorf("period max %v carries the cumulative max", m)
	}
	empty := h.Snapshot().Sub(h.Snapshot())
	if empty.Count() != 0 || empty.Quantile(0.5) != 0 || empty.Mean() != 0 {
		t.Errorf("empty period not empty: %d %v %v", empty.Count(), empty.Quantile(0.5), empty.Mean())
	}
}

func TestConcurrentRecordLosesNothing(t *testing.T) {
	h := NewHistogram()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				h.Record(time.Duration(g*i) * time.Microsecond)
			}
		}()
	}
	wg.Wait()
	if c := h.Snapshot().Count(); c != 40000 {
		t.Fatalf("count %d, want 40000", c)
	}
	// sum over g of g x (0 + ... + 4999) µs = 28 x 12 497 500 µs
	if c, s := h.Count(), h.Sum(); c != 40000 || s != 28*12497500*time.Microsecond {
		t.Fatalf("Count %d Sum %v, want 40000 and %v", c, s, 28*12497500*time.Microsecond)
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	h := NewHistogram()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		d := time.Duration(0)
		for pb.Next() {
			d += 997
			h.Record(d % (50 * time.Millisecond))
		}
	})
}
