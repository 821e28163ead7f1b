package monitor

import (
	"context"
	"fmt"
)

// LagSource says where lag polls come from.
type LagSource uint8

const (
	// SourceAuto (the default) tries replSetGetStatus when the monitor
	// starts and, if the user is not authorized to run it (code 13,
	// Unauthorized: it needs the clusterMonitor role), uses hello for the
	// life of the monitor. Any other error fails the start as before.
	SourceAuto LagSource = iota + 1
	// SourceReplSetGetStatus asks the primary's replSetGetStatus: one
	// command, the primary's view of every member.
	SourceReplSetGetStatus
	// SourceHello asks every member's hello at once over its direct
	// connection (lastWrite, localTime, its state): what the drivers'
	// maxStalenessSeconds uses; any user may run it. Its lastWriteDate
	// has whole seconds (the optime's), so a secondary that misses a write
	// looks up to 1 s staler than by replSetGetStatus: never fresher.
	SourceHello
)

// String returns "auto", "replsetgetstatus" or "hello".
func (s LagSource) String() string {
	switch s {
	case SourceAuto:
		return "auto"
	case SourceReplSetGetStatus:
		return "replsetgetstatus"
	case SourceHello:
		return "hello"
	}
	return fmt.Sprintf("lag-source(%d)", uint8(s))
}

// ParseLagSource accepts "auto", "replsetgetstatus" and "hello".
func ParseLagSource(s string) (LagSource, error) {
	for _, src := range []LagSource{SourceAuto, SourceReplSetGetStatus, SourceHello} {
		if s == src.String() {
			return src, nil
		}
	}
	return 0, fmt.Errorf("unknown lag source %q (want auto, replsetgetstatus or hello)", s)
}

// chooseSource takes the first lag sample from the source asked for and
// returns the source in force and why. Auto tries replSetGetStatus and
// turns to hello only when the user is not authorized to run it: a network
// error or a timeout is not a reason to switch (it would hide a primary
// that does not answer).
func chooseSource(ctx context.Context, want LagSource, status, hello func(context.Context) LagSample) (LagSource, LagSample, string) {
	switch want {
	case SourceReplSetGetStatus:
		return want, status(ctx), "asked for"
	case SourceHello:
		return want, hello(ctx), "asked for"
	}
	s := status(ctx)
	if !unauthorized(s.Err) {
		return SourceReplSetGetStatus, s, "auto: replSetGetStatus is authorized"
	}
	return SourceHello, hello(ctx), fmt.Sprintf("auto: replSetGetStatus is not authorized for this user, so hello on every member (%v)", s.Err)
}
