package report

import (
	"fmt"
	"strconv"
	"strings"
)

// memberColumn is a column of the per-member tables after the member.
type memberColumn struct {
	header string
	left   bool // text, not a number
	get    func(memberRow) string
}

// memberColumns are the per-member tables' columns, in order; the note
// (idleNote) follows them.
var memberColumns = []memberColumn{
	{header: "role(s)", left: true, get: func(r memberRow) string { return orDash(strings.Join(r.roles, "→")) }},
	{header: "reads", get: func(r memberRow) string { return strconv.FormatInt(r.served, 10) }},
	{header: "share %", get: func(r memberRow) string { return fmtNum(r.sharePct) }},
	{header: "client P50 ms", get: func(r memberRow) string { return fmtNum(r.clientP50.value()) }},
	{header: "client P80 ms", get: func(r memberRow) string { return fmtNum(r.clientP80.value()) }},
	{header: "wire P50 ms", get: func(r memberRow) string { return fmtNum(r.wireP50.value()) }},
	{header: "server ms", get: func(r memberRow) string { return fmtNum(r.serverMS.value()) }},
	{header: "max lag ms", get: func(r memberRow) string { return fmtNum(r.maxLagMS) }},
	{header: "mean weight %", get: func(r memberRow) string { return fmtNum(r.weightPct.value()) }},
}

// idleNote says in how many of its periods as a secondary the member served
// no read while other secondaries did, and in how many of those the policy
// had given it weight 0; "" when none.
func idleNote(r memberRow) string {
	if r.idle == 0 {
		return ""
	}
	s := fmt.Sprintf("no reads in %d of %d periods as secondary", r.idle, r.secondary)
	switch {
	case r.idleWeight0 == r.idle:
		s += " (weight 0)"
	case r.idleWeight0 > 0:
		s += fmt.Sprintf(" (weight 0 in %d)", r.idleWeight0)
	}
	return s
}

// dropped reports whether the member went without reads in a period where
// the policy had not excluded it: the driver dropped it, or the policy's
// weights were not followed.
func (r memberRow) dropped() bool { return r.idle > r.idleWeight0 }
