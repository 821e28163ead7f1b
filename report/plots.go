package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// Series classes: tests and CSS rely on them.
const (
	classMain = "s-main" // repetition 0 (or the lowest present) of a policy
	classRep  = "s-rep"  // other repetitions, drawn lighter
	classLag  = "s-lag"  // staleness plot: monitor estimate, dashed
	classAux  = "s-aux"  // secondary plot: balancer fraction × 100, dotted
)

// timeSeries describes one time-series plot: which period field it draws.
type timeSeries struct {
	id     string // file base name and data-plot attribute
	title  string
	yTitle string
	value  func(results.Period) float64
	// yInclude are y values the axis always covers (0, or 0..100).
	yInclude []float64
}

// The time-series plots, in page order.
var (
	plotReadTput = timeSeries{id: "read_tput", title: "Read throughput per period", yTitle: "read throughput (ops/s)",
		value: func(p results.Period) float64 { return p.ReadTput }, yInclude: []float64{0}}
	plotReadP80 = timeSeries{id: "read_p80", title: "P80 read latency per period", yTitle: "P80 read latency (ms)",
		value: func(p results.Period) float64 { return p.ReadP80MS }, yInclude: []float64{0}}
	plotSecondary = timeSeries{id: "secondary_pct", title: "Reads served by secondaries", yTitle: "reads to secondaries (%)",
		value: func(p results.Period) float64 { return p.SecondaryPct }, yInclude: []float64{0, 100}}
	plotStaleness = timeSeries{id: "staleness", title: "Staleness: S-probe P80 (solid), monitor max lag (dashed)", yTitle: "staleness (ms)",
		value: func(p results.Period) float64 { return p.SProbeStalenessP80MS }, yInclude: []float64{0}}
	plotWriteTput = timeSeries{id: "write_tput", title: "Write throughput per period", yTitle: "write throughput (ops/s)",
		value: func(p results.Period) float64 { return p.WriteTput }, yInclude: []float64{0}}

	timeSeriesPlots = []timeSeries{plotReadTput, plotReadP80, plotSecondary, plotStaleness, plotWriteTput}
)

const tradeoffID = "tradeoff"

// plotFiles are the files written by WritePlots, in order.
var plotFiles = []string{"read_tput.svg", "read_p80.svg", "secondary_pct.svg", "staleness.svg", "tradeoff.svg", "write_tput.svg"}

// periodSeries extracts one value per period as points (t_s, value).
func periodSeries(run *results.Run, value func(results.Period) float64) []chart.Point {
	pts := make([]chart.Point, len(run.Periods))
	for i, p := range run.Periods {
		pts[i] = chart.Point{X: p.TS, Y: value(p)}
	}
	return pts
}

// varies reports whether value's finite values change across the periods
// of run.
func varies(run *results.Run, value func(results.Period) float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range run.Periods {
		if v := value(p); finite(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return hi-lo > 1e-9
}

// buildTimeSeries makes plot ts for one input: per policy, the main
// repetition as a solid line and the other repetitions as lighter lines,
// the warm-up band, the phase switches and, for staleness, the bound.
func buildTimeSeries(ts timeSeries, x Input, pal palette, several bool) *chart.Line {
	cfg := x.Results.Config
	c := &chart.Line{
		ID:       ts.id,
		Title:    ts.title,
		XTitle:   "time since start (s)",
		YTitle:   ts.yTitle,
		XInclude: []float64{0},
		YInclude: ts.yInclude,
	}
	if several {
		c.Title += " — " + x.Name
	}
	c.Bands, c.VLines = runMarks(cfg, 1)
	staleness := ts.id == plotStaleness.id
	sprobe := !staleness || cfg.SProbe
	if b := cfg.MaxStalenessMS; staleness && b != nil && finite(*b) {
		c.HLines = append(c.HLines, chart.HLine{Y: *b, Label: boundLabel(*b)})
	}
	anyAux := false
	for _, g := range groupRuns(x.Results) {
		color := pal.color(g.policy)
		label := policyLabel(g)
		if len(g.runs[0].Periods) == 0 {
			label += " (no periods)"
		}
		c.Legend = append(c.Legend, chart.LegendItem{Label: label, Color: color, Shape: chart.NoMarker})
		for k, run := range g.runs {
			lines, aux := ts.runLines(run, repSeries(g.policy, run, color, k == 0), k == 0, sprobe)
			c.Series = append(c.Series, lines...)
			anyAux = anyAux || aux
		}
	}
	c.Legend = append(c.Legend, styleKeys(staleness, sprobe, anyAux)...)
	return c
}

// runLines returns the lines plot ts draws for one repetition, styled like
// s: the plotted value (on the staleness plot only when the S-probe ran),
// the monitor's max lag on the staleness plot (dashed), and on the secondary
// plot the main repetition's balance fraction × 100 when it varies (dotted;
// aux is true then).
func (ts timeSeries) runLines(run *results.Run, s chart.Series, main, sprobe bool) (lines []chart.Series, aux bool) {
	if sprobe {
		s.Points = periodSeries(run, ts.value)
		lines = append(lines, s)
	}
	if ts.id == plotStaleness.id {
		lag := s
		lag.Class, lag.Style = classLag, chart.Dashed
		if !main {
			lag.Class = classRep
		}
		lag.Tip += ", monitor max lag"
		lag.Points = periodSeries(run, func(p results.Period) float64 { return p.MaxLagMS })
		lines = append(lines, lag)
	}
	bf := func(p results.Period) float64 { return p.BalanceFraction * 100 }
	if ts.id == plotSecondary.id && main && varies(run, bf) {
		aux = true
		lines = append(lines, chart.Series{Class: classAux, Tip: s.Tip + ", balance fraction × 100",
			Color: s.Color, Style: chart.Dotted, Width: 1.3, Opacity: 1, Points: periodSeries(run, bf)})
	}
	return lines, aux
}

// styleKeys are the grey legend entries that explain line styles rather
// than name a policy.
func styleKeys(staleness, sprobe, aux bool) []chart.LegendItem {
	key := func(label string, style chart.Style) chart.LegendItem {
		return chart.LegendItem{Label: label, Color: "#666666", Style: style, Shape: chart.NoMarker}
	}
	switch {
	case staleness && sprobe:
		return []chart.LegendItem{key("S-probe P80", chart.Solid), key("monitor max lag", chart.Dashed)}
	case staleness:
		return []chart.LegendItem{key("monitor max lag (S-probe off)", chart.Dashed)}
	case aux:
		return []chart.LegendItem{key("balance fraction × 100", chart.Dotted)}
	}
	return nil
}

// runMarks returns cfg's warm-up as a shaded band, and its phase switches
// (fault actions included: the reconfigurations) and the reconfiguration
// times given explicitly as labelled vertical lines, with times in seconds
// divided by unit (1 for seconds, 60 for minutes).
func runMarks(cfg results.Config, unit float64) ([]chart.Band, []chart.VLine) {
	var bands []chart.Band
	if w := cfg.WarmupS; finite(w) && w > 0 {
		bands = append(bands, chart.Band{X0: 0, X1: w / unit, Label: "warm-up"})
	}
	var vlines []chart.VLine
	for i, p := range cfg.Phases {
		label := fmt.Sprintf("phase %d", i+1)
		if d := phaseDetail(p); d != "" {
			label += ": " + d
		}
		vlines = append(vlines, chart.VLine{X: p.AtS / unit, Label: label})
	}
	for _, at := range cfg.ReconfigAtS {
		if !slices.ContainsFunc(cfg.Phases, func(p results.PhaseSpec) bool { return p.AtS == at }) {
			vlines = append(vlines, chart.VLine{X: at / unit, Label: "reconfiguration"})
		}
	}
	return bands, vlines
}

// policyLabel is a policy's legend label: its name, with the number of
// repetitions when it has several.
func policyLabel(g policyRuns) string {
	if len(g.runs) > 1 {
		return fmt.Sprintf("%s (%d reps)", g.policy, len(g.runs))
	}
	return g.policy
}

// repSeries styles the line of one repetition of policy: the main
// repetition solid, the others thinner and lighter.
func repSeries(policy string, run *results.Run, color string, main bool) chart.Series {
	s := chart.Series{Class: classMain, Tip: fmt.Sprintf("%s, repetition %d", policy, run.Repetition), Color: color, Width: 2, Opacity: 1}
	if !main {
		s.Class, s.Width, s.Opacity = classRep, 1.2, 0.35
	}
	return s
}

// boundLabel labels a staleness bound line.
func boundLabel(ms float64) string { return fmt.Sprintf("bound %g ms", ms) }

// buildTradeoff makes the trade-off scatter: one point per (input, policy),
// in a sweep per (input, clients, policy) labelled "policy @clients",
// x = staleness P80 and y = read throughput from the summaries (mean over
// repetitions, with ±1 sd error bars when repeated). Colour is the policy;
// with several inputs, the marker shape is the input.
func buildTradeoff(in []Input, rows []row, pal palette) *chart.Scatter {
	c := &chart.Scatter{
		ID:     tradeoffID,
		Title:  "Trade-off: read throughput vs P80 staleness (after warm-up)",
		XTitle: "staleness P80 (ms)",
		YTitle: "read throughput (ops/s)",
	}
	several := len(in) > 1
	bounds := map[float64]bool{}
	for _, x := range in {
		if b := x.Results.Config.MaxStalenessMS; b != nil && finite(*b) && !bounds[*b] {
			bounds[*b] = true
			c.Bounds = append(c.Bounds, chart.VLine{X: *b, Label: boundLabel(*b)})
		}
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.policy] {
			seen[r.policy] = true
			c.Legend = append(c.Legend, chart.LegendItem{Label: r.policy, Color: pal.color(r.policy), Shape: chart.Circle})
		}
	}
	if several {
		for i, x := range in {
			c.Legend = append(c.Legend, chart.LegendItem{Label: x.Name, Color: "#666666", Shape: chart.NthShape(i)})
		}
	}
	for _, r := range rows {
		st, tp := r.stats[colStaleP80], r.stats[colReadTput]
		name := r.policy
		if r.clients > 0 {
			name = fmt.Sprintf("%s @%d", r.policy, r.clients)
		}
		p := chart.ScatterPoint{
			X: st.mean, Y: tp.mean, XErr: st.sd, YErr: tp.sd,
			Label: name, Color: pal.color(r.policy), Shape: chart.Circle,
		}
		p.Tip = fmt.Sprintf("%s: %s ops/s, staleness P80 %s ms", name, fmtNum(tp.mean), fmtNum(st.mean))
		if several {
			p.Shape = chart.NthShape(r.input)
			p.Tip = in[r.input].Name + " / " + p.Tip
		}
		c.Points = append(c.Points, p)
	}
	return c
}

// buildCharts makes every plot: for each time-series plot (in timeSeriesPlots
// order) one chart per input (per input and client count in a sweep), and
// the trade-off scatter.
func buildCharts(in []Input) (perPlot map[string][]chart.Chart, tradeoff *chart.Scatter) {
	pal := newPalette(in)
	perPlot = map[string][]chart.Chart{}
	parts := byClients(in)
	for _, ts := range timeSeriesPlots {
		for _, x := range parts {
			perPlot[ts.id] = append(perPlot[ts.id], buildTimeSeries(ts, x, pal, len(parts) > 1))
		}
	}
	tradeoff = buildTradeoff(in, buildRows(in), pal)
	perPlot[tradeoffID] = []chart.Chart{tradeoff}
	return perPlot, tradeoff
}

// WritePlots writes each plot as a standalone SVG file into dir —
// read_tput.svg, read_p80.svg, secondary_pct.svg, staleness.svg, tradeoff.svg
// and write_tput.svg — each atomically, and returns their paths. With several
// inputs, a time-series file stacks one panel per input.
//
// When an input holds a client-count sweep it also writes the Decongestant
// paper's figs. 5-7 (sweep_tput.svg, sweep_p80.svg, sweep_secondary.svg,
// sweep_tput_staleness.svg and sweep_p80_staleness.svg), one panel per sweep.
// When an input is TPC-C it also writes tpmc.svg, stock_level_tput.svg and
// stock_level_p80.svg, with one panel per TPC-C input (and client count). When
// runs record their members it also writes member_share.svg (the share of reads
// each member served, per period) and, when a policy gave members weights,
// member_weight.svg, with one panel per such run; and when they record the
// members' own counters (bench --member-stats), member_cache_miss.svg and
// member_cpu.svg. When runs record the benchmark process's heap and goroutines
// it also writes client_heap.svg and client_goroutines.svg, one panel per input
// (and client count).
func WritePlots(dir string, in []Input) ([]string, error) {
	if err := checkInputs(in); err != nil {
		return nil, err
	}
	perPlot, _ := buildCharts(in)
	files := plotFiles
	if sweepCharts := buildSweepCharts(in); len(sweepCharts) > 0 {
		for id, cs := range sweepCharts {
			perPlot[id] = cs
		}
		files = append(slices.Clip(files), sweepPlotFiles...)
	}
	if tpccCharts := buildTPCCCharts(byClients(in)); len(tpccCharts) > 0 {
		for id, cs := range tpccCharts {
			perPlot[id] = cs
		}
		files = append(slices.Clip(files), tpccPlotFiles...)
	}
	if clientCharts := buildClientCharts(byClients(in)); len(clientCharts) > 0 {
		for id, cs := range clientCharts {
			perPlot[id] = cs
		}
		files = append(slices.Clip(files), clientPlotFiles...)
	}
	if memberCharts, memberFiles := buildMemberCharts(byClients(in)); len(memberFiles) > 0 {
		for id, cs := range memberCharts {
			perPlot[id] = cs
		}
		files = append(slices.Clip(files), memberFiles...)
	}
	paths := make([]string, 0, len(files))
	for _, name := range files {
		charts := perPlot[strings.TrimSuffix(name, ".svg")]
		path := filepath.Join(dir, name)
		err := atomicfile.Write(path, func(w io.Writer) error {
			return chart.WriteSVG(w, charts...)
		})
		if err != nil {
			return paths, fmt.Errorf("report: write plot %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
