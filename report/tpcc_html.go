package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/decongestant/decongestant/report/chart"
)

// writeTPCCHTML writes the TPC-C section of one input: the per-minute plots,
// a table with one row per run, the settings, and per run the latency by
// transaction type and the consistency checks. The section is well-formed
// XML, like the plots.
func writeTPCCHTML(b *strings.Builder, i int, x Input, pal palette, several bool) {
	fmt.Fprintf(b, "<section class=\"tpcc\" id=\"tpcc-%d\">\n", i)
	if several {
		fmt.Fprintf(b, "<h2>TPC-C: %s</h2>\n", esc(x.Name))
	} else {
		b.WriteString("<h2>TPC-C</h2>\n")
	}
	b.WriteString(`<p class="note">tpmC = New-Order transactions per minute. Stock-Level is the routed read ` +
		`transaction: its throughput and P80 latency are the read series. x = end of each wall-clock minute ` +
		`(or of each period for runs shorter than a minute).</p>` + "\n")
	for _, p := range tpccPlots {
		b.WriteString(string(chart.HTML(buildTPCCChart(p, x, pal, several))))
	}
	runs := tpccRuns(x.Results)
	if len(runs) == 0 {
		b.WriteString("<p>(no runs)</p>\n</section>\n")
		return
	}

	b.WriteString("<h3>Runs</h3>\n<div class=\"scroll\"><table>\n<thead><tr>")
	b.WriteString(`<th class="l">policy</th><th>repetition</th>`)
	for _, c := range tpccRunColumns {
		fmt.Fprintf(b, "<th>%s</th>", esc(c.header))
	}
	b.WriteString(`<th class="l">checks</th></tr></thead>` + "\n<tbody>\n")
	for _, t := range runs {
		fmt.Fprintf(b, `<tr><td class="l"><span class="sw" style="background:%s"></span>%s</td><td class="n">%d</td>`,
			esc(pal.color(t.run.Policy)), esc(t.run.Policy), t.run.Repetition)
		for _, c := range tpccRunColumns {
			fmt.Fprintf(b, `<td class="n">%s</td>`, esc(c.get(t)))
		}
		fmt.Fprintf(b, `<td class="l">%s</td></tr>`+"\n", esc(t.checksShort()))
	}
	b.WriteString("</tbody>\n</table></div>\n")
	b.WriteString(`<p class="note">aborts = New-Order rollbacks (TPC-C's 1 % invalid items); retries = transactions ` +
		`retried after a TransientTransactionError; CPU ms/txn = client CPU per transaction; server commits and ` +
		`aborts = transactions as counted by the primary.</p>` + "\n")

	settings, common := commonSettings(runs)
	if common && len(settings) > 0 {
		writeTPCCSettings(b, settings)
	}
	for _, t := range runs {
		writeTPCCRunHTML(b, t, pal, !common)
	}
	b.WriteString("</section>\n")
}

// writeTPCCSettings writes the workload settings as a definition list.
func writeTPCCSettings(b *strings.Builder, settings map[string]any) {
	b.WriteString("<dl class=\"config\">\n")
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>\n", esc(k), esc(fmt.Sprint(settings[k])))
	}
	b.WriteString("</dl>\n")
}

// writeTPCCRunHTML writes the details of one run.
func writeTPCCRunHTML(b *strings.Builder, t tpccRun, pal palette, settings bool) {
	fmt.Fprintf(b, `<h3><span class="sw" style="background:%s"></span>%s, repetition %d</h3>`+"\n",
		esc(pal.color(t.run.Policy)), esc(t.run.Policy), t.run.Repetition)
	if t.res == nil {
		b.WriteString("<p class=\"note\">No TPC-C report in the results.</p>\n")
		return
	}
	if t.err != nil {
		fmt.Fprintf(b, "<p><span class=\"warn\">%s</span></p>\n", esc(t.err.Error()))
	}
	if f := t.facts(); f != "" {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", esc(f))
	}
	if settings && len(t.res.Settings) > 0 {
		writeTPCCSettings(b, t.res.Settings)
	}

	if types := t.res.txnTypes(); len(types) == 0 {
		b.WriteString("<p class=\"note\">No per-type results.</p>\n")
	} else {
		b.WriteString("<div class=\"scroll\"><table class=\"latency\">\n<thead><tr><th class=\"l\">type</th>")
		for _, c := range tpccLatencyColumns {
			h := c.header
			if c.latency {
				h += " ms"
			}
			fmt.Fprintf(b, "<th>%s</th>", esc(h))
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, name := range types {
			fmt.Fprintf(b, `<tr><td class="l">%s</td>`, esc(name))
			for _, c := range tpccLatencyColumns {
				fmt.Fprintf(b, `<td class="n">%s</td>`, esc(c.get(t.res.Txns[name])))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table></div>\n")
	}

	sum, failed := t.checks()
	fmt.Fprintf(b, "<p>Consistency checks: %s", esc(sum))
	if len(failed) > 0 {
		fmt.Fprintf(b, `<span class="warn">%d not passed</span>`, len(failed))
	}
	b.WriteString("</p>\n")
	if len(failed) == 0 {
		return
	}
	b.WriteString("<div class=\"scroll\"><table class=\"checks\">\n")
	b.WriteString(`<thead><tr><th class="l">clause</th><th class="l">check</th><th class="l">status</th><th class="l">detail</th></tr></thead>` + "\n<tbody>\n")
	for _, c := range failed {
		fmt.Fprintf(b, `<tr><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td><td class="l">%s</td></tr>`+"\n",
			esc(orDash(c.Clause)), esc(c.Name), esc(c.status()), esc(c.Detail))
	}
	b.WriteString("</tbody>\n</table></div>\n")
}
