package report

// Reconfigurations: how each run's reads fared around the moments reads moved
// from one member to another (results.Summary.Reconfigurations, from package
// reconfig): the read-hints paper's throughput before, the dip after, the time
// to recover and the new serving member's cache misses.

import (
	"io"
	"strconv"

	"github.com/decongestant/decongestant/results"
)

// reconfigRows are the reconfigurations of x's runs, ordered as the
// comparison (policy in order of first appearance, then repetition), then
// by time.
func reconfigRows(x Input) []runRow[results.Reconfiguration] {
	var out []runRow[results.Reconfiguration]
	for _, g := range groupRuns(x.Results) {
		for _, run := range g.runs {
			name := runName(run.Policy, run.Repetition, len(g.runs) > 1)
			for _, r := range run.Summary.Reconfigurations {
				out = append(out, runRow[results.Reconfiguration]{policy: run.Policy, name: name, v: r})
			}
		}
	}
	return out
}

var reconfigColumns = []runColumn[results.Reconfiguration]{
	{header: "at s", get: func(r results.Reconfiguration) string { return fmtSecondsOpt(&r.AtS, "-") }},
	{header: "cause", left: true, get: func(r results.Reconfiguration) string { return orDash(r.Cause) }},
	{header: "pre read ops/s", get: func(r results.Reconfiguration) string { return fmtNum(r.PreReadTput) }},
	{header: "pre s", get: func(r results.Reconfiguration) string { return fmtSecondsOpt(&r.PreS, "-") }},
	{header: "dip read ops/s", get: func(r results.Reconfiguration) string { return fmtNum(r.DipReadTput) }},
	{header: "dip %", get: func(r results.Reconfiguration) string { return fmtOpt(r.DipPct, "-") }},
	{header: "recovery s", get: func(r results.Reconfiguration) string {
		if r.DipPct == nil {
			return "-" // no reads before: nothing to recover to
		}
		return fmtSecondsOpt(r.RecoveryS, "never")
	}},
	{header: "serving member", left: true, get: func(r results.Reconfiguration) string { return orDash(r.ServingMember) }},
	{header: "max miss %", get: func(r results.Reconfiguration) string { return fmtOpt(r.ServingMaxCacheMissPct, "-") }},
}

// reconfigNote defines the columns.
const reconfigNote = `pre = mean read throughput of the periods ending in the 30 s before (pre s: how much of them the run had); ` +
	`dip = the lowest single period ending in the 60 s after, and as % of pre; recovery = time from the ` +
	`reconfiguration to the start of the first 3 periods in a row each at 90 % of pre or more (never: not before the ` +
	`run ended); serving member = the one that served the most routed reads in the 60 s after, and max miss % its ` +
	`highest cache miss rate there (bench --member-stats). Over all periods, warm-up included.`

// fmtOpt formats an optional value, none when it is null.
func fmtOpt(v *float64, none string) string {
	if v == nil {
		return none
	}
	return fmtNum(*v)
}

// fmtSecondsOpt formats an optional time in seconds as recorded (to the
// ms: 4, 0.5, 61.25), none when it is null.
func fmtSecondsOpt(v *float64, none string) string {
	if v == nil || !finite(*v) {
		return none
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// reconfigSection is the reconfiguration table of input x (one client count
// of a sweep); nil when no run has a reconfiguration.
func reconfigSection(x Input, pal palette) *runsSection {
	rows := reconfigRows(x)
	if len(rows) == 0 {
		return nil
	}
	return &runsSection{Heading: "Reconfigurations", Note: reconfigNote, Table: runTable("reconfig", reconfigColumns, rows, pal, nil)}
}

// writeReconfigText writes the reconfiguration table of input x (one
// client count of a sweep); nothing when no run has a reconfiguration.
func writeReconfigText(w io.Writer, x Input) error {
	rows := reconfigRows(x)
	if len(rows) == 0 {
		return nil
	}
	return writeRunTableText(w, "Reconfigurations: "+x.Name+" ("+reconfigNote+")", reconfigColumns, rows)
}
