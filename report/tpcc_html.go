package report

import (
	"fmt"
	"html/template"
	"sort"
	"strconv"

	"github.com/decongestant/decongestant/report/chart"
)

// tpccView is the TPC-C section of input Index (template "tpcc"): the
// per-minute plots, a table with one row per run, the settings when the runs
// share them, and the details of each run.
type tpccView struct {
	Index    int
	Several  bool // several inputs: the heading names this one
	Name     string
	Plots    []template.HTML
	NoRuns   bool
	Runs     table
	Settings []item // shared by every run; nil when they differ
	Details  []tpccRunView
}

// tpccRunView is the details of one run: its report's problems and facts,
// its settings when the runs' differ, the latency by transaction type and
// the consistency checks, with a table of those that did not pass.
type tpccRunView struct {
	Color, Policy string
	Repetition    int
	NoReport      bool
	Err           string
	Facts         string
	Settings      []item
	Latency       *table // nil: no per-type results
	Checks        string
	Failed        *table // nil: every check passed
}

func newTPCCView(i int, x Input, pal palette, several bool) *tpccView {
	v := &tpccView{Index: i, Several: several, Name: x.Name}
	for _, p := range tpccPlots {
		v.Plots = append(v.Plots, chart.HTML(buildTPCCChart(p, x, pal, several)))
	}
	runs := tpccRuns(x.Results)
	if len(runs) == 0 {
		v.NoRuns = true
		return v
	}
	v.Runs = tpccRunTable(runs, pal)
	settings, common := commonSettings(runs)
	if common && len(settings) > 0 {
		v.Settings = settingItems(settings)
	}
	for _, t := range runs {
		v.Details = append(v.Details, newTPCCRunView(t, pal, !common))
	}
	return v
}

// tpccRunTable has a row per run: the summary numbers and the checks.
func tpccRunTable(runs []tpccRun, pal palette) table {
	t := table{Head: []th{{Text: "policy", Left: true}, {Text: "repetition"}}}
	for _, c := range tpccRunColumns {
		t.Head = append(t.Head, th{Text: c.header})
	}
	t.Head = append(t.Head, th{Text: "checks", Left: true})
	for _, run := range runs {
		r := tr{Cells: []td{swatchCell(pal.color(run.run.Policy), run.run.Policy), numCell(strconv.Itoa(run.run.Repetition), "")}}
		for _, c := range tpccRunColumns {
			r.Cells = append(r.Cells, numCell(c.get(run), ""))
		}
		r.Cells = append(r.Cells, textCell(run.checksShort()))
		t.Rows = append(t.Rows, r)
	}
	return t
}

// settingItems lists the workload settings by name.
func settingItems(settings map[string]any) []item {
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	items := make([]item, len(keys))
	for i, k := range keys {
		items[i] = item{k, fmt.Sprint(settings[k])}
	}
	return items
}

// newTPCCRunView is the details of run t, with its own settings when
// settings is true.
func newTPCCRunView(t tpccRun, pal palette, settings bool) tpccRunView {
	v := tpccRunView{Color: pal.color(t.run.Policy), Policy: t.run.Policy, Repetition: t.run.Repetition}
	if t.res == nil {
		v.NoReport = true
		return v
	}
	if t.err != nil {
		v.Err = t.err.Error()
	}
	v.Facts = t.facts()
	if settings && len(t.res.Settings) > 0 {
		v.Settings = settingItems(t.res.Settings)
	}
	if types := t.res.txnTypes(); len(types) > 0 {
		lat := table{Class: "latency", Head: []th{{Text: "type", Left: true}}}
		for _, c := range tpccLatencyColumns {
			h := c.header
			if c.latency {
				h += " ms"
			}
			lat.Head = append(lat.Head, th{Text: h})
		}
		for _, name := range types {
			r := tr{Cells: []td{textCell(name)}}
			for _, c := range tpccLatencyColumns {
				r.Cells = append(r.Cells, numCell(c.get(t.res.Txns[name]), ""))
			}
			lat.Rows = append(lat.Rows, r)
		}
		v.Latency = &lat
	}
	sum, failed := t.checks()
	v.Checks = sum
	if len(failed) > 0 {
		f := table{Class: "checks", Head: []th{{"clause", true}, {"check", true}, {"status", true}, {"detail", true}}}
		for _, c := range failed {
			f.Rows = append(f.Rows, tr{Cells: []td{textCell(orDash(c.Clause)), textCell(c.Name), textCell(c.status()), textCell(c.Detail)}})
		}
		v.Failed = &f
	}
	return v
}
