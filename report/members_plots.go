package report

import (
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
func buildMemberChart(p memberPlot, x Input, mr memberRun, mpal palette, several bool) *lineChart {
	c := &lineChart{
		id:       p.id,
		title:    p.what + ": " + mr.name,
		xTitle:   "time since start (s)",
		yTitle:   p.yTitle,
		xInclude: []float64{0},
		yInclude: []float64{0, 100},
		yCap:     100,
	}
	if several {
		c.title += " — " + x.Name
	}
	c.bands, c.vlines = runMarks(x.Results.Config, 1)
	values := make([][]float64, len(mr.keys))
	for i, key := range mr.keys {
		values[i] = make([]float64, len(mr.run.Periods))
		for k, per := range mr.run.Periods {
			values[i][k] = p.value(per, key)
		}
	}
	tops, bases := stackSeries(values)
	for i, key := range mr.keys {
		s := series{class: classMember, tip: memberTip(mr, i), color: mpal.color(key), base: bases[i]}
		s.pts = make([]point, len(mr.run.Periods))
		for k, per := range mr.run.Periods {
			s.pts[k] = point{per.TS, tops[i][k]}
		}
		c.series = append(c.series, s)
		c.legend = append(c.legend, legendItem{label: mr.label(i), color: mpal.color(key), shape: square})
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
func buildMemberCharts(parts []Input) (map[string][]chart, []string) {
	if !hasMembers(parts) {
		return nil, nil
	}
	mpal := newMemberPalette(parts)
	out := map[string][]chart{}
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
