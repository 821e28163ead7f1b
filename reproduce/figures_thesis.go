package reproduce

import (
	"time"

	"github.com/decongestant/decongestant/report"
	"github.com/decongestant/decongestant/results"
)

// The consistency thesis' experiment is the consistency matrix, which
// starts its own local set. Its findings (the summary, §5.1, and the
// trends of §4.3) are claims judged like every other paper's; the matrix
// page shows the same verdicts (ThesisFindings).

// thesisMatrix's full shape is the thesis' own (10 iterations of 100
// writes a second apart, `--full`) with three iterations, the fewest a
// verdict takes, and reads on the primary, where the thesis read and
// every claim is measured: 72 cells of about 100 s, three times, about
// 6 hours. The matrix journals every cell's iteration, and a resumed
// reproduction continues it, so it can be gathered over several sittings.
var thesisMatrix = &Experiment{Name: "consistency-matrix", Quick: 2 * time.Minute, Full: 6*time.Hour + 15*time.Minute,
	Steps: func(q bool) []Step {
		args := join([]string{"consistency", "matrix"}, flags("out", PhOut+"/matrix"))
		if q {
			args = append(args, flags("sizes", "1K,1M", "iterations", "1", "writes", "10",
				"reads", "primary,secondary")...)
		} else {
			args = append(append(args, "--full"), flags("iterations", "3", "reads", "primary")...)
		}
		return []Step{{Args: args, Output: matrixOutput, Resumable: !q}}
	}}

// thesisClaims are the thesis' findings in its order. A published
// difference agrees within a factor of 2 (the thesis ran three machines
// on a network, we run three members on one); a trend is a difference
// whose interval is above 0; "no significant difference" is within ±10 %;
// "almost no stale reads" at most 0.5 % in the worst cell. Where the
// thesis does not say between which sizes a size effect is measured, the
// smallest and the largest size here are compared.
func thesisClaims() []Claim {
	w := func(c results.MatrixCell) bool { return c.W == "majority" }
	return []Claim{
		{Text: "§5.1 baseline concurrency: rc linearizable instead of majority raises write latency", PaperText: "+1.54 ms",
			Source: Source{482, "1.54 ms increase in the write latency"}, Kind: Approx, Paper: 1.54, Factor: 2, Unit: "ms",
			Measure: rcDiff(baseline, "linearizable", "majority", writeMean)},
		{Text: "§5.1 baseline concurrency: rc linearizable instead of majority raises read latency", PaperText: "+32 ms",
			Source: Source{482, "32 ms average increase in the read latency"}, Kind: Approx, Paper: 32, Factor: 2, Unit: "ms",
			Measure: rcDiff(baseline, "linearizable", "majority", readMean)},
		{Text: "§5.1 baseline concurrency: rc majority has more stale reads than linearizable", PaperText: "1.67 points",
			Source: Source{483, "The average difference in the amount of stale reads is 1.67%"}, Kind: Approx, Paper: 1.67, Factor: 2, Unit: "pp",
			Measure: rcDiff(baseline, "majority", "linearizable", stalePct)},
		{Text: "§5.1 write latency grows with the document size (smallest to largest size here)", PaperText: "+135.89 %",
			Source: Source{487, "the average increase in write latency being 135.89%"}, Kind: Approx, Paper: 135.89, Factor: 2, Unit: "%",
			Measure: sizeDiff(writeMean)},
		{Text: "§5.1 the document size has no significant effect on read latency (smallest to largest size here)", PaperText: "not significant (+2.98 %)",
			Source: Source{487, "the document size does not have a significant impact on read latency"}, Kind: Similar, Ref: 0, Tol: 10, Abs: true, Unit: "%",
			Measure: sizeDiff(readMean)},
		{Text: "§5.1 2 writers + 10 readers: rc linearizable instead of majority raises write latency", PaperText: "+11 ms",
			Source: Source{488, "11 ms average increase in the write latency"}, Kind: Approx, Paper: 11, Factor: 2, Unit: "ms",
			Measure: rcDiff([]string{"multi"}, "linearizable", "majority", writeMean)},
		{Text: "§5.1 2 writers + 10 readers: rc linearizable instead of majority raises read latency", PaperText: "+51.92 ms",
			Source: Source{488, "51.92 ms average increase in the read latency"}, Kind: Approx, Paper: 51.92, Factor: 2, Unit: "ms",
			Measure: rcDiff([]string{"multi"}, "linearizable", "majority", readMean)},
		{Text: "§5.1 2 writers + 10 readers: rc majority has more stale reads than linearizable", PaperText: "2.73 points",
			Source: Source{489, "The difference in the amount of stale reads is 2.73%"}, Kind: Approx, Paper: 2.73, Factor: 2, Unit: "pp",
			Measure: rcDiff([]string{"multi"}, "majority", "linearizable", stalePct)},
		{Text: "§4.3.2 w majority writes are slower than w 1 (\"local\" in the thesis)", PaperText: "higher",
			Source: Source{380, "write latency tend to increase as the consistency level becomes stronger"}, Kind: Above, Ref: 0, Unit: "ms",
			Measure: pairOf(w, func(k cellKey) cellKey { k.w = "1"; return k }, writeMean)},
		{Text: "§4.3.2 w majority with rc linearizable leaves almost no stale reads (worst cell)", PaperText: "almost no stale reads",
			Source: Source{389, "there are almost no stale reads for any document size"}, Kind: AtMost, Paper: 0.5, Unit: "%",
			Measure: worst(func(c results.MatrixCell) bool { return w(c) && c.RC == "linearizable" }, stalePct)},
		{Text: "§4.3.2 w 1 with rc majority: more stale reads with larger documents (smallest to largest size here)", PaperText: "more",
			Source: Source{400, "stale reads increase significantly with the increase in document size"}, Kind: Above, Ref: 0, Unit: "pp",
			Measure: sizeStaleDiff("1", "majority")},
		{Text: "§4.3.2 w majority with rc local: more stale reads with larger documents (smallest to largest size here)", PaperText: "more",
			Source: Source{400, "stale reads increase significantly with the increase in document size"}, Kind: Above, Ref: 0, Unit: "pp",
			Measure: sizeStaleDiff("majority", "local")},
		{Text: "§4.3.2 stricter concerns, fewer stale reads: w 1 rc local against w majority rc linearizable", PaperText: "more stale",
			Source: Source{389, "the stale reads decreases as the writeConcern and readConcern values become more strict"}, Kind: Above, Ref: 0, Unit: "pp",
			Measure: pairOf(func(c results.MatrixCell) bool { return c.W == "1" && c.RC == "local" },
				func(k cellKey) cellKey { k.w, k.rc = "majority", "linearizable"; return k }, stalePct)},
		{Text: "§4.3.3 concerns in the connection string instead of per operation: write latency unchanged", PaperText: "no significant difference",
			Source: Source{414, "There is no significant difference in the write latency and read latency"}, Kind: Similar, Ref: 0, Tol: 10, Abs: true, Unit: "%",
			Measure: setupDiff("session", "operation", writeMean, true)},
		{Text: "§4.3.3 concerns in the connection string instead of per operation: read latency unchanged", PaperText: "no significant difference",
			Source: Source{414, "There is no significant difference in the write latency and read latency"}, Kind: Similar, Ref: 0, Tol: 10, Abs: true, Unit: "%",
			Measure: setupDiff("session", "operation", readMean, true)},
		{Text: "§4.3.4 2 writers + 10 readers instead of 1 + 1: write latency rises", PaperText: "higher",
			Source: Source{447, "the write latency has increased for every document size"}, Kind: Above, Ref: 0, Unit: "ms",
			Measure: setupDiff("multi", "operation", writeMean, false)},
		{Text: "§4.3.4 2 writers + 10 readers instead of 1 + 1: more stale reads", PaperText: "more",
			Source: Source{468, "they are increasing as compared to operation-level consistency"}, Kind: Above, Ref: 0, Unit: "pp",
			Measure: setupDiff("multi", "operation", stalePct, false)},
	}
}

// matrixOnly serves one consistency matrix as an experiment's outputs.
type matrixOnly struct{ m *results.Matrix }

func (o matrixOnly) Results(name string) (*results.Results, error) {
	return nil, &ErrUnknown{"no results " + name + " beside a consistency matrix"}
}
func (o matrixOnly) Matrix(string) (*results.Matrix, error) { return o.m, nil }
func (o matrixOnly) JSON(name string, _ any) error {
	return &ErrUnknown{"no output " + name + " beside a consistency matrix"}
}

// ThesisFindings judges the thesis' findings on one consistency matrix,
// for its page (`consistency matrix` and `report` draw it).
func ThesisFindings(m *results.Matrix) []report.ThesisFinding {
	f, _ := Find("consistency", "matrix")
	var out []report.ThesisFinding
	for _, r := range Evaluate(f, matrixOnly{m}) {
		ours := r.Ours
		if r.Unit != "" && ours != "-" {
			ours += " " + r.Unit
		}
		var note string
		if r.Estimate != nil {
			note = r.Estimate.Note
		}
		out = append(out, report.ThesisFinding{Text: r.Claim, Thesis: r.Paper, Ours: ours, Verdict: r.Verdict,
			Rule: r.Rule, Note: note, Class: verdictClass(r.Verdict)})
	}
	return out
}

func thesisFigures() []*Figure {
	p := Papers[3]
	return append([]*Figure{
		{Paper: p, ID: "fig2.1", Caption: "linearizability in a 3-node replica set", Source: Source{181, "Figure 2.1: Linearizability for 3-node Replica Set"}, Status: Diagram},
		{Paper: p, ID: "fig2.2", Caption: "the options of writeConcern", Source: Source{204, "Figure 2.2: Parameter Options for writeConcern"}, Status: Diagram},
		{Paper: p, ID: "fig2.3", Caption: "the options of readConcern", Source: Source{220, "Figure 2.3: Parameter Options for readConcern"}, Status: Diagram},
		{Paper: p, ID: "fig4.1", Caption: "architecture of the setups", Source: Source{323, "Figure 4.1: Architecture Diagram of Setup"}, Status: Diagram},
		{Paper: p, ID: "matrix", Caption: "the summary's numbers (§5.1) and trends across figures 4.2-4.23: write and read latency and stale reads by setup, concern and document size", Source: Source{368, "Figure 4.2: Write Latency with different writeConcern and readConcern settings"},
			Status: Scaled, Note: "three members on one machine instead of three on a network; the thesis' 100 writes 1 s apart with reads 1 ms apart, 3 iterations instead of 10, reads on the primary (about 6 hours; `reproduce --resume` continues a stopped run); quick: 1K and 1M documents, one iteration of 10 writes 20 ms apart, reads on the primary and the secondaries",
			Experiment: thesisMatrix, Claims: thesisClaims()},
	}, thesisResultFigures(p)...)
}
