package report

import (
	"fmt"
	"strconv"

	"github.com/decongestant/decongestant/results"
)

// ThesisFinding is one of the consistency thesis' published findings
// beside this machine's counterpart, as the matrix page shows it. The
// findings are measured and judged where every paper's claims are
// (reproduce.ThesisFindings), so the page and `reproduce` give the same
// verdicts; this package only draws them.
type ThesisFinding struct {
	Text    string // the finding, with the thesis' section
	Thesis  string // as published
	Ours    string // our measure with its interval, n and unit
	Verdict string // agrees, same direction, disagrees, inconclusive, not exercised, not measured
	Rule    string // how the verdict follows from ours
	Note    string // beside ours, never judged: the same measure read as the thesis does, where its definition differs
	Class   string // the verdict's colour: agree, partial, disagree, open or none
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
	out = append(out, "A read here is stale when it returned a version older than the last one acknowledged before it was "+
		"sent, which on the primary only rc majority after a w 1 write can do. The thesis counts a read that is \"not the "+
		"latest version\" and finds stale reads under rc local and with w majority, which this definition cannot; a count "+
		"of every version but the last acknowledged one (stale plus unacknowledged reads) finds them, and each stale-read "+
		"finding notes that count beside ours.")
	return out
}

// The metrics drawn.
func writeMean(s results.MatrixSummary) results.Spread { return s.WriteMean }
func readMean(s results.MatrixSummary) results.Spread  { return s.ReadMean }
func stalePct(s results.MatrixSummary) results.Spread  { return s.StalePct }
