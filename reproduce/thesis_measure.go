package reproduce

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/decongestant/decongestant/results"
)

// Measures of the consistency thesis' findings on a consistency matrix
// (`consistency matrix`): differences between matched cells, reads on the
// primary only, as the thesis read. A cell's metric is a mean over its
// iterations with their standard deviation; the repetitions behind an
// estimate are the fewest iterations of the cells it uses.

// matrixOutput is the matrix's output name in the thesis' experiment.
const matrixOutput = "matrix/matrix"

// baseline are the thesis' single-writer, single-reader setups ("baseline
// concurrency" in its summary).
var baseline = []string{"operation", "session"}

// matrixMeasure turns a measure of a matrix into a claim's Measure.
func matrixMeasure(f func(*results.Matrix) Estimate) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		m, err := o.Matrix(matrixOutput)
		if err != nil {
			return Estimate{}, err
		}
		return f(m), nil
	}
}

// metric is one number of a cell's summary. A metric with a reading is
// measured on both: the claim is judged on the metric, and the same
// measure on the reading is noted beside it, never used to judge.
type metric struct {
	get     func(results.MatrixSummary) results.Spread
	unit    string // of a cell's value ("ms", "%")
	reading *reading
}

// reading is another way to read a metric: the paper's, where its
// definition differs from ours.
type reading struct {
	what string
	get  func(results.MatrixSummary) results.Spread
}

// The metrics compared. Stale reads are judged on our definition (older
// than the last write acknowledged when the read was sent) and noted on
// the thesis' as its figures can be read: any version but that one, which
// also counts a read that returned a write before its acknowledgement
// (DESIGN.md, the consistency thesis).
var (
	writeMean = metric{get: func(s results.MatrixSummary) results.Spread { return s.WriteMean }, unit: "ms"}
	readMean  = metric{get: func(s results.MatrixSummary) results.Spread { return s.ReadMean }, unit: "ms"}
	stalePct  = metric{get: func(s results.MatrixSummary) results.Spread { return s.StalePct }, unit: "%",
		reading: &reading{what: "the thesis' reading (also counting the reads that returned a write before its acknowledgement)",
			get: func(s results.MatrixSummary) results.Spread { return s.NotLastAckedPct }}}
)

// noted measures with m and, when m has a reading, notes the same measure
// on it (if the matrix has that number).
func noted(m metric, unit string, measure func(get func(results.MatrixSummary) results.Spread) Estimate) Estimate {
	e := measure(m.get)
	if m.reading == nil {
		return e
	}
	if alt := measure(m.reading.get); alt.Measured() {
		e.Note = fmt.Sprintf("%s: %s %s", m.reading.what, alt, unit)
	}
	return e
}

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
// relative makes each difference a percentage of the partner's value. Its
// interval is Student's t (the fewest iterations of the cells, less one,
// degrees of freedom) times the standard error of the mean, each
// difference's from its two cells' spreads.
func pairDiff(sel func(results.MatrixCell) bool, partner func(cellKey) cellKey, mt metric, relative bool) func(*results.Matrix) Estimate {
	unit := "%"
	if !relative {
		unit = mt.unit
		if unit == "%" {
			unit = "pp"
		}
	}
	return func(m *results.Matrix) Estimate {
		return noted(mt, unit, func(metric func(results.MatrixSummary) results.Spread) Estimate {
			return pairDiffOf(m, sel, partner, metric, relative)
		})
	}
}

// pairDiffOf is pairDiff of one metric on m.
func pairDiffOf(m *results.Matrix, sel func(results.MatrixCell) bool, partner func(cellKey) cellKey,
	metric func(results.MatrixSummary) results.Spread, relative bool) Estimate {
	var sum, se2 float64
	k, n := 0, math.MaxInt
	for _, a := range m.Cells {
		if a.Read != "primary" || !a.Measured() || !sel(a) {
			continue
		}
		p := partner(keyOf(a))
		b := m.Find(p.setup, p.size, p.w, p.rc, p.read)
		if b == nil || !b.Measured() {
			continue
		}
		ma, mb := metric(a.Summary), metric(b.Summary)
		d, se, ok := difference(ma, mb, relative)
		if !ok {
			continue
		}
		sum, se2, k, n = sum+d, se2+se*se, k+1, min(n, ma.N, mb.N)
	}
	if k == 0 {
		return Estimate{V: math.NaN()}
	}
	return Estimate{V: sum / float64(k), Spread: tHalf(n) * math.Sqrt(se2) / float64(k), N: n}
}

// tHalf is Student's t at 0.975 with n-1 degrees of freedom (0 for n < 2:
// no interval, and Judge calls it inconclusive).
func tHalf(n int) float64 {
	if n < 2 {
		return 0
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
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
func rcDiff(setups []string, a, b string, mt metric) func(Outputs) (Estimate, error) {
	return matrixMeasure(pairDiff(func(c results.MatrixCell) bool { return c.RC == a && slices.Contains(setups, c.Setup) },
		func(k cellKey) cellKey { k.rc = b; return k }, mt, false))
}

// sizeDiff compares the largest size with the smallest, in %, in every
// setup.
func sizeDiff(mt metric) func(Outputs) (Estimate, error) {
	return sizeEffect(anyCell, mt, true)
}

// sizeStaleDiff compares the stale share at the largest size with the
// smallest, in points, for one (w, rc) pair.
func sizeStaleDiff(w, rc string) func(Outputs) (Estimate, error) {
	return sizeEffect(cells(nil, w, rc), stalePct, false)
}

// sizeEffect compares the cells sel accepts at the largest size with the
// same cells at the smallest, in % (relative) or absolute.
func sizeEffect(sel func(results.MatrixCell) bool, mt metric, relative bool) func(Outputs) (Estimate, error) {
	return matrixMeasure(func(m *results.Matrix) Estimate {
		lo, hi, ok := sizeRange(m)
		if !ok {
			return Estimate{V: math.NaN()}
		}
		return pairDiff(func(c results.MatrixCell) bool { return c.DocSize == hi && sel(c) },
			func(k cellKey) cellKey { k.size = lo; return k }, mt, relative)(m)
	})
}

func anyCell(results.MatrixCell) bool { return true }

// cells selects by setup (nil: any), w and rc ("": any).
func cells(setups []string, w, rc string) func(results.MatrixCell) bool {
	return func(c results.MatrixCell) bool {
		return (setups == nil || slices.Contains(setups, c.Setup)) && (w == "" || c.W == w) && (rc == "" || c.RC == rc)
	}
}

// sizeRange is the smallest and largest document size of the matrix.
func sizeRange(m *results.Matrix) (lo, hi int, ok bool) {
	if len(m.Config.Sizes) < 2 {
		return 0, 0, false
	}
	return slices.Min(m.Config.Sizes), slices.Max(m.Config.Sizes), true
}

// pairOf compares the cells sel accepts with their partners, absolute.
func pairOf(sel func(results.MatrixCell) bool, partner func(cellKey) cellKey, mt metric) func(Outputs) (Estimate, error) {
	return matrixMeasure(pairDiff(sel, partner, mt, false))
}

// setupDiff compares setup a with setup b, in % (relative) or absolute.
func setupDiff(a, b string, mt metric, relative bool) func(Outputs) (Estimate, error) {
	return matrixMeasure(pairDiff(func(c results.MatrixCell) bool { return c.Setup == a },
		func(k cellKey) cellKey { k.setup = b; return k }, mt, relative))
}

// worst is the highest metric mean among the measured cells on the
// primary that sel accepts, with that cell's interval over its
// iterations.
func worst(sel func(results.MatrixCell) bool, mt metric) func(Outputs) (Estimate, error) {
	return matrixMeasure(func(m *results.Matrix) Estimate {
		return noted(mt, mt.unit, func(metric func(results.MatrixSummary) results.Spread) Estimate {
			e := Estimate{V: math.NaN()}
			for _, c := range m.Cells {
				if c.Read != "primary" || !c.Measured() || !sel(c) {
					continue
				}
				if s := metric(c.Summary); !(s.Mean <= e.V) {
					e = Estimate{V: s.Mean, Spread: tHalf(s.N) * stderr(s), N: s.N}
				}
			}
			return e
		})
	})
}
