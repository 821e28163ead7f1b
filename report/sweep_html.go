package report

import (
	"html/template"
	"strconv"

	"github.com/decongestant/decongestant/report/chart"
)

// sweepView is the sweep section of input Index, template "sweep": the
// Decongestant paper's fig. 5 as three line charts against clients, figs.
// 6/7 as two scatter plots against staleness, and a table of the numbers
// drawn.
type sweepView struct {
	Index    int
	Several  bool // several inputs: the heading names this one
	Name     string
	Fig      string // the paper's figure the trade-off plots match
	Workload string
	Plots    []template.HTML
	Table    table
	NoProbe  bool // no staleness measured: the table says why
}

func newSweepView(i int, sw *sweep, pal palette, several bool) *sweepView {
	v := &sweepView{Index: i, Several: several, Name: sw.x.Name, Fig: sw.tradeoffFig(),
		Workload: orDash(workloadName(sw.x.Results)), Table: sweepTable(sw, pal), NoProbe: !sw.sprobe}
	for _, p := range sweepLinePlots {
		v.Plots = append(v.Plots, chart.HTML(buildSweepLine(p, sw, pal, several)))
	}
	for _, p := range sweepTradeoffPlots {
		v.Plots = append(v.Plots, chart.HTML(buildSweepTradeoff(p, sw, pal, several)))
	}
	return v
}

// sweepTable has one row per policy and client count: the mean of each
// metric with its min-max below when the repetitions differ.
func sweepTable(sw *sweep, pal palette) table {
	t := table{Class: "sweep", Head: []th{{Text: "policy", Left: true}, {Text: "clients"}, {Text: "runs"}}}
	for _, m := range sweepMetrics {
		t.Head = append(t.Head, th{Text: m.header})
	}
	for _, pt := range sw.points {
		r := tr{Cells: []td{swatchCell(pal.color(pt.policy), pt.policy),
			numCell(strconv.Itoa(pt.clients), ""), numCell(strconv.Itoa(pt.runs), "")}}
		for i, v := range pt.values {
			switch {
			case i == swStale && !sw.sprobe:
				r.Cells = append(r.Cells, numCell("-", ""))
			case v.varies():
				r.Cells = append(r.Cells, numCell(fmtNum(v.mean), v.rangeText()))
			default:
				r.Cells = append(r.Cells, numCell(fmtNum(v.mean), ""))
			}
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}
