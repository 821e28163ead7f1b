package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// runRow is one row of a table after the runs (reconfigurations, the
// benchmark process): the run's policy (its colour), its name (the policy,
// with the repetition when the policy has several) and what the columns
// read.
type runRow[T any] struct {
	policy string
	name   string
	v      T
}

// runColumn is a column of such a table.
type runColumn[T any] struct {
	header string
	left   bool
	get    func(T) string
}

// runName names a run in such a table.
func runName(policy string, repetition int, several bool) string {
	if several {
		return fmt.Sprintf("%s, repetition %d", policy, repetition)
	}
	return policy
}

// writeRunTableHTML writes the table with class class; cell turns a
// column's escaped text into the cell's HTML (nil: as it is).
func writeRunTableHTML[T any](b *strings.Builder, class string, cols []runColumn[T], rows []runRow[T], pal palette, cell func(string) string) {
	b.WriteString(`<div class="scroll"><table class="` + class + `">` + "\n<thead><tr><th class=\"l\">run</th>")
	for _, c := range cols {
		fmt.Fprintf(b, "<th%s>%s</th>", leftClass(c.left), esc(c.header))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range rows {
		fmt.Fprintf(b, `<tr><td class="l"><span class="sw" style="background:%s"></span>%s</td>`, esc(pal.color(row.policy)), esc(row.name))
		for _, c := range cols {
			cls := ` class="n"`
			if c.left {
				cls = leftClass(true)
			}
			v := esc(c.get(row.v))
			if cell != nil {
				v = cell(v)
			}
			fmt.Fprintf(b, "<td%s>%s</td>", cls, v)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
}

// writeRunTableText writes the table under title.
func writeRunTableText[T any](w io.Writer, title string, cols []runColumn[T], rows []runRow[T]) error {
	fmt.Fprintln(w)
	writeWrapped(w, oneLine(title), "  ")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  run")
	for _, c := range cols {
		fmt.Fprint(tw, "\t", c.header)
	}
	fmt.Fprintln(tw)
	for _, row := range rows {
		fmt.Fprint(tw, "  ", oneLine(row.name))
		for _, c := range cols {
			fmt.Fprint(tw, "\t", oneLine(c.get(row.v)))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
