package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/decongestant/decongestant/results"
)

// WriteMatrixText writes a consistency matrix's summary for a terminal:
// the consistency thesis' findings beside this machine's (judged by the
// caller, as for WriteMatrixHTML), then the share of stale reads and the read latency per
// read target and (w, rc) pair.
func WriteMatrixText(w io.Writer, m *results.Matrix, findings []ThesisFinding) error {
	if m == nil || len(m.Config.Setups) == 0 {
		return errors.New("report: a matrix without setups")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "The consistency thesis beside this machine (reads on the primary; ± the 95 %% interval over iterations)\n")
	fmt.Fprintf(tw, "finding\tpublished\tthis machine\tverdict\n")
	for _, f := range findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Text, f.Thesis, f.Ours, f.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range thesisCaveats(m) {
		fmt.Fprintf(w, "note: %s\n", c)
	}
	pairs := matrixPairs(m.Config)
	for _, mm := range []matrixMetric{matrixMetrics[2], matrixMetrics[1]} {
		fmt.Fprintf(w, "\n%s by read target (mean over setups and sizes)\n", mm.yTitle)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := []string{"read"}
		for _, p := range pairs {
			head = append(head, "w:"+p[0]+" rc:"+p[1])
		}
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for _, read := range m.Config.Reads {
			row := []string{read}
			for _, p := range pairs {
				v, n, skipped := meanOver(m, p[0], p[1], read, mm.of)
				switch {
				case n > 0:
					row = append(row, fmtNum(v))
				case skipped:
					row = append(row, "n/a")
				default:
					row = append(row, "-")
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
