package proxy

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
	"github.com/decongestant/decongestant/router"
)

// errNoPrimary: no member is primary (an election, or the set lost its
// majority).
var errNoPrimary = errors.New("no primary")

// route chooses the member a classified command goes to, from a snapshot of
// the members and the cursor map. It is the one place where routing is
// decided: today every command goes to the primary except getMore and
// killCursors, which go to the member owning their cursor (an id the proxy
// never saw goes to the primary, which answers CursorNotFound). Reads the
// policy routes are decided before, by routeRead.
func route(c *wire.Class, members []upstream.Member, cur *cursors) (string, error) {
	switch c.Kind {
	case wire.KindGetMore:
		if m, ok, err := cur.owner(c.CursorID); ok || err != nil {
			return m, err
		}
	case wire.KindKillCursors:
		owner := ""
		for _, id := range c.CursorIDs {
			m, ok, err := cur.owner(id)
			if err != nil {
				return "", err
			}
			if !ok {
				continue
			}
			if owner != "" && m != owner {
				return "", fmt.Errorf("killCursors names cursors of %s and %s: send one killCursors per member", owner, m)
			}
			owner = m
		}
		if owner != "" {
			return owner, nil
		}
	}
	return primary(members)
}

// primary returns the primary's address.
func primary(members []upstream.Member) (string, error) {
	for _, m := range members {
		if m.Role == upstream.RolePrimary {
			return m.Addr, nil
		}
	}
	return "", errNoPrimary
}

// readRoute is where routeRead sends a read: addr "" leaves it to route
// (the primary); rewrite, when set, sends the client's message with its
// $readPreference made secondaryPreferred (it had none, or primary).
type readRoute struct {
	addr    string
	rewrite bool
	// spec is what the router was asked (a retry asks again, avoiding the
	// member that failed).
	spec router.ReadSpec
	rt   router.Routed
	ok   bool // rt must be reported
}

// done reports a routed read to the router: the member that served it
// (addr, "" when none could be chosen), its round trip and error.
func (r readRoute) done(addr string, took time.Duration, err error) {
	if r.ok {
		r.rt.Done(addr, took, err)
	}
}

// routeRead asks the policy where an eligible read goes (decideRead) and
// builds the message to send to a secondary: a read sent without a read
// preference made secondaryPreferred, and a majority read given the fence
// as its afterClusterTime (majorityAfter). nil: the client's message.
func (s *Server) routeRead(cc *clientConn, m *wire.Message, c *wire.Class) (readRoute, []byte, error) {
	if s.router == nil {
		return readRoute{}, nil, nil
	}
	rd, err := decideRead(c, &s.cfg, cc.fence, s.pool.Members(), s.router.Route)
	if err != nil || rd.addr == "" {
		return rd, nil, err
	}
	var msg []byte
	if rd.rewrite {
		msg = wire.WithReadPreference(nil, m, wire.SecondaryPreferredMode)
	}
	if !s.cfg.NoReadYourWrites {
		msg = majorityAfter(m, msg, c, cc.fence)
	}
	return rd, msg, nil
}

// decideRead is the routing decision of one command, a pure function of
// the command's class, the configuration, the connection's read-your-writes
// fence, the proxy's snapshot of the members and the router's answer
// (pick: Router.Route). A zero readRoute sends c to route (the primary).
//
// Reads the configuration routes (routes) are restricted by their read
// preference's maxStalenessSeconds, tag sets and afterClusterTime and the
// fence (specOf), and by their mode as a mongos applies it (the
// server-selection spec): primary (sent explicitly, or implied under
// ReadsOptedIn) only the primary; primaryPreferred the primary while the
// members show one, else a secondary; secondary never the primary (none
// eligible: errNoEligible, a mongos's FailedToSatisfyReadPreference);
// secondaryPreferred and nearest every member, the policy choosing. A
// secondary the router picks that the proxy's own view does not show as
// one (an election under way) gives way to the primary, or, for a read
// that may not go there, to errNoEligible.
func decideRead(c *wire.Class, cfg *Config, fence wire.Timestamp, members []upstream.Member, pick func(router.ReadSpec) (router.Routed, error)) (readRoute, error) {
	if !routes(c, cfg.Reads) {
		return readRoute{}, nil
	}
	mode := c.ReadPref.Mode
	if cfg.NoReadYourWrites {
		fence = wire.Timestamp{}
	}
	spec := specOf(c, fence)
	if b := cfg.MaxStaleness; b > 0 && (spec.MaxStaleness == 0 || b < spec.MaxStaleness) {
		spec.MaxStaleness = b
	}
	switch mode {
	case wire.SecondaryMode:
		spec.NoPrimary = true
	case wire.PrimaryPreferredMode:
		if _, err := primary(members); err == nil {
			return readRoute{}, nil
		}
		spec.NoPrimary = true
	}
	if spec.NoPrimary {
		// Only secondaries in the proxy's own view too (a member that
		// just failed a read is down in it before the router knows).
		spec.Skip = func(h string) bool { return !isSecondary(members, h) }
	}
	rt, err := pick(spec)
	switch {
	case errors.Is(err, router.ErrNoSecondary):
		return readRoute{}, noEligible(c.ReadPref, members)
	case err != nil:
		return readRoute{}, nil
	}
	rd := readRoute{rt: rt, ok: true, spec: spec}
	if rt.Host == "" || !isSecondary(members, rt.Host) {
		if spec.NoPrimary {
			return rd, noEligible(c.ReadPref, members)
		}
		return rd, nil
	}
	rd.addr = rt.Host
	rd.rewrite = mode == 0
	return rd, nil
}

// errNoEligible: no member the read preference allows can take the read.
var errNoEligible = errors.New("no member matches the read preference")

// noEligibleError is errNoEligible in a mongos's words, the errmsg of its
// FailedToSatisfyReadPreference.
type noEligibleError struct{ msg string }

func (e *noEligibleError) Error() string        { return e.msg }
func (e *noEligibleError) Is(target error) bool { return target == errNoEligible }

// noEligible is errNoEligible worded as a mongos words it: "Could not find
// host matching read preference { mode: "secondary" } for set rs0".
func noEligible(rp wire.ReadPref, members []upstream.Member) error {
	set := ""
	for _, m := range members {
		if m.SetName != "" {
			set = m.SetName
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{ mode: %q", rp.Mode.String())
	if rp.MaxStaleness > 0 {
		fmt.Fprintf(&b, ", maxStalenessSeconds: %v", rp.MaxStaleness.Seconds())
	}
	if rp.TagSets != nil {
		b.WriteString(", tags: [")
		for i, ts := range rp.TagSets {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" {")
			for j, t := range ts {
				if j > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, " %s: %q", t.Name, t.Value)
			}
			b.WriteString(" }")
		}
		b.WriteString(" ]")
	}
	b.WriteString(" }")
	return &noEligibleError{msg: fmt.Sprintf("Could not find host matching read preference %s for set %s", b.String(), set)}
}

// routes reports whether the policy routes c: an eligible read that
// carries a read preference other than primary, or, under ReadsAll, none.
// A read sent with mode primary explicitly stays on the primary.
func routes(c *wire.Class, reads Reads) bool {
	if c.Kind != wire.KindRead || c.ReadPref.Mode == wire.PrimaryMode {
		return false
	}
	return reads == ReadsAll || c.ReadPref.Mode.IsValid()
}

// specOf is what restricts where c may go: its maxStalenessSeconds, its tag
// sets, and the later of its afterClusterTime (a causal session's) and the
// connection's fence (zero: none), which a member must have applied.
func specOf(c *wire.Class, fence wire.Timestamp) router.ReadSpec {
	spec := router.ReadSpec{MaxStaleness: c.ReadPref.MaxStaleness}
	for _, set := range c.ReadPref.TagSets {
		ts := make(router.TagSet, len(set))
		for _, t := range set {
			ts[t.Name] = t.Value
		}
		spec.TagSets = append(spec.TagSets, ts)
	}
	after := c.ReadConcern.AfterClusterTime
	if after.Before(fence) {
		after = fence
	}
	spec.After = bson.Timestamp{T: after.T, I: after.I}
	return spec
}

// isSecondary reports whether addr is a secondary in members.
func isSecondary(members []upstream.Member, addr string) bool {
	for _, m := range members {
		if m.Addr == addr {
			return m.Role == upstream.RoleSecondary
		}
	}
	return false
}
