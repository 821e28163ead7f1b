package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/decongestant/decongestant/results"
)

// tpccRun is one run with its decoded TPC-C report: res is nil when the run
// has none, err says what of it could not be read.
type tpccRun struct {
	run *results.Run
	res *tpccResult
	err error
}

// tpccRuns decodes the TPC-C reports of r's runs, ordered as the comparison
// (policy in order of first appearance, then repetition).
func tpccRuns(r *results.Results) []tpccRun {
	var out []tpccRun
	for _, g := range groupRuns(r) {
		for _, run := range g.runs {
			res, err := decodeTPCC(run)
			out = append(out, tpccRun{run: run, res: res, err: err})
		}
	}
	return out
}

// cpuPerTxnMS is the client CPU per transaction: the workload's figure, or
// else the runner's CPU per operation (one transaction is one operation).
func (t tpccRun) cpuPerTxnMS() float64 {
	if c := t.result().CPUPerTxnMS; c.ok {
		return c.v
	}
	if c := t.run.Summary.ClientCPUPerOpMS; c > 0 {
		return c
	}
	return math.NaN()
}

// checks summarises the consistency checks: "12/12 pass", "not run", and the
// checks that did not pass.
func (t tpccRun) checks() (summary string, failed []tpccCheck) {
	switch {
	case t.res == nil:
		return "no TPC-C report", nil
	case t.res.Checks == nil:
		return "not run", nil
	case len(t.res.Checks) == 0:
		return "none recorded", nil
	}
	for _, c := range t.res.Checks {
		if !c.passed() {
			failed = append(failed, c)
		}
	}
	n := len(t.res.Checks)
	return fmt.Sprintf("%d/%d pass", n-len(failed), n), failed
}

// checksShort is the checks summary for a table cell: "12/12 pass", or
// "11/12 pass; 3.3.2.2 FAIL" naming at most three checks that did not pass.
func (t tpccRun) checksShort() string {
	sum, failed := t.checks()
	if len(failed) == 0 {
		return sum
	}
	const most = 3
	var names []string
	for i, c := range failed {
		if i == most {
			names = append(names, fmt.Sprintf("%d more", len(failed)-most))
			break
		}
		names = append(names, orDash(c.Clause)+" "+c.status())
	}
	return sum + "; " + strings.Join(names, ", ")
}

// status is a check's status for display: upper case, "?" when missing.
func (c tpccCheck) status() string {
	if c.Status == "" {
		return "?"
	}
	return strings.ToUpper(c.Status)
}

// tpccRunColumns are the per-run summary numbers, in table order; wide ones
// are shown in the HTML table only (the text shows them under each run).
var tpccRunColumns = []struct {
	header string
	get    func(tpccRun) string
	wide   bool
}{
	{header: "tpmC", get: func(t tpccRun) string { return fmtNum(t.result().TpmC.val()) }},
	{header: "txns", get: func(t tpccRun) string { return fmtCount(t.result().Total.val()) }},
	{header: "aborts", get: func(t tpccRun) string { return fmtCount(t.result().Aborts.val()) }},
	{header: "retries", get: func(t tpccRun) string { return fmtCount(t.result().Retries.val()) }},
	{header: "errors", get: func(t tpccRun) string { return fmtCount(t.result().Errors.val()) }},
	{header: "CPU ms/txn", get: func(t tpccRun) string { return fmtNum(t.cpuPerTxnMS()) }},
	{header: "measured s", wide: true, get: func(t tpccRun) string { return fmtNum(t.result().MeasuredS.val()) }},
	{header: "server commits", wide: true, get: func(t tpccRun) string { return fmtCount(t.server().Commit.val()) }},
	{header: "server aborts", wide: true, get: func(t tpccRun) string { return fmtCount(t.server().Abort.val()) }},
}

// result is the run's report, empty when it has none.
func (t tpccRun) result() *tpccResult {
	if t.res == nil {
		return &tpccResult{}
	}
	return t.res
}

// server is the run's server counters, empty when it has none.
func (t tpccRun) server() *tpccServer {
	if t.res == nil || t.res.Server == nil {
		return &tpccServer{}
	}
	return t.res.Server
}

// facts describes the run beyond the table: "measured 135 s; client CPU
// 5.38 s; server h:1: …" ("" when nothing is known).
func (t tpccRun) facts() string {
	var parts []string
	if m := t.result().MeasuredS.val(); finite(m) {
		parts = append(parts, "measured "+fmtSeconds(m))
	}
	if c := t.run.Summary.ClientCPUS; finite(c) && c > 0 {
		parts = append(parts, "client CPU "+fmtSeconds(c))
	}
	if s := t.serverLine(); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// serverLine describes the server counters: "server h:1: 20 commits, 1
// aborts; documents inserted 5, updated 3, deleted 0, returned 9".
func (t tpccRun) serverLine() string {
	s := t.server()
	if s.Member == "" && !s.Commit.ok && !s.Abort.ok && !s.Inserted.ok && !s.Updated.ok && !s.Deleted.ok && !s.Returned.ok {
		return ""
	}
	return fmt.Sprintf("server %s: %s commits, %s aborts; documents inserted %s, updated %s, deleted %s, returned %s",
		orDash(s.Member), fmtCount(s.Commit.val()), fmtCount(s.Abort.val()), fmtCount(s.Inserted.val()),
		fmtCount(s.Updated.val()), fmtCount(s.Deleted.val()), fmtCount(s.Returned.val()))
}

// tpccLatencyColumns are the per-transaction-type columns, in table order;
// wide ones are shown in the HTML table only, to keep the text in 100 columns.
var tpccLatencyColumns = []struct {
	header  string
	get     func(tpccTxn) string
	wide    bool
	latency bool // in ms
}{
	{header: "total", get: func(x tpccTxn) string { return fmtCount(x.Total.val()) }},
	{header: "retries", get: func(x tpccTxn) string { return fmtCount(x.Retries.val()) }},
	{header: "errors", get: func(x tpccTxn) string { return fmtCount(x.Errors.val()) }},
	{header: "rollbacks", wide: true, get: func(x tpccTxn) string { return fmtCount(x.Rollbacks.val()) }},
	{header: "min", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.Min.val()) }},
	{header: "p50", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.P50.val()) }},
	{header: "p75", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.P75.val()) }},
	{header: "p90", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.P90.val()) }},
	{header: "p95", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.P95.val()) }},
	{header: "p99", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.P99.val()) }},
	{header: "max", latency: true, get: func(x tpccTxn) string { return fmtNum(x.Latency.Max.val()) }},
}

// commonSettings returns the settings shared by every run that has a report
// and true, or false when the runs differ (each run then shows its own).
func commonSettings(runs []tpccRun) (map[string]any, bool) {
	var first map[string]any
	seen := false
	for _, t := range runs {
		if t.res == nil {
			continue
		}
		if !seen {
			first, seen = t.res.Settings, true
			continue
		}
		if fmtMap(t.res.Settings) != fmtMap(first) {
			return nil, false
		}
	}
	return first, true
}
