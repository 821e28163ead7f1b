package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/decongestant/decongestant/results"
)

// The consistency thesis' published findings beside this machine's
// counterparts. The numbers are the thesis' (its section 5.1 summary and the
// trends of its section 4.3); the comparison is computed from the matrix, never
// written in: a finding agrees when the effect has the thesis' sign, is clear
// of the noise, and (for a published number) is within a factor of 2 of it.
// Only reads on the primary count, as the thesis read from the primary.

// claimKind is how a finding is compared.
type claimKind int

const (
	// claimDiff: a signed published number; agrees when ours has its sign,
	// is clear of the noise and within a factor of 2.
	claimDiff claimKind = iota
	// claimUp: a direction; agrees when ours is positive and clear of the
	// noise.
	claimUp
	// claimNone: no significant effect; agrees when |ours| is within the
	// noise or the claim's tolerance.
	claimNone
	// claimAtMost: agrees when ours is at most want.
	claimAtMost
)

// thesisClaim is one finding and how to measure it here.
type thesisClaim struct {
	where   string // the thesis' section
	text    string // the finding, paraphrased
	thesis  string // as published
	kind    claimKind
	want    float64 // the published number (claimDiff), the bound (claimAtMost), the tolerance (claimNone)
	unit    string  // of ours
	measure func(m *results.Matrix) estimate
}

// estimate is our counterpart of a finding: the mean of n matched
// differences and twice its standard error from the spread over
// iterations (0 with one iteration each).
type estimate struct {
	v, noise float64
	n        int
}

// claimResult is a finding with our measure and the verdict.
type claimResult struct {
	claim   thesisClaim
	est     estimate
	verdict string
	class   verdictClass
}

// verdictClass is a verdict's kind, for the page's colours.
type verdictClass string

const (
	classAgree    verdictClass = "agree"
	classPartial  verdictClass = "partial" // same direction, another size
	classDisagree verdictClass = "disagree"
	classNone     verdictClass = "none" // not measured
)

// Verdicts.
const (
	verdictAgrees     = "agrees"
	verdictNoEffect   = "disagrees: no clear effect here"
	verdictOpposite   = "disagrees: opposite direction"
	verdictNotMeasure = "not measured"
)

// baseline are the thesis' single-writer, single-reader setups ("baseline
// concurrency" in its summary).
var baseline = []string{"operation", "session"}

// thesisClaims are the findings compared, in the thesis' order.
var thesisClaims = []thesisClaim{
	{where: "§5.1", text: "baseline concurrency: rc linearizable instead of majority raises write latency",
		thesis: "+1.54 ms", kind: claimDiff, want: 1.54, unit: "ms",
		measure: rcDiff(baseline, "linearizable", "majority", writeMean, false)},
	{where: "§5.1", text: "baseline concurrency: rc linearizable instead of majority raises read latency",
		thesis: "+32 ms", kind: claimDiff, want: 32, unit: "ms",
		measure: rcDiff(baseline, "linearizable", "majority", readMean, false)},
	{where: "§5.1", text: "baseline concurrency: rc majority has more stale reads than linearizable",
		thesis: "1.67 points", kind: claimDiff, want: 1.67, unit: "pp",
		measure: rcDiff(baseline, "majority", "linearizable", stalePct, false)},
	{where: "§5.1", text: "write latency grows with the document size (smallest to largest size here)",
		thesis: "+135.89 %", kind: claimDiff, want: 135.89, unit: "%",
		measure: sizeDiff(writeMean)},
	{where: "§5.1", text: "read latency barely grows with the document size (smallest to largest size here)",
		thesis: "+2.98 %", kind: claimDiff, want: 2.98, unit: "%",
		measure: sizeDiff(readMean)},
	{where: "§5.1", text: "2 writers + 10 readers: rc linearizable instead of majority raises write latency",
		thesis: "+11 ms", kind: claimDiff, want: 11, unit: "ms",
		measure: rcDiff([]string{"multi"}, "linearizable", "majority", writeMean, false)},
	{where: "§5.1", text: "2 writers + 10 readers: rc linearizable instead of majority raises read latency",
		thesis: "+51.92 ms", kind: claimDiff, want: 51.92, unit: "ms",
		measure: rcDiff([]string{"multi"}, "linearizable", "majority", readMean, false)},
	{where: "§5.1", text: "2 writers + 10 readers: rc majority has more stale reads than linearizable",
		thesis: "2.73 points", kind: claimDiff, want: 2.73, unit: "pp",
		measure: rcDiff([]string{"multi"}, "majority", "linearizable", stalePct, false)},
	{where: "§4.3.2", text: "w majority writes are slower than w 1 (\"local\" in the thesis)",
		thesis: "higher", kind: claimUp, unit: "ms",
		measure: pairDiff(func(c results.MatrixCell) bool { return c.W == "majority" },
			func(k cellKey) cellKey { k.w = "1"; return k }, writeMean, false)},
	{where: "§4.3.2", text: "w majority with rc linearizable leaves almost no stale reads",
		thesis: "≈ 0 %", kind: claimAtMost, want: 0.5, unit: "% (worst cell)",
		measure: worst(func(c results.MatrixCell) bool { return c.W == "majority" && c.RC == "linearizable" }, stalePct)},
	{where: "§4.3.2", text: "w 1 with rc majority: more stale reads with larger documents (smallest to largest size here)",
		thesis: "more", kind: claimUp, unit: "pp",
		measure: sizeStaleDiff("1", "majority")},
	{where: "§4.3.2", text: "w majority with rc local: more stale reads with larger documents (smallest to largest size here)",
		thesis: "more", kind: claimUp, unit: "pp",
		measure: sizeStaleDiff("majority", "local")},
	{where: "§4.3.2", text: "stricter concerns, fewer stale reads: w 1 rc local against w majority rc linearizable",
		thesis: "more stale", kind: claimUp, unit: "pp",
		measure: pairDiff(func(c results.MatrixCell) bool { return c.W == "1" && c.RC == "local" },
			func(k cellKey) cellKey { k.w, k.rc = "majority", "linearizable"; return k }, stalePct, false)},
	{where: "§4.3.3", text: "concerns in the connection string instead of per operation: write latency unchanged",
		thesis: "no significant difference", kind: claimNone, want: 10, unit: "%",
		measure: setupDiff("session", "operation", writeMean)},
	{where: "§4.3.3", text: "concerns in the connection string instead of per operation: read latency unchanged",
		thesis: "no significant difference", kind: claimNone, want: 10, unit: "%",
		measure: setupDiff("session", "operation", readMean)},
	{where: "§4.3.4", text: "2 writers + 10 readers instead of 1 + 1: write latency rises",
		thesis: "higher", kind: claimUp, unit: "ms",
		measure: setupDiffAbs("multi", "operation", writeMean)},
	{where: "§4.3.4", text: "2 writers + 10 readers instead of 1 + 1: more stale reads",
		thesis: "more", kind: claimUp, unit: "pp",
		measure: setupDiffAbs("multi", "operation", stalePct)},
}

// The metrics compared.
func writeMean(s results.MatrixSummary) results.Spread { return s.WriteMean }
func readMean(s results.MatrixSummary) results.Spread  { return s.ReadMean }
func stalePct(s results.MatrixSummary) results.Spread  { return s.StalePct }

// cellKey names a cell.
type cellKey struct {
	setup string
	size  int
	w, rc string
	read  string
}

func keyOf(c results.MatrixCell) cellKey {
	return cellKey{setup: c.Setup, size: c.DocSize, w: c.W, rc: c.RC, read: c.Read}
}

// pairDiff is the mean of metric(a) - metric(partner(a)) over the measured
// cells a on the primary that sel accepts and whose partner is measured;
// relative makes each difference a percentage of the partner's value.
func pairDiff(sel func(results.MatrixCell) bool, partner func(cellKey) cellKey,
	metric func(results.MatrixSummary) results.Spread, relative bool) func(*results.Matrix) estimate {
	return func(m *results.Matrix) estimate {
		var sum, se2 float64
		n := 0
		for _, a := range m.Cells {
			if a.Read != "primary" || !a.Measured() || !sel(a) {
				continue
			}
			k := partner(keyOf(a))
			b := m.Find(k.setup, k.size, k.w, k.rc, k.read)
			if b == nil || !b.Measured() {
				continue
			}
			d, se, ok := difference(metric(a.Summary), metric(b.Summary), relative)
			if !ok {
				continue
			}
			sum, se2, n = sum+d, se2+se*se, n+1
		}
		if n == 0 {
			return estimate{}
		}
		return estimate{v: sum / float64(n), noise: 2 * math.Sqrt(se2) / float64(n), n: n}
	}
}

// difference is a - b (or, relative, 100 (a/b - 1)) and its standard
// error from the two spreads; ok is false when a relative difference has
// no positive base.
func difference(a, b results.Spread, relative bool) (d, se float64, ok bool) {
	sea, seb := stderr(a), stderr(b)
	if !relative {
		return a.Mean - b.Mean, math.Hypot(sea, seb), true
	}
	if a.Mean <= 0 || b.Mean <= 0 {
		return 0, 0, false
	}
	r := a.Mean / b.Mean
	return 100 * (r - 1), 100 * r * math.Hypot(sea/a.Mean, seb/b.Mean), true
}

func stderr(s results.Spread) float64 {
	if s.N < 2 {
		return 0
	}
	return s.Stdev / math.Sqrt(float64(s.N))
}

// rcDiff compares rc a with rc b in the given setups.
func rcDiff(setups []string, a, b string, metric func(results.MatrixSummary) results.Spread, relative bool) func(*results.Matrix) estimate {
	return pairDiff(func(c results.MatrixCell) bool { return c.RC == a && slices.Contains(setups, c.Setup) },
		func(k cellKey) cellKey { k.rc = b; return k }, metric, relative)
}

// sizeDiff compares the largest size with the smallest, in %, in every
// setup.
func sizeDiff(metric func(results.MatrixSummary) results.Spread) func(*results.Matrix) estimate {
	return func(m *results.Matrix) estimate {
		sizes := m.Config.Sizes
		if len(sizes) < 2 {
			return estimate{}
		}
		lo, hi := slices.Min(sizes), slices.Max(sizes)
		return pairDiff(func(c results.MatrixCell) bool { return c.DocSize == hi },
			func(k cellKey) cellKey { k.size = lo; return k }, metric, true)(m)
	}
}

// sizeStaleDiff compares the stale share at the largest size with the
// smallest, in points, for one (w, rc) pair.
func sizeStaleDiff(w, rc string) func(*results.Matrix) estimate {
	return func(m *results.Matrix) estimate {
		sizes := m.Config.Sizes
		if len(sizes) < 2 {
			return estimate{}
		}
		lo, hi := slices.Min(sizes), slices.Max(sizes)
		return pairDiff(func(c results.MatrixCell) bool { return c.DocSize == hi && c.W == w && c.RC == rc },
			func(k cellKey) cellKey { k.size = lo; return k }, stalePct, false)(m)
	}
}

// setupDiff compares setup a with setup b, in %.
func setupDiff(a, b string, metric func(results.MatrixSummary) results.Spread) func(*results.Matrix) estimate {
	return pairDiff(func(c results.MatrixCell) bool { return c.Setup == a },
		func(k cellKey) cellKey { k.setup = b; return k }, metric, true)
}

// setupDiffAbs compares setup a with setup b.
func setupDiffAbs(a, b string, metric func(results.MatrixSummary) results.Spread) func(*results.Matrix) estimate {
	return pairDiff(func(c results.MatrixCell) bool { return c.Setup == a },
		func(k cellKey) cellKey { k.setup = b; return k }, metric, false)
}

// worst is the highest metric mean among the measured cells on the
// primary that sel accepts.
func worst(sel func(results.MatrixCell) bool, metric func(results.MatrixSummary) results.Spread) func(*results.Matrix) estimate {
	return func(m *results.Matrix) estimate {
		e := estimate{v: math.Inf(-1)}
		for _, c := range m.Cells {
			if c.Read == "primary" && c.Measured() && sel(c) {
				e.v, e.n = math.Max(e.v, metric(c.Summary).Mean), e.n+1
			}
		}
		if e.n == 0 {
			return estimate{}
		}
		return e
	}
}

// thesisCaveats say what differs from the thesis' run in a way that
// changes the size of the numbers compared.
func thesisCaveats(m *results.Matrix) []string {
	var out []string
	if iv := m.Config.WriteIntervalMs; iv > 0 && iv != 1000 {
		out = append(out, fmt.Sprintf("This run wrote every %s ms, the thesis every 1 s. A read is stale while a newer "+
			"acknowledged write is not yet visible to it, so the share of stale reads grows roughly with the write rate: "+
			"compare stale shares in direction only, or run with --full (1 s).", strconv.FormatFloat(iv, 'g', -1, 64)))
	}
	out = append(out, "The thesis ran three machines on a network; here all three members share one machine, "+
		"so latencies compare in direction and rough size only.")
	return out
}

// compareThesis measures every finding on m and gives its verdict.
func compareThesis(m *results.Matrix) []claimResult {
	out := make([]claimResult, len(thesisClaims))
	for i, c := range thesisClaims {
		e := c.measure(m)
		v, class := judge(c, e)
		out[i] = claimResult{claim: c, est: e, verdict: v, class: class}
	}
	return out
}

// judge gives the verdict on one finding.
func judge(c thesisClaim, e estimate) (string, verdictClass) {
	if e.n == 0 {
		return verdictNotMeasure, classNone
	}
	clear := math.Abs(e.v) > e.noise && e.v != 0
	switch c.kind {
	case claimAtMost:
		if e.v <= c.want {
			return verdictAgrees, classAgree
		}
		return fmt.Sprintf("disagrees: above %s %s", fmtNum(c.want), c.unit), classDisagree
	case claimNone:
		if !clear || math.Abs(e.v) <= c.want {
			return verdictAgrees, classAgree
		}
		return fmt.Sprintf("disagrees: differs by %s %s", fmtNum(e.v), c.unit), classDisagree
	}
	want := c.want
	if c.kind == claimUp {
		want = 1
	}
	switch {
	case !clear:
		return verdictNoEffect, classDisagree
	case math.Signbit(e.v) != math.Signbit(want):
		return verdictOpposite, classDisagree
	case c.kind == claimUp:
		return verdictAgrees, classAgree
	}
	r := e.v / want
	switch {
	case r >= 0.5 && r <= 2:
		return verdictAgrees, classAgree
	case r < 0.5:
		return fmt.Sprintf("same direction, %s× smaller", fmtNum(1/r)), classPartial
	}
	return fmt.Sprintf("same direction, %s× larger", fmtNum(r)), classPartial
}

// MatrixFinding is one of the consistency thesis' findings beside this
// machine's counterpart, with the verdict the matrix page shows.
type MatrixFinding struct {
	Where   string // the thesis' section
	Text    string // the finding
	Thesis  string // as published
	Ours    string // our measure, with its unit
	Verdict string // "agrees", "agrees in direction: ...", "disagrees: ..." or "not measured"
	Class   string // agree, partial, disagree or none
}

// MatrixFindings compares the thesis' findings with m, as the matrix page
// does.
func MatrixFindings(m *results.Matrix) []MatrixFinding {
	var out []MatrixFinding
	for _, r := range compareThesis(m) {
		ours := "-"
		if r.est.n > 0 {
			ours = fmtNum(r.est.v) + " " + r.claim.unit
		}
		out = append(out, MatrixFinding{Where: r.claim.where, Text: r.claim.text, Thesis: r.claim.thesis,
			Ours: ours, Verdict: r.verdict, Class: string(r.class)})
	}
	return out
}
