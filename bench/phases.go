package bench

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/results"
)

// ErrBadPhases is wrapped by phase parsing errors.
var ErrBadPhases = errors.New("invalid phases")

// Phase switches the workload mix and/or the client count at a time into a
// run, and applies fault actions to the cluster. Empty Mix or zero Clients
// keep the previous value.
type Phase struct {
	At      time.Duration
	Mix     string
	Clients int
	// Actions change the cluster (Options.Cluster or ClusterDir), in order,
	// without holding up the clients.
	Actions []faults.Action
	// Reads moves every read to one member ("n2", a host, or "primary"): the
	// read-hints paper's workload migration. Only "weights:" policies take it.
	Reads string
	// ReadOffset, when set, moves the reads' key window to start at that
	// key (workloads that are ReadWindowed: YCSB with --readkeys).
	ReadOffset *int64
	// Rate, when set, changes the operations a second all clients are held
	// to (Options.Rate; 0 lifts the limit).
	Rate *float64
}

// ParsePhases parses "0s:workload=a,clients=180;620s:workload=b" and fault
// actions such as "60s:pause=n3;120s:resume=n3" or
// "30s:stepdown;50s:kill=n2;80s:restart=n2". Times are Go durations; keys
// are workload (or mix), clients, and the actions pause, resume, isolate,
// rejoin, slow and unslow (a member or all; slow=n3:150ms gives the delay,
// default faults.DefaultSlowDelay), stepdown (no member), kill, stop and
// restart (a member or primary).
// A phase may combine keys ("60s:clients=100,pause=n3"); its actions run in
// the order given. Phases must be in increasing time order. Member names are
// checked against the cluster before a run (they are n1, n2, ...).
func ParsePhases(s string) ([]Phase, error) {
	var out []Phase
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		ph, err := parsePhase(part)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrBadPhases, part, err)
		}
		if len(out) > 0 && ph.At <= out[len(out)-1].At {
			return nil, fmt.Errorf("%w: %q: phase times must increase", ErrBadPhases, part)
		}
		out = append(out, ph)
	}
	if len(out) == 0 && strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("%w: %q holds no phase", ErrBadPhases, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	if err := faults.CheckRestarts(steps(out)); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadPhases, err)
	}
	return out, nil
}

// parsePhase parses one "TIME:key=value[,key=value]".
func parsePhase(part string) (Phase, error) {
	at, kvs, ok := strings.Cut(part, ":")
	if !ok {
		return Phase{}, errors.New("want TIME:key=value[,key=value], e.g. 620s:workload=b or 60s:pause=n3")
	}
	d, err := time.ParseDuration(strings.TrimSpace(at))
	if err != nil || d < 0 {
		return Phase{}, fmt.Errorf("time %q is not a non-negative duration such as 620s", at)
	}
	ph := Phase{At: d}
	for _, kv := range strings.Split(kvs, ",") {
		if err := ph.set(strings.TrimSpace(kv)); err != nil {
			return Phase{}, err
		}
	}
	if ph.Mix == "" && ph.Clients == 0 && len(ph.Actions) == 0 && ph.Reads == "" && ph.ReadOffset == nil && ph.Rate == nil {
		return Phase{}, errors.New("changes nothing")
	}
	return ph, nil
}

const phaseKeys = "workload, clients, rate, reads, readoffset, " + faults.Keys

// set applies one key=value (or a bare stepdown) to ph.
func (ph *Phase) set(kv string) error {
	a, isAction, err := faults.ParseAction(kv)
	if isAction {
		if err == nil {
			ph.Actions = append(ph.Actions, a)
		}
		return err
	}
	k, v, hasValue := strings.Cut(kv, "=")
	k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
	if k == "" || !hasValue {
		return fmt.Errorf("%q is not key=value", kv)
	}
	switch {
	case k == "workload" || k == "mix":
		if v == "" {
			return fmt.Errorf("%q is not key=value", kv)
		}
		ph.Mix = v
	case k == "clients":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("clients %q must be a whole number >= 1", v)
		}
		ph.Clients = n
	case k == "rate":
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || !(r >= 0) || math.IsInf(r, 1) {
			return fmt.Errorf("rate %q must be operations a second, 0 or more (0: no limit)", v)
		}
		ph.Rate = &r
	case k == "reads":
		if v == "" || strings.ContainsAny(v, "=/") {
			return fmt.Errorf("reads %q must name one member (n2, a host:port, or primary)", v)
		}
		ph.Reads = v
	case k == "readoffset":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("readoffset %q must be a key number >= 0", v)
		}
		ph.ReadOffset = &n
	default:
		return fmt.Errorf("unknown key %q (known: %s)", k, phaseKeys)
	}
	return nil
}

// steps are the phases' fault actions by time.
func steps(phases []Phase) []faults.Step {
	var out []faults.Step
	for _, ph := range phases {
		if len(ph.Actions) > 0 {
			out = append(out, faults.Step{At: ph.At, Actions: ph.Actions})
		}
	}
	return out
}

// actions lists every action of the phases, for messages.
func actions(phases []Phase) []string {
	var out []string
	for _, ph := range phases {
		for _, a := range ph.Actions {
			out = append(out, a.String())
		}
	}
	return out
}

// phaseSpecs records the phases in the results.
func phaseSpecs(phases []Phase) []results.PhaseSpec {
	var out []results.PhaseSpec
	for _, ph := range phases {
		spec := results.PhaseSpec{AtS: ph.At.Seconds(), Workload: ph.Mix, Clients: ph.Clients, Rate: ph.Rate, Reads: ph.Reads, ReadOffset: ph.ReadOffset}
		for _, a := range ph.Actions {
			spec.Actions = append(spec.Actions, a.String())
		}
		out = append(out, spec)
	}
	return out
}

// readsMembers are the members the phases move reads to, for checking them
// against the replica set before a run.
func readsMembers(phases []Phase) []string {
	var out []string
	for _, ph := range phases {
		if ph.Reads != "" {
			out = append(out, ph.Reads)
		}
	}
	return out
}
