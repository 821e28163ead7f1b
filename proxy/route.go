package proxy

import (
	"errors"
	"fmt"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// errNoPrimary: no member is primary (an election, or the set lost its
// majority).
var errNoPrimary = errors.New("no primary")

// route chooses the member a classified command goes to, from a snapshot of
// the members and the cursor map. It is the one place where routing is
// decided: today every command goes to the primary except getMore and
// killCursors, which go to the member owning their cursor (an id the proxy
// never saw goes to the primary, which answers CursorNotFound). A read
// policy (KindRead to a secondary within the staleness bound) slots in here.
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
