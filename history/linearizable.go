package history

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// LinResult is the verdict of the linearizability check, of one key or of a
// whole history.
type LinResult string

// The verdicts of the linearizability check.
const (
	LinOK      LinResult = "ok"      // a linearization exists
	LinIllegal LinResult = "illegal" // no linearization exists: a violation
	LinUnknown LinResult = "unknown" // the check timed out before deciding
)

// LinKey is the verdict for one key.
type LinKey struct {
	Key    string    `json:"key"`
	Ops    int       `json:"ops"` // ops given to the checker
	Result LinResult `json:"result"`
	// Linearized is the length of the longest (partial) linearization
	// found: Ops when the key is linearizable.
	Linearized int `json:"linearized"`
}

// LinFailure is the smallest key history that is not linearizable.
type LinFailure struct {
	Key        string `json:"key"`
	Ops        []Op   `json:"ops"`        // the ops checked, in invoke order
	Linearized int    `json:"linearized"` // the longest partial linearization
}

// LinReport is the result of CheckLinearizable.
type LinReport struct {
	// Result is illegal when any key is, else unknown when any key timed
	// out, else ok.
	Result  LinResult `json:"result"`
	Ops     int       `json:"ops"`     // ops in the history
	Checked int       `json:"checked"` // ops given to the checker
	// Dropped ops constrain nothing: reads that did not return, and writes
	// that failed before the server applied anything.
	Dropped  int           `json:"dropped"`
	Keys     []LinKey      `json:"keys"` // sorted by key
	Illegal  int           `json:"illegal_keys"`
	Unknown  int           `json:"unknown_keys"`
	Timeout  time.Duration `json:"timeout_ns"` // per key; 0 is none
	Duration time.Duration `json:"duration_ns"`
	// Failure is the illegal key with the fewest checked ops (ties: the first
	// key in order), nil when no key is illegal.
	Failure *LinFailure `json:"failure,omitempty"`

	checks map[string]linCheck // per key, for the visualisation
}

// linCheck is what porcupine was given and found for one key.
type linCheck struct {
	ops  []porcupine.Operation
	info porcupine.LinearizationInfo
}

// CheckLinearizable checks whether h is linearizable as a set of registers,
// one per key, with Porcupine. A read that returned ok must return the value
// of the latest write linearized before it (0 initially); a cas is a write
// that applies only when the register holds its expected value, and a cas
// that failed without an error returned false, which is legal only when the
// register did not hold that value. A write or cas with an unknown outcome
// never returns (its return time is +infinity), so it may take effect at any
// point after its invocation or never; unknown and failed reads, and writes
// that failed with an error, are dropped. Each key is checked on its own
// (the model is partitioned by key) and concurrently; timeout bounds each
// key's search (0: no bound), and a key whose search timed out is unknown.
// The one clock read is the report's Duration.
func CheckLinearizable(h History, timeout time.Duration) LinReport {
	start := time.Now()
	clients := denseClients(h.Ops)
	var all []porcupine.Operation
	rep := LinReport{Ops: len(h.Ops), Timeout: timeout, Result: LinOK, checks: make(map[string]linCheck)}
	for _, op := range h.Ops {
		if o, ok := toOperation(op, clients[op.Client]); ok {
			all = append(all, o)
		} else {
			rep.Dropped++
		}
	}
	rep.Checked = len(all)
	parts := partitionByKey(all)
	rep.Keys = make([]LinKey, len(parts))
	checks := make([]linCheck, len(parts))
	var wg sync.WaitGroup
	for i, ops := range parts {
		wg.Go(func() {
			res, info := porcupine.CheckOperationsVerbose(registerModel, ops, timeout)
			checks[i] = linCheck{ops: ops, info: info}
			rep.Keys[i] = LinKey{Key: opKey(ops[0]), Ops: len(ops), Result: linResult(res), Linearized: longest(info)}
		})
	}
	wg.Wait()
	for i, k := range rep.Keys {
		rep.checks[k.Key] = checks[i]
		switch k.Result {
		case LinIllegal:
			rep.Illegal++
			if rep.Failure == nil || k.Ops < len(rep.Failure.Ops) {
				rep.Failure = &LinFailure{Key: k.Key, Ops: operationsOps(parts[i]), Linearized: k.Linearized}
			}
		case LinUnknown:
			rep.Unknown++
		}
	}
	switch {
	case rep.Illegal > 0:
		rep.Result = LinIllegal
	case rep.Unknown > 0:
		rep.Result = LinUnknown
	}
	rep.Duration = time.Since(start)
	return rep
}

// WriteVisualization writes Porcupine's HTML visualisation: of the smallest
// failing key when there is one (its partial linearizations and the point
// where each gets stuck), else of every key with its linearization (the
// keys are checked again, under the report's timeout, to collect it). It
// needs the report CheckLinearizable returned: one decoded from JSON has
// lost what Porcupine found.
func (r LinReport) WriteVisualization(w io.Writer) error {
	if r.checks == nil {
		return errors.New("no linearizability check to visualise: the report was not returned by CheckLinearizable")
	}
	if r.Failure != nil {
		return porcupine.Visualize(registerModel, r.checks[r.Failure.Key].info, w)
	}
	keys := make([]string, 0, len(r.checks))
	for k := range r.checks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var all []porcupine.Operation
	for _, k := range keys {
		all = append(all, r.checks[k].ops...)
	}
	_, info := porcupine.CheckOperationsVerbose(registerModel, all, r.Timeout)
	return porcupine.Visualize(registerModel, info, w)
}

// WriteVisualizationPath writes the visualisation to path atomically.
func (r LinReport) WriteVisualizationPath(path string) error {
	return atomicfile.Write(path, r.WriteVisualization)
}

func linResult(r porcupine.CheckResult) LinResult {
	switch r {
	case porcupine.Ok:
		return LinOK
	case porcupine.Illegal:
		return LinIllegal
	}
	return LinUnknown
}

// longest is the length of the longest partial linearization in info.
func longest(info porcupine.LinearizationInfo) int {
	n := 0
	for _, part := range info.PartialLinearizations() {
		for _, l := range part {
			n = max(n, len(l))
		}
	}
	return n
}

// The register model: the state of a key is its value (an int64, 0
// initially); inputs are linInput, outputs linOutput.
type linInput struct {
	op Op // Kind, Value and Expect drive the model; the rest describes the op
}

type linOutput struct {
	value   int64 // read: the value returned
	ok      bool  // cas: whether it applied
	unknown bool  // write/cas: no answer
}

var registerModel = porcupine.Model{
	Partition: partitionByKey,
	Init:      func() any { return int64(0) },
	Step: func(state, input, output any) (bool, any) {
		s, in, out := state.(int64), input.(linInput).op, output.(linOutput)
		switch {
		case in.Kind == KindRead:
			return out.value == s, s
		case in.Kind == KindWrite:
			return true, in.Value
		case out.unknown: // a cas that may apply: if it is linearized, it applies when it matches
			if s == in.Expect {
				return true, in.Value
			}
			return true, s
		case out.ok:
			return s == in.Expect, in.Value
		default: // a cas that returned false
			return s != in.Expect, s
		}
	},
	Equal: func(a, b any) bool { return a.(int64) == b.(int64) },
	Hash:  func(s any) uint64 { return uint64(s.(int64)) },
	DescribeOperation: func(input, output any) string {
		in, out := input.(linInput).op, output.(linOutput)
		switch {
		case in.Kind == KindRead:
			return fmt.Sprintf("read() -> %d", out.value)
		case in.Kind == KindWrite && out.unknown:
			return fmt.Sprintf("write(%d) ?", in.Value)
		case in.Kind == KindWrite:
			return fmt.Sprintf("write(%d)", in.Value)
		case out.unknown:
			return fmt.Sprintf("cas(%d, %d) ?", in.Expect, in.Value)
		}
		return fmt.Sprintf("cas(%d, %d) -> %t", in.Expect, in.Value, out.ok)
	},
	DescribeState: func(s any) string { return fmt.Sprint(s.(int64)) },
	DescribeOperationMetadata: func(m any) string {
		op, ok := m.(Op)
		if !ok {
			return ""
		}
		return op.String()
	},
}

// toOperation turns op into a Porcupine operation for the dense client id,
// or reports false for an op that constrains nothing.
func toOperation(op Op, client int) (porcupine.Operation, bool) {
	o := porcupine.Operation{ClientId: client, Input: linInput{op: op}, Call: op.Invoke, Return: op.Complete, Metadata: op}
	switch {
	case op.Kind == KindRead && op.Outcome == OutcomeOK:
		o.Output = linOutput{value: op.Value}
	case op.Kind == KindRead: // no value came back
		return o, false
	case op.Outcome == OutcomeOK:
		o.Output = linOutput{ok: true}
	case op.Outcome == OutcomeUnknown:
		o.Output, o.Return = linOutput{unknown: true}, math.MaxInt64
	case op.Kind == KindCAS && op.Err == "":
		o.Output = linOutput{ok: false}
	default: // failed before the server applied anything
		return o, false
	}
	return o, true
}

func opKey(o porcupine.Operation) string { return o.Input.(linInput).op.Key }

// partitionByKey splits a history into one history per key, keys sorted,
// each in invoke order, so the check and its visualisation are the same
// from run to run.
func partitionByKey(ops []porcupine.Operation) [][]porcupine.Operation {
	groups := make(map[string][]porcupine.Operation)
	for _, o := range ops {
		groups[opKey(o)] = append(groups[opKey(o)], o)
	}
	keys := make([]string, 0, len(groups))
	for k, g := range groups {
		keys = append(keys, k)
		slices.SortStableFunc(g, func(a, b porcupine.Operation) int {
			return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Return, b.Return))
		})
	}
	slices.Sort(keys)
	parts := make([][]porcupine.Operation, len(keys))
	for i, k := range keys {
		parts[i] = groups[k]
	}
	return parts
}

func operationsOps(ops []porcupine.Operation) []Op {
	out := make([]Op, len(ops))
	for i, o := range ops {
		out[i] = o.Input.(linInput).op
	}
	return out
}

// denseClients numbers the clients 0..n-1 in order, as Porcupine's
// visualisation draws one row per client id.
func denseClients(ops []Op) map[int]int {
	var ids []int
	seen := make(map[int]bool)
	for _, op := range ops {
		if !seen[op.Client] {
			seen[op.Client] = true
			ids = append(ids, op.Client)
		}
	}
	slices.Sort(ids)
	m := make(map[int]int, len(ids))
	for i, id := range ids {
		m[id] = i
	}
	return m
}
