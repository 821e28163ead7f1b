package report

import (
	"fmt"
	"strconv"
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
func buildSweepLine(p sweepLinePlot, sw *sweep, pal palette, several bool) *lineChart {
	word := sw.readWord()
	c := &lineChart{
		id:       p.id,
		title:    fmt.Sprintf("Fig. %s: %s %s against clients", p.fig, word, p.what),
		xTitle:   "clients",
		yTitle:   fmt.Sprintf(p.yTitle, word),
		xInclude: []float64{0},
		yInclude: p.yInclude,
	}
	if several {
		c.title += " — " + sw.x.Name
	}
	for _, pol := range sw.policies {
		color := pal.color(pol)
		s := series{class: classMain, tip: pol, color: color, width: 2, opacity: 1}
		for _, pt := range sw.policyPoints(pol) {
			v := pt.values[p.metric]
			s.pts = append(s.pts, point{float64(pt.clients), v.mean})
			if pt.runs > 1 {
				s.bars = append(s.bars, errBar{x: float64(pt.clients), lo: v.lo, hi: v.hi})
			}
		}
		c.series = append(c.series, s)
		c.legend = append(c.legend, legendItem{label: pol, color: color, shape: noMarker})
	}
	if sw.reps {
		c.legend = append(c.legend, legendItem{label: "bars: min-max over repetitions", color: "#666666", shape: noMarker})
	}
	return c
}

// buildSweepTradeoff makes fig. 6/7 plot p for one sweep: one point per policy
// and count at (staleness P80, metric), means over repetitions, labelled with
// the count; the marker grows with the count, as in the Decongestant paper.
// Without the S probe there is no staleness to plot, and the plot says so.
func buildSweepTradeoff(p sweepTradeoffPlot, sw *sweep, pal palette, several bool) *scatterChart {
	word := sw.readWord()
	c := &scatterChart{
		id:     p.id,
		title:  fmt.Sprintf("Fig. %s%s: %s %s against P80 staleness (labels: clients)", sw.tradeoffFig(), p.part, word, p.what),
		xTitle: "S-probe staleness P80 (ms)",
		yTitle: fmt.Sprintf(p.yTitle, word),
	}
	if several {
		c.title += " — " + sw.x.Name
	}
	for _, pol := range sw.policies {
		c.legend = append(c.legend, legendItem{label: pol, color: pal.color(pol), shape: circle})
	}
	if !sw.sprobe {
		c.empty = "no staleness measured: run bench with --sprobe"
		return c
	}
	lo, hi := sw.counts[0], sw.counts[len(sw.counts)-1]
	for _, pt := range sw.points {
		x, y := pt.values[swStale], pt.values[p.metric]
		c.points = append(c.points, scatterPoint{
			x: x.mean, y: y.mean, label: strconv.Itoa(pt.clients), color: pal.color(pt.policy), shape: circle,
			radius: 4 + 5*float64(pt.clients-lo)/float64(hi-lo),
			tip: fmt.Sprintf("%s, %d clients: %s %s, staleness P80 %s ms (%d runs)", pt.policy, pt.clients,
				fmtNum(y.mean), sweepMetrics[p.metric].header, fmtNum(x.mean), pt.runs),
		})
	}
	return c
}

// buildSweepCharts makes the sweep plots by id, one panel per input that
// holds a sweep; it returns nil when none does.
func buildSweepCharts(in []Input) map[string][]chart {
	pal := newPalette(in)
	var out map[string][]chart
	for _, x := range in {
		sw := findSweep(x)
		if sw == nil {
			continue
		}
		if out == nil {
			out = map[string][]chart{}
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
