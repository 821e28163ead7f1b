package reproduce

import (
	"time"

	"github.com/decongestant/decongestant/report"
)

// The consistency thesis' experiment is the consistency matrix, which
// starts its own local set; its findings and their verdicts are the matrix
// page's (report.MatrixFindings).

var thesisMatrix = &Experiment{Name: "consistency-matrix", Quick: 2 * time.Minute, Full: 12 * time.Minute,
	Steps: func(q bool) []Step {
		args := join([]string{"consistency", "matrix"}, flags("out", PhOut+"/matrix"))
		if q {
			args = append(args, flags("sizes", "1K,1M", "iterations", "1", "writes", "10",
				"reads", "primary,secondary")...)
		}
		return []Step{{Args: args, Output: "matrix/matrix"}}
	}}

// matrixFindings are the thesis' findings with the matrix's verdicts.
func matrixFindings(o Outputs) ([]Row, error) {
	m, err := o.Matrix("matrix/matrix")
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, f := range report.MatrixFindings(m) {
		v := f.Verdict
		switch f.Class {
		case "agree":
			v = Agrees
		case "partial":
			v = SameDirection
		case "disagree":
			v = Disagrees
		case "none":
			v = NotMeasured
		}
		rows = append(rows, Row{Claim: f.Text + " (" + f.Where + ")", Paper: f.Thesis, Ours: f.Ours, Verdict: v, Detail: f.Verdict})
	}
	return rows, nil
}

func thesisFigures() []*Figure {
	p := Papers[3]
	return []*Figure{
		{Paper: p, ID: "fig2.1", Caption: "linearizability in a 3-node replica set", Source: Source{181, "Figure 2.1: Linearizability for 3-node Replica Set"}, Status: Diagram},
		{Paper: p, ID: "fig4.1", Caption: "architecture of the setups", Source: Source{323, "Figure 4.1: Architecture Diagram of Setup"}, Status: Diagram},
		{Paper: p, ID: "matrix", Caption: "figures 4.2-4.23: write and read latency and stale reads by setup, concern and document size", Source: Source{368, "Figure 4.2: Write Latency with different writeConcern and readConcern settings"},
			Status: Scaled, Note: "three members on one machine instead of three on a network; 3 iterations of 20 writes 20 ms apart (the thesis: 10 of 100, 1 s apart; --full in `consistency matrix`); quick: 1K and 1M documents, one iteration of 10 writes, reads on the primary and the secondaries",
			Experiment: thesisMatrix, Findings: matrixFindings},
	}
}
