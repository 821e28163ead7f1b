package monitor

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
)

// helloReply is what a lag poll reads from a member's hello.
type helloReply struct {
	IsWritablePrimary bool     `bson:"isWritablePrimary"`
	Secondary         bool     `bson:"secondary"`
	ArbiterOnly       bool     `bson:"arbiterOnly"`
	Hosts             []string `bson:"hosts"`
	Passives          []string `bson:"passives"`
	Arbiters          []string `bson:"arbiters"`
	// LocalTime is the member's clock when it answered.
	LocalTime time.Time `bson:"localTime"`
	// LastWrite is the member's last applied write; nil when the reply
	// has none.
	LastWrite *lastWrite `bson:"lastWrite"`
}

type lastWrite struct {
	OpTime        opTime    `bson:"opTime"`
	LastWriteDate time.Time `bson:"lastWriteDate"`
}

// members are the hosts the primary's hello names: the members a driver may
// read from (hidden members are not listed, and no driver reads from them).
func (r helloReply) members() []string {
	return append(append(append([]string(nil), r.Hosts...), r.Passives...), r.Arbiters...)
}

// applied is the optime timestamp of the member's last write, zero
// without lastWrite.
func (r helloReply) applied() bson.Timestamp {
	if r.LastWrite == nil {
		return bson.Timestamp{}
	}
	return r.LastWrite.OpTime.TS
}

// memberHello is one member's answer to a lag poll: Err when it did not
// answer, or the reply did not decode.
type memberHello struct {
	Host  string
	Reply helloReply
	Err   error
	// Beat is what a heartbeat poll read of a secondary's heartbeat
	// document; nil in hello polls and for members that are not SECONDARY.
	Beat *beatRead
}

// States a hello poll reports beside PRIMARY and SECONDARY.
const (
	// stateOther: hello says neither primary nor secondary nor arbiter
	// (STARTUP2, RECOVERING, ROLLBACK...: hello does not say which).
	stateOther = "OTHER"
	// stateNoLastWrite: a secondary whose reply has no lastWrite.
	stateNoLastWrite = "SECONDARY without lastWrite"
	// stateNotPolled: the primary names a member the poll did not ask (it
	// joined since the previous poll); the next poll asks it.
	stateNotPolled = "(not polled yet)"
)

// pollHello sends hello to every member at once, each over its direct
// connection, and estimates each secondary's staleness from the replies
// (helloLagFrom). The members are the ones the primary named in the previous
// poll; the first poll, and one after a poll without a primary, first asks
// the replica-set client's primary for them. A member that has not
// answered when half the interval has passed and the primary has answered
// is left out (not vouched for), so a member that is down does not hold
// every sample past its horizon.
func (m *Monitor) pollHello(ctx context.Context) LagSample {
	s := LagSample{At: time.Now(), Source: SourceHello}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	if len(m.helloHosts) == 0 {
		if m.helloHosts, s.Err = m.setMembers(cctx); s.Err != nil {
			return s
		}
	}
	replies := helloAll(cctx, m.helloHosts, grace(cctx, m.cfg.LagInterval/2), true, m.memberHello)
	s.RTT = time.Since(s.At)
	s = helloLagFrom(s, replies, m.cfg.LagEstimate)
	m.helloHosts = nil // without a primary, the next poll asks the set again
	for _, r := range replies {
		if s.Primary != "" && r.Host == s.Primary {
			m.helloHosts = r.Reply.members()
		}
	}
	return s
}

// memberHello asks host's hello over the monitor's direct connection to it
// (its pinger's, opened now if it has none).
func (m *Monitor) memberHello(ctx context.Context, host string) memberHello {
	mh := memberHello{Host: host}
	c, err := m.memberClient(host)
	if err == nil {
		err = c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&mh.Reply)
	}
	if err != nil {
		mh.Err = fmt.Errorf("hello on %s: %w", host, err)
	}
	return mh
}

// grace is how long a poll under ctx waits for a member once it has what
// it needs: most, but at most three quarters of what is left before ctx's
// deadline (a source polled in turn has a share of the horizon), so that
// the members that did answer are not lost with the ones that did not.
func grace(ctx context.Context, most time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return min(most, time.Until(d)*3/4)
	}
	return most
}

// helloAll asks every host at once and returns the answers in hosts'
// order. It waits for every answer, except that once grace has passed (and,
// with needPrimary, some member has answered as the writable primary) it
// stops waiting: the members still silent are returned with an error.
func helloAll(ctx context.Context, hosts []string, grace time.Duration, needPrimary bool, ask func(context.Context, string) memberHello) []memberHello {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	answers := make(chan memberHello, len(hosts))
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Go(func() { answers <- ask(ctx, h) })
	}
	byHost := make(map[string]memberHello, len(hosts))
	late := time.NewTimer(grace)
	defer late.Stop()
	graceOver, primary := false, !needPrimary
	for len(byHost) < len(hosts) && !(graceOver && primary) {
		select {
		case a := <-answers:
			byHost[a.Host] = a
			primary = primary || (a.Err == nil && a.Reply.IsWritablePrimary)
		case <-late.C:
			graceOver = true
		}
	}
	cancel()
	wg.Wait()
	out := make([]memberHello, len(hosts))
	for i, h := range hosts {
		a, ok := byHost[h]
		if !ok {
			a = memberHello{Host: h, Err: fmt.Errorf("hello on %s: no answer within %v", h, grace)}
			if needPrimary {
				a.Err = fmt.Errorf("hello on %s: no answer within %v, when the primary had answered", h, grace)
			}
		}
		out[i] = a
	}
	return out
}

// helloLagFrom estimates each secondary's staleness from the members'
// hello replies, as lagFrom does from replSetGetStatus: a secondary whose
// lastWrite optime is not behind the primary's is 0 behind; one that is
// behind is behind by the primary's localTime minus its lastWriteDate (see
// LagEstimate). The members are the ones the primary's reply names; a
// member that did not answer, answered neither primary nor secondary, or
// gave no lastWrite is listed with Role 0 (not vouched for). The replies
// may come from slightly different moments: DESIGN.md ("The hello lag
// source") shows why the estimate never under-states for any order.
func helloLagFrom(s LagSample, replies []memberHello, est LagEstimate) LagSample {
	var primary *memberHello
	for i, r := range replies {
		if r.Err != nil || !r.Reply.IsWritablePrimary {
			continue
		}
		if primary != nil {
			s.Err = fmt.Errorf("monitor: %s and %s both answer hello as the writable primary", primary.Host, r.Host)
			return s
		}
		primary = &replies[i]
	}
	if primary == nil {
		s.Err = fmt.Errorf("monitor: no member answered hello as the writable primary (%s)", helloErrors(replies))
		return s
	}
	p := primary.Reply
	if p.LastWrite == nil {
		s.Err = fmt.Errorf("monitor: the primary %s's hello has no lastWrite", primary.Host)
		return s
	}
	s.Primary = primary.Host
	primaryWall, primaryOp := p.LastWrite.LastWriteDate, p.LastWrite.OpTime
	now := p.LocalTime
	if now.IsZero() || now.Before(primaryWall) {
		now = primaryWall
	}
	for _, host := range p.members() {
		ml := MemberLag{Host: host, State: stateNotPolled}
		for _, r := range replies {
			if r.Host != host {
				continue
			}
			switch {
			case r.Err != nil:
				ml.State = "(no answer: " + r.Err.Error() + ")"
			case r.Reply.IsWritablePrimary:
				ml.State, ml.Role = "PRIMARY", balancer.Primary
				ml.Applied = p.LastWrite.OpTime.TS
			case r.Reply.Secondary && r.Reply.LastWrite == nil:
				ml.State = stateNoLastWrite
			case r.Reply.Secondary:
				w := r.Reply.LastWrite
				ml.State, ml.Role, ml.Applied = "SECONDARY", balancer.Secondary, w.OpTime.TS
				ml.Lag = staleness(est, compareOpTime(w.OpTime, primaryOp) >= 0, now, primaryWall, w.LastWriteDate)
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

// compareOpTime orders optimes as the server does: by term, then timestamp.
func compareOpTime(a, b opTime) int {
	if c := cmp.Compare(a.T, b.T); c != 0 {
		return c
	}
	return a.TS.Compare(b.TS)
}

// helloErrors joins the replies' errors, or says that none failed.
func helloErrors(replies []memberHello) string {
	var errs []string
	for _, r := range replies {
		if r.Err != nil {
			errs = append(errs, r.Err.Error())
		}
	}
	if len(errs) == 0 {
		return fmt.Sprintf("%d answered, none as primary", len(replies))
	}
	return strings.Join(errs, "; ")
}

// setMembers asks the set's primary (through the replica-set client) for
// the members its hello names.
func (m *Monitor) setMembers(ctx context.Context) ([]string, error) {
	var r helloReply
	if err := m.set.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&r); err != nil {
		return nil, fmt.Errorf("monitor: hello on the primary of %s: %w", redact.URI(m.uri), err)
	}
	return r.members(), nil
}
