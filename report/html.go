package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// pageCSS is the page's only style sheet, inline so the page renders offline.
const pageCSS = `
body { margin: 0; background: #f6f7f9; color: #222; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.sub, .note { color: #666; font-size: 13px; margin: 4px 0 10px; }
dl.config { display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 2px 14px; margin: 6px 0 12px; font-size: 13px; }
dl.config dt { color: #666; }
dl.config dd { margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.warn { display: inline-block; background: #fde2e1; color: #a00; border-radius: 3px; padding: 0 6px; font-size: 12px; margin-left: 8px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; font-size: 12.5px; }
th, td { padding: 4px 7px; border-bottom: 1px solid #e6e6e6; white-space: nowrap; }
th { background: #eef0f3; font-weight: 600; text-align: right; white-space: normal; vertical-align: bottom; }
th.l, td.l { text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.best td { font-weight: 600; }
.sd { display: block; color: #777; font-size: 11px; font-weight: 400; }
.badge { background: #4e79a7; color: #fff; border-radius: 3px; padding: 0 4px; font-size: 11px; margin-left: 4px; }
.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: baseline; }
svg.chart { display: block; width: 100%; max-width: 920px; height: auto; margin: 10px 0; background: #fff; border: 1px solid #e2e2e2; }
details { margin: 8px 0; font-size: 13px; }
`

// WriteHTML writes one self-contained HTML page: the settings of each input
// (printed as recorded, but for the URI's secrets: redact.URI), the comparison table,
// then the plots as inline SVG. There are no scripts and no external
// resources, so the page renders offline.
//
// Time-series plots are drawn per input, one line per policy: repetition 0
// (or the lowest present) as a solid line, other repetitions as lighter lines.
// The trade-off scatter gathers every (input, policy).
//
// An input holding a client-count sweep (runs with Run.Clients > 0, two or more
// counts) gets a sweep section after the comparison, drawn as the Decongestant
// paper's figures 5-7: read throughput, P80 read latency and secondary share
// against clients (one line per policy, mean over repetitions with min-max
// bars), then read throughput and P80 read latency against the S-probe's
// staleness P80 (one point per policy and count, labelled with the count), and
// a table of the same numbers. Its comparison rows and time series are per
// client count.
//
// Runs that record their members get a per-member section after the time
// series (per client count in a sweep): per run the members' shares of the
// routed reads and, for policies that route per member, their weights, as
// stacked areas over time with a colour per member, and a table over the
// periods after warm-up (see the package doc); with member stats also each
// member's cache miss rate and CPU over time, a line per member.
//
// Runs whose summaries measure reconfigurations get a table of them after
// the time series and the events.
//
// Runs that record the benchmark process's heap and goroutines get, after
// those, a plot of each over time (a line per run) and a table per run of
// the soak verdict, the reads check and the policy's punctuality.
//
// A TPC-C input also gets a TPC-C section after its time series: tpmC,
// Stock-Level throughput and Stock-Level P80 per minute (per period for runs
// shorter than a minute), the per-run numbers of WriteText, the latency by
// transaction type and the consistency checks.
func WriteHTML(w io.Writer, in []Input) error {
	if err := checkInputs(in); err != nil {
		return err
	}
	pal := newPalette(in)
	rows := buildRows(in)
	several := len(in) > 1
	var b strings.Builder
	writeHead(&b, in)

	b.WriteString("<h2>Configuration</h2>\n")
	for _, x := range in {
		writeConfig(&b, x)
	}

	b.WriteString(`<h2 id="comparison">Comparison</h2>` + "\n")
	writeTable(&b, in, rows, pal, several)
	b.WriteString(`<p class="note">Summaries after warm-up. With several repetitions: mean ± sample standard deviation. ` +
		`Relative = read throughput / best read throughput among the policies of the same input`)
	if rowsHaveClients(rows) {
		b.WriteString(` and client count`)
	}
	b.WriteString(`.</p>` + "\n")

	for i, x := range in {
		if sw := findSweep(x); sw != nil {
			writeFragment(&b, "sweep", newSweepView(i, sw, pal, several))
		}
	}
	writeTimeSeriesSections(&b, in, pal)

	b.WriteString(`<h2 id="tradeoff">Trade-off</h2>` + "\n")
	per := "policy"
	if several {
		per = "policy and input (marker shape = input)"
	}
	fmt.Fprintf(&b, `<p class="note">One point per %s: x = staleness P80, y = read throughput, from the summaries; `+
		`error bars ±1 sd over repetitions.</p>`+"\n", per)
	b.WriteString(string(chart.HTML(buildTradeoff(in, rows, pal))))

	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHead writes the document's head and the page title.
func writeHead(b *strings.Builder, in []Input) {
	names := make([]string, len(in))
	for i, x := range in {
		names[i] = x.Name
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">` + "\n")
	fmt.Fprintf(b, "<title>decongestant report: %s</title>\n", esc(strings.Join(names, ", ")))
	fmt.Fprintf(b, "<style>%s</style>\n</head>\n<body>\n<main>\n", pageCSS)
	b.WriteString("<h1>decongestant bench report</h1>\n")
	fmt.Fprintf(b, "<p class=\"sub\">%d input(s): %s</p>\n", len(in), esc(strings.Join(names, ", ")))
}

// writeTimeSeriesSections writes the time series of every input, split by
// client count in a sweep: the plots, the events, the per-member section of
// runs that record their members and a TPC-C input's section.
func writeTimeSeriesSections(b *strings.Builder, in []Input, pal palette) {
	parts := byClients(in)
	several := len(parts) > 1
	mpal := newMemberPalette(in)
	for i, x := range parts {
		if several {
			fmt.Fprintf(b, "<h2>Time series: %s</h2>\n", esc(x.Name))
		} else {
			b.WriteString("<h2>Time series</h2>\n")
		}
		b.WriteString(`<p class="note">One line per policy: repetition 0 solid, other repetitions lighter. ` +
			`Shaded: warm-up. Dashed vertical lines: phase switches. x = period timestamp t_s.</p>` + "\n")
		for _, ts := range timeSeriesPlots {
			b.WriteString(string(chart.HTML(buildTimeSeries(ts, x, pal, several))))
		}
		writeEvents(b, x)
		if s := reconfigSection(x, pal); s != nil {
			writeFragment(b, "runs", s)
		}
		if s := soakSection(x, pal, several); s != nil {
			writeFragment(b, "runs", s)
		}
		if v := newMembersView(i, x, pal, mpal, several); v != nil {
			writeFragment(b, "members", v)
		}
		if isTPCC(x.Results) {
			writeFragment(b, "tpcc", newTPCCView(i, x, pal, several))
		}
	}
}

// writeConfig writes the settings of one input as a definition list.
func writeConfig(b *strings.Builder, x Input) {
	r := x.Results
	c := r.Config
	fmt.Fprintf(b, "<h3>%s", esc(x.Name))
	if r.Interrupted {
		b.WriteString(`<span class="warn">interrupted: partial results</span>`)
	}
	b.WriteString("</h3>\n<dl class=\"config\">\n")
	item := func(k, v string) {
		fmt.Fprintf(b, "<dt>%s</dt><dd>%s</dd>\n", esc(k), esc(v))
	}
	item("workload", orDash(workloadName(r)))
	item("mix", orDash(c.Mix))
	item("uri", orDash(redact.URI(c.URI))) // redacted again: a file from elsewhere may not be
	item("started at", orDash(c.StartedAt))
	item("clients", fmtConfigClients(c))
	if c.Records > 0 {
		item("records", strconv.FormatInt(c.Records, 10))
	}
	item("duration", fmtSeconds(c.DurationS))
	item("period", fmtSeconds(c.PeriodS))
	item("warm-up", fmtSeconds(c.WarmupS))
	item("repeat", strconv.Itoa(c.Repeat))
	item("policies", orDash(strings.Join(c.Policies, ", ")))
	item("max staleness bound", fmtBound(c.MaxStalenessMS))
	item("S-probe", strconv.FormatBool(c.SProbe))
	item("phases", fmtPhases(c.Phases))
	if len(c.ReconfigAtS) > 0 {
		at := make([]string, len(c.ReconfigAtS))
		for i, v := range c.ReconfigAtS {
			at[i] = fmtSeconds(v)
		}
		item("reconfigurations given", strings.Join(at, ", "))
	}
	if len(c.Balancer) > 0 {
		item("balancer", fmtMap(c.Balancer))
	}
	if len(c.Extra) > 0 {
		item("extra", fmtMap(c.Extra))
	}
	if len(c.Host) > 0 {
		item("host", fmtMap(c.Host))
	}
	b.WriteString("</dl>\n")
}

// writeTable writes the comparison table: the same rows as WriteText.
func writeTable(b *strings.Builder, in []Input, rows []row, pal palette, several bool) {
	b.WriteString("<div class=\"scroll\"><table>\n<thead><tr>")
	if several {
		b.WriteString(`<th class="l">input</th>`)
	}
	clients := rowsHaveClients(rows)
	b.WriteString(`<th class="l">policy</th>`)
	if clients {
		b.WriteString(`<th>clients</th>`)
	}
	b.WriteString(`<th>runs</th>`)
	for c, col := range columns {
		fmt.Fprintf(b, "<th>%s</th>", esc(col.header))
		if c == colReadTput {
			fmt.Fprintf(b, "<th>%s</th>", relativeHeader)
		}
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		if r.best {
			b.WriteString(`<tr class="best">`)
		} else {
			b.WriteString("<tr>")
		}
		if several {
			fmt.Fprintf(b, `<td class="l">%s</td>`, esc(in[r.input].Name))
		}
		fmt.Fprintf(b, `<td class="l"><span class="sw" style="background:%s"></span>%s</td>`, esc(pal.color(r.policy)), esc(r.policy))
		if clients {
			fmt.Fprintf(b, `<td class="n">%s</td>`, fmtClients(r.clients))
		}
		fmt.Fprintf(b, `<td class="n">%d</td>`, r.runs)
		for c, col := range columns {
			m, sd := r.stats[c].parts(col)
			if sd != "" {
				sd = `<span class="sd">` + esc(sd) + `</span>`
			}
			fmt.Fprintf(b, `<td class="n">%s%s</td>`, esc(m), sd)
			if c == colReadTput {
				rel := "-"
				if finite(r.rel) {
					rel = fmt.Sprintf("%.2fx", r.rel)
				}
				if r.best {
					rel += `<span class="badge">best</span>`
				}
				fmt.Fprintf(b, `<td class="n">%s</td>`, rel)
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table></div>\n")
}

// writeEvents lists the runs' events (phase switches, bound crossings,
// balancer drops) in a collapsed section.
func writeEvents(b *strings.Builder, x Input) {
	type ev struct {
		run *results.Run
		e   results.Event
	}
	var evs []ev
	for i := range x.Results.Runs {
		run := &x.Results.Runs[i]
		for _, e := range run.Events {
			evs = append(evs, ev{run, e})
		}
	}
	if len(evs) == 0 {
		return
	}
	fmt.Fprintf(b, "<details><summary>Events (%d)</summary>\n<table>\n", len(evs))
	b.WriteString(`<thead><tr><th class="l">policy</th><th>repetition</th><th>t_s</th><th class="l">kind</th><th class="l">detail</th></tr></thead>` + "\n<tbody>\n")
	for _, e := range evs {
		fmt.Fprintf(b, `<tr><td class="l">%s</td><td class="n">%d</td><td class="n">%s</td><td class="l">%s</td><td class="l">%s</td></tr>`+"\n",
			esc(e.run.Policy), e.run.Repetition, esc(fmtNum(e.e.TS)), esc(e.e.Kind), esc(e.e.Detail))
	}
	b.WriteString("</tbody>\n</table></details>\n")
}

// esc escapes s for XML text and attribute values (and so for HTML),
// replacing characters XML cannot carry.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
