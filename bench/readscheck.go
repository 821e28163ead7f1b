package bench

import (
	"fmt"
	"strings"

	"github.com/decongestant/decongestant/results"
)

// readCounts are the runner's counts of routed reads (readCount) at one
// moment, or between two.
type readCounts struct {
	routed, failed, cancelled, units, failedCommands int64
}

func (c readCounts) sub(prev readCounts) readCounts {
	return readCounts{routed: c.routed - prev.routed, failed: c.failed - prev.failed, cancelled: c.cancelled - prev.cancelled,
		units: c.units - prev.units, failedCommands: c.failedCommands - prev.failedCommands}
}

// readsCheck compares the routed reads the clients made (c) with the read
// commands the router counted over the same span (served): they must be
// equal, unless calls failed or were cut off, a read command failed (the
// driver retries it) or multi-query units ran, which make them differ
// legitimately; then Match is null and Note says why (results.ReadsCheck).
func readsCheck(c readCounts, served int64) results.ReadsCheck {
	rc := results.ReadsCheck{Routed: c.routed, Served: served, Failed: c.failed, FailedCommands: c.failedCommands,
		Cancelled: c.cancelled, Units: c.units}
	var why []string
	for _, d := range []struct {
		n    int64
		what string
	}{
		{c.failed, "failed calls"},
		{c.failedCommands, "failed read commands"},
		{c.cancelled, "calls cut off"},
		{c.units, "multi-query units"},
	} {
		if d.n != 0 {
			why = append(why, fmt.Sprintf("%s %d", d.what, d.n))
		}
	}
	if len(why) > 0 {
		rc.Note = "not compared: " + strings.Join(why, ", ")
		return rc
	}
	match := served == c.routed
	rc.Match = &match
	switch {
	case served > c.routed:
		rc.Note = fmt.Sprintf("the router counted %d more than the clients made", served-c.routed)
	case served < c.routed:
		rc.Note = fmt.Sprintf("the router counted %d fewer than the clients made", c.routed-served)
	}
	return rc
}
