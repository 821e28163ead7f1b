package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
)

// LagEstimate says how a secondary's staleness is estimated from a lag poll
// (either LagSource: replSetGetStatus's date, optimes and
// lastAppliedWallTime, or hello's localTime, lastWrite.opTime and
// lastWrite.lastWriteDate).
type LagEstimate uint8

const (
	// SinceApplied (the default): a secondary that has applied everything the
	// primary has is 0 behind; one that misses a write is behind by the
	// primary's clock ("date", hello's "localTime") minus the wall time of
	// the last write it applied. Every write it misses is newer than that, so
	// this bounds the staleness of any read it serves now, also when the
	// primary has been idle since a write the secondary lacks.
	SinceApplied LagEstimate = iota + 1
	// AppliedDiff is the Decongestant paper's estimate (§2.3): the primary's
	// lastAppliedWallTime minus the secondary's. It underestimates when the
	// primary has been idle since a write the secondary lacks (the gap between
	// the write and now is not counted); MongoDB's periodic no-op writes cap
	// that at about 10 s.
	AppliedDiff
)

// String returns "since-applied" or "applied-diff".
func (e LagEstimate) String() string {
	switch e {
	case SinceApplied:
		return "since-applied"
	case AppliedDiff:
		return "applied-diff"
	}
	return fmt.Sprintf("lag-estimate(%d)", uint8(e))
}

// ParseLagEstimate accepts "since-applied" and "applied-diff".
func ParseLagEstimate(s string) (LagEstimate, error) {
	switch s {
	case "since-applied":
		return SinceApplied, nil
	case "applied-diff":
		return AppliedDiff, nil
	}
	return 0, fmt.Errorf("unknown lag estimate %q (want since-applied or applied-diff)", s)
}

type opTime struct {
	TS bson.Timestamp `bson:"ts"`
	T  int64          `bson:"t"`
}

type statusReply struct {
	Date    time.Time      `bson:"date"`
	Members []memberStatus `bson:"members"`
}

type memberStatus struct {
	Name                string    `bson:"name"`
	StateStr            string    `bson:"stateStr"`
	Optime              opTime    `bson:"optime"`
	LastAppliedWallTime time.Time `bson:"lastAppliedWallTime"`
	OptimeDate          time.Time `bson:"optimeDate"`
}

// poll takes a lag sample from the sources in use: the one asked for, or
// SourceAuto's in turn (pollInTurn, within the slack the latest known
// sample's horizon leaves).
func (m *Monitor) poll(ctx context.Context) LagSample {
	if len(m.sources) == 1 {
		s := m.sources[0].poll(ctx)
		return m.afterPoll(s, s.RTT)
	}
	return m.afterPoll(pollInTurn(ctx, m.slack, m.sources))
}

// afterPoll sets an answered sample's horizon from the round trip own of
// the source that took it (withHorizon) and, while the heartbeat is in use,
// schedules its next write: when the heartbeat is the preferred source or
// took this sample, a quarter interval before the next poll is due (the age
// at which a healthy secondary will hold it: pt-heartbeat's skew); else
// now, so that the preferred source's next poll finds it replicated (a
// write racing that poll would make a caught-up secondary look one write
// behind).
func (m *Monitor) afterPoll(s LagSample, own time.Duration) LagSample {
	if s.Err == nil {
		s = m.withHorizon(s, own)
	}
	for i, src := range m.sources {
		if src.src != SourceHeartbeat {
			continue
		}
		at := time.Now()
		if i == 0 || s.Source == SourceHeartbeat {
			at = s.At.Add(m.cfg.LagInterval - beatSkew(m.cfg.LagInterval))
		}
		m.beat.schedule(at)
	}
	return s
}

// pollStatus asks the primary for replSetGetStatus and estimates each
// secondary's staleness (millisecond precision).
func (m *Monitor) pollStatus(ctx context.Context) LagSample {
	s := LagSample{At: time.Now(), Source: SourceReplSetGetStatus}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	res := m.set.Database("admin").RunCommand(cctx, bson.D{{Key: "replSetGetStatus", Value: 1}})
	s.RTT = time.Since(s.At)
	var reply statusReply
	if err := res.Err(); err != nil {
		hint := ""
		if unauthorized(err) {
			hint = "; the heartbeat lag source needs only readWrite on its collection, the hello lag source no role"
		}
		s.Err = fmt.Errorf("monitor: replSetGetStatus on the primary of %s: %w%s", redact.URI(m.uri), explainAccess(err, m.who), hint)
		return s
	}
	if err := res.Decode(&reply); err != nil {
		s.Err = fmt.Errorf("monitor: decode replSetGetStatus: %w", err)
		return s
	}
	return lagFrom(s, reply, m.cfg.LagEstimate)
}

// withHorizon records an answered poll's round trip rtt (the round trip of
// the source that took it) and sets the sample's horizon from it and the
// recent polls', and the slack it leaves the next poll. Only polls call it
// (they never overlap).
func (m *Monitor) withHorizon(s LagSample, rtt time.Duration) LagSample {
	m.rtts[m.nrtt%len(m.rtts)] = rtt
	m.nrtt++
	s.Horizon = Horizon(m.cfg.LagInterval, rtt, slices.Max(m.rtts[:]))
	if s.Known {
		m.slack = s.Horizon - m.cfg.LagInterval
	}
	return s
}

// Horizon is how long a lag sample stands: until the next poll is sent
// (interval) and has had time to answer. The answer is allowed the most of
// half the interval, twice this poll's round trip, and 1.25 times the
// slowest of the recent polls (a CPU-capped primary stalls for the rest of
// its quota window, tens of ms, now and then; without this its slow answers
// would expire samples over and over). A sample not followed by another
// within its horizon is superseded by an unknown one.
func Horizon(interval, rtt, recentMax time.Duration) time.Duration {
	return interval + max(interval/2, 2*rtt, recentMax*5/4)
}

func lagFrom(s LagSample, reply statusReply, est LagEstimate) LagSample {
	var primaryWall time.Time
	var primaryOp opTime
	for _, mem := range reply.Members {
		if mem.StateStr == "PRIMARY" {
			s.Primary = mem.Name
			primaryWall = wall(mem.LastAppliedWallTime, mem.OptimeDate)
			primaryOp = mem.Optime
		}
	}
	if s.Primary == "" {
		s.Err = errors.New("monitor: no PRIMARY in replSetGetStatus")
		return s
	}
	now := reply.Date
	if now.IsZero() || now.Before(primaryWall) {
		now = primaryWall
	}
	for _, mem := range reply.Members {
		ml := MemberLag{Host: mem.Name, State: mem.StateStr, Applied: mem.Optime.TS}
		switch mem.StateStr {
		case "PRIMARY":
			ml.Role = balancer.Primary
		case "SECONDARY":
			ml.Role = balancer.Secondary
			caughtUp := mem.Optime == primaryOp && !primaryOp.TS.IsZero()
			ml.Lag = staleness(est, caughtUp, now, primaryWall, wall(mem.LastAppliedWallTime, mem.OptimeDate))
			s.Max = max(s.Max, ml.Lag)
			s.Known = true
		}
		s.Members = append(s.Members, ml)
	}
	return s
}

// staleness is a SECONDARY's estimate by est: caughtUp when it has every
// write the primary had when it answered, now the primary's clock then,
// primaryWall the wall time of the primary's last write and applied that of
// the secondary's.
func staleness(est LagEstimate, caughtUp bool, now, primaryWall, applied time.Time) time.Duration {
	switch {
	case est == AppliedDiff:
		return max(primaryWall.Sub(applied), 0)
	case caughtUp:
		return 0 // has everything the primary has
	}
	return max(now.Sub(applied), 0)
}

// wall prefers lastAppliedWallTime and falls back to the optime's date
// (1 s granularity) for servers that do not report it.
func wall(applied, optime time.Time) time.Time {
	if !applied.IsZero() {
		return applied
	}
	return optime
}

// lagLoop polls every interval and hands each sample to apply. A poll runs
// in its own goroutine so a slow primary cannot hold a sample in force past
// its horizon: when the horizon of the latest known sample passes without a
// new one, an unknown sample (ErrLagExpired) is applied, so the balancer
// stops secondary reads until a poll answers. Polls are sent every interval
// from the first sample's send time (the horizons assume that schedule); a
// poll still running when the next is due delays it. Only the poll touches
// the network.
func lagLoop(ctx context.Context, interval time.Duration, last LagSample, poll func(context.Context) LagSample, apply func(LagSample)) {
	due := last.At.Add(interval)
	tick := time.NewTimer(time.Until(due))
	defer tick.Stop()
	expiry := time.NewTimer(time.Hour)
	defer expiry.Stop()
	arm := func(s LagSample) {
		expiry.Stop()
		if s.Known && s.Horizon > 0 {
			expiry.Reset(time.Until(s.At.Add(s.Horizon)))
		}
	}
	arm(last)
	results := make(chan LagSample, 1) // a poll finishing after we return does not block
	var polls sync.WaitGroup
	defer polls.Wait() // ctx is cancelled by then, so the poll returns promptly
	polling := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if !polling {
				polling = true
				polls.Go(func() { results <- poll(ctx) })
			}
			for !due.After(time.Now()) {
				due = due.Add(interval)
			}
			tick.Reset(time.Until(due))
		case s := <-results:
			polling = false
			if ctx.Err() != nil {
				return
			}
			apply(s)
			arm(s)
			if s.Known {
				last = s
			}
		case now := <-expiry.C:
			apply(LagSample{At: now, Source: last.Source, Err: fmt.Errorf("%w: the %s poll has not answered within %v of the poll at %s",
				ErrLagExpired, last.Source, last.Horizon, last.At.Format("15:04:05.000"))})
		}
	}
}

// ErrLagExpired is the error of the unknown sample reported when a poll has
// not answered within the previous sample's horizon.
var ErrLagExpired = errors.New("lag observation expired")
