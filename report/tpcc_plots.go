package report

import (
	"math"

	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// tpccPlot is one per-minute TPC-C plot (the Decongestant paper reports TPC-C
// per minute: tpmC, and the routed Stock-Level transactions' throughput and P80
// as the read chart.Series, figure 4 a/b). Runs too short to have minutes fall back
// to their periods.
type tpccPlot struct {
	id     string // file base name and data-plot attribute
	what   string // start of the title
	yTitle string
	// minute and period compute the value of one minute, or of one period
	// of length lengthS seconds.
	minute func(m results.Minute) float64
	period func(p results.Period, lengthS float64) float64
}

// The TPC-C plots, in page order.
var tpccPlots = []tpccPlot{
	{id: "tpmc", what: "tpmC (New-Order transactions per minute)", yTitle: "tpmC",
		minute: func(m results.Minute) float64 { return perMinute(m.Ops, "NEW_ORDER", m.ReadOps+m.WriteOps, m.LengthS) },
		period: func(p results.Period, l float64) float64 {
			return perMinute(p.Ops, "NEW_ORDER", p.ReadOps+p.WriteOps, l)
		}},
	{id: "stock_level_tput", what: "Stock-Level throughput", yTitle: "Stock-Level/s",
		minute: func(m results.Minute) float64 { return m.ReadTput },
		period: func(p results.Period, _ float64) float64 { return p.ReadTput }},
	{id: "stock_level_p80", what: "Stock-Level P80 latency", yTitle: "Stock-Level P80 ms",
		minute: func(m results.Minute) float64 { return latencyIfAny(m.ReadP80MS, m.ReadOps) },
		period: func(p results.Period, _ float64) float64 { return latencyIfAny(p.ReadP80MS, p.ReadOps) }},
}

// tpccPlotFiles are the extra files WritePlots writes when an input is TPC-C.
var tpccPlotFiles = func() []string {
	files := make([]string, len(tpccPlots))
	for i, p := range tpccPlots {
		files[i] = p.id + ".svg"
	}
	return files
}()

// perMinute is the rate per minute of operation name over lengthS seconds.
// Results omit an empty ops map, so with no operations at all the rate is 0;
// with operations but no map the breakdown is unknown (NaN, a gap).
func perMinute(ops map[string]int64, name string, total int64, lengthS float64) float64 {
	if !finite(lengthS) || lengthS <= 0 || (ops == nil && total > 0) {
		return math.NaN()
	}
	return float64(ops[name]) * 60 / lengthS
}

// latencyIfAny is a latency, or NaN (a gap) when no operation was measured.
func latencyIfAny(ms float64, ops int64) float64 {
	if ops <= 0 {
		return math.NaN()
	}
	return ms
}

// tpccSeries returns the points of plot p for run, x in minutes since the
// start: one per minute, or one per period when the run has no minutes
// (perMinute false). A period's length is the gap to the previous one; the
// first is period_s long (or starts at 0).
func tpccSeries(run *results.Run, cfg results.Config, p tpccPlot) (pts []chart.Point, perMinute bool) {
	if len(run.Minutes) > 0 {
		pts = make([]chart.Point, len(run.Minutes))
		for i, m := range run.Minutes {
			pts[i] = chart.Point{X: m.TS / 60, Y: p.minute(m)}
		}
		return pts, true
	}
	pts = make([]chart.Point, len(run.Periods))
	prev := 0.0
	if len(run.Periods) > 0 && finite(cfg.PeriodS) && cfg.PeriodS > 0 {
		prev = math.Max(0, run.Periods[0].TS-cfg.PeriodS)
	}
	for i, per := range run.Periods {
		pts[i] = chart.Point{X: per.TS / 60, Y: p.period(per, per.TS-prev)}
		prev = per.TS
	}
	return pts, false
}

// buildTPCCChart makes plot p for one input: per policy, the main repetition
// as a solid line and the others lighter, over the warm-up band and the
// phase switches, like the time-series plots but with x in minutes.
func buildTPCCChart(p tpccPlot, x Input, pal palette, several bool) *chart.Line {
	r := x.Results
	c := &chart.Line{
		ID:       p.id,
		XTitle:   "minute",
		YTitle:   p.yTitle,
		XInclude: []float64{0},
		YInclude: []float64{0},
	}
	c.Bands, c.VLines = runMarks(r.Config, 60)
	minutes, periods := 0, 0
	for _, g := range groupRuns(r) {
		color := pal.color(g.policy)
		label := policyLabel(g)
		for k, run := range g.runs {
			pts, perMin := tpccSeries(run, r.Config, p)
			switch {
			case perMin:
				minutes++
			case len(pts) > 0:
				periods++
			}
			if k == 0 && len(pts) == 0 {
				label += " (no data)"
			}
			s := repSeries(g.policy, run, color, k == 0)
			s.Points = pts
			if !perMin {
				s.Tip += ", per period"
			}
			c.Series = append(c.Series, s)
		}
		c.Legend = append(c.Legend, chart.LegendItem{Label: label, Color: color, Shape: chart.NoMarker})
	}
	switch {
	case periods == 0:
		c.Title = p.what + " per minute"
	case minutes == 0:
		c.Title = p.what + " per period (no per-minute data)"
	default:
		c.Title = p.what + " per minute (per period for runs without per-minute data)"
	}
	if several {
		c.Title += " — " + x.Name
	}
	return c
}

// buildTPCCCharts makes the TPC-C plots by id, one panel per TPC-C input;
// it returns nil when no input is TPC-C.
func buildTPCCCharts(in []Input) map[string][]chart.Chart {
	pal := newPalette(in)
	var out map[string][]chart.Chart
	for _, x := range in {
		if !isTPCC(x.Results) {
			continue
		}
		if out == nil {
			out = map[string][]chart.Chart{}
		}
		for _, p := range tpccPlots {
			out[p.id] = append(out[p.id], buildTPCCChart(p, x, pal, len(in) > 1))
		}
	}
	return out
}
