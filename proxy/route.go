package proxy

import (
	"errors"
	"fmt"
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
// (the primary); msg, when set, is the message to send instead of the
// client's (its $readPreference made secondaryPreferred).
type readRoute struct {
	addr string
	msg  []byte
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

// routeRead asks the policy where an eligible read goes: reads the
// configuration routes (routes), restricted by their read preference's
// maxStalenessSeconds and tag sets and by the connection's read-your-writes
// fence and the read's afterClusterTime (specOf). A read the policy sends to
// a secondary that the proxy's own view does not show as one goes to the
// primary (an election under way). A majority read sent to a secondary
// carries the fence as its afterClusterTime (majorityAfter).
func (s *Server) routeRead(cc *clientConn, m *wire.Message, c *wire.Class) readRoute {
	if s.router == nil || !routes(c, s.cfg.Reads) {
		return readRoute{}
	}
	fence := cc.fence
	if s.cfg.NoReadYourWrites {
		fence = wire.Timestamp{}
	}
	spec := specOf(c, fence)
	if b := s.cfg.MaxStaleness; b > 0 && (spec.MaxStaleness == 0 || b < spec.MaxStaleness) {
		spec.MaxStaleness = b
	}
	rt, err := s.router.Route(spec)
	if err != nil {
		return readRoute{}
	}
	rd := readRoute{rt: rt, ok: true}
	if rt.Host == "" || !isSecondary(s.pool.Members(), rt.Host) {
		return rd
	}
	rd.addr = rt.Host
	if mode := c.ReadPref.Mode; mode == 0 || mode == wire.PrimaryMode {
		rd.msg = wire.WithReadPreference(nil, m, wire.SecondaryPreferredMode)
	}
	rd.msg = majorityAfter(m, rd.msg, c, fence)
	return rd
}

// routes reports whether the policy routes c: an eligible read that, under
// ReadsOptedIn, carries a read preference other than primary.
func routes(c *wire.Class, reads Reads) bool {
	if c.Kind != wire.KindRead {
		return false
	}
	return reads == ReadsAll || c.ReadPref.Mode.IsValid() && c.ReadPref.Mode != wire.PrimaryMode
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
