package balancer

import (
	"fmt"
	"math"
	"time"
)

// Rule is how the router picks the member of each read among those a
// per-member policy admits (a share above 0 in its Weights).
type Rule uint8

const (
	// ByShare draws a member with the policy's shares
	// (Selection.LeastLoaded refines the draw between secondaries): the
	// zero Rule, for weights: and Spillway.
	ByShare Rule = iota
	// TwoChoices is the drivers' own server selection (the
	// server-selection specification's "power of two random choices"):
	// of two different members drawn at random, the one with fewer
	// operations in flight. It is what `nearest` does on a LAN, over the
	// members within the bound instead of those within a heartbeat window.
	TwoChoices
	// HotCold is Prequal's hot-cold lexicographic rule ("Load is not what
	// you should balance: Introducing Prequal", NSDI 2024): a member is hot
	// when its requests in flight exceed the QRIF quantile of the
	// candidates'; the read goes to the cold member of least estimated
	// latency, or, all being hot, to the one with fewest in flight. Here
	// the requests in flight are the router's own, not probed from the
	// server, and a member's latency at its current requests in flight,
	// which Prequal's probes report, is estimated as (in flight + 1) x its
	// per-read time (see DESIGN.md, "Least wait").
	HotCold
	// LeastWait sends the read where it will wait least: to the member of
	// least (operations in flight + 1) x per-read time, the primary's
	// writes counted in its operations; to the primary, the freshest
	// member, while its wait stays under Floor (see DESIGN.md, "Least
	// wait").
	LeastWait
)

// String returns the rule's name.
func (r Rule) String() string {
	switch r {
	case ByShare:
		return "share"
	case TwoChoices:
		return "two-choices"
	case HotCold:
		return "hot-cold"
	case LeastWait:
		return "least-wait"
	}
	return fmt.Sprintf("rule(%d)", uint8(r))
}

// Candidate is one member a read may go to, as the router sees it at the
// moment of the read.
type Candidate struct {
	// InFlight is the router's operations on the member now: its routed
	// reads, and on the primary also its writes.
	InFlight int64
	// PerRead is the time (s) one more operation in flight adds to a read
	// there; 0 when not measured yet.
	PerRead float64
}

// Choice is a per-read rule with its constants.
type Choice struct {
	Rule Rule
	// Floor (LeastWait) is the primary's wait that is never congestion:
	// while (in flight + 1) x per-read there is at most Floor seconds, the
	// read goes to the primary whatever the others offer. 0: none.
	Floor float64
	// QRIF (HotCold) is the quantile of the candidates' requests in flight
	// above which a member is hot, in [0, 1].
	QRIF float64
	// Sample (LeastWait) is how many candidates, drawn at random, a read
	// weighs: 0 weighs them all; 2 is the least wait of two random
	// choices, so that routers that each see only their own reads do not
	// all pick the same member at once. The primary's floor is checked
	// first whatever the draw.
	Sample int
	// ProbeEvery is how long a candidate may go without a read before the
	// router sends it the next one, so its estimates follow it (a stalled
	// member that recovered, say); 0: never. The router applies it before
	// Choose.
	ProbeEvery time.Duration
}

// maxCandidates is how many candidates Choose handles without allocating
// (a replica set has at most 7 voting members; up to 50 members work,
// slower).
const maxCandidates = 8

// Choose returns the index in c (not empty) of the member the read goes
// to. With primary set, c[0] is the primary. rnd is a uniformly random
// value that breaks ties and draws TwoChoices' pair: the choice is a pure
// function of the arguments.
func (ch Choice) Choose(c []Candidate, primary bool, rnd uint64) int {
	n := len(c)
	if n <= 1 {
		return 0
	}
	switch ch.Rule {
	case TwoChoices:
		i := int(rnd % uint64(n))
		j := (i + 1 + int((rnd>>32)%uint64(n-1))) % n
		if c[j].InFlight < c[i].InFlight {
			return j
		}
		return i
	case HotCold:
		return hotCold(c, ch.QRIF, rnd)
	case LeastWait:
		return leastWait(c, primary, ch.Floor, ch.Sample, rnd)
	}
	return int(rnd % uint64(n))
}

// waits fills w[:len(c)] with each candidate's expected wait, (in flight +
// 1) x per-read time (s). A member not measured yet is taken to be as fast
// as the fastest measured one, so it is tried; with none measured, all are
// (the waits are then the operations in flight).
func waits(c []Candidate, w *[maxCandidates]float64) []float64 {
	fastest := math.Inf(1)
	for _, x := range c {
		if x.PerRead > 0 {
			fastest = min(fastest, x.PerRead)
		}
	}
	if math.IsInf(fastest, 1) {
		fastest = 1
	}
	out := w[:0]
	if len(c) > maxCandidates {
		out = make([]float64, 0, len(c))
	}
	for _, x := range c {
		per := x.PerRead
		if per <= 0 {
			per = fastest
		}
		out = append(out, float64(x.InFlight+1)*per)
	}
	return out
}

// leastWait is LeastWait's choice.
func leastWait(c []Candidate, primary bool, floor float64, sample int, rnd uint64) int {
	var buf [maxCandidates]float64
	w := waits(c, &buf)
	if primary && floor > 0 && w[0] <= floor {
		return 0
	}
	n := len(c)
	if sample >= 2 && sample < n {
		return leastOfSample(w, sample, rnd)
	}
	start := int(rnd % uint64(n)) // ties go to a random one of them
	best := start
	for k := 1; k < n; k++ {
		if i := (start + k) % n; w[i] < w[best] {
			best = i
		}
	}
	return best
}

// leastOfSample is the candidate of least wait among k drawn at random
// without replacement (a partial Fisher-Yates shuffle driven by rnd
// through a 64-bit LCG), the first drawn on ties.
func leastOfSample(w []float64, k int, rnd uint64) int {
	n := len(w)
	var ibuf [maxCandidates]int
	idx := ibuf[:0]
	if n > maxCandidates {
		idx = make([]int, 0, n)
	}
	for i := range n {
		idx = append(idx, i)
	}
	best := -1
	for i := range k {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		j := i + int((rnd>>33)%uint64(n-i))
		idx[i], idx[j] = idx[j], idx[i]
		if best < 0 || w[idx[i]] < w[best] {
			best = idx[i]
		}
	}
	return best
}

// hotCold is HotCold's choice.
func hotCold(c []Candidate, q float64, rnd uint64) int {
	var buf [maxCandidates]float64
	w := waits(c, &buf)
	var rbuf [maxCandidates]int64
	rif := rbuf[:0]
	if len(c) > maxCandidates {
		rif = make([]int64, 0, len(c))
	}
	for _, x := range c {
		rif = append(rif, x.InFlight)
	}
	sortInts(rif)
	limit := rif[int(q*float64(len(rif)-1))]
	n := len(c)
	start := int(rnd % uint64(n))
	best := -1
	for k := range n {
		i := (start + k) % n
		if c[i].InFlight > limit {
			continue
		}
		if best < 0 || w[i] < w[best] {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	best = start // not reached: the least in flight is never above a quantile
	for k := 1; k < n; k++ {
		if i := (start + k) % n; c[i].InFlight < c[best].InFlight {
			best = i
		}
	}
	return best
}

// sortInts sorts a short slice in place (insertion sort: no allocation,
// and the candidates are a handful).
func sortInts(a []int64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
