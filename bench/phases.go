package bench

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
	Actions []Action
}

// ActionKind is what a fault action does; the zero value is invalid.
type ActionKind int

// The fault actions.
const (
	_              ActionKind = iota
	ActionPause               // stop a member applying the oplog (fail point rsSyncApplyStop)
	ActionResume              // let it apply the oplog again
	ActionStepDown            // step the primary down (replSetStepDown) and wait for another
	ActionKill                // SIGKILL a member
	ActionStop                // shut a member down cleanly (SIGTERM)
	ActionRestart             // start a member again (same port, data and CPU cap)
)

var actionNames = []string{ActionPause: "pause", ActionResume: "resume", ActionStepDown: "stepdown",
	ActionKill: "kill", ActionStop: "stop", ActionRestart: "restart"}

func (k ActionKind) String() string {
	if k <= 0 || int(k) >= len(actionNames) {
		return "ActionKind(" + strconv.Itoa(int(k)) + ")"
	}
	return actionNames[k]
}

// Targets of an action besides a member name (n1, n2, ...).
const (
	// AllMembers: pause every member that is secondary when the action
	// runs; resume every member the run has not taken down.
	AllMembers = "all"
	// PrimaryMember: kill or stop the member that is primary when the
	// action runs; restart the member the latest kill=primary or
	// stop=primary took down.
	PrimaryMember = "primary"
)

// Action is one fault action of a phase: Kind on Member ("" for stepdown).
type Action struct {
	Kind   ActionKind
	Member string
}

// String is the action as written in a phase: "pause=n3", "stepdown".
func (a Action) String() string {
	if a.Member == "" {
		return a.Kind.String()
	}
	return a.Kind.String() + "=" + a.Member
}

// ParsePhases parses "0s:workload=a,clients=180;620s:workload=b" and fault
// actions such as "60s:pause=n3;120s:resume=n3" or
// "30s:stepdown;50s:kill=n2;80s:restart=n2". Times are Go durations; keys
// are workload (or mix), clients, and the actions pause, resume (a member or
// all), stepdown (no member), kill, stop and restart (a member or primary).
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
	if err := checkRestarts(out); err != nil {
		return nil, err
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
	if ph.Mix == "" && ph.Clients == 0 && len(ph.Actions) == 0 {
		return Phase{}, errors.New("changes nothing")
	}
	return ph, nil
}

const phaseKeys = "workload, clients, pause, resume, stepdown, kill, stop, restart"

// set applies one key=value (or a bare stepdown) to ph.
func (ph *Phase) set(kv string) error {
	k, v, hasValue := strings.Cut(kv, "=")
	k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
	kind := ActionKind(max(0, slices.Index(actionNames, k))) // 0: not an action
	if k == "" || kind == 0 && !hasValue {
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
	case kind > 0:
		a, err := parseAction(kind, v, hasValue)
		if err != nil {
			return err
		}
		ph.Actions = append(ph.Actions, a)
	default:
		return fmt.Errorf("unknown key %q (known: %s)", k, phaseKeys)
	}
	return nil
}

var memberName = regexp.MustCompile(`^n[1-9][0-9]*$`)

// parseAction checks an action's target: stepdown takes none, pause and
// resume a member or all, kill, stop and restart a member or primary.
func parseAction(kind ActionKind, member string, hasValue bool) (Action, error) {
	a := Action{Kind: kind, Member: member}
	if kind == ActionStepDown {
		if hasValue {
			return a, fmt.Errorf("%q: stepdown takes no member (it steps down whichever member is primary)", a)
		}
		return a, nil
	}
	special := AllMembers
	if kind == ActionKill || kind == ActionStop || kind == ActionRestart {
		special = PrimaryMember
	}
	switch {
	case member == "":
		return a, fmt.Errorf("%s needs a member: %s=n2 or %s=%s", kind, kind, kind, special)
	case member == special || memberName.MatchString(member):
		return a, nil
	case member == PrimaryMember && kind == ActionPause:
		return a, fmt.Errorf("%q: a primary applies no oplog to pause; name a secondary (n2) or all", a)
	case member == PrimaryMember:
		return a, fmt.Errorf("%q: %s takes a member (n2) or all", a, kind)
	case member == AllMembers:
		return a, fmt.Errorf("%q: %s takes one member (n2) or primary", a, kind)
	}
	return a, fmt.Errorf("%q: member %q is not a member name such as n2, nor %s", a, member, special)
}

// checkRestarts checks that every restart=primary follows a kill=primary or
// stop=primary that it undoes.
func checkRestarts(phases []Phase) error {
	down := false
	for _, ph := range phases {
		for _, a := range ph.Actions {
			switch {
			case (a.Kind == ActionKill || a.Kind == ActionStop) && a.Member == PrimaryMember:
				down = true
			case a.Kind == ActionRestart && a.Member == PrimaryMember:
				if !down {
					return fmt.Errorf("%w: restart=primary at %v: no earlier kill=primary or stop=primary took a member down (restart=n2 names one)", ErrBadPhases, ph.At)
				}
				down = false
			}
		}
	}
	return nil
}

// checkMembers checks that every member the phases name is one of names.
func checkMembers(phases []Phase, names []string) error {
	for _, ph := range phases {
		for _, a := range ph.Actions {
			if memberName.MatchString(a.Member) && !slices.Contains(names, a.Member) {
				return fmt.Errorf("%w: %s at %v: the cluster has no member %s (members: %s)",
					ErrBadPhases, a, ph.At, a.Member, strings.Join(names, ", "))
			}
		}
	}
	return nil
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
		spec := results.PhaseSpec{AtS: ph.At.Seconds(), Workload: ph.Mix, Clients: ph.Clients}
		for _, a := range ph.Actions {
			spec.Actions = append(spec.Actions, a.String())
		}
		out = append(out, spec)
	}
	return out
}
