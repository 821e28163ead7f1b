package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// textWidthLimit is the width the TPC-C text section keeps to.
const textWidthLimit = 100

// wrapText breaks s into lines of at most width runes at spaces, keeping its
// leading spaces; lines after the first start with indent. A word longer than
// a line stays whole.
func wrapText(s string, width int, indent string) []string {
	var lines []string
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = lead + w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = indent + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func writeWrapped(w io.Writer, s, indent string) {
	for _, l := range wrapText(s, textWidthLimit, indent) {
		fmt.Fprintln(w, l)
	}
}

// writeTPCCText writes the TPC-C section of one input: a table with one row
// per run, then per run the server counters, the latency by transaction type
// and the consistency checks.
func writeTPCCText(w io.Writer, x Input) error {
	runs := tpccRuns(x.Results)
	fmt.Fprintf(w, "\nTPC-C: %s\n", oneLine(x.Name))
	if len(runs) == 0 {
		fmt.Fprintln(w, "(no runs)")
		return nil
	}
	settings, common := commonSettings(runs)
	if common && len(settings) > 0 {
		writeWrapped(w, oneLine("settings: "+fmtMap(settings)), "  ")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "policy\trep")
	for _, c := range tpccRunColumns {
		if !c.wide {
			fmt.Fprint(tw, "\t", c.header)
		}
	}
	fmt.Fprintln(tw, "\tchecks")
	for _, t := range runs {
		fmt.Fprintf(tw, "%s\t%d", oneLine(t.run.Policy), t.run.Repetition)
		for _, c := range tpccRunColumns {
			if !c.wide {
				fmt.Fprint(tw, "\t", c.get(t))
			}
		}
		fmt.Fprintf(tw, "\t%s\n", oneLine(t.checksShort()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range runs {
		if err := writeTPCCRunText(w, t, !common); err != nil {
			return err
		}
	}
	return nil
}

// writeTPCCRunText writes the details of one run.
func writeTPCCRunText(w io.Writer, t tpccRun, settings bool) error {
	head := fmt.Sprintf("%s, repetition %d", t.run.Policy, t.run.Repetition)
	fmt.Fprintln(w)
	if t.res == nil {
		fmt.Fprintln(w, oneLine(head+": no TPC-C report"))
		return nil
	}
	if f := t.facts(); f != "" {
		head += ": " + f
	}
	writeWrapped(w, oneLine(head), "  ")
	if t.err != nil {
		writeWrapped(w, oneLine("  warning: "+t.err.Error()), "    ")
	}
	if settings && len(t.res.Settings) > 0 {
		writeWrapped(w, oneLine("  settings: "+fmtMap(t.res.Settings)), "    ")
	}
	if types := t.res.txnTypes(); len(types) == 0 {
		fmt.Fprintln(w, "  (no per-type results)")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "  latency ms")
		for _, c := range tpccLatencyColumns {
			if !c.wide {
				fmt.Fprint(tw, "\t", c.header)
			}
		}
		fmt.Fprintln(tw)
		for _, name := range types {
			fmt.Fprint(tw, "  ", oneLine(name))
			for _, c := range tpccLatencyColumns {
				if !c.wide {
					fmt.Fprint(tw, "\t", c.get(t.res.Txns[name]))
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	sum, failed := t.checks()
	if len(failed) > 0 {
		sum += "; not passed:"
	}
	fmt.Fprintln(w, "  checks: "+sum)
	for _, c := range failed {
		line := c.status() + " " + orDash(c.Clause)
		if c.Name != "" {
			line += " " + c.Name
		}
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		writeWrapped(w, oneLine("    "+line), "      ")
	}
	return nil
}
