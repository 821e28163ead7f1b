package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// rangeText formats the spread's min-max: "5170–5180".
func (s spread) rangeText() string {
	return fmtNum(s.lo) + "–" + fmtNum(s.hi)
}

// varies reports whether the values differ (a range worth showing).
func (s spread) varies() bool { return s.n > 1 && s.hi > s.lo }

// text formats the spread for a text cell: the mean, and "(min–max)" when
// the values differ.
func (s spread) text() string {
	if s.varies() {
		return fmtNum(s.mean) + " (" + s.rangeText() + ")"
	}
	return fmtNum(s.mean)
}

// writeSweepText writes the sweep's table: one row per policy and client
// count, each metric's mean over the repetitions with (min–max).
func writeSweepText(w io.Writer, sw *sweep) error {
	fmt.Fprintf(w, "\nClient-count sweep (the Decongestant paper, figs 5-7): %s; mean (min–max) over repetitions\n", oneLine(sw.x.Name))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "policy\tclients\truns")
	for _, m := range sweepMetrics {
		fmt.Fprint(tw, "\t", m.header)
	}
	fmt.Fprintln(tw)
	for _, pt := range sw.points {
		fmt.Fprintf(tw, "%s\t%d\t%d", oneLine(pt.policy), pt.clients, pt.runs)
		for i, v := range pt.values {
			if i == swStale && !sw.sprobe {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprint(tw, "\t", v.text())
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !sw.sprobe {
		fmt.Fprintln(w, "stale P80: the runs had no S probe (bench --sprobe).")
	}
	return nil
}
