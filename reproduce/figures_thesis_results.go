package reproduce

import (
	"fmt"

	"github.com/decongestant/decongestant/results"
)

// The consistency thesis' result figures, 4.2-4.23: one entry each, judged
// on the consistency matrix's run (the same experiment as "matrix", whose
// claims are the summary's numbers, §5.1). Each figure's claims are the
// trends §4.3 reads off it, in the figure's scope: its setup (§4.3.2
// operation, §4.3.3 session, §4.3.4 multi) and its write or read concern.
// A trend is a difference whose whole interval is on the thesis' side of
// 0; "minor" or "not much affected" is within ±10 %; the document-size
// effects compare the largest size with the smallest of the run.

// Partners of a cell: the same cell with another w, rc or setup.
func toW(w string) func(cellKey) cellKey   { return func(k cellKey) cellKey { k.w = w; return k } }
func toRC(rc string) func(cellKey) cellKey { return func(k cellKey) cellKey { k.rc = rc; return k } }
func toSetup(s string) func(cellKey) cellKey {
	return func(k cellKey) cellKey { k.setup = s; return k }
}

// higher is a claim that a difference is above 0.
func higher(text string, src Source, unit string, m func(Outputs) (Estimate, error)) Claim {
	return Claim{Text: text, PaperText: "higher", Source: src, Kind: Above, Ref: 0, Unit: unit, Measure: m}
}

// withCause is c with the cause of its disagreement.
func withCause(c Claim, cause string) Claim { c.Cause = cause; return c }

// minorSize is a claim that the document size barely changes read latency.
func minorSize(scope string, sel func(results.MatrixCell) bool, src Source) Claim {
	return Claim{Text: scope + ": read latency barely changes with the document size (smallest to largest here)",
		PaperText: "minor", Source: src, Kind: Similar, Ref: 0, Tol: 10, Abs: true, Unit: "%",
		Measure: sizeEffect(sel, readMean, true), Cause: sizeReadCause}
}

func thesisResultFigures(p *Paper) []*Figure {
	op, sess, multi := []string{"operation"}, []string{"session"}, []string{"multi"}
	var (
		wStronger  = Source{372, "the Write Latency increases as we use stronger writeConcern values"}
		linWrites  = Source{374, `for readConcern: "linearizable" is higher than its other two configurations`}
		opSizeW    = Source{380, "the write latency increases as the document size increases"}
		opStronger = Source{380, "write latency tend to increase as the consistency level becomes stronger"}
		opSizeR    = Source{389, "The document size has a minor impact on the read latency"}
		opRCR      = Source{389, "read latency increases as the consistency level increases"}
		opNoStale  = Source{389, "there are almost no stale reads for any document size"}
		opSizeS    = Source{400, "stale reads increase significantly with the increase in document size"}
		sSizeW     = Source{416, "the increase in document size leads to an increase in write latency"}
		sStrongerW = Source{416, "the write latency increases as we use stricter writeConcern values"}
		sSizeR     = Source{424, "the read latency is not much affected by the increase in document size"}
		sRCR       = Source{424, "there is an increase in read latency as we use stricter readConcern values"}
		sLocal     = Source{435, `There is a slight increase in the percentage stale reads for writeconcern: "local" and readConcern: "local"`}
		sLeast     = Source{435, `we get the least amount of stale reads for writeConcern: "majority" and readConcern: "linearizable"`}
		sSizeS     = Source{435, `for (writeConcern: "majority", readConcern: "local") and (writeConcern: "local", readConcern: "local")`}
		mSizeW     = Source{447, "the write latency increases as the document size increases"}
		mMoreW     = Source{447, "The write latency observed in each case is more then when we were using single writer"}
		mSizeR     = Source{455, "there is a minor increase in read latency while increasing the document size"}
		mLinR      = Source{457, `there is an increase in read latency when compared to operation-level consistency and session-level consistency but only for readConcern: "linearizable"`}
		mHugeR     = Source{457, "there is huge increase in read latency when we use linearizable readConcern"}
		mMoreS     = Source{468, "they are increasing as compared to operation-level consistency"}
		mSizeS     = Source{468, "the percentage of stale reads were increasing with document size for the pairs"}
		mLinS      = Source{468, `some linear increase in stale reads with increasing document size is observed for writeConcern: "local" and readConcern: "linearizable"`}
	)
	sizeW := func(scope string, setups []string, w string, src Source) Claim {
		return higher(fmt.Sprintf("%s, w %s: write latency grows with the document size (smallest to largest here)", scope, w), src, "%",
			sizeEffect(cells(setups, w, ""), writeMean, true))
	}
	majorityW := func(scope string, setups []string, src Source) Claim {
		return higher(scope+": w majority writes are slower than w 1", src, "ms", pairOf(cells(setups, "majority", ""), toW("1"), writeMean))
	}
	stricterRC := func(scope string, setups []string, rc, than string, src Source) Claim {
		c := higher(fmt.Sprintf("%s: rc %s reads are slower than rc %s", scope, rc, than), src, "ms", pairOf(cells(setups, "", rc), toRC(than), readMean))
		if rc == "majority" {
			c.Cause = majorityReadCause
		}
		return c
	}
	sizeS := func(scope string, setups []string, w, rc string, src Source) Claim {
		c := higher(fmt.Sprintf("%s, w %s rc %s: more stale reads with larger documents (smallest to largest here)", scope, w, rc), src, "pp",
			sizeEffect(cells(setups, w, rc), stalePct, false))
		if w != "1" || rc != "majority" { // only w 1 rc majority can be stale on the primary
			c.Cause = staleDefinitionCause
		}
		return c
	}
	moreThanOp := func(scope string, w, rc string, mt metric, what, unit string, src Source) Claim {
		return higher(fmt.Sprintf("%s: %s than with 1 writer and 1 reader (operation)", scope, what), src, unit,
			pairOf(cells(multi, w, rc), toSetup("operation"), mt))
	}
	fig := func(id string, line int, quote, caption string, claims ...Claim) *Figure {
		return &Figure{Paper: p, ID: id, Caption: caption, Source: Source{line, quote}, Status: Scaled,
			Note: "judged on the consistency matrix's run (the figure shares its experiment with \"matrix\")", Experiment: thesisMatrix, Claims: claims}
	}
	return []*Figure{
		fig("fig4.2", 368, "Figure 4.2: Write Latency", "write latency by (w, rc)",
			higher("w majority writes are slower than w 1 (every setup)", wStronger, "ms", pairOf(cells(nil, "majority", ""), toW("1"), writeMean)),
			higher("writes beside rc linearizable reads are slower than beside rc majority (every setup)", linWrites, "ms", rcDiff([]string{"operation", "session", "multi"}, "linearizable", "majority", writeMean))),
		fig("fig4.3", 383, "Figure 4.3: Comparison of Avg. Write Latencies for writeConcern: local", "operation level, w 1: write latency by size",
			sizeW("operation level", op, "1", opSizeW)),
		fig("fig4.4", 380, "Fig.4.3 and Fig.4.4", "operation level, w majority: write latency by size",
			sizeW("operation level", op, "majority", opSizeW), majorityW("operation level", op, opStronger)),
		fig("fig4.5", 392, "Figure 4.5: Comparison of Avg. Read Latencies for readConcern: local", "operation level, rc local: read latency by size",
			minorSize("operation level, rc local", cells(op, "", "local"), opSizeR)),
		fig("fig4.6", 395, "Figure 4.6: Comparison of Avg. Read Latencies for readConcern: majority", "operation level, rc majority: read latency by size",
			minorSize("operation level, rc majority", cells(op, "", "majority"), opSizeR), stricterRC("operation level", op, "majority", "local", opRCR)),
		fig("fig4.7", 398, "Figure 4.7: Comparison of Avg. Read Latencies for readConcern: linearizable", "operation level, rc linearizable: read latency by size",
			minorSize("operation level, rc linearizable", cells(op, "", "linearizable"), opSizeR), stricterRC("operation level", op, "linearizable", "majority", opRCR)),
		fig("fig4.8", 407, "Figure 4.8: Comparison of Percentage Stale Reads for writeConcern: local", "operation level, w 1: stale reads by size",
			sizeS("operation level", op, "1", "majority", opSizeS)),
		fig("fig4.9", 410, "Figure 4.9: Comparison of Percentage Stale Reads for writeConcern: majority", "operation level, w majority: stale reads by size",
			sizeS("operation level", op, "majority", "local", opSizeS),
			Claim{Text: "operation level, w majority rc linearizable: almost no stale reads (worst size)", PaperText: "almost no stale reads",
				Source: opNoStale, Kind: AtMost, Paper: 0.5, Unit: "%", Measure: worst(cells(op, "majority", "linearizable"), stalePct)}),
		fig("fig4.10", 419, "Figure 4.10: Comparison of Avg. Write Latency for writeConcern: local", "session level, w 1: write latency by size",
			sizeW("session level", sess, "1", sSizeW)),
		fig("fig4.11", 422, "Figure 4.11: Comparison of Avg. Write Latency for writeConcern: majority", "session level, w majority: write latency by size",
			sizeW("session level", sess, "majority", sSizeW), majorityW("session level", sess, sStrongerW)),
		fig("fig4.12", 427, "Figure 4.12: Comparison of Avg. Read Latencies for readConcern: local", "session level, rc local: read latency by size",
			minorSize("session level, rc local", cells(sess, "", "local"), sSizeR)),
		fig("fig4.13", 430, "Figure 4.13: Comparison of Avg. Read Latencies for readConcern: majority", "session level, rc majority: read latency by size",
			minorSize("session level, rc majority", cells(sess, "", "majority"), sSizeR), stricterRC("session level", sess, "majority", "local", sRCR)),
		fig("fig4.14", 433, "Figure 4.14: Comparison of Avg. Read Latencies for readConcern: linearizable", "session level, rc linearizable: read latency by size",
			minorSize("session level, rc linearizable", cells(sess, "", "linearizable"), sSizeR), stricterRC("session level", sess, "linearizable", "majority", sRCR)),
		fig("fig4.15", 438, "Figure 4.15: Comparison of Percentage Stale Reads for writeConcern: local", "session level, w 1: stale reads by size",
			sizeS("session level", sess, "1", "local", sLocal)),
		fig("fig4.16", 441, "Figure 4.16: Comparison of Percentage Stale Reads for writeConcern: majority", "session level, w majority: stale reads by size",
			withCause(higher("session level, w majority: rc local reads are staler than rc linearizable", sLeast, "pp",
				pairOf(cells(sess, "majority", "local"), toRC("linearizable"), stalePct)), staleDefinitionCause),
			sizeS("session level", sess, "majority", "local", sSizeS)),
		fig("fig4.17", 450, "Figure 4.17: Comparison of Avg. Write Latency for writeConcern: local", "2 writers + 10 readers, w 1: write latency by size",
			sizeW("2 writers + 10 readers", multi, "1", mSizeW), moreThanOp("2 writers + 10 readers, w 1", "1", "", writeMean, "writes are slower", "ms", mMoreW)),
		fig("fig4.18", 453, "Figure 4.18: Comparison of Avg. Write Latency for writeConcern: majority", "2 writers + 10 readers, w majority: write latency by size",
			sizeW("2 writers + 10 readers", multi, "majority", mSizeW), moreThanOp("2 writers + 10 readers, w majority", "majority", "", writeMean, "writes are slower", "ms", mMoreW)),
		fig("fig4.19", 460, "Figure 4.19: Comparison of Avg. Read Latencies for readConcern: local", "2 writers + 10 readers, rc local: read latency by size",
			higher("2 writers + 10 readers, rc local: read latency grows a little with the document size (smallest to largest here)", mSizeR, "%", sizeEffect(cells(multi, "", "local"), readMean, true))),
		fig("fig4.20", 463, "Figure 4.20: Comparison of Avg. Read Latencies for readConcern: majority", "2 writers + 10 readers, rc majority: read latency by size",
			higher("2 writers + 10 readers, rc majority: read latency grows a little with the document size (smallest to largest here)", mSizeR, "%", sizeEffect(cells(multi, "", "majority"), readMean, true))),
		fig("fig4.21", 466, "Figure 4.21: Comparison of Avg. Read Latencies for readConcern: linearizable", "2 writers + 10 readers, rc linearizable: read latency by size",
			moreThanOp("2 writers + 10 readers, rc linearizable", "", "linearizable", readMean, "reads are slower", "ms", mLinR),
			stricterRC("2 writers + 10 readers", multi, "linearizable", "majority", mHugeR)),
		fig("fig4.22", 471, "Figure 4.22: Comparison of Percentage Stale Reads for writeConcern: local", "2 writers + 10 readers, w 1: stale reads by size",
			moreThanOp("2 writers + 10 readers, w 1", "1", "", stalePct, "more stale reads", "pp", mMoreS),
			sizeS("2 writers + 10 readers", multi, "1", "majority", mSizeS), sizeS("2 writers + 10 readers", multi, "1", "linearizable", mLinS)),
		fig("fig4.23", 474, "Figure 4.23: Comparison of Percentage Stale Reads for writeConcern: majority", "2 writers + 10 readers, w majority: stale reads by size",
			withCause(moreThanOp("2 writers + 10 readers, w majority", "majority", "", stalePct, "more stale reads", "pp", mMoreS), staleDefinitionCause),
			sizeS("2 writers + 10 readers", multi, "majority", "local", mSizeS)),
	}
}
