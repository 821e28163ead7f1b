package history

import (
	"cmp"
	"slices"
)

// Guarantee names a session guarantee.
type Guarantee string

// The session guarantees, checked per client and per key by version.
const (
	// ReadYourWrites: a read after the client's own acknowledged write of
	// version v returns a version >= v.
	ReadYourWrites Guarantee = "read_your_writes"
	// MonotonicReads: a read never returns a version below one the client
	// already read.
	MonotonicReads Guarantee = "monotonic_reads"
	// MonotonicWrites: the client's acknowledged writes get increasing
	// versions in issue order.
	MonotonicWrites Guarantee = "monotonic_writes"
	// WritesFollowReads: a write acknowledged after the client read version
	// v gets a version > v.
	WritesFollowReads Guarantee = "writes_follow_reads"
)

// SessionViolation is a pair of one client's ops on one key that breaks a
// guarantee: Earlier set the floor (the highest version the client had read
// or written), Later went below it.
type SessionViolation struct {
	Guarantee Guarantee `json:"guarantee"`
	Client    int       `json:"client"`
	Key       string    `json:"key"`
	Earlier   Op        `json:"earlier"`
	Later     Op        `json:"later"`
}

// GuaranteeReport is the result for one guarantee.
type GuaranteeReport struct {
	// Checked counts the ops the guarantee constrained: those with an
	// earlier op of the same client and key that set a floor.
	Checked    int                `json:"checked"`
	Violations int                `json:"violations"`
	Examples   []SessionViolation `json:"examples,omitempty"` // the first, by the later op's invocation
}

// SessionReport is the result of CheckSessions.
type SessionReport struct {
	ReadYourWrites    GuaranteeReport `json:"read_your_writes"`
	MonotonicReads    GuaranteeReport `json:"monotonic_reads"`
	MonotonicWrites   GuaranteeReport `json:"monotonic_writes"`
	WritesFollowReads GuaranteeReport `json:"writes_follow_reads"`
	Violations        int             `json:"violations"` // all four
}

// Guarantee returns the report for g (nil for an unknown g).
func (r *SessionReport) Guarantee(g Guarantee) *GuaranteeReport {
	switch g {
	case ReadYourWrites:
		return &r.ReadYourWrites
	case MonotonicReads:
		return &r.MonotonicReads
	case MonotonicWrites:
		return &r.MonotonicWrites
	case WritesFollowReads:
		return &r.WritesFollowReads
	}
	return nil
}

// CheckSessions checks the four session guarantees for every client (a
// client is one session; its ops are sequential, taken in invoke order) on
// every key, by the versions its ops returned. Only ops that returned ok
// count: a read with its version, a write or cas with the version it got.
// A client's floor is the highest version it has read (monotonic reads,
// writes follow reads) or written (read your writes, monotonic writes), so
// a read that goes back below a version read two reads earlier is a
// violation too.
func CheckSessions(h History) SessionReport {
	type session struct {
		client int
		key    string
	}
	ops := make(map[session][]Op)
	var sessions []session
	for _, op := range h.Ops {
		if op.Outcome != OutcomeOK {
			continue
		}
		s := session{op.Client, op.Key}
		if _, ok := ops[s]; !ok {
			sessions = append(sessions, s)
		}
		ops[s] = append(ops[s], op)
	}
	var rep SessionReport
	var found []SessionViolation
	check := func(g Guarantee, floor *Op, op Op, ok func(floor, v int64) bool) {
		if floor == nil {
			return
		}
		gr := rep.Guarantee(g)
		gr.Checked++
		if !ok(floor.Version, op.Version) {
			gr.Violations++
			found = append(found, SessionViolation{Guarantee: g, Client: op.Client, Key: op.Key, Earlier: *floor, Later: op})
		}
	}
	atLeast := func(floor, v int64) bool { return v >= floor }
	above := func(floor, v int64) bool { return v > floor }
	for _, s := range sessions {
		sortByInvoke(ops[s])
		var read, wrote *Op // the highest version read, written
		for _, op := range ops[s] {
			switch {
			case op.Kind == KindRead:
				check(ReadYourWrites, wrote, op, atLeast)
				check(MonotonicReads, read, op, atLeast)
				if read == nil || op.Version > read.Version {
					read = &op
				}
			case op.Kind.writes():
				check(MonotonicWrites, wrote, op, above)
				check(WritesFollowReads, read, op, above)
				if wrote == nil || op.Version > wrote.Version {
					wrote = &op
				}
			}
		}
	}
	slices.SortStableFunc(found, func(a, b SessionViolation) int {
		return cmp.Or(cmp.Compare(a.Later.Invoke, b.Later.Invoke), cmp.Compare(a.Client, b.Client), cmp.Compare(a.Key, b.Key))
	})
	for _, v := range found {
		gr := rep.Guarantee(v.Guarantee)
		if len(gr.Examples) < maxExamples {
			gr.Examples = append(gr.Examples, v)
		}
	}
	rep.Violations = len(found)
	return rep
}
