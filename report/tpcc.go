package report

// The TPC-C part of the reports. A TPC-C run carries its workload report in
// Run.Extra["tpcc"] (decoded from JSON as a map[string]any); the report reads
// it through its own struct rather than importing the workload, so a results
// file stays readable whatever version of the workload wrote it. Every field
// is optional: a missing one prints as "-".
//
// This file decodes the report; tpcc_runs.go derives what the writers show of
// each run, and tpcc_text.go, tpcc_html.go and tpcc_plots.go write it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

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
