package tpcc

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// random is the TPC-C random source of clause 2.1.6 and 4.3.2: uniform
// numbers, NURand, the a-/n-strings and the syllable last names. It is
// deterministic for a seed (PCG) and not safe for concurrent use: every
// loader batch and every worker owns one.
type random struct {
	r *rand.Rand
	c nurandConstants
}

// nurandConstants are the run-time constants C of NURand (clause 2.1.6).
// CLastLoad is used to generate C_LAST at load; CLastRun at run time, chosen
// so that |CLastRun-CLastLoad| is in 65..119 and not 96 or 112 (clause
// 2.1.6.1).
type nurandConstants struct {
	CLastLoad int `json:"c_last_load"`
	CLastRun  int `json:"c_last_run"`
	CID       int `json:"c_id"`
	OLIID     int `json:"ol_i_id"`
}

// newNURandConstants draws the constants deterministically from seed.
func newNURandConstants(seed uint64) nurandConstants {
	r := rand.New(rand.NewPCG(seed, 0x7c0c))
	c := nurandConstants{CLastLoad: r.IntN(256), CID: r.IntN(1024), OLIID: r.IntN(8192)}
	for {
		run := r.IntN(256)
		d := run - c.CLastLoad
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			c.CLastRun = run
			return c
		}
	}
}

// newRandom returns a random source for the stream (seed, stream).
func newRandom(seed, stream uint64, c nurandConstants) *random {
	return &random{r: rand.New(rand.NewPCG(seed, stream)), c: c}
}

// Int returns a uniform integer in [lo, hi].
func (r *random) Int(lo, hi int) int { return lo + r.r.IntN(hi-lo+1) }

// Float returns a uniform number in [lo, hi] with the given number of decimals.
func (r *random) Float(lo, hi float64, decimals int) float64 {
	scale := 1.0
	for range decimals {
		scale *= 10
	}
	return float64(r.Int(int(lo*scale+0.5), int(hi*scale+0.5))) / scale
}

// Percent returns true with probability p percent.
func (r *random) Percent(p int) bool { return r.r.IntN(100) < p }

// NURand is the non-uniform random function of clause 2.1.6:
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func (r *random) NURand(a, c, x, y int) int {
	return (((r.Int(0, a) | r.Int(x, y)) + c) % (y - x + 1)) + x
}

// CustomerID returns a C_ID by NURand(1023, 1, customers) (clause 2.1.6).
func (r *random) CustomerID(customers int) int { return r.NURand(1023, r.c.CID, 1, customers) }

// ItemID returns an OL_I_ID by NURand(8191, 1, items).
func (r *random) ItemID(items int) int { return r.NURand(8191, r.c.OLIID, 1, items) }

// RunLastName returns a run-time C_LAST: lastName(NURand(255, 0, 999)) with
// the run constant, limited to the names that exist at this scale.
func (r *random) RunLastName(customers int) string {
	return lastName(r.NURand(255, r.c.CLastRun, 0, lastNameMax(customers)))
}

// LoadLastName returns the C_LAST of the c-th customer (1-based) of a
// district at load: the first 1000 customers take the names 0..999 in order,
// the rest NURand(255, 0, 999) with the load constant (clause 4.3.3.1).
func (r *random) LoadLastName(c, customers int) string {
	if c <= 1000 {
		return lastName(c - 1)
	}
	return lastName(r.NURand(255, r.c.CLastLoad, 0, lastNameMax(customers)))
}

// lastNameMax is 999 at standard scale; smaller scales only load the first
// customers-1 names in order, so run-time names are drawn from those.
func lastNameMax(customers int) int { return min(999, customers-1) }

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName returns the C_LAST for n in 0..999: the syllables of its three
// digits (clause 4.3.2.3), e.g. 371 -> "PRICALLYOUGHT".
func lastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// AString returns a random a-string of length lo..hi (clause 4.3.2.2).
func (r *random) AString(lo, hi int) string {
	n := r.Int(lo, hi)
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[r.r.IntN(len(alnum))]
	}
	return string(b)
}

// NString returns a random n-string (digits) of length lo..hi.
func (r *random) NString(lo, hi int) string {
	n := r.Int(lo, hi)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.r.IntN(10))
	}
	return string(b)
}

// Zip returns a zip code: 4 random digits followed by "11111" (clause 4.3.2.7).
func (r *random) Zip() string { return r.NString(4, 4) + "11111" }

// Data returns I_DATA or S_DATA: an a-string of 26..50 characters, 10% of
// which contain "ORIGINAL" at a random position (clause 4.3.3.1).
func (r *random) Data() string {
	s := r.AString(26, 50)
	if !r.Percent(10) {
		return s
	}
	pos := r.Int(0, len(s)-8)
	return s[:pos] + "ORIGINAL" + s[pos+8:]
}

// Perm returns a random permutation of 1..n (used for O_C_ID at load,
// clause 4.3.3.1).
func (r *random) Perm(n int) []int {
	p := r.r.Perm(n)
	for i := range p {
		p[i]++
	}
	return p
}

// badCreditData builds the new C_DATA of a bad-credit customer in Payment
// (clause 2.5.2.2): the payment's ids and amount prepended to the old data,
// truncated to 500 characters.
func badCreditData(cID, cDID, cWID, dID, wID int, amount float64, old string) string {
	var b strings.Builder
	for i, v := range []int{cID, cDID, cWID, dID, wID} {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(v))
	}
	b.WriteByte(' ')
	b.WriteString(strconv.FormatFloat(amount, 'f', 2, 64))
	b.WriteByte('|')
	b.WriteString(old)
	s := b.String()
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}
