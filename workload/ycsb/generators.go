package ycsb

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// The number generators below follow YCSB's site.ycsb.generator package.
// Each draws from a *rand.Rand passed in by its caller, so a worker's whole
// random stream comes from its own source and the generators stay free of
// locks (YCSB uses a thread-local Random for the same reason).

// ZipfianConstant is YCSB's ZipfianGenerator.ZIPFIAN_CONSTANT (theta).
const ZipfianConstant = 0.99

// Constants of YCSB's ScrambledZipfianGenerator: the zipfian it scrambles is
// drawn over scrambledItemCount items, whose zeta for theta 0.99 is
// precomputed as scrambledZetan (verified in TestScrambledZetan).
const (
	scrambledItemCount = 10_000_000_000
	scrambledZetan     = 26.46902820178302
)

// zeta returns the sum over i in [st, n) of 1/(i+1)^theta, added to
// initial; with st=0 and initial=0 it is the generalized harmonic number
// H(n, theta) (YCSB's ZipfianGenerator.zetastatic).
func zeta(st, n int64, theta, initial float64) float64 {
	sum := initial
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// zipfian draws integers in [base, base+items) with item base the most
// popular, base+1 the next, and so on, by the algorithm of Gray et al.,
// "Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994, as
// YCSB's ZipfianGenerator implements it.
//
// Like YCSB's, it lets the item count grow between draws (nextN): zeta is
// then extended incrementally, while eta keeps using the item count given at
// construction (a YCSB quirk kept for fidelity). A smaller item count reuses
// the larger zeta, as YCSB does with allowitemcountdecrease=false.
//
// A zipfian is a small value owned by one goroutine; copy it to share.
type zipfian struct {
	base, items  int64
	theta, alpha float64
	zetan, eta   float64
	zeta2theta   float64
	countForZeta int64
}

// newZipfian returns a zipfian over [min, max] with constant theta,
// computing zeta in O(max-min).
func newZipfian(min, max int64, theta float64) zipfian {
	return newZipfianZeta(min, max, theta, zeta(0, max-min+1, theta, 0))
}

// newZipfianZeta is newZipfian with a precomputed zeta(max-min+1, theta).
func newZipfianZeta(min, max int64, theta, zetan float64) zipfian {
	z := zipfian{
		base:         min,
		items:        max - min + 1,
		theta:        theta,
		alpha:        1 / (1 - theta),
		zetan:        zetan,
		zeta2theta:   zeta(0, 2, theta, 0),
		countForZeta: max - min + 1,
	}
	z.eta = z.etaFor(zetan)
	return z
}

func (z *zipfian) etaFor(zetan float64) float64 {
	return (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/zetan)
}

// next draws over the item count given at construction.
func (z *zipfian) next(r *rand.Rand) int64 { return z.nextN(r, z.items) }

// nextN draws over [base, base+itemcount).
func (z *zipfian) nextN(r *rand.Rand, itemcount int64) int64 {
	if itemcount > z.countForZeta {
		z.zetan = zeta(z.countForZeta, itemcount, z.theta, z.zetan)
		z.countForZeta = itemcount
		z.eta = z.etaFor(z.zetan)
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return z.base + 1
	}
	return z.base + int64(float64(itemcount)*math.Pow(z.eta*u-z.eta+1, z.alpha))
}

// keyChooser picks the key number of the next read, update, scan or
// read-modify-write.
type keyChooser interface {
	next(r *rand.Rand) int64
}

// scrambledZipfian is YCSB's ScrambledZipfianGenerator: a zipfian with
// constant 0.99 over 10^10 items (with its precomputed zeta), hashed with
// FNVHash64 and taken modulo the record count, so the popular records are
// scattered over [min, min+n) instead of clustered at min.
type scrambledZipfian struct {
	min, n int64
	gen    zipfian
}

func newScrambledZipfian(min, n int64) *scrambledZipfian {
	return &scrambledZipfian{
		min: min,
		n:   n,
		gen: newZipfianZeta(0, scrambledItemCount, ZipfianConstant, scrambledZetan),
	}
}

func (s *scrambledZipfian) next(r *rand.Rand) int64 {
	h := FNVHash64(s.gen.next(r)) % s.n
	if h < 0 { // only for FNVHash64 == math.MinInt64; Java would go negative
		h += s.n
	}
	return s.min + h
}

// uniform draws uniformly from [min, min+n) (YCSB's UniformLongGenerator).
type uniform struct{ min, n int64 }

func (u uniform) next(r *rand.Rand) int64 { return u.min + r.Int64N(u.n) }

// skewedLatest is YCSB's SkewedLatestGenerator: a zipfian over the
// acknowledged key numbers, counted back from the newest, so recent inserts
// are the most popular. YCSB draws latest - zipf(latest), which never picks
// key 0; this draws latest - zipf(latest-min+1) over exactly the
// acknowledged keys [min, latest].
type skewedLatest struct {
	min     int64
	counter func() *ackCounter
	zipf    zipfian
}

func (s *skewedLatest) next(r *rand.Rand) int64 {
	last := s.counter().last()
	return last - s.zipf.nextN(r, last-s.min+1) // zipf.base is 0
}

// ackCounter is YCSB's AcknowledgedCounterGenerator: next hands out key
// numbers for inserts, and last reports the highest key number below which
// every handed-out number has been acknowledged, so a chooser built on it
// only sees inserts that completed. It is safe for concurrent use.
type ackCounter struct {
	counter atomic.Int64
	limit   atomic.Int64

	mu      sync.Mutex
	pending map[int64]struct{} // acknowledged numbers above limit+1
}

// newAckCounter returns a counter whose first number is start; last is
// start-1 until start is acknowledged.
func newAckCounter(start int64) *ackCounter {
	c := &ackCounter{pending: map[int64]struct{}{}}
	c.counter.Store(start)
	c.limit.Store(start - 1)
	return c
}

func (c *ackCounter) next() int64 { return c.counter.Add(1) - 1 }

func (c *ackCounter) last() int64 { return c.limit.Load() }

// acknowledge marks v as done (whether its insert succeeded or not, as YCSB
// does, or one failed insert would freeze last forever) and moves last
// over every contiguous acknowledged number.
func (c *ackCounter) acknowledge(v int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.limit.Load()
	if v != limit+1 {
		c.pending[v] = struct{}{}
		return
	}
	limit = v
	for {
		if _, ok := c.pending[limit+1]; !ok {
			break
		}
		delete(c.pending, limit+1)
		limit++
	}
	c.limit.Store(limit)
}
