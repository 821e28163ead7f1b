package router

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/monitor"
)

// vouch turns a lag sample into the policy's observation. The driver sends a
// secondary read to any member it sees as a secondary; the sample comes from
// the primary's replSetGetStatus, which learns of state changes later (a
// restarted member is SECONDARY to the driver's streaming heartbeat seconds
// before the primary's heartbeat says so, and 30 s behind), or from the
// members' hello, sent before the driver's latest heartbeat may have
// answered. A member the driver may read from that the sample does not show
// as a SECONDARY makes the lag unknown: nobody can vouch for its staleness.
func vouch(s monitor.LagSample, selectable []string) (balancer.Lag, error) {
	lag := balancer.Lag{Max: s.Max, Known: s.Known, Horizon: s.Horizon, Members: lagMembers(s, nil, nil)}
	if !s.Known {
		return lag, nil
	}
	var unvouched []string
	for _, host := range selectable {
		i := slices.IndexFunc(s.Members, func(m monitor.MemberLag) bool { return m.Host == host })
		switch {
		case i < 0:
			unvouched = append(unvouched, fmt.Sprintf("%s (not in the %s poll)", host, s.Source))
		case s.Members[i].Role != balancer.Secondary:
			unvouched = append(unvouched, fmt.Sprintf("%s (%s in the %s poll)", host, s.Members[i].State, s.Source))
		}
	}
	if len(unvouched) == 0 {
		return lag, nil
	}
	return balancer.Lag{}, fmt.Errorf("the driver may read from %s, whose staleness the latest lag poll does not report yet", strings.Join(unvouched, ", "))
}

// lagMembers are the poll's members as a policy sees them: a member the
// driver saw turn secondary after the poll was sent is not vouched for (Role
// 0) until a later poll; name gives a member's "node" tag.
func lagMembers(s monitor.LagSample, name func(string) string, turnedAfter func(string, time.Time) bool) []balancer.MemberLag {
	out := make([]balancer.MemberLag, 0, len(s.Members))
	for _, m := range s.Members {
		ml := balancer.MemberLag{Host: m.Host, Role: m.Role, Lag: m.Lag}
		if name != nil {
			ml.Name = name(m.Host)
		}
		if turnedAfter != nil && m.Role == balancer.Secondary && turnedAfter(m.Host, s.At) {
			ml.Role = 0
		}
		out = append(out, ml)
	}
	return out
}

// perMemberLag is the observation of a per-member policy: the poll's
// members, each vouched for alone (an unvouched member does not make the
// whole lag unknown: it just gets no reads).
func (r *Router) perMemberLag(s monitor.LagSample) balancer.Lag {
	return balancer.Lag{Max: s.Max, Known: s.Known, Horizon: s.Horizon,
		Members: lagMembers(s, r.served.name, r.served.turnedAfter)}
}

// observeLag feeds one lag poll to the policy.
func (r *Router) observeLag(s monitor.LagSample) {
	if r.closed.Load() {
		return
	}
	r.mu.Lock()
	r.lastLag = s
	r.lagNow.Store(&s)
	for _, m := range s.Members {
		r.applied.advance(m.Host, m.Applied)
	}
	r.pollAt.Store(s.At.UnixNano())
	if r.pools != nil {
		r.applyLocked(s, r.perMemberLag(s), nil)
		return
	}
	r.applyLagLocked(s)
}

// recheckLag runs when the driver starts seeing a member as a secondary: if
// the latest poll does not vouch for it, secondary reads stop now, before the
// driver can select it (the driver reports the change before it uses it).
func (r *Router) recheckLag() {
	if r.closed.Load() {
		return
	}
	if r.pools != nil {
		r.rebuild() // the turned member is unreadable until a later poll
		return
	}
	r.mu.Lock()
	s := r.lastLag
	s.At = time.Now() // the event is now, not the poll's send time
	lag, err := vouch(s, r.served.selectable())
	if err == nil {
		r.mu.Unlock()
		return
	}
	r.applyLocked(s, lag, err)
}

// applyLagLocked is called with r.mu held and releases it.
func (r *Router) applyLagLocked(s monitor.LagSample) {
	lag, err := vouch(s, r.served.selectable())
	r.applyLocked(s, lag, err)
}

// applyLocked feeds a vouched-for lag to the policy and reports the event;
// called with r.mu held, it releases it.
func (r *Router) applyLocked(s monitor.LagSample, lag balancer.Lag, err error) {
	prev := r.Fraction()
	if err != nil {
		s.Known, s.Err = false, err
	}
	f := r.policy.ObserveLag(lag)
	r.storeFraction(f)
	r.setWeights()
	e := Event{At: s.At, Kind: EventLag, Fraction: f, Previous: prev, Lag: s, Weights: r.appliedWeights()}
	ch := r.obs.note(e, r.pools != nil)
	r.mu.Unlock()
	r.emit(e, ch)
}
