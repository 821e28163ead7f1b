package monitor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// LagSource says where lag polls come from.
type LagSource uint8

const (
	// SourceAuto (the default) is a preference order: replSetGetStatus if
	// the user may run it (clusterMonitor), then the heartbeat if the user
	// may write its namespace (Config.Heartbeat), then hello. The monitor
	// decides which are usable when it starts (only an authorization
	// error, code 13, makes one unusable); then every poll asks the
	// preferred one and, when it fails, knows no secondary, or has not
	// answered within its share of the horizon, the next, before the
	// sample is declared unknown. Each sample's Source names the one that
	// took it. While the heartbeat is usable it is written at every poll,
	// whichever source answers, so it is fresh when needed.
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
	// SourceHeartbeat writes the primary's clock ($$NOW) into one small
	// document every poll (w:1, in Config.Heartbeat's namespace) and reads
	// each secondary's copy over its direct connection: a secondary is
	// behind by the primary's clock now minus the time it holds (the
	// technique of pt-heartbeat and Vitess's heartbeat). It needs only
	// find, insert and update on that one collection (readWrite on its
	// database is enough), and has millisecond precision; a healthy
	// secondary reads as about a quarter of the lag interval behind (the
	// age of the latest heartbeat when it is read).
	SourceHeartbeat
)

// String returns "auto", "replsetgetstatus", "hello" or "heartbeat".
func (s LagSource) String() string {
	switch s {
	case SourceAuto:
		return "auto"
	case SourceReplSetGetStatus:
		return "replsetgetstatus"
	case SourceHello:
		return "hello"
	case SourceHeartbeat:
		return "heartbeat"
	}
	return fmt.Sprintf("lag-source(%d)", uint8(s))
}

// ParseLagSource accepts "auto", "replsetgetstatus", "heartbeat" and
// "hello".
func ParseLagSource(s string) (LagSource, error) {
	for _, src := range []LagSource{SourceAuto, SourceReplSetGetStatus, SourceHeartbeat, SourceHello} {
		if s == src.String() {
			return src, nil
		}
	}
	return 0, fmt.Errorf("unknown lag source %q (want auto, replsetgetstatus, heartbeat or hello)", s)
}

// Namespace is a database and a collection.
type Namespace struct {
	DB, Coll string
}

// String returns "db.coll".
func (n Namespace) String() string { return n.DB + "." + n.Coll }

// ParseNamespace parses "db.coll": the database is up to the first dot
// (database names have none), the collection the rest.
func ParseNamespace(s string) (Namespace, error) {
	db, coll, ok := strings.Cut(s, ".")
	if !ok || db == "" || coll == "" {
		return Namespace{}, fmt.Errorf("namespace %q: want db.collection", s)
	}
	if strings.ContainsAny(db, "/\\ \"$*<>:|?\x00") {
		return Namespace{}, fmt.Errorf("namespace %q: the database name holds one of / \\ space \" $ * < > : | ?", s)
	}
	if strings.HasPrefix(coll, "system.") || strings.ContainsAny(coll, "$\x00") {
		return Namespace{}, fmt.Errorf("namespace %q: the collection name may not start with system. nor hold $", s)
	}
	return Namespace{DB: db, Coll: coll}, nil
}

// The heartbeat namespace's defaults (Config.Heartbeat).
const (
	// DefaultHeartbeatColl is the heartbeat's collection.
	DefaultHeartbeatColl = "decongestant_heartbeat"
	// DefaultHeartbeatDB is its database when the URI names none.
	DefaultHeartbeatDB = "decongestant"
)

// source is one lag source a monitor may poll.
type source struct {
	src  LagSource
	poll func(context.Context) LagSample
}

// pollInTurn takes one lag sample from the first of sources that knows:
// each but the last gets until its share of budget has passed since the
// poll began (the first half of it, the next half of the rest, ...), the
// last until ctx ends (the poll's timeout). A source that fails, knows no
// secondary, or has not answered by its deadline yields to the next. The
// sample returned is the first known one, sent at the start of the poll
// (its state is no older) with the time since then as its RTT and the
// reasons the sources before it did not take it in Fallback. When none
// knows, it is the first that answered without an error (it says which
// members it saw), else the first source's failure with the others' added.
// own is the round trip of the source that took the sample alone: what the
// horizon is made of (the chain's would grow every share from the last).
func pollInTurn(ctx context.Context, budget time.Duration, sources []source) (s LagSample, own time.Duration) {
	start := time.Now()
	var passed []string
	var answered, first *LagSample
	var answeredRTT, firstRTT time.Duration
	end := start
	for i, src := range sources {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		bounded := i < len(sources)-1
		if bounded {
			end = end.Add((start.Add(budget).Sub(end)) / 2)
			pctx, cancel = context.WithDeadline(ctx, end)
		}
		s := src.poll(pctx)
		cancel()
		// The driver may give up at the deadline a moment before the
		// context says so.
		late := bounded && ctx.Err() == nil && !time.Now().Before(end)
		own := s.RTT
		s.At, s.RTT = start, time.Since(start)
		if s.Known && s.Err == nil {
			s.Fallback = strings.Join(passed, "; ")
			return s, own
		}
		why := "knows no secondary"
		switch {
		case s.Err != nil && late:
			why = fmt.Sprintf("no answer within its share of the horizon (%v)", end.Sub(start).Round(time.Millisecond))
		case s.Err != nil:
			why = s.Err.Error()
		}
		passed = append(passed, src.src.String()+": "+why)
		if first == nil {
			first, firstRTT = &s, own
		}
		if answered == nil && s.Err == nil {
			answered, answeredRTT = &s, own
		}
		if ctx.Err() != nil {
			break
		}
	}
	if answered != nil {
		answered.Fallback = strings.Join(passed, "; ")
		return *answered, answeredRTT
	}
	if len(passed) > 1 {
		first.Err = fmt.Errorf("%w (then %s)", first.Err, strings.Join(passed[1:], "; "))
	}
	return *first, firstRTT
}

// startSources decides which sources a monitor asked for want may use and
// takes its first sample. status, beat and hello poll each source; probeBeat
// writes the first heartbeat (settle: and waits until it is as old as a
// heartbeat is when a poll reads it), and is what tells whether the user may
// write the heartbeat's namespace ns. An explicit source is the only one
// usable, its first poll's error fails the start (as the caller does with
// first.Err). Under SourceAuto only an authorization error (code 13) rules a
// source out: any other error leaves it usable (a timeout now says nothing
// of the next poll), and the first sample is taken in turn as every poll's
// is. It returns the usable sources in order of preference, the first
// sample and why.
func startSources(ctx context.Context, want LagSource, ns Namespace, budget time.Duration,
	status, beat, hello func(context.Context) LagSample, probeBeat func(ctx context.Context, settle bool) error) ([]source, LagSample, time.Duration, string) {
	srcStatus, srcBeat, srcHello := source{SourceReplSetGetStatus, status}, source{SourceHeartbeat, beat}, source{SourceHello, hello}
	switch want {
	case SourceReplSetGetStatus:
		s := status(ctx)
		return []source{srcStatus}, s, s.RTT, "asked for"
	case SourceHello:
		s := hello(ctx)
		return []source{srcHello}, s, s.RTT, "asked for"
	case SourceHeartbeat:
		if err := probeBeat(ctx, true); err != nil {
			return []source{srcBeat}, LagSample{At: time.Now(), Source: SourceHeartbeat, Err: err}, 0, "asked for"
		}
		s := beat(ctx)
		return []source{srcBeat}, s, s.RTT, "asked for"
	}
	var usable []source
	var notes []string
	first := status(ctx)
	own := first.RTT
	if unauthorized(first.Err) {
		notes = append(notes, fmt.Sprintf("replSetGetStatus is not authorized for this user (%v)", first.Err))
	} else {
		usable = append(usable, srcStatus)
	}
	statusKnows := len(usable) == 1 && first.Known && first.Err == nil
	if err := probeBeat(ctx, !statusKnows); unauthorized(err) {
		notes = append(notes, fmt.Sprintf("the heartbeat's namespace %s is not writable for this user (%v)", ns, err))
	} else {
		usable = append(usable, srcBeat)
	}
	usable = append(usable, srcHello)
	var order []string
	for _, s := range usable {
		name := s.src.String()
		if s.src == SourceHeartbeat {
			name += " on " + ns.String()
		}
		order = append(order, name)
	}
	why := "auto: " + strings.Join(order, ", then ")
	if len(usable) > 1 {
		why += " (each poll takes the next when one fails, knows no secondary or has not answered within its share of the horizon)"
	}
	if len(notes) > 0 {
		why += ": " + strings.Join(notes, "; ")
	}
	if !statusKnows {
		// The chain begins with the status poll already taken.
		turns := slices.Clone(usable)
		if turns[0].src == SourceReplSetGetStatus {
			taken := first
			turns[0].poll = func(context.Context) LagSample { return taken }
		}
		first, own = pollInTurn(ctx, budget, turns)
	}
	return usable, first, own, why
}
