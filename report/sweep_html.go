package report

import (
	"fmt"
	"strings"

	"github.com/decongestant/decongestant/report/chart"
)

// writeSweepHTML writes the sweep section of input i: the Decongestant paper's
// fig. 5 as three line charts against clients, figs. 6/7 as two scatter plots
// against staleness, and a table of the numbers drawn.
func writeSweepHTML(b *strings.Builder, i int, sw *sweep, pal palette, several bool) {
	fmt.Fprintf(b, "<section class=\"sweep\" id=\"sweep-%d\">\n", i)
	b.WriteString("<h2>Client-count sweep (the Decongestant paper, figs 5-7)")
	if several {
		b.WriteString(": " + esc(sw.x.Name))
	}
	b.WriteString("</h2>\n")
	fmt.Fprintf(b, `<p class="note">One point per policy and client count: the run summaries (after warm-up), `+
		`mean over the repetitions; bars in the plots and ranges in the table: min-max over the repetitions. `+
		`Staleness is the S probe's P80 (the Decongestant paper plots the 80th percentile of the staleness its S workload `+
		`measured; bench <code style="white-space:nowrap">--sprobe</code>). The Decongestant paper draws figs. 6 (YCSB-A reads) and 7 (TPC-C Stock-Level) alike; `+
		`here they are fig. %s for this %s workload.</p>`+"\n", sw.tradeoffFig(), esc(orDash(workloadName(sw.x.Results))))
	for _, p := range sweepLinePlots {
		b.WriteString(string(chart.HTML(buildSweepLine(p, sw, pal, several))))
	}
	for _, p := range sweepTradeoffPlots {
		b.WriteString(string(chart.HTML(buildSweepTradeoff(p, sw, pal, several))))
	}
	writeSweepTable(b, sw, pal)
	b.WriteString("</section>\n")
}

// writeSweepTable writes one row per policy and client count: the mean of
// each metric with its min-max below when the repetitions differ.
func writeSweepTable(b *strings.Builder, sw *sweep, pal palette) {
	b.WriteString("<div class=\"scroll\"><table class=\"sweep\">\n<thead><tr>")
	b.WriteString(`<th class="l">policy</th><th>clients</th><th>runs</th>`)
	for _, m := range sweepMetrics {
		fmt.Fprintf(b, "<th>%s</th>", esc(m.header))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, pt := range sw.points {
		fmt.Fprintf(b, `<tr><td class="l"><span class="sw" style="background:%s"></span>%s</td><td class="n">%d</td><td class="n">%d</td>`,
			esc(pal.color(pt.policy)), esc(pt.policy), pt.clients, pt.runs)
		for i, v := range pt.values {
			if i == swStale && !sw.sprobe {
				b.WriteString(`<td class="n">-</td>`)
				continue
			}
			rng := ""
			if v.varies() {
				rng = `<span class="sd">` + esc(v.rangeText()) + `</span>`
			}
			fmt.Fprintf(b, `<td class="n">%s%s</td>`, esc(fmtNum(v.mean)), rng)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
	if !sw.sprobe {
		b.WriteString(`<p class="note">stale P80: the runs had no S probe (bench <code style="white-space:nowrap">--sprobe</code>).</p>` + "\n")
	}
}
