package report

import (
	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// classMember is the CSS class of a member's band; tests count them.
const classMember = "s-member"

// memberPlot is one per-member plot of a run: a stacked band per member.
type memberPlot struct {
	id     string // file base name and data-plot attribute
	what   string // start of the title
	yTitle string
	value  func(p results.Period, key string) float64
}

// The per-member plots, in page order; the weight plot only for runs whose
// policy gave weights.
var (
	memberSharePlot = memberPlot{id: "member_share", what: "Share of reads served per member",
		yTitle: "share of reads served (%)", value: sharePct}
	memberWeightPlot = memberPlot{id: "member_weight", what: "Weight in force per member (policy intent)",
		yTitle: "weight at period end (%)", value: weightPct}

	memberPlots = []memberPlot{memberSharePlot, memberWeightPlot}
)

// drawn reports whether plot p is drawn for mr.
func (p memberPlot) drawn(mr memberRun) bool {
	return p.id != memberWeightPlot.id || mr.weights
}

// buildMemberChart makes plot p for one run of input x: the members'
// values stacked as areas (n1 at the bottom), each in its colour, over the
// warm-up band and the phase switches. Stacked, no member hides another:
// one without reads is a band of no height.
func buildMemberChart(p memberPlot, x Input, mr memberRun, mpal palette, several bool) *chart.Line {
	c := &chart.Line{
		ID:       p.id,
		Title:    p.what + ": " + mr.name,
		XTitle:   "time since start (s)",
		YTitle:   p.yTitle,
		XInclude: []float64{0},
		YInclude: []float64{0, 100},
		YCap:     100,
	}
	if several {
		c.Title += " — " + x.Name
	}
	c.Bands, c.VLines = runMarks(x.Results.Config, 1)
	values := make([][]float64, len(mr.keys))
	for i, key := range mr.keys {
		values[i] = make([]float64, len(mr.run.Periods))
		for k, per := range mr.run.Periods {
			values[i][k] = p.value(per, key)
		}
	}
	tops, bases := chart.Stack(values)
	for i, key := range mr.keys {
		s := chart.Series{Class: classMember, Tip: memberTip(mr, i), Color: mpal.color(key), Base: bases[i]}
		s.Points = make([]chart.Point, len(mr.run.Periods))
		for k, per := range mr.run.Periods {
			s.Points[k] = chart.Point{X: per.TS, Y: tops[i][k]}
		}
		c.Series = append(c.Series, s)
		c.Legend = append(c.Legend, chart.LegendItem{Label: mr.label(i), Color: mpal.color(key), Shape: chart.Square})
	}
	return c
}

// memberTip is the tooltip of member i's line: its label, its host when
// the label is a name, and the run.
func memberTip(mr memberRun, i int) string {
	tip := mr.label(i)
	if h := mr.rows[i].host; h != "" && h != mr.keys[i] {
		tip += " " + h
	}
	return tip + ", " + mr.name
}

// buildMemberCharts makes the per-member plots by id, a panel per run that
// records its members (parts are inputs split by client count), and the
// files they go to; nil when no run records its members.
func buildMemberCharts(parts []Input) (map[string][]chart.Chart, []string) {
	if !hasMembers(parts) {
		return nil, nil
	}
	mpal := newMemberPalette(parts)
	out := map[string][]chart.Chart{}
	for _, x := range parts {
		for _, mr := range memberRuns(x) {
			for _, p := range memberPlots {
				if p.drawn(mr) {
					out[p.id] = append(out[p.id], buildMemberChart(p, x, mr, mpal, len(parts) > 1))
				}
			}
			for _, p := range serverPlots {
				if p.drawn(mr) {
					out[p.id] = append(out[p.id], buildServerChart(p, x, mr, mpal, len(parts) > 1))
				}
			}
		}
	}
	var files []string
	for _, p := range memberPlots {
		if len(out[p.id]) > 0 {
			files = append(files, p.id+".svg")
		}
	}
	for _, p := range serverPlots {
		if len(out[p.id]) > 0 {
			files = append(files, p.id+".svg")
		}
	}
	return out, files
}
