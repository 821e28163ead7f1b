package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// writeMembersText writes the per-member tables of one input (one client
// count of a sweep): per run that records its members, a row per member
// over the periods after warm-up. Nothing for inputs written before
// per-member routing.
func writeMembersText(w io.Writer, x Input) error {
	runs := memberRuns(x)
	if len(runs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	writeWrapped(w, oneLine("Per-member routing: "+x.Name+" (periods after warm-up; latencies: means of the "+
		"per-period values over the periods the member served reads in; server = wire P50 - min RTT)"), "  ")
	for _, mr := range runs {
		fmt.Fprintf(w, "%s: %d periods after warm-up\n", oneLine(mr.name), mr.measured)
		if err := writeMemberRowsText(w, mr); err != nil {
			return err
		}
	}
	return nil
}

// writeMemberRowsText writes one run's table, then a line per member with
// a note (a note column would end most lines in blanks or break the
// alignment).
func writeMemberRowsText(w io.Writer, mr memberRun) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  member")
	cols := mr.columns()
	for _, c := range cols {
		fmt.Fprint(tw, "\t", c.header)
	}
	fmt.Fprintln(tw)
	for _, r := range mr.rows {
		fmt.Fprint(tw, "  ", oneLine(r.key))
		for _, c := range cols {
			fmt.Fprint(tw, "\t", oneLine(c.get(r)))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range mr.rows {
		if n := idleNote(r); n != "" {
			writeWrapped(w, oneLine("  "+r.key+": "+n), "    ")
		}
	}
	return nil
}
