package history

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// FormatVersion is the version of the JSONL format this package writes and
// reads (Header.Version).
const FormatVersion = 1

// Kind is what an operation did to its register.
type Kind string

// The kinds of operation.
const (
	KindRead  Kind = "read"  // returns (version, value)
	KindWrite Kind = "write" // sets the value, increments the version
	KindCAS   Kind = "cas"   // a write that applies only when the value equals Expect
)

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool { return k == KindRead || k == KindWrite || k == KindCAS }

// writes reports whether an operation of kind k writes (Write or CAS).
func (k Kind) writes() bool { return k == KindWrite || k == KindCAS }

// Outcome is what the client learnt about an operation.
type Outcome string

// The outcomes of an operation.
const (
	// OutcomeOK: the operation took effect and returned its result.
	OutcomeOK Outcome = "ok"
	// OutcomeFail: the operation did not take effect: a CAS whose expected value did
	// not match (Err empty), or an error known to happen before the server
	// applied anything (Err set).
	OutcomeFail Outcome = "fail"
	// OutcomeUnknown: a timeout or network error; the operation may or may not have
	// taken effect.
	OutcomeUnknown Outcome = "unknown"
)

// Valid reports whether o is one of the outcomes above.
func (o Outcome) Valid() bool { return o == OutcomeOK || o == OutcomeFail || o == OutcomeUnknown }

// Op is one operation of one client on one register, with its real-time
// interval [Invoke, Complete].
type Op struct {
	Client   int     `json:"client"`           // one client = one session; its ops are sequential
	Key      string  `json:"key"`              // the register
	Kind     Kind    `json:"kind"`             // read, write or cas
	Value    int64   `json:"value"`            // write/cas: the value written; read: the value returned (when ok)
	Expect   int64   `json:"expect,omitempty"` // cas: the value it replaces
	Version  int64   `json:"version"`          // read: the version returned; write/cas ok: the version the write got
	Outcome  Outcome `json:"outcome"`          // ok, fail or unknown
	Invoke   int64   `json:"invoke_ns"`        // ns since the history's start, when the op was sent
	Complete int64   `json:"complete_ns"`      // when it returned (for unknown: when the client gave up)
	Member   string  `json:"member,omitempty"` // host:port that served it, when known
	Err      string  `json:"err,omitempty"`    // the error, for fail and unknown
}

// String describes op on one line, for reports and test failures, e.g.
// "client 3 k1 write 42 -> v5 ok [100, 900] @h:27018".
func (op Op) String() string {
	var what string
	switch op.Kind {
	case KindRead:
		what = "read"
		if op.Outcome == OutcomeOK {
			what = fmt.Sprintf("read -> v%d=%d", op.Version, op.Value)
		}
	case KindCAS:
		what = fmt.Sprintf("cas %d->%d", op.Expect, op.Value)
	default:
		what = fmt.Sprintf("%s %d", op.Kind, op.Value)
	}
	if op.Kind.writes() && op.Outcome == OutcomeOK {
		what += fmt.Sprintf(" -> v%d", op.Version)
	}
	s := fmt.Sprintf("client %d %s %s %s [%d, %d]", op.Client, op.Key, what, op.Outcome, op.Invoke, op.Complete)
	if op.Member != "" {
		s += " @" + op.Member
	}
	if op.Err != "" {
		s += " err=" + op.Err
	}
	return s
}

// validate checks the fields every reader of a history relies on.
func (op Op) validate() error {
	switch {
	case op.Key == "":
		return fmt.Errorf("op without key")
	case !op.Kind.Valid():
		return fmt.Errorf("op has unknown kind %q", op.Kind)
	case !op.Outcome.Valid():
		return fmt.Errorf("op has unknown outcome %q", op.Outcome)
	case op.Complete < op.Invoke:
		return fmt.Errorf("op completes at %d before it is invoked at %d", op.Complete, op.Invoke)
	}
	return nil
}

// Final is a register as read with read concern majority after the run.
type Final struct {
	Key     string  `json:"key"`
	Version int64   `json:"version"`
	Value   int64   `json:"value"`
	Log     []int64 `json:"log"` // the surviving chain of values: Log[i] was written with version i+1
}

// Header describes a recorded history.
type Header struct {
	Version  int               `json:"history"` // FormatVersion
	Keys     []string          `json:"keys"`
	Started  time.Time         `json:"started"`
	Settings map[string]string `json:"settings,omitempty"`
}

// History is a recorded run: the operations of every client, and the
// registers' final state when it was read.
type History struct {
	Header Header
	Ops    []Op
	Final  []Final
}

// byKey groups ops by key, each group in invoke order (ties by completion,
// then by position in h.Ops), keys sorted, so every checker walks a history
// in the same order whatever order the recorder appended it in.
func byKey(ops []Op) (keys []string, groups map[string][]Op) {
	groups = make(map[string][]Op)
	for _, op := range ops {
		groups[op.Key] = append(groups[op.Key], op)
	}
	for k, g := range groups {
		keys = append(keys, k)
		sortByInvoke(g)
	}
	slices.Sort(keys)
	return keys, groups
}

// sortByInvoke sorts ops by invoke time, then completion time, keeping the
// given order among equals.
func sortByInvoke(ops []Op) {
	slices.SortStableFunc(ops, func(a, b Op) int {
		if c := cmp.Compare(a.Invoke, b.Invoke); c != 0 {
			return c
		}
		return cmp.Compare(a.Complete, b.Complete)
	})
}
