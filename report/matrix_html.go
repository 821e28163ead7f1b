package report

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// matrixSetupTitles describe the setups as the thesis ran them, with the
// thesis' figures of each.
var matrixSetupTitles = map[string]string{
	"operation": "Operation-level concerns (the consistency thesis, figs 4.3-4.9)",
	"session":   "Session-level concerns, in the connection string (the consistency thesis, figs 4.10-4.16)",
	"multi":     "Multiple readers and writers (the consistency thesis, figs 4.17-4.23)",
}

// matrixMetric is one of the figures' metrics.
type matrixMetric struct {
	key, name, yTitle string
	of                func(results.MatrixSummary) results.Spread
}

var matrixMetrics = []matrixMetric{
	{"write", "Write latency", "mean write latency (ms)", writeMean},
	{"read", "Read latency", "mean read latency (ms)", readMean},
	{"stale", "Stale reads", "stale reads (% of reads)", stalePct},
}

// WriteMatrixHTML writes one self-contained page for a consistency matrix: its
// configuration; the consistency thesis' published findings beside this
// machine's (findings, judged by the caller: reproduce.ThesisFindings); where reads go, per (w, rc)
// pair; then per setup the thesis' figures — write latency, read latency and
// the share of stale reads, one grouped bar chart per document size with the
// (w, rc) pairs along the x axis and a bar per read target, the mean over
// iterations with min-max error bars — and a table of every cell's mean, P50
// and P99.
func WriteMatrixHTML(w io.Writer, m *results.Matrix, findings []ThesisFinding) error {
	if m == nil || len(m.Config.Setups) == 0 {
		return errors.New("report: a matrix without setups")
	}
	pal := readPalette(m.Config.Reads)
	p := matrixPage{Cells: len(m.Cells), Wall: fmtWall(m.WallS), Interrupted: m.Interrupted, Config: matrixConfig(m),
		Caveats: thesisCaveats(m), Findings: findings, Reads: whereReadsGo(m, pal)}
	for _, s := range m.Config.Setups {
		p.Setups = append(p.Setups, newMatrixSetupView(m, s, pal))
	}
	return writePage(w, "matrix", p)
}

// matrixPage is the page WriteMatrixHTML writes (template "matrix").
type matrixPage struct {
	Cells       int
	Wall        string
	Interrupted bool
	Config      []item
	Caveats     []string // what differs from the thesis' run
	Findings    []ThesisFinding
	Reads       []titledTable // where reads go, per metric
	Setups      []matrixSetupView
}

// titledTable is a table under its heading.
type titledTable struct {
	Title string
	Table table
}

// matrixSetupView is one setup's figures, per metric and document size,
// and its table (template "matrix setup").
type matrixSetupView struct {
	Name, Title      string
	Writers, Readers int
	Concerns         string
	Metrics          []matrixFigures
	Table            table
}

// matrixFigures are one metric's figures, one per document size.
type matrixFigures struct {
	Name  string
	Plots []template.HTML
}

// readPalette colours the read targets: the known policies as in the
// bench report, the others in order.
func readPalette(reads []string) palette {
	p := palette{}
	next := 0
	for _, r := range reads {
		if c, ok := knownColors[strings.ToLower(r)]; ok {
			p[r] = c
			continue
		}
		p[r] = otherColors[next%len(otherColors)]
		next++
	}
	return p
}

// matrixConfig is the matrix's settings.
func matrixConfig(m *results.Matrix) []item {
	c := m.Config
	setups := make([]string, len(c.Setups))
	for i, s := range c.Setups {
		setups[i] = fmt.Sprintf("%s (%d writer(s), %d reader(s), concerns per %s)", s.Name, s.Writers, s.Readers, s.Concerns)
	}
	sizes := make([]string, len(c.Sizes))
	for i, s := range c.Sizes {
		sizes[i] = results.SizeLabel(s)
	}
	return []item{
		{"uri", orDash(redact.URI(c.URI))}, // redacted again: a file from elsewhere may not be
		{"mongod", orDash(m.MongodVersion)},
		{"started at", orDash(m.StartedAt)},
		{"wall time", fmtWall(m.WallS)},
		{"setups", strings.Join(setups, "; ")},
		{"document sizes", strings.Join(sizes, ", ")},
		{"write concerns", strings.Join(c.W, ", ")},
		{"read concerns", strings.Join(c.RC, ", ")},
		{"reads", strings.Join(c.Reads, ", ")},
		{"iterations", strconv.Itoa(c.Iterations)},
		{"writes per writer", strconv.Itoa(c.Writes)},
		{"write interval", strconv.FormatFloat(c.WriteIntervalMs, 'g', -1, 64) + " ms"},
		{"read interval", strconv.FormatFloat(c.ReadIntervalMs, 'g', -1, 64) + " ms"},
		{"policies' bound", orDash(c.MaxStaleness)},
		{"reads fetch", map[bool]string{true: "the whole document", false: "version and value only"}[c.WholeReads]},
	}
}

// whereReadsGo is, per metric (stale reads, read latency), a table of the
// mean over every setup and size per read target and (w, rc) pair.
func whereReadsGo(m *results.Matrix, pal palette) []titledTable {
	pairs := matrixPairs(m.Config)
	var out []titledTable
	for _, mm := range []matrixMetric{matrixMetrics[2], matrixMetrics[1]} {
		t := table{Class: "reads", Head: []th{{Text: "read", Left: true}}}
		for _, p := range pairs {
			t.Head = append(t.Head, th{Text: "w:" + p[0] + " rc:" + p[1]})
		}
		for _, read := range m.Config.Reads {
			r := tr{Cells: []td{swatchCell(pal.color(read), read)}}
			for _, p := range pairs {
				v, n, skipped := meanOver(m, p[0], p[1], read, mm.of)
				switch {
				case n > 0:
					r.Cells = append(r.Cells, numCell(fmtNum(v), ""))
				case skipped:
					r.Cells = append(r.Cells, td{Class: "n skip", Text: "n/a"})
				default:
					r.Cells = append(r.Cells, numCell("-", ""))
				}
			}
			t.Rows = append(t.Rows, r)
		}
		out = append(out, titledTable{Title: mm.yTitle, Table: t})
	}
	return out
}

// meanOver is the mean of a metric's means over the measured cells of one
// (w, rc, read) and the count; skipped reports a skipped cell among them.
func meanOver(m *results.Matrix, w, rc, read string, of func(results.MatrixSummary) results.Spread) (float64, int, bool) {
	var sum float64
	n, skipped := 0, false
	for _, c := range m.Cells {
		if c.W != w || c.RC != rc || c.Read != read {
			continue
		}
		skipped = skipped || c.Skipped != ""
		if c.Measured() {
			sum, n = sum+of(c.Summary).Mean, n+1
		}
	}
	if n == 0 {
		return 0, 0, skipped
	}
	return sum / float64(n), n, skipped
}

// matrixPairs are the (w, rc) pairs in the thesis' order: w outer.
func matrixPairs(c results.MatrixConfig) [][2]string {
	var out [][2]string
	for _, w := range c.W {
		for _, rc := range c.RC {
			out = append(out, [2]string{w, rc})
		}
	}
	return out
}

// newMatrixSetupView is setup s's figures and table.
func newMatrixSetupView(m *results.Matrix, s results.MatrixSetup, pal palette) matrixSetupView {
	title, ok := matrixSetupTitles[s.Name]
	if !ok {
		title = s.Name
	}
	v := matrixSetupView{Name: s.Name, Title: title, Writers: s.Writers, Readers: s.Readers, Concerns: s.Concerns,
		Table: matrixTable(m, s.Name, pal)}
	for _, mm := range matrixMetrics {
		f := matrixFigures{Name: mm.name}
		for _, size := range m.Config.Sizes {
			f.Plots = append(f.Plots, chart.HTML(buildMatrixBars(m, s.Name, size, mm, pal)))
		}
		v.Metrics = append(v.Metrics, f)
	}
	return v
}

// buildMatrixBars is one figure: a metric for one setup and size, the
// (w, rc) pairs along x, a bar per read target.
func buildMatrixBars(m *results.Matrix, setup string, size int, mm matrixMetric, pal palette) *chart.Bars {
	pairs := matrixPairs(m.Config)
	c := &chart.Bars{ID: "matrix-" + setup + "-" + mm.key + "-" + results.SizeLabel(size),
		Title:  fmt.Sprintf("%s, %s documents (%s)", mm.name, results.SizeLabel(size), setup),
		XTitle: "(write concern, read concern)", YTitle: mm.yTitle}
	for _, p := range pairs {
		c.Groups = append(c.Groups, "w:"+p[0]+"\nrc:"+p[1])
	}
	for _, read := range m.Config.Reads {
		s := chart.BarSeries{Name: read, Color: pal.color(read)}
		for _, p := range pairs {
			cell := m.Find(setup, size, p[0], p[1], read)
			var v chart.Bar
			switch {
			case cell == nil:
			case cell.Skipped != "":
				v.Absent = "n/a"
			case !cell.Measured():
				v.Absent = "failed"
			default:
				sp := mm.of(cell.Summary)
				v = chart.Bar{V: sp.Mean, Lo: sp.Min, Hi: sp.Max, OK: true,
					Tip: fmt.Sprintf("%s %s w:%s rc:%s read:%s: %s (%s-%s over %d iterations)",
						setup, results.SizeLabel(size), p[0], p[1], read, fmtNum(sp.Mean), fmtNum(sp.Min), fmtNum(sp.Max), sp.N)}
			}
			s.Values = append(s.Values, v)
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// matrixTable has one row per cell of a setup: the means over iterations
// of the latencies' mean, P50 and P99, the stale share and ages, and the
// unacknowledged reads, with the min-max of the means below when the
// iterations differ.
func matrixTable(m *results.Matrix, setup string, pal palette) table {
	t := table{Class: "matrix", Head: []th{{"size", true}, {"w", true}, {"rc", true}, {"read", true}, {Text: "it."},
		{Text: "write mean (ms)"}, {Text: "write P50"}, {Text: "write P99"},
		{Text: "read mean (ms)"}, {Text: "read P50"}, {Text: "read P99"},
		{Text: "stale %"}, {Text: "age max (versions)"}, {Text: "age max (ms)"}, {Text: "unacked %"}, {Text: "reads"}}}
	for _, c := range m.Cells {
		if c.Setup != setup {
			continue
		}
		r := tr{Cells: []td{textCell(results.SizeLabel(c.DocSize)), textCell(c.W), textCell(c.RC), swatchCell(pal.color(c.Read), c.Read)}}
		if !c.Measured() {
			why := "skipped: " + c.Skipped
			if c.Skipped == "" {
				why = "failed: " + strings.Join(c.Failed, "; ")
			}
			r.Cells = append(r.Cells, numCell("0", ""), td{Class: "l skip", Span: 11, Text: why})
			t.Rows = append(t.Rows, r)
			continue
		}
		s := c.Summary
		r.Cells = append(r.Cells, numCell(strconv.Itoa(s.Iterations), ""))
		for _, sp := range []results.Spread{s.WriteMean, s.WriteP50, s.WriteP99, s.ReadMean, s.ReadP50, s.ReadP99, s.StalePct} {
			r.Cells = append(r.Cells, spreadCell(sp))
		}
		r.Cells = append(r.Cells, numCell(fmtCount(s.StaleVersionsMax.Max), ""), numCell(fmtNum(s.StaleMsMax.Max), ""),
			numCell(fmtNum(s.UnacknowledgedPct.Max), ""), numCell(fmtCount(s.Reads.Mean), ""))
		t.Rows = append(t.Rows, r)
	}
	return t
}

// spreadCell is a mean with its min-max below when the iterations differ.
func spreadCell(sp results.Spread) td {
	if sp.N > 1 && sp.Max > sp.Min {
		return numCell(fmtNum(sp.Mean), fmtNum(sp.Min)+"-"+fmtNum(sp.Max))
	}
	return numCell(fmtNum(sp.Mean), "")
}

// fmtWall formats a wall time: "12 min 5 s", "42 s".
func fmtWall(s float64) string {
	if !finite(s) || s <= 0 {
		return "-"
	}
	if s < 60 {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%d min %d s", int(s)/60, int(s)%60)
}
