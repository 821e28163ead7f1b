package report

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/decongestant/decongestant/results"
)

// Input is one results file to report on. Name labels it (usually the file's
// base name); Results is the decoded file.
type Input struct {
	Name    string
	Results *results.Results
}

// ErrNoInput is returned by the writers when there is nothing to report.
var ErrNoInput = errors.New("report: no input")

// checkInputs rejects an empty set and inputs without results, so the writers
// never dereference nil.
func checkInputs(in []Input) error {
	if len(in) == 0 {
		return ErrNoInput
	}
	for i, x := range in {
		if x.Results == nil {
			return fmt.Errorf("report: input %d (%q): nil results", i, x.Name)
		}
	}
	return nil
}

// policyRuns is the runs of one policy within one results file, ordered by
// repetition. The first run is the one drawn as the main line of the plots.
type policyRuns struct {
	policy string
	runs   []*results.Run
}

// groupRuns groups the runs of r by policy, in order of first appearance
// (the order in which the runner ran them).
func groupRuns(r *results.Results) []policyRuns {
	var groups []policyRuns
	index := map[string]int{}
	for i := range r.Runs {
		run := &r.Runs[i]
		j, ok := index[run.Policy]
		if !ok {
			j = len(groups)
			index[run.Policy] = j
			groups = append(groups, policyRuns{policy: run.Policy})
		}
		groups[j].runs = append(groups[j].runs, run)
	}
	for _, g := range groups {
		sort.SliceStable(g.runs, func(a, b int) bool { return g.runs[a].Repetition < g.runs[b].Repetition })
	}
	return groups
}

// workloadName is the workload of r, from the top level or else the config.
func workloadName(r *results.Results) string {
	if r.Workload != "" {
		return r.Workload
	}
	return r.Config.Workload
}

// Palette: colour-blind-friendly Tableau 10. The well-known policies keep the
// same colour in every report; others take the remaining colours in order of
// first appearance, cycling when there are more policies than colours.
var (
	knownColors = map[string]string{
		"decongestant": "#4e79a7", // blue
		"primary":      "#e15759", // red
		"secondary":    "#59a14f", // green
		"rpm":          "#f28e2b", // orange
	}
	otherColors = []string{
		"#b07aa1", "#76b7b2", "#9c755f", "#ff9da7", "#bab0ac", "#edc948", // rest of Tableau 10
		"#17becf", "#bcbd22", "#6b3fa0", "#2f4b7c", "#a05d56", "#7f7f7f", // then further distinct hues
	}
)

// palette maps a policy name to its colour, the same in every plot and table.
type palette map[string]string

func newPalette(in []Input) palette {
	p := palette{}
	next := 0
	for _, x := range in {
		for _, g := range groupRuns(x.Results) {
			if _, ok := p[g.policy]; ok {
				continue
			}
			if c, ok := knownColors[strings.ToLower(g.policy)]; ok {
				p[g.policy] = c
				continue
			}
			p[g.policy] = otherColors[next%len(otherColors)]
			next++
		}
	}
	return p
}

func (p palette) color(policy string) string {
	if c, ok := p[policy]; ok {
		return c
	}
	return "#333333"
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fmtNum formats a measurement with a precision that suits its magnitude:
// 12345, 123, 12.3, 1.23. Non-finite values print as "-".
func fmtNum(v float64) string {
	if !finite(v) {
		return "-"
	}
	a := math.Abs(v)
	switch {
	case a >= 100 || v == 0:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// fmtCount formats a count (possibly a mean of counts): 3 or 2.5.
func fmtCount(v float64) string {
	if !finite(v) {
		return "-"
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// fmtSeconds formats a duration in seconds from the config: "60 s", "0.5 s".
func fmtSeconds(v float64) string {
	if !finite(v) {
		return "-"
	}
	return fmt.Sprintf("%g s", v)
}

// fmtBound formats the configured staleness bound.
func fmtBound(b *float64) string {
	if b == nil {
		return "none"
	}
	if !finite(*b) {
		return "-"
	}
	return fmt.Sprintf("%g ms", *b)
}

// fmtPhases formats the phase switches: "30 s (ycsb-a, 64 clients)".
func fmtPhases(ps []results.PhaseSpec) string {
	if len(ps) == 0 {
		return "none"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmtSeconds(p.AtS)
		if d := phaseDetail(p); d != "" {
			parts[i] += " (" + d + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func phaseDetail(p results.PhaseSpec) string {
	var d []string
	if p.Workload != "" {
		d = append(d, p.Workload)
	}
	if p.Clients > 0 {
		d = append(d, fmt.Sprintf("%d clients", p.Clients))
	}
	d = append(d, p.Actions...)
	return strings.Join(d, ", ")
}

// fmtMap formats a map as sorted "k=v" pairs.
func fmtMap[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(parts, " ")
}
