package ycsb

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

func newRand(id uint64) *rand.Rand { return rand.New(rand.NewPCG(42, id)) }

// zipfProb is the exact zipf probability of item i (0-based) of n.
func zipfProb(i, n int64, theta float64) float64 {
	return 1 / math.Pow(float64(i+1), theta) / zeta(0, n, theta, 0)
}

// grayProb is the exact probability that Gray et al.'s algorithm, as
// zipfian implements it, returns item k of n: the measure of the u in [0, 1)
// that map to k.
func grayProb(k, n int64, theta float64) float64 {
	z := newZipfian(0, n-1, theta)
	u1 := 1 / z.zetan                          // below: item 0
	u2 := (1 + math.Pow(0.5, theta)) / z.zetan // below: item 1
	switch k {
	case 0:
		return u1
	case 1:
		return u2 - u1
	}
	// n*(eta*u-eta+1)^alpha in [k, k+1)  <=>  u in [lo(k), lo(k+1))
	lo := func(k int64) float64 {
		return 1 + (math.Pow(float64(k)/float64(n), 1-theta)-1)/z.eta
	}
	a, b := max(lo(k), u2), min(lo(k+1), 1)
	return max(0, b-a)
}

func TestZipfian(t *testing.T) {
	const (
		n     = 10
		draws = 1_000_000
	)
	z := newZipfian(0, n-1, ZipfianConstant)
	r := newRand(1)
	counts := make([]float64, n)
	for range draws {
		v := z.next(r)
		if v < 0 || v >= n {
			t.Fatalf("draw %d outside [0, %d)", v, n)
		}
		counts[v]++
	}
	for i := range counts {
		counts[i] /= draws
	}
	// Skew: the most popular item is item 0 and well above uniform.
	if top := slices.Index(counts, slices.Max(counts)); top != 0 {
		t.Errorf("most popular item is %d, want 0", top)
	}
	if counts[0] < 3.0/n {
		t.Errorf("item 0 share %.4f, want > 3x uniform (%.4f)", counts[0], 3.0/n)
	}
	for i := int64(0); i < n; i++ {
		got, gray, exact := counts[i], grayProb(i, n, ZipfianConstant), zipfProb(i, n, ZipfianConstant)
		sigma := math.Sqrt(gray * (1 - gray) / draws)
		// The implementation matches Gray's algorithm within sampling noise.
		if math.Abs(got-gray) > 5*sigma+1e-4 {
			t.Errorf("item %d: share %.5f, Gray's algorithm gives %.5f", i, got, gray)
		}
		// Items 0 and 1 are exact in Gray's algorithm; the rest are an
		// approximation of zipf (within 9% for ten items, 15% for 100).
		tol := 0.09 * exact
		if i < 2 {
			tol = 5*sigma + 1e-4
		}
		if math.Abs(got-exact) > tol {
			t.Errorf("item %d: share %.5f, zipf(%v) gives %.5f (tolerance %.5f)", i, got, ZipfianConstant, exact, tol)
		}
	}
}

// TestZipfianGrows checks the incremental zeta: drawing over more items
// extends zeta exactly as computing it from scratch would.
func TestZipfianGrows(t *testing.T) {
	z := newZipfian(0, 99, ZipfianConstant)
	r := newRand(2)
	for range 1000 {
		if v := z.nextN(r, 150); v < 0 || v >= 150 {
			t.Fatalf("draw %d outside [0, 150)", v)
		}
	}
	if want := zeta(0, 150, ZipfianConstant, 0); math.Abs(z.zetan-want) > 1e-12 {
		t.Errorf("zetan after growing to 150 = %v, want %v", z.zetan, want)
	}
}

// TestScrambledZetan checks YCSB's precomputed zeta against zeta(10^10,
// 0.99) computed here: the first 10^6 terms summed, the rest by the
// Euler-Maclaurin formula, whose next term is below 1e-20.
func TestScrambledZetan(t *testing.T) {
	const theta = ZipfianConstant
	const m = 1_000_000
	sum := zeta(0, m, theta, 0)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	df := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	n := float64(scrambledItemCount)
	sum += (math.Pow(n, 1-theta)-math.Pow(m, 1-theta))/(1-theta) + (f(n)-f(m))/2 + (df(n)-df(m))/12
	if math.Abs(sum-scrambledZetan) > 1e-9 {
		t.Errorf("zeta(1e10, 0.99) = %.14f, YCSB's ZETAN is %.14f", sum, scrambledZetan)
	}
}

func TestScrambledZipfian(t *testing.T) {
	const (
		min   = 5000
		n     = 1000
		draws = 500_000
	)
	s := newScrambledZipfian(min, n)
	r := newRand(3)
	counts := make([]int, n)
	for range draws {
		v := s.next(r)
		if v < min || v >= min+n {
			t.Fatalf("draw %d outside [%d, %d)", v, min, min+n)
		}
		counts[v-min]++
	}
	// Skewed: the hottest record gets item 0's share of a zipfian over 1e10
	// items, 1/ZETAN = 3.8%, far above uniform's 0.1%.
	top := slices.Max(counts)
	if share := float64(top) / draws; share < 0.03 {
		t.Errorf("hottest record share %.4f, want about 1/ZETAN = %.4f", share, 1/scrambledZetan)
	}
	// Scattered: the ten hottest records are not clustered at min, and every
	// tenth of the key space gets a fair part of the draws.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return counts[b] - counts[a] })
	deciles := map[int]bool{}
	for _, i := range order[:10] {
		deciles[i*10/n] = true
	}
	if len(deciles) < 4 {
		t.Errorf("ten hottest records %v fall in only %d tenths of the key space", order[:10], len(deciles))
	}
	for d := range 10 {
		sum := 0
		for _, c := range counts[d*n/10 : (d+1)*n/10] {
			sum += c
		}
		if share := float64(sum) / draws; share < 0.02 {
			t.Errorf("tenth %d of the key space gets %.4f of draws, want >= 0.02", d, share)
		}
	}
}

func TestUniform(t *testing.T) {
	const (
		min   = 100
		n     = 50
		draws = 200_000
	)
	u := uniform{min: min, n: n}
	r := newRand(4)
	counts := make([]float64, n)
	for range draws {
		v := u.next(r)
		if v < min || v >= min+n {
			t.Fatalf("draw %d outside [%d, %d)", v, min, min+n)
		}
		counts[v-min]++
	}
	p := 1.0 / n
	sigma := math.Sqrt(p * (1 - p) / draws)
	for i, c := range counts {
		if got := c / draws; math.Abs(got-p) > 5*sigma {
			t.Errorf("value %d: share %.5f, want %.5f +- %.5f", min+i, got, p, 5*sigma)
		}
	}
}

func TestSkewedLatest(t *testing.T) {
	const (
		records = 1000
		draws   = 200_000
	)
	c := newAckCounter(records)
	s := &skewedLatest{
		min:     0,
		counter: func() *ackCounter { return c },
		zipf:    newZipfian(0, records-1, ZipfianConstant),
	}
	r := newRand(5)
	check := func(last int64) {
		t.Helper()
		counts := map[int64]int{}
		recent := 0
		for range draws {
			v := s.next(r)
			if v < 0 || v > last {
				t.Fatalf("draw %d outside [0, %d]", v, last)
			}
			counts[v]++
			if v > last-(last+1)/10 {
				recent++
			}
		}
		if counts[last] <= counts[last-1] || counts[last-1] <= counts[last/2] {
			t.Errorf("last=%d: draws of newest %d, next %d, middle %d; want decreasing with age",
				last, counts[last], counts[last-1], counts[last/2])
		}
		if share := float64(recent) / draws; share < 0.5 {
			t.Errorf("last=%d: newest tenth gets %.3f of draws, want > 0.5", last, share)
		}
	}
	check(records - 1)

	// Inserts move the head only once acknowledged, in order.
	var keys []int64
	for range 100 {
		keys = append(keys, c.next())
	}
	for _, k := range keys[1:] {
		c.acknowledge(k)
	}
	check(records - 1) // keys[0] still pending
	c.acknowledge(keys[0])
	check(records + 99)
}

func TestAckCounter(t *testing.T) {
	c := newAckCounter(10)
	if got := c.last(); got != 9 {
		t.Fatalf("last before any insert = %d, want 9", got)
	}
	a, b, d := c.next(), c.next(), c.next()
	if a != 10 || b != 11 || d != 12 {
		t.Fatalf("next = %d, %d, %d; want 10, 11, 12", a, b, d)
	}
	c.acknowledge(d)
	c.acknowledge(b)
	if got := c.last(); got != 9 {
		t.Errorf("last with 10 unacknowledged = %d, want 9", got)
	}
	c.acknowledge(a)
	if got := c.last(); got != 12 {
		t.Errorf("last after acknowledging 10..12 = %d, want 12", got)
	}

	// Concurrent use hands out each number once and ends contiguous.
	const workers, each = 8, 1000
	seen := make([]int64, 0, workers*each)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				v := c.next()
				c.acknowledge(v)
				mu.Lock()
				seen = append(seen, v)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(seen)
	for i, v := range seen {
		if v != 13+int64(i) {
			t.Fatalf("numbers handed out are not 13..%d without repeats: found %d at %d", 12+workers*each, v, i)
		}
	}
	if got, want := c.last(), int64(12+workers*each); got != want {
		t.Errorf("last = %d, want %d", got, want)
	}
}

// TestReadKeysSplitTheKeys checks the read-hints paper's disjoint key sets:
// reads draw from the first ReadKeys keys, updates from the rest, for every
// distribution.
func TestReadKeysSplitTheKeys(t *testing.T) {
	for _, d := range []Distribution{Uniform, Zipfian} {
		c := DefaultConfig()
		c.Records, c.ReadKeys, c.InsertStart = 1000, 100, 50
		g, err := NewGenerator(c)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		reads, writes := g.keyChooser(d, readPart), g.keyChooser(d, writePart)
		var maxRead, minWrite int64 = 0, 1 << 62
		for range 20000 {
			k := reads.next(r)
			if k < 50 {
				t.Fatalf("%v: read key %d below insertstart", d, k)
			}
			maxRead = max(maxRead, k)
			w := writes.next(r)
			if w >= 1050 {
				t.Fatalf("%v: update key %d beyond the loaded keys", d, w)
			}
			minWrite = min(minWrite, w)
		}
		if maxRead >= 150 || minWrite < 150 {
			t.Fatalf("%v: reads up to %d, updates from %d: want reads in [50,150), updates in [150,1050)", d, maxRead, minWrite)
		}
	}
}

func TestReadProportionAndReadKeysValidate(t *testing.T) {
	for _, opts := range []map[string]string{
		{"readproportion": "1.5"}, {"readproportion": "0.8", "workload": "e"},
		{"readkeys": "-1"}, {"readkeys": "100000"}, {"readkeys": "x"},
	} {
		if _, err := ParseOptions(opts); err == nil {
			t.Errorf("%v accepted", opts)
		}
	}
	c, err := ParseOptions(map[string]string{"readproportion": "0.8", "readkeys": "500", "workload": "a"})
	if err != nil || c.ReadProportion != 0.8 || c.ReadKeys != 500 {
		t.Fatalf("%+v %v", c, err)
	}
}

// TestReadOffsetMovesTheReadWindow: a phase's readoffset moves the reads'
// window (the read-hints paper's changed working set) for choosers made
// after it; offsets that do not fit, or without --readkeys, are refused.
func TestReadOffsetMovesTheReadWindow(t *testing.T) {
	c := DefaultConfig()
	c.Records, c.ReadKeys, c.InsertStart = 1000, 100, 50
	g, err := NewGenerator(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetReadOffset(400); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []Distribution{Uniform, Zipfian} {
		reads := g.keyChooser(d, readPart)
		lo, hi := int64(1<<62), int64(0)
		for range 20000 {
			k := reads.next(r)
			lo, hi = min(lo, k), max(hi, k)
		}
		if lo < 450 || hi >= 550 || hi-lo < 90 {
			t.Errorf("%v: reads in [%d, %d], want the window [450, 550)", d, lo, hi)
		}
	}
	for _, n := range []int64{-1, 901, 1000} {
		if err := g.CheckReadOffset(n); err == nil {
			t.Errorf("CheckReadOffset(%d) accepted a window outside the 1000 keys", n)
		}
	}
	if err := g.CheckReadOffset(900); err != nil {
		t.Errorf("CheckReadOffset(900): %v; the last window fits", err)
	}
	c.ReadKeys = 0
	g, _ = NewGenerator(c)
	if err := g.CheckReadOffset(10); err == nil || !strings.Contains(err.Error(), "--readkeys") {
		t.Errorf("without readkeys: %v, want an error naming --readkeys", err)
	}
	if err := g.SetReadOffset(0); err != nil {
		t.Errorf("SetReadOffset(0) without readkeys (every run's reset): %v", err)
	}
}
