package report

import (
	"html/template"
	"slices"

	"github.com/decongestant/decongestant/report/chart"
)

// membersView is the per-member section of input Index (one client count
// of a sweep), template "members": per run that records its members, the
// share of reads each member served, the weights the policy gave them when
// it routes per member, with member stats the members' cache misses and
// CPU, and a table of the periods after warm-up.
type membersView struct {
	Index   int
	Several bool // several inputs: the heading names this one
	Name    string
	Server  bool // some run has member stats: their note
	Runs    []memberRunView
}

// memberRunView is one run's plots and table.
type memberRunView struct {
	Color, Name string
	Plots       []template.HTML
	NoPeriods   bool // none after the warm-up
	Table       table
}

// newMembersView is the section of input x, nil for inputs written before
// per-member routing.
func newMembersView(i int, x Input, pal, mpal palette, several bool) *membersView {
	runs := memberRuns(x)
	if len(runs) == 0 {
		return nil
	}
	v := &membersView{Index: i, Several: several, Name: x.Name,
		Server: slices.ContainsFunc(runs, func(mr memberRun) bool { return mr.server })}
	for _, mr := range runs {
		rv := memberRunView{Color: pal.color(mr.run.Policy), Name: mr.name, NoPeriods: mr.measured == 0,
			Table: memberTable(mr, mpal)}
		for _, p := range memberPlots {
			if p.drawn(mr) {
				rv.Plots = append(rv.Plots, chart.HTML(buildMemberChart(p, x, mr, mpal, several)))
			}
		}
		for _, p := range serverPlots {
			if p.drawn(mr) {
				rv.Plots = append(rv.Plots, chart.HTML(buildServerChart(p, x, mr, mpal, several)))
			}
		}
		v.Runs = append(v.Runs, rv)
	}
	return v
}

// memberTable is one run's table: a row per member, its name with its host
// below, the columns, and when some member has one the note (a warning when
// the member was dropped).
func memberTable(mr memberRun, mpal palette) table {
	notes := mr.hasNotes()
	cols := mr.columns()
	t := table{Class: "members", Head: []th{{Text: "member", Left: true}}}
	for _, c := range cols {
		t.Head = append(t.Head, th{Text: c.header, Left: c.left})
	}
	if notes {
		t.Head = append(t.Head, th{Text: "note", Left: true})
	}
	for _, r := range mr.rows {
		name := swatchCell(mpal.color(r.key), r.key)
		if r.host != "" && r.host != r.key {
			name.Sub = r.host
		}
		row := tr{Cells: []td{name}}
		for _, c := range cols {
			cell := numCell(c.get(r), "")
			if c.left {
				cell.Class = "l"
			}
			row.Cells = append(row.Cells, cell)
		}
		if notes {
			row.Cells = append(row.Cells, td{Class: "l", Text: idleNote(r), Warn: r.dropped()})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
