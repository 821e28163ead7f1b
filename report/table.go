package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/decongestant/decongestant/results"
)

// column is one summary metric of the comparison table.
type column struct {
	header string
	get    func(results.Summary) float64
	count  bool // an integer count: no decimals unless it is a mean
}

// columns are the summary metrics in table order. The relative column is
// inserted after the first (read throughput) by the writers.
var columns = []column{
	{header: "read ops/s", get: func(s results.Summary) float64 { return s.ReadTput }},
	{header: "write ops/s", get: func(s results.Summary) float64 { return s.WriteTput }},
	{header: "read P80 ms", get: func(s results.Summary) float64 { return s.ReadP80MS }},
	{header: "read P99 ms", get: func(s results.Summary) float64 { return s.ReadP99MS }},
	{header: "read P99.9 ms", get: readP999},
	{header: "secondary %", get: func(s results.Summary) float64 { return s.SecondaryPct }},
	{header: "stale P80 ms", get: probed(func(s results.Summary) float64 { return s.StalenessP80MS })},
	{header: "stale max ms", get: probed(func(s results.Summary) float64 { return s.StalenessMaxMS })},
	{header: "violations", get: probed(func(s results.Summary) float64 { return float64(s.BoundViolations) }), count: true},
	{header: "max lag ms", get: func(s results.Summary) float64 { return s.MaxLagMS }},
	{header: "errors", get: func(s results.Summary) float64 { return float64(s.Errors) }, count: true},
}

// Indices into columns used outside the table.
const (
	colReadTput    = 0
	colStaleP80    = 6
	relativeHeader = "relative"
)

// readP999 is a summary's P99.9 read latency, or NaN (shown "-") in results
// written before it was recorded: there it is 0 while the P99, which cannot
// exceed it, is not.
func readP999(s results.Summary) float64 {
	if s.ReadP999MS == 0 && s.ReadP99MS > 0 {
		return math.NaN()
	}
	return s.ReadP999MS
}

// probed wraps a staleness metric, which only the S probe measures: NaN
// (shown "-") for a run without probes (no --sprobe), where its 0 would read
// as "never stale".
func probed(get func(results.Summary) float64) func(results.Summary) float64 {
	return func(s results.Summary) float64 {
		if s.Probes == 0 {
			return math.NaN()
		}
		return get(s)
	}
}

// stat is the mean and sample standard deviation of one metric over the
// repetitions of a policy.
type stat struct {
	mean, sd float64
	n        int
}

func newStat(vs []float64) stat {
	s := stat{n: len(vs)}
	if s.n == 0 {
		return stat{mean: math.NaN(), sd: math.NaN()}
	}
	for _, v := range vs {
		s.mean += v
	}
	s.mean /= float64(s.n)
	if s.n > 1 {
		var ss float64
		for _, v := range vs {
			ss += (v - s.mean) * (v - s.mean)
		}
		s.sd = math.Sqrt(ss / float64(s.n-1))
	}
	return s
}

// format prints the mean, and "±sd" when there was more than one repetition.
func (s stat) format(c column) string {
	m, sd := s.parts(c)
	if sd != "" {
		return m + " " + sd
	}
	return m
}

// parts returns the formatted mean and "±sd" ("" for a single repetition,
// or a mean that is not a number).
func (s stat) parts(c column) (mean, sd string) {
	f := fmtNum
	if c.count {
		f = fmtCount
	}
	if s.n > 1 && finite(s.mean) {
		return f(s.mean), "±" + fmtNum(s.sd)
	}
	return f(s.mean), ""
}

// row is one (input, policy) line of the comparison, or in a client-count
// sweep one (input, clients, policy) line: the summaries of its repetitions
// aggregated.
type row struct {
	input   int
	clients int // the runs' count in a sweep, else 0
	policy  string
	runs    int
	stats   []stat // parallel to columns
	rel     float64
	best    bool
}

// relative formats the read throughput relative to the best policy of the
// same input (and client count): "1.00x best", "0.45x", or "-" when
// undefined.
func (r row) relative() string {
	if !finite(r.rel) {
		return "-"
	}
	s := fmt.Sprintf("%.2fx", r.rel)
	if r.best {
		s += " best"
	}
	return s
}

// buildRows aggregates the runs of every input by policy, and in a sweep by
// client count then policy.
func buildRows(in []Input) []row {
	var rows []row
	for i, x := range in {
		for _, part := range splitClients(x) {
			first := len(rows)
			for _, g := range groupRuns(part.Results) {
				r := row{input: i, clients: part.clients, policy: g.policy, runs: len(g.runs), stats: make([]stat, len(columns))}
				vs := make([]float64, len(g.runs))
				for c, col := range columns {
					for k, run := range g.runs {
						vs[k] = col.get(run.Summary)
					}
					r.stats[c] = newStat(vs)
				}
				rows = append(rows, r)
			}
			markRelative(rows[first:])
		}
	}
	return rows
}

// markRelative sets each row's read throughput relative to the best of rows
// (one input's policies at one client count) and marks the best. With no positive throughput the
// ratio is undefined and nothing is marked.
func markRelative(rows []row) {
	best := 0.0
	for _, r := range rows {
		if m := r.stats[colReadTput].mean; finite(m) && m > best {
			best = m
		}
	}
	for i := range rows {
		rows[i].rel = math.NaN()
		m := rows[i].stats[colReadTput].mean
		if best > 0 && finite(m) {
			rows[i].rel = m / best
			rows[i].best = m == best
		}
	}
}

// inputLine describes the settings of one input on one line.
func inputLine(x Input) string {
	r := x.Results
	c := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "%s: workload %s, mix %s, %s, duration %s (period %s, warm-up %s), repeat %d, max staleness bound %s",
		x.Name, orDash(workloadName(r)), orDash(c.Mix), clientsPhrase(c), fmtSeconds(c.DurationS),
		fmtSeconds(c.PeriodS), fmtSeconds(c.WarmupS), c.Repeat, fmtBound(c.MaxStalenessMS))
	if len(c.Phases) > 0 {
		fmt.Fprintf(&b, ", phases at %s", fmtPhases(c.Phases))
	}
	if r.Interrupted {
		b.WriteString(", INTERRUPTED")
	}
	return b.String()
}

// oneLine replaces control characters (tabs, newlines) from the input with
// spaces so they cannot break the table.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteText writes a plain-text comparison table for in: per input a line
// with its settings, then one row per policy with the summaries aggregated
// over repetitions (mean, and ±sample standard deviation when there is more
// than one). The relative column is the read throughput divided by the best
// read throughput among the policies of the same input; the best is marked.
//
// In a client-count sweep (runs that record their client count) the rows are
// per client count and policy, relative to the best policy at the same count,
// and the table is followed by the sweep's table (the Decongestant paper, figs
// 5-7): per policy and count the mean and the min-max over repetitions of read
// throughput, P80 read latency, secondary share and S-probe staleness P80.
//
// Runs whose summaries measure reconfigurations are followed by a table of
// them, runs that record the benchmark process's heap and goroutines by a
// table of the soak verdict, the reads check and the policy's punctuality,
// and runs that record their members by a per-member table per run (per
// client count in a sweep), over the periods after warm-up.
//
// A TPC-C input (workload "tpcc", or runs carrying a TPC-C report) is
// followed by a TPC-C section (one per client count in a sweep): per run tpmC, transactions, aborts, retries,
// errors and client CPU per transaction, then per run the server counters,
// the latency by transaction type and the consistency checks.
func WriteText(w io.Writer, in []Input) error {
	if err := checkInputs(in); err != nil {
		return err
	}
	rows := buildRows(in)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, x := range in {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, oneLine(inputLine(x)))
		writeTextRows(tw, rows, i, hasClients(x.Results))
		// Flush per input so each input's table gets its own column widths.
		if err := tw.Flush(); err != nil {
			return err
		}
		if sw := findSweep(x); sw != nil {
			if err := writeSweepText(w, sw); err != nil {
				return err
			}
		}
		for _, part := range splitClients(x) {
			if isTPCC(x.Results) {
				if err := writeTPCCText(w, part.Input); err != nil {
					return err
				}
			}
			if err := writeReconfigText(w, part.Input); err != nil {
				return err
			}
			if err := writeSoakText(w, part.Input); err != nil {
				return err
			}
			if err := writeMembersText(w, part.Input); err != nil {
				return err
			}
		}
	}
	return tw.Flush()
}

// writeTextRows writes the header and the rows of input i; with clients,
// a clients column follows the policy.
func writeTextRows(tw io.Writer, rows []row, i int, clients bool) {
	fmt.Fprint(tw, "policy")
	if clients {
		fmt.Fprint(tw, "\tclients")
	}
	fmt.Fprint(tw, "\truns")
	for c, col := range columns {
		fmt.Fprint(tw, "\t", col.header)
		if c == colReadTput {
			fmt.Fprint(tw, "\t", relativeHeader)
		}
	}
	fmt.Fprintln(tw)
	n := 0
	for _, r := range rows {
		if r.input != i {
			continue
		}
		n++
		fmt.Fprint(tw, oneLine(r.policy))
		if clients {
			fmt.Fprint(tw, "\t", fmtClients(r.clients))
		}
		fmt.Fprintf(tw, "\t%d", r.runs)
		for c, col := range columns {
			fmt.Fprint(tw, "\t", r.stats[c].format(col))
			if c == colReadTput {
				fmt.Fprint(tw, "\t", r.relative())
			}
		}
		fmt.Fprintln(tw)
	}
	if n == 0 {
		fmt.Fprintln(tw, "(no runs)")
	}
}

// fmtClients formats a run's client count: "-" when not recorded.
func fmtClients(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// clientsPhrase describes the invocation's clients in a sentence: "64
// clients", or "clients 20, 60, 100 (sweep)".
func clientsPhrase(c results.Config) string {
	if len(c.ClientsSweep) == 0 {
		return fmt.Sprintf("%d clients", c.Clients)
	}
	return "clients " + fmtConfigClients(c)
}

// fmtConfigClients formats the invocation's clients: "64", or a sweep's
// counts "20, 60, 100 (sweep)".
func fmtConfigClients(c results.Config) string {
	if len(c.ClientsSweep) == 0 {
		return strconv.Itoa(c.Clients)
	}
	s := make([]string, len(c.ClientsSweep))
	for i, n := range c.ClientsSweep {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ") + " (sweep)"
}
