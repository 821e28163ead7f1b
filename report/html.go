package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/report/chart"
)

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
	return writePage(w, "bench", newBenchPage(in))
}

// benchPage is the page WriteHTML writes (template "bench").
type benchPage struct {
	Names      string // the inputs'
	Inputs     int
	Configs    []configView
	Comparison table
	PerCount   bool // the comparison's rows are per client count
	Sweeps     []*sweepView
	Parts      []timeSeriesView
	Several    bool // several inputs: the trade-off's marker shape is the input
	Tradeoff   template.HTML
}

// configView is the settings of one input.
type configView struct {
	Name        string
	Interrupted bool
	Items       []item
}

// timeSeriesView is the time series of one input (one client count of a
// sweep) and what follows them; nil sections are left out.
type timeSeriesView struct {
	Several  bool // several parts: the heading names this one
	Name     string
	Plots    []template.HTML
	Events   *table
	Reconfig *runsSection
	Soak     *runsSection
	Members  *membersView
	TPCC     *tpccView
}

func newBenchPage(in []Input) benchPage {
	pal := newPalette(in)
	rows := buildRows(in)
	several := len(in) > 1
	names := make([]string, len(in))
	for i, x := range in {
		names[i] = x.Name
	}
	p := benchPage{Names: strings.Join(names, ", "), Inputs: len(in),
		Comparison: comparisonTable(in, rows, pal, several), PerCount: rowsHaveClients(rows),
		Several: several, Tradeoff: chart.HTML(buildTradeoff(in, rows, pal))}
	for i, x := range in {
		p.Configs = append(p.Configs, newConfigView(x))
		if sw := findSweep(x); sw != nil {
			p.Sweeps = append(p.Sweeps, newSweepView(i, sw, pal, several))
		}
	}
	parts := byClients(in)
	mpal := newMemberPalette(in)
	for i, x := range parts {
		p.Parts = append(p.Parts, newTimeSeriesView(i, x, pal, mpal, len(parts) > 1))
	}
	return p
}

// newTimeSeriesView is the time series of part i of the inputs split by
// client count: the plots, the events, the tables after the runs, the
// per-member section of runs that record their members and a TPC-C input's
// section.
func newTimeSeriesView(i int, x Input, pal, mpal palette, several bool) timeSeriesView {
	v := timeSeriesView{Several: several, Name: x.Name, Events: eventTable(x),
		Reconfig: reconfigSection(x, pal), Soak: soakSection(x, pal, several),
		Members: newMembersView(i, x, pal, mpal, several)}
	for _, ts := range timeSeriesPlots {
		v.Plots = append(v.Plots, chart.HTML(buildTimeSeries(ts, x, pal, several)))
	}
	if isTPCC(x.Results) {
		v.TPCC = newTPCCView(i, x, pal, several)
	}
	return v
}

// newConfigView is the settings of one input.
func newConfigView(x Input) configView {
	r := x.Results
	c := r.Config
	v := configView{Name: x.Name, Interrupted: r.Interrupted}
	add := func(k, val string) { v.Items = append(v.Items, item{k, val}) }
	add("workload", orDash(workloadName(r)))
	add("mix", orDash(c.Mix))
	add("uri", orDash(redact.URI(c.URI))) // redacted again: a file from elsewhere may not be
	add("started at", orDash(c.StartedAt))
	add("clients", fmtConfigClients(c))
	if c.Records > 0 {
		add("records", strconv.FormatInt(c.Records, 10))
	}
	add("duration", fmtSeconds(c.DurationS))
	add("period", fmtSeconds(c.PeriodS))
	add("warm-up", fmtSeconds(c.WarmupS))
	add("repeat", strconv.Itoa(c.Repeat))
	add("policies", orDash(strings.Join(c.Policies, ", ")))
	add("max staleness bound", fmtBound(c.MaxStalenessMS))
	add("S-probe", strconv.FormatBool(c.SProbe))
	add("phases", fmtPhases(c.Phases))
	if len(c.ReconfigAtS) > 0 {
		at := make([]string, len(c.ReconfigAtS))
		for i, s := range c.ReconfigAtS {
			at[i] = fmtSeconds(s)
		}
		add("reconfigurations given", strings.Join(at, ", "))
	}
	if len(c.Balancer) > 0 {
		add("balancer", fmtMap(c.Balancer))
	}
	if len(c.Extra) > 0 {
		add("extra", fmtMap(c.Extra))
	}
	if len(c.Host) > 0 {
		add("host", fmtMap(c.Host))
	}
	return v
}

// comparisonTable is the comparison: the same rows as WriteText, the best
// of each input (and client count) marked.
func comparisonTable(in []Input, rows []row, pal palette, several bool) table {
	var t table
	if several {
		t.Head = append(t.Head, th{Text: "input", Left: true})
	}
	clients := rowsHaveClients(rows)
	t.Head = append(t.Head, th{Text: "policy", Left: true})
	if clients {
		t.Head = append(t.Head, th{Text: "clients"})
	}
	t.Head = append(t.Head, th{Text: "runs"})
	for c, col := range columns {
		t.Head = append(t.Head, th{Text: col.header})
		if c == colReadTput {
			t.Head = append(t.Head, th{Text: relativeHeader})
		}
	}
	for _, r := range rows {
		var row tr
		if r.best {
			row.Class = "best"
		}
		if several {
			row.Cells = append(row.Cells, textCell(in[r.input].Name))
		}
		row.Cells = append(row.Cells, swatchCell(pal.color(r.policy), r.policy))
		if clients {
			row.Cells = append(row.Cells, numCell(fmtClients(r.clients), ""))
		}
		row.Cells = append(row.Cells, numCell(strconv.Itoa(r.runs), ""))
		for c, col := range columns {
			row.Cells = append(row.Cells, numCell(r.stats[c].parts(col)))
			if c == colReadTput {
				rel := numCell("-", "")
				if finite(r.rel) {
					rel.Text = fmt.Sprintf("%.2fx", r.rel)
				}
				if r.best {
					rel.Badge = "best"
				}
				row.Cells = append(row.Cells, rel)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// eventTable lists the runs' events (phase switches, bound crossings,
// balancer drops), shown collapsed; nil when there are none.
func eventTable(x Input) *table {
	t := table{Head: []th{{"policy", true}, {"repetition", false}, {"t_s", false}, {"kind", true}, {"detail", true}}}
	for i := range x.Results.Runs {
		run := &x.Results.Runs[i]
		for _, e := range run.Events {
			t.Rows = append(t.Rows, tr{Cells: []td{textCell(run.Policy), numCell(strconv.Itoa(run.Repetition), ""),
				numCell(fmtNum(e.TS), ""), textCell(e.Kind), textCell(e.Detail)}})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &t
}
