package report

import (
	"fmt"
	"html/template"
	"io"
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

// runsSection is a table after the runs in a page (template "runs"): its
// heading, plots, the note that defines its columns, and the table.
type runsSection struct {
	Heading string
	Plots   []template.HTML
	Note    string
	Table   table
}

// runTable is the table with class class; a cell whose text warn accepts is
// shown as a warning (warn nil: none is).
func runTable[T any](class string, cols []runColumn[T], rows []runRow[T], pal palette, warn func(string) bool) table {
	t := table{Class: class, Head: []th{{Text: "run", Left: true}}}
	for _, c := range cols {
		t.Head = append(t.Head, th{Text: c.header, Left: c.left})
	}
	for _, row := range rows {
		r := tr{Cells: []td{swatchCell(pal.color(row.policy), row.name)}}
		for _, c := range cols {
			cell := numCell(c.get(row.v), "")
			if c.left {
				cell.Class = "l"
			}
			cell.Warn = warn != nil && warn(cell.Text)
			r.Cells = append(r.Cells, cell)
		}
		t.Rows = append(t.Rows, r)
	}
	return t
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
