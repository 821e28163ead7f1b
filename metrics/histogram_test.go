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
