package faults

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrBadActions is wrapped by errors in fault actions: a malformed action,
// a restart=primary with nothing to restart, a member the cluster lacks.
var ErrBadActions = errors.New("fault actions")

// ActionKind is what a fault action does; the zero value is invalid.
type ActionKind int

// The fault actions.
const (
	_        ActionKind = iota
	Pause               // stop a member applying the oplog (fail point rsSyncApplyStop)
	Resume              // let it apply the oplog again
	StepDown            // step the primary down (replSetStepDown) and wait for another
	Kill                // SIGKILL a member
	Stop                // shut a member down cleanly (SIGTERM)
	Restart             // start a member again (same port, data and CPU cap)
	Isolate             // stop a member fetching the oplog (fail point stopReplProducer)
	Rejoin              // let it fetch again
	// Slow makes a member a gray failure (fail point failCommand with
	// blockConnection): its reads (find, getMore, aggregate, count,
	// distinct) wait Action.Delay each, while ping and hello answer at
	// once, so drivers keep selecting it.
	Slow
	Unslow // let its reads run at once again
)

var actionNames = []string{Pause: "pause", Resume: "resume", StepDown: "stepdown", Isolate: "isolate", Rejoin: "rejoin",
	Kill: "kill", Stop: "stop", Restart: "restart", Slow: "slow", Unslow: "unslow"}

// DefaultSlowDelay is how long a slowed member's reads wait when a slow
// action gives no delay ("slow=n3").
const DefaultSlowDelay = 200 * time.Millisecond

// maxSlowDelay bounds a slow action's delay: a read held longer than that
// is an outage, not a gray failure.
const maxSlowDelay = time.Hour

func (k ActionKind) String() string {
	if k <= 0 || int(k) >= len(actionNames) {
		return "ActionKind(" + strconv.Itoa(int(k)) + ")"
	}
	return actionNames[k]
}

// Targets of an action besides a member name (n1, n2, ...).
const (
	// AllMembers: pause, isolate or slow every member that is secondary
	// when the action runs; resume, rejoin or unslow every member the run
	// has not taken down.
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
	// Delay is how long each read of a Slow action's members waits (0:
	// DefaultSlowDelay); 0 for the other kinds.
	Delay time.Duration
}

// String is the action as written in a phase: "pause=n3", "stepdown",
// "slow=n3:200ms".
func (a Action) String() string {
	if a.Member == "" {
		return a.Kind.String()
	}
	if a.Delay != 0 {
		return a.Kind.String() + "=" + a.Member + ":" + a.Delay.String()
	}
	return a.Kind.String() + "=" + a.Member
}

// slowDelay is the delay a Slow action applies.
func (a Action) slowDelay() time.Duration {
	if a.Delay == 0 {
		return DefaultSlowDelay
	}
	return a.Delay
}

// Step is the actions due at a time into a run, in order.
type Step struct {
	At      time.Duration
	Actions []Action
}

// ParseAction parses one key=value of a phase when the key is an action
// ("pause=n3", a bare "stepdown", "slow=n3" or "slow=n3:150ms"); ok is false
// when the key is not one. A slow action without a delay gets
// DefaultSlowDelay.
func ParseAction(kv string) (a Action, ok bool, err error) {
	k, v, hasValue := strings.Cut(kv, "=")
	k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
	kind := ActionKind(max(0, slices.Index(actionNames, k)))
	if kind == 0 {
		return Action{}, false, nil
	}
	a, err = parseAction(kind, v, hasValue)
	return a, true, err
}

// Keys lists the action keys, for messages.
const Keys = "pause, resume, isolate, rejoin, slow, unslow, stepdown, kill, stop, restart"

var memberName = regexp.MustCompile(`^n[1-9][0-9]*$`)

// parseAction checks an action's target: stepdown takes none; pause,
// resume, isolate, rejoin, slow and unslow a member or all; kill, stop and
// restart a member or primary. Slow's target may end in ":DELAY".
func parseAction(kind ActionKind, member string, hasValue bool) (Action, error) {
	var delay time.Duration
	if kind == Slow || kind == Unslow {
		var err error
		if member, delay, err = parseDelay(kind, member); err != nil {
			return Action{Kind: kind, Member: member}, err
		}
	}
	a := Action{Kind: kind, Member: member}
	if kind == StepDown {
		if hasValue {
			return a, fmt.Errorf("%q: stepdown takes no member (it steps down whichever member is primary)", a)
		}
		return a, nil
	}
	special := AllMembers
	if kind == Kill || kind == Stop || kind == Restart {
		special = PrimaryMember
	}
	switch {
	case member == "":
		return a, fmt.Errorf("%s needs a member: %s=n2 or %s=%s", kind, kind, kind, special)
	case member == special || memberName.MatchString(member):
		a.Delay = delay
		return a, nil
	case member == PrimaryMember && (kind == Pause || kind == Isolate):
		return a, fmt.Errorf("%q: a primary fetches and applies no oplog to %s; name a secondary (n2) or all", a, kind)
	case member == PrimaryMember && (kind == Slow || kind == Unslow):
		return a, fmt.Errorf("%q: %s takes a member (n2; name the primary's to slow the primary) or all (every secondary)", a, kind)
	case member == PrimaryMember:
		return a, fmt.Errorf("%q: %s takes a member (n2) or all", a, kind)
	case member == AllMembers:
		return a, fmt.Errorf("%q: %s takes one member (n2) or primary", a, kind)
	}
	return a, fmt.Errorf("%q: member %q is not a member name such as n2, nor %s", a, member, special)
}

// parseDelay splits a slow or unslow action's target "MEMBER[:DELAY]":
// slow's delay is whole milliseconds from 1ms to 1h, DefaultSlowDelay when
// absent; unslow takes none.
func parseDelay(kind ActionKind, target string) (string, time.Duration, error) {
	member, delay, hasDelay := strings.Cut(target, ":")
	member, delay = strings.TrimSpace(member), strings.TrimSpace(delay)
	switch {
	case kind == Unslow && hasDelay:
		return member, 0, fmt.Errorf("%q: unslow takes no delay (unslow=%s)", "unslow="+target, member)
	case kind == Unslow:
		return member, 0, nil
	case !hasDelay:
		return member, DefaultSlowDelay, nil
	}
	d, err := time.ParseDuration(delay)
	if err != nil || d < time.Millisecond || d > maxSlowDelay || d%time.Millisecond != 0 {
		return member, 0, fmt.Errorf("%q: slow's delay %q must be whole milliseconds from 1ms to 1h (slow=n3:150ms; default %v)",
			"slow="+target, delay, DefaultSlowDelay)
	}
	return member, d, nil
}

// CheckRestarts checks that every restart=primary follows a kill=primary or
// stop=primary that it undoes.
func CheckRestarts(steps []Step) error {
	down := false
	for _, ph := range steps {
		for _, a := range ph.Actions {
			switch {
			case (a.Kind == Kill || a.Kind == Stop) && a.Member == PrimaryMember:
				down = true
			case a.Kind == Restart && a.Member == PrimaryMember:
				if !down {
					return fmt.Errorf("%w: restart=primary at %v: no earlier kill=primary or stop=primary took a member down (restart=n2 names one)", ErrBadActions, ph.At)
				}
				down = false
			}
		}
	}
	return nil
}

// CheckMembers checks that every member the steps name is one of names.
func CheckMembers(steps []Step, names []string) error {
	for _, ph := range steps {
		for _, a := range ph.Actions {
			if memberName.MatchString(a.Member) && !slices.Contains(names, a.Member) {
				return fmt.Errorf("%w: %s at %v: the cluster has no member %s (members: %s)",
					ErrBadActions, a, ph.At, a.Member, strings.Join(names, ", "))
			}
		}
	}
	return nil
}

// ParseSchedule parses fault actions alone by time:
// "30s:stepdown;50s:kill=primary;80s:restart=primary" (the keys of
// ParseAction; times are Go durations and must increase).
func ParseSchedule(s string) ([]Step, error) {
	var out []Step
	for _, part := range strings.Split(s, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		at, list, ok := strings.Cut(part, ":")
		d, err := time.ParseDuration(strings.TrimSpace(at))
		if !ok || err != nil || d < 0 {
			return nil, fmt.Errorf("%w: %q: want TIME:action[,action], e.g. 30s:stepdown or 60s:pause=n3", ErrBadActions, part)
		}
		if len(out) > 0 && d <= out[len(out)-1].At {
			return nil, fmt.Errorf("%w: %q: times must increase", ErrBadActions, part)
		}
		st := Step{At: d}
		for _, kv := range strings.Split(list, ",") {
			a, isAction, err := ParseAction(kv)
			switch {
			case err != nil:
				return nil, fmt.Errorf("%w: %q: %v", ErrBadActions, part, err)
			case !isAction:
				return nil, fmt.Errorf("%w: %q: %q is not an action (%s)", ErrBadActions, part, strings.TrimSpace(kv), Keys)
			}
			st.Actions = append(st.Actions, a)
		}
		out = append(out, st)
	}
	if len(out) == 0 && strings.TrimSpace(s) != "" {
		return nil, fmt.Errorf("%w: %q holds no action", ErrBadActions, s)
	}
	if err := CheckRestarts(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Nemesis kinds: what Nemesis schedules.
const (
	NemesisStepDown = "stepdown" // step the primary down
	NemesisKill     = "kill"     // kill the primary, restart it half an interval later
	NemesisPause    = "pause"    // pause replication on every secondary, resume half an interval later
	// NemesisLose isolates every secondary, kills the primary a quarter of
	// an interval later and lets the others rejoin (they elect one of
	// themselves), and restarts the old primary half an interval after the
	// start: the w:1 writes it acknowledged alone are rolled back.
	NemesisLose = "lose"
)

// Nemesis schedules faults of the given kinds, one every interval from the
// first interval on, in turn, until duration less one interval (so the
// last fault is undone and the set has settled before the run ends).
// "kill" restarts the killed primary and "pause" resumes replication half
// an interval later.
func Nemesis(kinds []string, interval, duration time.Duration) ([]Step, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	for _, k := range kinds {
		if k != NemesisStepDown && k != NemesisKill && k != NemesisPause && k != NemesisLose {
			return nil, fmt.Errorf("%w: nemesis %q: want %s, %s, %s or %s", ErrBadActions, k, NemesisStepDown, NemesisKill, NemesisPause, NemesisLose)
		}
	}
	if interval <= 0 {
		return nil, fmt.Errorf("%w: nemesis interval %v must be positive", ErrBadActions, interval)
	}
	if duration < 2*interval {
		return nil, fmt.Errorf("%w: a run of %v has no room for a fault every %v (give at least twice the interval)", ErrBadActions, duration, interval)
	}
	var out []Step
	for i, at := 0, interval; at+interval <= duration; i, at = i+1, at+interval {
		switch kinds[i%len(kinds)] {
		case NemesisStepDown:
			out = append(out, Step{At: at, Actions: []Action{{Kind: StepDown}}})
		case NemesisKill:
			out = append(out, Step{At: at, Actions: []Action{{Kind: Kill, Member: PrimaryMember}}},
				Step{At: at + interval/2, Actions: []Action{{Kind: Restart, Member: PrimaryMember}}})
		case NemesisPause:
			out = append(out, Step{At: at, Actions: []Action{{Kind: Pause, Member: AllMembers}}},
				Step{At: at + interval/2, Actions: []Action{{Kind: Resume, Member: AllMembers}}})
		case NemesisLose:
			out = append(out, Step{At: at, Actions: []Action{{Kind: Isolate, Member: AllMembers}}},
				Step{At: at + interval/4, Actions: []Action{{Kind: Kill, Member: PrimaryMember}, {Kind: Rejoin, Member: AllMembers}}},
				Step{At: at + interval/2, Actions: []Action{{Kind: Restart, Member: PrimaryMember}}})
		}
	}
	return out, nil
}

// Merge merges two schedules by time; actions due at the same time run a's
// first.
func Merge(a, b []Step) []Step {
	out := slices.Concat(a, b)
	slices.SortStableFunc(out, func(x, y Step) int { return cmp.Compare(x.At, y.At) })
	return out
}
