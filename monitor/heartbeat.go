package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
)

// The heartbeat lag source (SourceHeartbeat), after pt-heartbeat and
// Vitess's replication-lag heartbeat: the monitor writes the primary's own
// clock into one document, and reads every secondary's copy of it. Every
// write a secondary lacks was applied on the primary after the copy it
// holds, so it is newer than the time in it: a read there misses nothing
// older than (the primary's clock now) − (that time). DESIGN.md, "Lag
// sources", has the argument and the error terms.

// beatID is the heartbeat document's _id: one document, whichever monitor
// writes it (all write the primary's clock, so any copy is a valid bound).
const beatID = "decongestant"

// beatSkew is how old the heartbeat is when the poll that prefers it reads
// the secondaries (pt-heartbeat's --skew): it is written that long before
// the poll is due, so a healthy secondary has applied it and reads as about
// that far behind. A quarter of the interval.
func beatSkew(interval time.Duration) time.Duration { return interval / 4 }

// maxDriftPPM bounds how fast two clocks drift apart, in parts per million
// (NTP's tolerance): an offset learned d ago may be off by d·500e-6 more.
const maxDriftPPM = 500

// primaryClock maps the local clock to the primary's, learned from one
// heartbeat write: the primary evaluated $$NOW (TS, whole milliseconds) at
// some moment between the write's send (Sent) and its answer (Recv), so
// taking the midpoint of the round trip errs by at most half of it (plus
// the millisecond TS drops, plus the drift since).
type primaryClock struct {
	// Host is the member that answered the write ("" when it went through
	// the replica-set client, before the primary was known).
	Host string
	// Mid is the round trip's local midpoint (with Go's monotonic reading
	// when taken from time.Now: a local wall-clock step does not move it).
	Mid time.Time
	// TS is the primary's $$NOW; RTT the write's round trip.
	TS  time.Time
	RTT time.Duration
}

// clockFrom is what a heartbeat write to host, sent at sent and answered at
// recv with the primary's time ts, says of the primary's clock.
func clockFrom(host string, sent, recv, ts time.Time) primaryClock {
	rtt := recv.Sub(sent)
	return primaryClock{Host: host, Mid: sent.Add(rtt / 2), TS: ts, RTT: rtt}
}

// now estimates the primary's clock at the local time local.
func (c primaryClock) now(local time.Time) time.Time { return c.TS.Add(local.Sub(c.Mid)) }

// errorAt bounds how far now(local) may be from the primary's clock: half
// the round trip, TS's truncation to the millisecond, and the drift since
// the write.
func (c primaryClock) errorAt(local time.Time) time.Duration {
	age := local.Sub(c.Mid)
	if age < 0 {
		age = -age
	}
	return c.RTT/2 + time.Millisecond + age/1e6*maxDriftPPM
}

// replaces reports whether n, just learned, should replace c for the
// estimates from now on: when c is none, is another member's clock (a new
// primary), or n's error bound is no larger than c's has grown to. A write
// slowed by a busy primary does not displace a tight offset learned
// earlier.
func (c primaryClock) replaces(n primaryClock) bool {
	return c.Mid.IsZero() || c.Host != n.Host || n.errorAt(n.Mid) <= c.errorAt(n.Mid)
}

// beatLag is a secondary's staleness by the heartbeat: the primary's clock
// when the secondary's answer arrived (at, local) minus the primary's time
// in the copy it holds (ts); never negative (an offset error can make a
// copy written just now look written in the future).
func beatLag(c primaryClock, at, ts time.Time) time.Duration {
	return max(c.now(at).Sub(ts), 0)
}

// beatRead is what a heartbeat poll read of a secondary's copy of the
// heartbeat document.
type beatRead struct {
	// TS is the primary's time in the member's copy; Found is false when
	// the member has none (the first write has not reached it).
	TS    time.Time
	Found bool
	// At is when the member's answer arrived (local clock).
	At  time.Time
	Err error
}

// stateNoBeat: a secondary without a copy of the heartbeat document.
const stateNoBeat = "SECONDARY without the heartbeat document"

// beater writes the heartbeat: once synchronously when the monitor starts
// (probe), then once per poll at the time afterPoll schedules, one write at
// a time, and keeps the primary's clock the writes teach.
type beater struct {
	m *Monitor

	mu      sync.Mutex
	pending bool // a write is scheduled or under way
	clock   primaryClock
	lastErr error // of the latest write
}

// probe writes the heartbeat now and returns the write's error (an
// Unauthorized one says the user may not use the heartbeat). With settle it
// then waits until the heartbeat is as old as when a poll reads it, so that
// a first poll right after finds it on healthy secondaries.
func (b *beater) probe(ctx context.Context, settle bool) error {
	if err := b.write(ctx, b.m.cfg.Timeout); err != nil || !settle {
		return err
	}
	t := time.NewTimer(beatSkew(b.m.cfg.LagInterval))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// schedule writes the heartbeat at at (now if it has passed) on a goroutine
// of the monitor's, unless a write is already scheduled or under way: a
// primary too busy to answer one is not sent more. The write is given two
// intervals (at most the timeout): one sent to a member that has gone away
// does not hold back the next, to the primary the next polls find, for the
// whole timeout; one that a busy primary is slow to answer still lands there
// (only its clock reading is lost, and the offset kept does for a while).
func (b *beater) schedule(at time.Time) {
	b.mu.Lock()
	if b.pending {
		b.mu.Unlock()
		return
	}
	b.pending = true
	b.mu.Unlock()
	// Only polls and Start call schedule: the monitor's WaitGroup is held
	// by the lag loop (or not yet waited on) when it is added to.
	b.m.wg.Go(func() {
		defer func() {
			b.mu.Lock()
			b.pending = false
			b.mu.Unlock()
		}()
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		select {
		case <-b.m.run.Done():
			return
		case <-t.C:
		}
		_ = b.write(b.m.run, min(b.m.cfg.Timeout, 2*b.m.cfg.LagInterval)) // its error is kept for the poll that needs the clock
	})
}

// write sets the heartbeat document's ts to the primary's $$NOW (w:1, so a
// lagging secondary cannot hold it up) and learns the primary's clock from
// the answer. It goes over the direct connection to the member the latest
// poll found primary (so the clock learned is known to be that member's),
// else through the replica-set client, within timeout.
func (b *beater) write(ctx context.Context, timeout time.Duration) error {
	m := b.m
	host, client := m.primaryClient()
	ns := m.cfg.Heartbeat
	coll := client.Database(ns.DB).Collection(ns.Coll, options.Collection().SetWriteConcern(writeconcern.W1()))
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var doc struct {
		TS time.Time `bson:"ts"`
	}
	sent := time.Now()
	err := coll.FindOneAndUpdate(cctx, bson.D{{Key: "_id", Value: beatID}},
		mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: "ts", Value: "$$NOW"}}}}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&doc)
	recv := time.Now()
	where := "the primary of " + redact.URI(m.uri)
	if host != "" {
		where = "the primary " + host
	}
	if err != nil {
		err = fmt.Errorf("monitor: heartbeat write to %s on %s: %w", ns, where, explainAccess(err, m.who))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastErr = err
	if n := clockFrom(host, sent, recv, doc.TS); err == nil && b.clock.replaces(n) {
		b.clock = n
	}
	return err
}

// current returns the primary's clock as the writes have taught it, and
// false (with the latest write's error) before any write has answered.
func (b *beater) current() (primaryClock, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.clock, !b.clock.Mid.IsZero(), b.lastErr
}

// primaryClient returns the member the latest poll found primary and the
// monitor's direct client of it, or "" and the replica-set client.
func (m *Monitor) primaryClient() (string, *mongo.Client) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, r := range m.roles {
		if p, ok := m.pingers[h]; ok && r == balancer.Primary {
			return h, p.client
		}
	}
	return "", m.set
}

// pollHeartbeat reads every member's hello and every secondary's copy of
// the heartbeat document at once, each over its direct connection, and
// estimates each secondary's staleness (beatLagFrom) with the primary's
// clock as the heartbeat writes taught it: reading does not wait for a
// write. The members are the ones the primary named in the latest poll that
// reached it (the first poll asks the replica-set client's primary).
// Members that have not answered once half the interval has passed are left
// out (not vouched for); the primary's answer is not needed.
func (m *Monitor) pollHeartbeat(ctx context.Context) LagSample {
	s := LagSample{At: time.Now(), Source: SourceHeartbeat}
	clock, ok, werr := m.beat.current()
	if !ok {
		s.Err = fmt.Errorf("monitor: heartbeat: no write of %s has answered yet, so the primary's clock is unknown (%v)", m.cfg.Heartbeat, werr)
		return s
	}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	if len(m.beatHosts) == 0 {
		if m.beatHosts, s.Err = m.setMembers(cctx); s.Err != nil {
			return s
		}
	}
	replies := helloAll(cctx, m.beatHosts, grace(cctx, m.cfg.LagInterval/2), false, m.memberBeat)
	s.RTT = time.Since(s.At)
	s = beatLagFrom(s, replies, clock)
	for _, r := range replies {
		if s.Primary != "" && r.Host == s.Primary {
			m.beatHosts = r.Reply.members()
		}
	}
	return s
}

// memberBeat asks host's hello and, when it answers as a secondary, reads
// its copy of the heartbeat document (read concern local: what a read there
// sees now), over the monitor's direct connection to it.
func (m *Monitor) memberBeat(ctx context.Context, host string) memberHello {
	mh := m.memberHello(ctx, host)
	if mh.Err != nil || !mh.Reply.Secondary {
		return mh
	}
	c, err := m.memberClient(host)
	if err != nil {
		mh.Beat = &beatRead{At: time.Now(), Err: err}
		return mh
	}
	ns := m.cfg.Heartbeat
	var doc struct {
		TS time.Time `bson:"ts"`
	}
	err = c.Database(ns.DB).Collection(ns.Coll, options.Collection().SetReadConcern(readconcern.Local())).
		FindOne(ctx, bson.D{{Key: "_id", Value: beatID}}).Decode(&doc)
	b := &beatRead{At: time.Now()}
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
	case err != nil:
		b.Err = fmt.Errorf("heartbeat read on %s: %w", host, explainAccess(err, m.who))
	default:
		b.TS, b.Found = doc.TS, true
	}
	mh.Beat = b
	return mh
}

// beatLagFrom estimates each secondary's staleness from a heartbeat poll's
// replies with the primary's clock c: the primary's time when the
// secondary's answer arrived minus the time in its copy of the heartbeat
// (beatLag). The members are those the primary's reply names, or, when the
// primary did not answer, those polled. A member that did not answer,
// answered neither primary nor secondary, or is a secondary without a copy
// of the document, is listed with Role 0 (not vouched for). Applied is a
// member's hello lastWrite optime. LagEstimate does not apply: the heartbeat
// bounds staleness the way SinceApplied does.
func beatLagFrom(s LagSample, replies []memberHello, c primaryClock) LagSample {
	var primary *memberHello
	answered := false
	for i, r := range replies {
		answered = answered || r.Err == nil
		if r.Err != nil || !r.Reply.IsWritablePrimary {
			continue
		}
		if primary != nil {
			s.Err = fmt.Errorf("monitor: %s and %s both answer hello as the writable primary", primary.Host, r.Host)
			return s
		}
		primary = &replies[i]
	}
	if !answered {
		s.Err = fmt.Errorf("monitor: heartbeat: no member answered (%s)", helloErrors(replies))
		return s
	}
	var hosts []string
	if primary != nil {
		s.Primary = primary.Host
		hosts = primary.Reply.members()
	} else {
		for _, r := range replies {
			hosts = append(hosts, r.Host)
		}
	}
	for _, host := range hosts {
		ml := MemberLag{Host: host, State: stateNotPolled}
		if i := slices.IndexFunc(replies, func(r memberHello) bool { return r.Host == host }); i >= 0 {
			r := replies[i]
			switch {
			case r.Err != nil:
				ml.State = "(no answer: " + r.Err.Error() + ")"
			case r.Reply.IsWritablePrimary:
				ml.State, ml.Role, ml.Applied = "PRIMARY", balancer.Primary, r.Reply.applied()
			case r.Reply.Secondary && r.Beat == nil:
				ml.State = stateNotPolled
			case r.Reply.Secondary && r.Beat.Err != nil:
				ml.State = "(no answer: " + r.Beat.Err.Error() + ")"
			case r.Reply.Secondary && !r.Beat.Found:
				ml.State = stateNoBeat
			case r.Reply.Secondary:
				ml.State, ml.Role, ml.Applied = "SECONDARY", balancer.Secondary, r.Reply.applied()
				ml.Lag = beatLag(c, r.Beat.At, r.Beat.TS)
				s.Max = max(s.Max, ml.Lag)
				s.Known = true
			case r.Reply.ArbiterOnly:
				ml.State = "ARBITER"
			default:
				ml.State = stateOther
			}
		}
		s.Members = append(s.Members, ml)
	}
	return s
}
