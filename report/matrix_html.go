package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// matrixCSS adds the matrix page's verdict colours to pageCSS.
const matrixCSS = `
td.agree { color: #1d6b2a; font-weight: 600; }
td.partial { color: #8a5a00; font-weight: 600; }
td.disagree { color: #a00; font-weight: 600; }
td.none { color: #888; }
td.open { color: #2a4d8f; font-weight: 600; }
div.rule { color: #666; font-weight: normal; font-size: 0.85em; }
td.skip { color: #888; font-style: italic; }
table.matrix td.skip { white-space: normal; }
table.claims td { white-space: normal; }
table.claims td.est { white-space: nowrap; }
table.claims td.find { min-width: 240px; }
`

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
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	b.WriteString("<title>decongestant consistency matrix</title>\n")
	fmt.Fprintf(&b, "<style>%s%s</style>\n</head>\n<body>\n<main>\n", pageCSS, matrixCSS)
	b.WriteString("<h1>decongestant consistency matrix</h1>\n")
	fmt.Fprintf(&b, `<p class="sub">The consistency thesis' experiment (its section 4.2.3) made precise, with where reads go as one more dimension. `+
		`%d cells, %s wall time.</p>`+"\n", len(m.Cells), esc(fmtWall(m.WallS)))
	writeMatrixConfig(&b, m)
	b.WriteString(`<p class="note">A read is <b>stale</b> when it returned a version older than the newest version whose write was ` +
		`acknowledged before the read was sent; its age is the versions it missed and the time since a newer version was first acknowledged. ` +
		`<b>Unacknowledged</b> reads returned a write not yet acknowledged when they were sent. Latencies are of the operations that returned, ` +
		`from invocation to completion. Each cell ran once per iteration; bars and table values are the mean over iterations, ` +
		`error bars and small print the min-max.</p>` + "\n")
	writeThesis(&b, m, findings)
	writeWhereReadsGo(&b, m, pal)
	for _, s := range m.Config.Setups {
		writeMatrixSetup(&b, m, s, pal)
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
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

func writeMatrixConfig(b *strings.Builder, m *results.Matrix) {
	c := m.Config
	b.WriteString("<h2>Configuration</h2>\n")
	if m.Interrupted {
		b.WriteString(`<p><span class="warn">interrupted: the cells not reached are absent</span></p>` + "\n")
	}
	b.WriteString("<dl class=\"config\">\n")
	item := func(k, v string) { fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>\n", esc(k), esc(v)) }
	setups := make([]string, len(c.Setups))
	for i, s := range c.Setups {
		setups[i] = fmt.Sprintf("%s (%d writer(s), %d reader(s), concerns per %s)", s.Name, s.Writers, s.Readers, s.Concerns)
	}
	sizes := make([]string, len(c.Sizes))
	for i, s := range c.Sizes {
		sizes[i] = results.SizeLabel(s)
	}
	item("uri", orDash(redact.URI(c.URI))) // redacted again: a file from elsewhere may not be
	item("mongod", orDash(m.MongodVersion))
	item("started at", orDash(m.StartedAt))
	item("wall time", fmtWall(m.WallS))
	item("setups", strings.Join(setups, "; "))
	item("document sizes", strings.Join(sizes, ", "))
	item("write concerns", strings.Join(c.W, ", "))
	item("read concerns", strings.Join(c.RC, ", "))
	item("reads", strings.Join(c.Reads, ", "))
	item("iterations", strconv.Itoa(c.Iterations))
	item("writes per writer", strconv.Itoa(c.Writes))
	item("write interval", strconv.FormatFloat(c.WriteIntervalMs, 'g', -1, 64)+" ms")
	item("read interval", strconv.FormatFloat(c.ReadIntervalMs, 'g', -1, 64)+" ms")
	item("policies' bound", orDash(c.MaxStaleness))
	item("reads fetch", map[bool]string{true: "the whole document", false: "version and value only"}[c.WholeReads])
	b.WriteString("</dl>\n")
}

// writeThesis writes the thesis' findings beside ours.
func writeThesis(b *strings.Builder, m *results.Matrix, findings []ThesisFinding) {
	b.WriteString(`<h2 id="thesis">The consistency thesis beside this machine</h2>` + "\n")
	b.WriteString(`<p class="note">The thesis' published findings (its summary, §5.1, and the trends of §4.3) and their counterparts here, ` +
		`from reads on the primary only, as the thesis read. "This machine" is the mean difference over the matched cells ` +
		`(same setup, size and other concern) with its 95 % confidence interval from the spread over iterations, and n, the fewest ` +
		`iterations of a cell used. The verdicts are those of <code>decongestant reproduce</code>: a published difference agrees when ` +
		`the whole interval is within a factor of 2 of it, a trend when the whole interval is above 0; fewer than three iterations ` +
		`are inconclusive. Where the thesis does not say between which sizes its size effect is measured, the smallest and the ` +
		`largest size here are compared.</p>` + "\n")
	for _, c := range thesisCaveats(m) {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", esc(c))
	}
	b.WriteString("<div class=\"scroll\"><table class=\"claims\">\n<thead><tr><th class=\"l\">finding</th>" +
		"<th>published</th><th>this machine</th><th class=\"l\">verdict</th></tr></thead>\n<tbody>\n")
	for _, f := range findings {
		fmt.Fprintf(b, `<tr><td class="l find">%s</td><td class="n">%s</td><td class="n est">%s</td><td class="l %s">%s<div class="rule">%s</div></td></tr>`+"\n",
			esc(f.Text), esc(f.Thesis), esc(f.Ours), f.Class, esc(f.Verdict), esc(f.Rule))
	}
	b.WriteString("</tbody>\n</table></div>\n")
}

// writeWhereReadsGo writes, per read target and (w, rc) pair, the share of
// stale reads and the read latency over every setup and size.
func writeWhereReadsGo(b *strings.Builder, m *results.Matrix, pal palette) {
	b.WriteString(`<h2 id="reads">Where reads go</h2>` + "\n")
	b.WriteString(`<p class="note">The dimension the thesis left implicit (it read from the primary). Mean over every setup and size of the cells' means; ` +
		`n/a: MongoDB rejects linearizable reads off the primary.</p>` + "\n")
	pairs := matrixPairs(m.Config)
	for _, mm := range []matrixMetric{matrixMetrics[2], matrixMetrics[1]} {
		fmt.Fprintf(b, "<h3>%s</h3>\n<div class=\"scroll\"><table class=\"reads\">\n<thead><tr><th class=\"l\">read</th>", esc(mm.yTitle))
		for _, p := range pairs {
			fmt.Fprintf(b, "<th>w:%s rc:%s</th>", esc(p[0]), esc(p[1]))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, read := range m.Config.Reads {
			fmt.Fprintf(b, `<tr><td class="l"><span class="sw" style="background:%s"></span>%s</td>`, esc(pal.color(read)), esc(read))
			for _, p := range pairs {
				v, n, skipped := meanOver(m, p[0], p[1], read, mm.of)
				switch {
				case n > 0:
					fmt.Fprintf(b, `<td class="n">%s</td>`, esc(fmtNum(v)))
				case skipped:
					b.WriteString(`<td class="n skip">n/a</td>`)
				default:
					b.WriteString(`<td class="n">-</td>`)
				}
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table></div>\n")
	}
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

// writeMatrixSetup writes one setup's figures and table.
func writeMatrixSetup(b *strings.Builder, m *results.Matrix, s results.MatrixSetup, pal palette) {
	title, ok := matrixSetupTitles[s.Name]
	if !ok {
		title = s.Name
	}
	fmt.Fprintf(b, "<section class=\"matrix-setup\" id=\"setup-%s\">\n<h2>%s</h2>\n", esc(s.Name), esc(title))
	fmt.Fprintf(b, `<p class="note">%d writer(s) and %d reader(s) on one document; concerns given per %s.</p>`+"\n",
		s.Writers, s.Readers, esc(s.Concerns))
	for _, mm := range matrixMetrics {
		fmt.Fprintf(b, "<h3>%s</h3>\n", esc(mm.name))
		for _, size := range m.Config.Sizes {
			b.WriteString(string(chart.HTML(buildMatrixBars(m, s.Name, size, mm, pal))))
		}
	}
	b.WriteString("<h3>Numbers</h3>\n")
	writeMatrixTable(b, m, s.Name, pal)
	b.WriteString("</section>\n")
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

// writeMatrixTable writes one row per cell of a setup: the means over
// iterations of the latencies' mean, P50 and P99, the stale share and
// ages, and the unacknowledged reads, with the min-max of the means.
func writeMatrixTable(b *strings.Builder, m *results.Matrix, setup string, pal palette) {
	b.WriteString("<div class=\"scroll\"><table class=\"matrix\">\n<thead><tr>" +
		`<th class="l">size</th><th class="l">w</th><th class="l">rc</th><th class="l">read</th><th>it.</th>` +
		"<th>write mean (ms)</th><th>write P50</th><th>write P99</th>" +
		"<th>read mean (ms)</th><th>read P50</th><th>read P99</th>" +
		"<th>stale %</th><th>age max (versions)</th><th>age max (ms)</th><th>unacked %</th><th>reads</th></tr></thead>\n<tbody>\n")
	for _, c := range m.Cells {
		if c.Setup != setup {
			continue
		}
		fmt.Fprintf(b, `<tr><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td><td class="l"><span class="sw" style="background:%s"></span>%s</td>`,
			esc(results.SizeLabel(c.DocSize)), esc(c.W), esc(c.RC), esc(pal.color(c.Read)), esc(c.Read))
		if !c.Measured() {
			why := "skipped: " + c.Skipped
			if c.Skipped == "" {
				why = "failed: " + strings.Join(c.Failed, "; ")
			}
			fmt.Fprintf(b, `<td class="n">0</td><td class="l skip" colspan="11">%s</td></tr>`+"\n", esc(why))
			continue
		}
		s := c.Summary
		fmt.Fprintf(b, `<td class="n">%d</td>`, s.Iterations)
		for _, sp := range []results.Spread{s.WriteMean, s.WriteP50, s.WriteP99, s.ReadMean, s.ReadP50, s.ReadP99, s.StalePct} {
			writeSpreadCell(b, sp)
		}
		fmt.Fprintf(b, `<td class="n">%s</td><td class="n">%s</td><td class="n">%s</td>`,
			esc(fmtCount(s.StaleVersionsMax.Max)), esc(fmtNum(s.StaleMsMax.Max)), esc(fmtNum(s.UnacknowledgedPct.Max)))
		fmt.Fprintf(b, `<td class="n">%s</td></tr>`+"\n", esc(fmtCount(s.Reads.Mean)))
	}
	b.WriteString("</tbody>\n</table></div>\n")
	b.WriteString(`<p class="note">Latencies and stale %: mean over iterations, min-max below. Age max (the stalest read's age) and ` +
		`unacked % (reads that returned a write not yet acknowledged): the highest over the iterations. Reads: mean per iteration.</p>` + "\n")
}

// writeSpreadCell writes a mean with its min-max below when the
// iterations differ.
func writeSpreadCell(b *strings.Builder, sp results.Spread) {
	rng := ""
	if sp.N > 1 && sp.Max > sp.Min {
		rng = `<span class="sd">` + esc(fmtNum(sp.Min)+"-"+fmtNum(sp.Max)) + `</span>`
	}
	fmt.Fprintf(b, `<td class="n">%s%s</td>`, esc(fmtNum(sp.Mean)), rng)
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
