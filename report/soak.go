package report

// The benchmark process itself (what long soak runs watch): its heap and
// goroutines over time, a line per run, and per run the soak verdict, the
// reads check and how punctually the policy decided
// (results.Summary.Soak, ReadsCheck, Decisions).

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// Series classes of the client plots; tests count them.
const (
	classHeapObjects = "s-heap-objects" // the heap's objects, dotted beside the live heap
)

// clientPlot is one plot of the benchmark process's own figures.
type clientPlot struct {
	id     string // file base name and data-plot attribute
	title  string
	yTitle string
	value  func(results.Period) float64
	// aux, when set, is drawn dotted for the main repetitions: the heap's
	// objects beside the live heap.
	aux func(results.Period) float64
}

// The client plots, in page order.
var (
	clientHeapPlot = clientPlot{id: "client_heap", title: "Benchmark process: heap (live solid, objects dotted)",
		yTitle: "heap (MiB)", value: func(p results.Period) float64 { return runtimeValue(p, p.HeapLiveMB) },
		aux: func(p results.Period) float64 { return runtimeValue(p, p.HeapMB) }}
	clientGoroutinesPlot = clientPlot{id: "client_goroutines", title: "Benchmark process: goroutines",
		yTitle: "goroutines", value: func(p results.Period) float64 { return runtimeValue(p, float64(p.Goroutines)) }}

	clientPlots = []clientPlot{clientHeapPlot, clientGoroutinesPlot}
)

// clientPlotFiles are the extra files WritePlots writes when runs record
// the process's figures.
var clientPlotFiles = []string{clientHeapPlot.id + ".svg", clientGoroutinesPlot.id + ".svg"}

// runtimeValue is v, or NaN (a gap) for a period without runtime figures.
func runtimeValue(p results.Period, v float64) float64 {
	if p.Goroutines <= 0 {
		return math.NaN()
	}
	return v
}

// hasRuntime reports whether run's periods carry the process's figures.
func hasRuntime(run *results.Run) bool {
	for _, p := range run.Periods {
		if p.Goroutines > 0 {
			return true
		}
	}
	return false
}

// soakRows are the runs of x with runtime figures or any of the summary's
// checks, ordered as the comparison; nil for results written before them.
func soakRows(x Input) []runRow[results.Summary] {
	var out []runRow[results.Summary]
	for _, g := range groupRuns(x.Results) {
		for _, run := range g.runs {
			s := run.Summary
			if !hasRuntime(run) && s.Soak == nil && s.ReadsCheck == nil && s.Decisions == nil {
				continue
			}
			out = append(out, runRow[results.Summary]{policy: run.Policy, name: runName(run.Policy, run.Repetition, len(g.runs) > 1), v: s})
		}
	}
	return out
}

var soakColumns = []runColumn[results.Summary]{
	{header: "periods", get: func(s results.Summary) string {
		if s.Soak == nil {
			return "-"
		}
		return strconv.Itoa(s.Soak.Periods)
	}},
	{header: "live heap MB", get: func(s results.Summary) string {
		if s.Soak == nil || s.Soak.HeapGrowthPct == nil {
			return "-"
		}
		return fmtNum(s.Soak.HeapQ2MB) + " → " + fmtNum(s.Soak.HeapQ4MB)
	}},
	{header: "own results MB", get: func(s results.Summary) string {
		if s.Soak == nil || s.Soak.HeapGrowthPct == nil || s.Soak.RecordsQ4MB == 0 {
			return "-"
		}
		return fmtNum(s.Soak.RecordsQ2MB) + " → " + fmtNum(s.Soak.RecordsQ4MB)
	}},
	{header: "heap growth %", get: func(s results.Summary) string {
		if s.Soak == nil {
			return "-"
		}
		return fmtOpt(s.Soak.HeapGrowthPct, "-")
	}},
	{header: "goroutines", get: func(s results.Summary) string {
		if s.Soak == nil || s.Soak.GoroutineGrowthPct == nil {
			return "-"
		}
		return fmtNum(s.Soak.GoroutinesQ2) + " → " + fmtNum(s.Soak.GoroutinesQ4)
	}},
	{header: "goroutine growth %", get: func(s results.Summary) string {
		if s.Soak == nil {
			return "-"
		}
		return fmtOpt(s.Soak.GoroutineGrowthPct, "-")
	}},
	{header: "flat", left: true, get: func(s results.Summary) string {
		if s.Soak == nil {
			return "-"
		}
		return fmtVerdict(s.Soak.Flat, "yes", "NO", "too short")
	}},
	{header: "reads routed", get: func(s results.Summary) string {
		if s.ReadsCheck == nil {
			return "-"
		}
		return strconv.FormatInt(s.ReadsCheck.Routed, 10)
	}},
	{header: "reads served", get: func(s results.Summary) string {
		if s.ReadsCheck == nil {
			return "-"
		}
		return strconv.FormatInt(s.ReadsCheck.Served, 10)
	}},
	{header: "reads match", left: true, get: func(s results.Summary) string {
		if s.ReadsCheck == nil {
			return "-"
		}
		v := fmtVerdict(s.ReadsCheck.Match, "yes", "NO", "not compared")
		if s.ReadsCheck.Note != "" {
			v += " (" + strings.TrimPrefix(s.ReadsCheck.Note, "not compared: ") + ")"
		}
		return v
	}},
	{header: "decision late max ms", get: func(s results.Summary) string {
		if s.Decisions == nil {
			return "-"
		}
		return fmtNum(s.Decisions.LateMaxMS)
	}},
	{header: "missed", get: func(s results.Summary) string {
		if s.Decisions == nil {
			return "-"
		}
		return strconv.FormatInt(s.Decisions.Missed, 10)
	}},
	{header: "on time %", get: func(s results.Summary) string {
		if s.Decisions == nil || s.Decisions.Count+s.Decisions.Missed == 0 {
			return "-"
		}
		return fmtNum(s.Decisions.OnTimePct)
	}},
}

// fmtVerdict formats a verdict that may be null.
func fmtVerdict(v *bool, yes, no, none string) string {
	switch {
	case v == nil:
		return none
	case *v:
		return yes
	}
	return no
}

// soakNote defines the columns.
var soakNote = fmt.Sprintf(`Over the periods after warm-up, in quarters: live heap and goroutines are the means of the second `+
	`quarter → the last, growth = (last − second) / second, the heap's less the run's own results held in memory `+
	`(its periods, events and probe figures, counted as their JSON size); flat = both under %g %% (too short: fewer than 4 periods or %g s measured). `+
	`Reads routed = the routed read calls the clients made, reads served = the read commands the router counted, `+
	`over the whole run: they must match, unless calls failed or were cut off, a read command failed (the driver `+
	`retries it) or multi-query units ran (not compared). Decisions (policies with a period, measured interval): `+
	`the longest time from a tick to its decision, the ticks with none, and the share decided within a tenth of `+
	`the period.`, results.SoakFlatPct, results.SoakMinMeasuredS)

// buildClientChart makes plot p for one input: a line per run in its
// policy's colour (other repetitions lighter), over the warm-up band and
// the phase switches; for the heap, the heap's objects dotted beside the
// main repetitions' live heap.
func buildClientChart(p clientPlot, x Input, pal palette, several bool) *chart.Line {
	c := &chart.Line{
		ID:       p.id,
		Title:    p.title,
		XTitle:   "time since start (s)",
		YTitle:   p.yTitle,
		XInclude: []float64{0},
		YInclude: []float64{0},
	}
	if several {
		c.Title += " — " + x.Name
	}
	c.Bands, c.VLines = runMarks(x.Results.Config, 1)
	for _, g := range groupRuns(x.Results) {
		color := pal.color(g.policy)
		drawn := false
		for k, run := range g.runs {
			if !hasRuntime(run) {
				continue
			}
			drawn = true
			s := repSeries(g.policy, run, color, k == 0)
			s.Points = periodSeries(run, p.value)
			c.Series = append(c.Series, s)
			if p.aux != nil && k == 0 {
				c.Series = append(c.Series, chart.Series{Class: classHeapObjects, Tip: s.Tip + ", heap objects",
					Color: color, Style: chart.Dotted, Width: 1.3, Opacity: 1, Points: periodSeries(run, p.aux)})
			}
		}
		if drawn {
			c.Legend = append(c.Legend, chart.LegendItem{Label: policyLabel(g), Color: color, Shape: chart.NoMarker})
		}
	}
	return c
}

// soakSection is the process's section of input x (one client count of a
// sweep): the plots and the table, with a NO verdict shown as a warning; nil
// for results written before they were recorded.
func soakSection(x Input, pal palette, several bool) *runsSection {
	rows := soakRows(x)
	if len(rows) == 0 {
		return nil
	}
	s := &runsSection{Heading: "Benchmark process: soak, reads check, decisions", Note: soakNote,
		Table: runTable("soak", soakColumns, rows, pal, func(v string) bool { return strings.HasPrefix(v, "NO") })}
	for _, p := range clientPlots {
		s.Plots = append(s.Plots, chart.HTML(buildClientChart(p, x, pal, several)))
	}
	return s
}

// writeSoakText writes the table of input x (one client count of a sweep);
// nothing for results written before it.
func writeSoakText(w io.Writer, x Input) error {
	rows := soakRows(x)
	if len(rows) == 0 {
		return nil
	}
	return writeRunTableText(w, "Benchmark process: "+x.Name+" ("+soakNote+")", soakColumns, rows)
}

// buildClientCharts makes the client plots by id, one panel per input (per
// client count in a sweep) whose runs carry runtime figures; nil when none
// does.
func buildClientCharts(parts []Input) map[string][]chart.Chart {
	var out map[string][]chart.Chart
	pal := newPalette(parts)
	for _, x := range parts {
		if len(soakRows(x)) == 0 {
			continue
		}
		if out == nil {
			out = map[string][]chart.Chart{}
		}
		for _, p := range clientPlots {
			out[p.id] = append(out[p.id], buildClientChart(p, x, pal, len(parts) > 1))
		}
	}
	return out
}
