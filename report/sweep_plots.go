package report

import (
	"fmt"
	"strconv"

	"github.com/decongestant/decongestant/report/chart"
)

// sweepLinePlot is one of the Decongestant paper's fig. 5 plots: a metric
// against the number of clients, one line per policy.
type sweepLinePlot struct {
	id       string // file base name and data-plot attribute
	fig      string
	what     string // after the read word: "throughput"
	yTitle   string // with %s for the read word
	metric   int    // index into sweepMetrics
	yInclude []float64
}

// sweepTradeoffPlot is one of the Decongestant paper's fig. 6/7 plots: a metric
// against the P80 staleness of reads, one point per policy and client count.
type sweepTradeoffPlot struct {
	id     string
	part   string // a or b
	what   string
	yTitle string
	metric int
}

// The sweep plots, in page order.
var (
	sweepLinePlots = []sweepLinePlot{
		{id: "sweep_tput", fig: "5a", what: "throughput", yTitle: "%s throughput (ops/s)", metric: swTput, yInclude: []float64{0}},
		{id: "sweep_p80", fig: "5b", what: "P80 latency", yTitle: "P80 %s latency (ms)", metric: swP80, yInclude: []float64{0}},
		{id: "sweep_secondary", fig: "5c", what: "share served by secondaries", yTitle: "%ss to secondaries (%%)",
			metric: swSecondary, yInclude: []float64{0, 100}},
	}
	sweepTradeoffPlots = []sweepTradeoffPlot{
		{id: "sweep_tput_staleness", part: "a", what: "throughput", yTitle: "%s throughput (ops/s)", metric: swTput},
		{id: "sweep_p80_staleness", part: "b", what: "P80 latency", yTitle: "P80 %s latency (ms)", metric: swP80},
	}
)

// sweepPlotFiles are the extra files WritePlots writes when an input holds
// a sweep.
var sweepPlotFiles = func() []string {
	var files []string
	for _, p := range sweepLinePlots {
		files = append(files, p.id+".svg")
	}
	for _, p := range sweepTradeoffPlots {
		files = append(files, p.id+".svg")
	}
	return files
}()

// buildSweepLine makes fig. 5 plot p for one sweep: per policy, the mean
// over repetitions at each count, with min-max bars when repeated.
func buildSweepLine(p sweepLinePlot, sw *sweep, pal palette, several bool) *chart.Line {
	word := sw.readWord()
	c := &chart.Line{
		ID:       p.id,
		Title:    fmt.Sprintf("Fig. %s: %s %s against clients", p.fig, word, p.what),
		XTitle:   "clients",
		YTitle:   fmt.Sprintf(p.yTitle, word),
		XInclude: []float64{0},
		YInclude: p.yInclude,
	}
	if several {
		c.Title += " — " + sw.x.Name
	}
	for _, pol := range sw.policies {
		color := pal.color(pol)
		s := chart.Series{Class: classMain, Tip: pol, Color: color, Width: 2, Opacity: 1}
		for _, pt := range sw.policyPoints(pol) {
			v := pt.values[p.metric]
			s.Points = append(s.Points, chart.Point{X: float64(pt.clients), Y: v.mean})
			if pt.runs > 1 {
				s.Bars = append(s.Bars, chart.ErrBar{X: float64(pt.clients), Lo: v.lo, Hi: v.hi})
			}
		}
		c.Series = append(c.Series, s)
		c.Legend = append(c.Legend, chart.LegendItem{Label: pol, Color: color, Shape: chart.NoMarker})
	}
	if sw.reps {
		c.Legend = append(c.Legend, chart.LegendItem{Label: "bars: min-max over repetitions", Color: "#666666", Shape: chart.NoMarker})
	}
	return c
}

// buildSweepTradeoff makes fig. 6/7 plot p for one sweep: one point per policy
// and count at (staleness P80, metric), means over repetitions, labelled with
// the count; the marker grows with the count, as in the Decongestant paper.
// Without the S probe there is no staleness to plot, and the plot says so.
func buildSweepTradeoff(p sweepTradeoffPlot, sw *sweep, pal palette, several bool) *chart.Scatter {
	word := sw.readWord()
	c := &chart.Scatter{
		ID:     p.id,
		Title:  fmt.Sprintf("Fig. %s%s: %s %s against P80 staleness (labels: clients)", sw.tradeoffFig(), p.part, word, p.what),
		XTitle: "S-probe staleness P80 (ms)",
		YTitle: fmt.Sprintf(p.yTitle, word),
	}
	if several {
		c.Title += " — " + sw.x.Name
	}
	for _, pol := range sw.policies {
		c.Legend = append(c.Legend, chart.LegendItem{Label: pol, Color: pal.color(pol), Shape: chart.Circle})
	}
	if !sw.sprobe {
		c.Empty = "no staleness measured: run bench with --sprobe"
		return c
	}
	lo, hi := sw.counts[0], sw.counts[len(sw.counts)-1]
	for _, pt := range sw.points {
		x, y := pt.values[swStale], pt.values[p.metric]
		c.Points = append(c.Points, chart.ScatterPoint{
			X: x.mean, Y: y.mean, Label: strconv.Itoa(pt.clients), Color: pal.color(pt.policy), Shape: chart.Circle,
			Radius: 4 + 5*float64(pt.clients-lo)/float64(hi-lo),
			Tip: fmt.Sprintf("%s, %d clients: %s %s, staleness P80 %s ms (%d runs)", pt.policy, pt.clients,
				fmtNum(y.mean), sweepMetrics[p.metric].header, fmtNum(x.mean), pt.runs),
		})
	}
	return c
}

// buildSweepCharts makes the sweep plots by id, one panel per input that
// holds a sweep; it returns nil when none does.
func buildSweepCharts(in []Input) map[string][]chart.Chart {
	pal := newPalette(in)
	var out map[string][]chart.Chart
	for _, x := range in {
		sw := findSweep(x)
		if sw == nil {
			continue
		}
		if out == nil {
			out = map[string][]chart.Chart{}
		}
		for _, p := range sweepLinePlots {
			out[p.id] = append(out[p.id], buildSweepLine(p, sw, pal, len(in) > 1))
		}
		for _, p := range sweepTradeoffPlots {
			out[p.id] = append(out[p.id], buildSweepTradeoff(p, sw, pal, len(in) > 1))
		}
	}
	return out
}
