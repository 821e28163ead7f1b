package report

// The TPC-C part of the reports. A TPC-C run carries its workload report in
// Run.Extra["tpcc"] (decoded from JSON as a map[string]any); the report reads
// it through its own struct rather than importing the workload, so a results
// file stays readable whatever version of the workload wrote it. Every field
// is optional: a missing one prints as "-".

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/decongestant/decongestant/results"
)

// tpccKey is the key of the TPC-C report in Run.Extra.
const tpccKey = "tpcc"

// tpccTypes are the TPC-C transaction types in the order of the
// specification (clause 2); other names found in a report follow, sorted.
var tpccTypes = []string{"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"}

// tpccResult is the part of a run's TPC-C report the writers show.
type tpccResult struct {
	TpmC        optNum             `json:"tpmC"`
	Total       optNum             `json:"total"`
	Aborts      optNum             `json:"aborts"`
	Retries     optNum             `json:"retries"`
	Errors      optNum             `json:"errors"`
	MeasuredS   optNum             `json:"measured_s"`
	CPUPerTxnMS optNum             `json:"client_cpu_ms_per_txn"`
	Txns        map[string]tpccTxn `json:"transactions"`
	Settings    map[string]any     `json:"settings"`
	Server      *tpccServer        `json:"server"`
	// Checks is nil when the consistency checks did not run.
	Checks []tpccCheck `json:"check"`
}

// tpccTxn is one transaction type's counts and latency distribution.
type tpccTxn struct {
	Total     optNum      `json:"total"`
	Retries   optNum      `json:"retries"`
	Errors    optNum      `json:"errors"`
	Rollbacks optNum      `json:"rollbacks"`
	Latency   tpccLatency `json:"latency_ms"`
}

type tpccLatency struct {
	Min optNum `json:"min"`
	P50 optNum `json:"p50"`
	P75 optNum `json:"p75"`
	P90 optNum `json:"p90"`
	P95 optNum `json:"p95"`
	P99 optNum `json:"p99"`
	Max optNum `json:"max"`
}

// tpccServer is the primary's serverStatus counters over the measured
// interval: documents and transactions.
type tpccServer struct {
	Member   string `json:"member"`
	Inserted optNum `json:"inserted"`
	Updated  optNum `json:"updated"`
	Deleted  optNum `json:"deleted"`
	Returned optNum `json:"returned"`
	Commit   optNum `json:"commit"`
	Abort    optNum `json:"abort"`
}

// tpccCheck is the outcome of one consistency check, named by its clause.
type tpccCheck struct {
	Clause string `json:"clause"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

func (c tpccCheck) passed() bool { return strings.EqualFold(c.Status, "pass") }

// optNum is an optional number of the report. A missing or null field, or
// one that is not a number (bad), has no value and prints as "-".
type optNum struct {
	v       float64
	ok, bad bool
}

// UnmarshalJSON never fails, so that one odd field does not hide the rest of
// the report; badNumbers finds the fields that were not numbers.
func (n *optNum) UnmarshalJSON(b []byte) error {
	*n = optNum{}
	if string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &n.v); err != nil {
		n.bad = true
		return nil
	}
	n.ok = true
	return nil
}

// val is the number, NaN when there is none.
func (n optNum) val() float64 {
	if !n.ok {
		return math.NaN()
	}
	return n.v
}

// badNumbers returns the JSON paths of the numbers below v that were not
// numbers, walking structs (by JSON name), maps (by sorted key) and pointers.
func badNumbers(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return badNumbers(v.Elem(), path)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var out []string
		for _, k := range keys {
			out = append(out, badNumbers(v.MapIndex(k), joinPath(path, k.String()))...)
		}
		return out
	case reflect.Struct:
		if n, ok := v.Interface().(optNum); ok {
			if n.bad {
				return []string{path}
			}
			return nil
		}
		var out []string
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && name != "-" {
				out = append(out, badNumbers(v.Field(i), joinPath(path, name))...)
			}
		}
		return out
	}
	return nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// jsonKind names the JSON kind a Go type decodes from, for messages.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return "a number"
}

// decodeTPCC reads run.Extra["tpcc"] by re-marshalling it into tpccResult.
// It returns nil, nil when the run has no TPC-C report. When the report is
// there but not all of it can be read, it returns what could be read and an
// error saying what could not.
func decodeTPCC(run *results.Run) (*tpccResult, error) {
	v, ok := run.Extra[tpccKey]
	if !ok || v == nil {
		return nil, nil
	}
	res := &tpccResult{}
	data, err := json.Marshal(v)
	if err != nil {
		return res, fmt.Errorf("tpcc report unreadable: %w", err)
	}
	// Unmarshal skips a field of the wrong type and carries on, so res holds
	// everything else; it reports the first such field.
	var problems []string
	if err := json.Unmarshal(data, res); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return res, fmt.Errorf("tpcc report unreadable: %w", err)
		}
		problems = append(problems, fmt.Sprintf("%s is a JSON %s, want %s", orDash(te.Field), te.Value, jsonKind(te.Type)))
	}
	if bad := badNumbers(reflect.ValueOf(res), ""); len(bad) > 0 {
		problems = append(problems, "not numbers: "+strings.Join(bad, ", "))
	}
	if len(problems) > 0 {
		return res, fmt.Errorf("tpcc report partly unreadable: %s", strings.Join(problems, "; "))
	}
	return res, nil
}

// isTPCC reports whether r is a TPC-C results file: its workload says so or
// one of its runs carries a TPC-C report.
func isTPCC(r *results.Results) bool {
	if strings.EqualFold(workloadName(r), "tpcc") {
		return true
	}
	for i := range r.Runs {
		if _, ok := r.Runs[i].Extra[tpccKey]; ok {
			return true
		}
	}
	return false
}

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

// txnTypes lists the transaction types of res: the specification's order,
// then any others sorted.
func (res *tpccResult) txnTypes() []string {
	var out []string
	for _, t := range tpccTypes {
		if _, ok := res.Txns[t]; ok {
			out = append(out, t)
		}
	}
	var other []string
	for t := range res.Txns {
		if !slices.Contains(tpccTypes, t) {
			other = append(other, t)
		}
	}
	sort.Strings(other)
	return append(out, other...)
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

// textWidthLimit is the width the TPC-C text section keeps to.
const textWidthLimit = 100

// wrapText breaks s into lines of at most width runes at spaces, keeping its
// leading spaces; lines after the first start with indent. A word longer than
// a line stays whole.
func wrapText(s string, width int, indent string) []string {
	var lines []string
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = lead + w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = indent + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func writeWrapped(w io.Writer, s, indent string) {
	for _, l := range wrapText(s, textWidthLimit, indent) {
		fmt.Fprintln(w, l)
	}
}

// writeTPCCText writes the TPC-C section of one input: a table with one row
// per run, then per run the server counters, the latency by transaction type
// and the consistency checks.
func writeTPCCText(w io.Writer, x Input) error {
	runs := tpccRuns(x.Results)
	fmt.Fprintf(w, "\nTPC-C: %s\n", oneLine(x.Name))
	if len(runs) == 0 {
		fmt.Fprintln(w, "(no runs)")
		return nil
	}
	settings, common := commonSettings(runs)
	if common && len(settings) > 0 {
		writeWrapped(w, oneLine("settings: "+fmtMap(settings)), "  ")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "policy\trep")
	for _, c := range tpccRunColumns {
		if !c.wide {
			fmt.Fprint(tw, "\t", c.header)
		}
	}
	fmt.Fprintln(tw, "\tchecks")
	for _, t := range runs {
		fmt.Fprintf(tw, "%s\t%d", oneLine(t.run.Policy), t.run.Repetition)
		for _, c := range tpccRunColumns {
			if !c.wide {
				fmt.Fprint(tw, "\t", c.get(t))
			}
		}
		fmt.Fprintf(tw, "\t%s\n", oneLine(t.checksShort()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, t := range runs {
		if err := writeTPCCRunText(w, t, !common); err != nil {
			return err
		}
	}
	return nil
}

// writeTPCCRunText writes the details of one run.
func writeTPCCRunText(w io.Writer, t tpccRun, settings bool) error {
	head := fmt.Sprintf("%s, repetition %d", t.run.Policy, t.run.Repetition)
	fmt.Fprintln(w)
	if t.res == nil {
		fmt.Fprintln(w, oneLine(head+": no TPC-C report"))
		return nil
	}
	if f := t.facts(); f != "" {
		head += ": " + f
	}
	writeWrapped(w, oneLine(head), "  ")
	if t.err != nil {
		writeWrapped(w, oneLine("  warning: "+t.err.Error()), "    ")
	}
	if settings && len(t.res.Settings) > 0 {
		writeWrapped(w, oneLine("  settings: "+fmtMap(t.res.Settings)), "    ")
	}
	if types := t.res.txnTypes(); len(types) == 0 {
		fmt.Fprintln(w, "  (no per-type results)")
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "  latency ms")
		for _, c := range tpccLatencyColumns {
			if !c.wide {
				fmt.Fprint(tw, "\t", c.header)
			}
		}
		fmt.Fprintln(tw)
		for _, name := range types {
			fmt.Fprint(tw, "  ", oneLine(name))
			for _, c := range tpccLatencyColumns {
				if !c.wide {
					fmt.Fprint(tw, "\t", c.get(t.res.Txns[name]))
				}
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	sum, failed := t.checks()
	if len(failed) > 0 {
		sum += "; not passed:"
	}
	fmt.Fprintln(w, "  checks: "+sum)
	for _, c := range failed {
		line := c.status() + " " + orDash(c.Clause)
		if c.Name != "" {
			line += " " + c.Name
		}
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		writeWrapped(w, oneLine("    "+line), "      ")
	}
	return nil
}
