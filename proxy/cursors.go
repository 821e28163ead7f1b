package proxy

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// errAmbiguousCursor: two members handed out the same cursor id and a client
// asks for it.
var errAmbiguousCursor = errors.New("cursor id owned by several members")

// cursorKey names a cursor: ids are unique per member only.
type cursorKey struct {
	member string
	id     int64
}

// cursors maps the cursor ids clients hold to the members that own them.
//
// Clients see a member's cursor id unchanged (rewriting it would mean
// rewriting every reply's cursor document and every getMore), so a client id
// is a member id. The map is the proxy's, not a connection's: a driver may
// continue a cursor over any of its connections, as it does with a mongos.
// Entries are keyed by (member, id); should two members hand out the same id
// (random 64-bit ids: practically never), owner reports the id ambiguous
// rather than guess. Each entry also remembers the client connection that
// last used it, so a disconnecting client's cursors can be killed.
//
// It does no I/O; its methods are safe for concurrent use.
type cursors struct {
	mu     sync.Mutex
	owners map[int64][]string      // id -> members owning it
	holder map[cursorKey]cursorUse // -> its namespace and last client connection
}

// cursorUse is what the map keeps of an open cursor.
type cursorUse struct {
	ns     string // "db.collection", as the member's reply names it
	conn   uint64 // the client connection that last used it
	stream bool   // a change stream's cursor
}

// openCursor is a cursor a disconnected client left open.
type openCursor struct {
	cursorKey
	ns string
}

func newCursors() *cursors {
	return &cursors{owners: map[int64][]string{}, holder: map[cursorKey]cursorUse{}}
}

// add records that member opened cursor id on namespace ns for client
// connection conn, or that conn continued it (ns "" keeps the one known).
func (c *cursors) add(member string, id int64, ns string, conn uint64) {
	if id == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cursorKey{member, id}
	old, ok := c.holder[k]
	if !ok {
		c.owners[id] = append(c.owners[id], member)
	}
	if ns == "" {
		ns = old.ns
	}
	c.holder[k] = cursorUse{ns: ns, conn: conn, stream: old.stream}
}

// markStream records that member's cursor id, which add recorded, is a
// change stream's.
func (c *cursors) markStream(member string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cursorKey{member, id}
	if u, ok := c.holder[k]; ok {
		u.stream = true
		c.holder[k] = u
	}
}

// changeStream reports whether a member's cursor id is a change stream's.
func (c *cursors) changeStream(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.owners[id] {
		if c.holder[cursorKey{m, id}].stream {
			return true
		}
	}
	return false
}

// owner returns the member that owns cursor id; ok is false for an id the
// proxy never saw (the caller sends it to the primary, which answers
// CursorNotFound), err is errAmbiguousCursor when several members own it.
func (c *cursors) owner(id int64) (member string, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ms := c.owners[id]
	switch len(ms) {
	case 0:
		return "", false, nil
	case 1:
		return ms[0], true, nil
	}
	return "", false, fmt.Errorf("%w: cursor %d on %v", errAmbiguousCursor, id, ms)
}

// remove forgets member's cursor id (exhausted or killed).
func (c *cursors) remove(member string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(cursorKey{member, id})
}

func (c *cursors) removeLocked(k cursorKey) {
	if _, ok := c.holder[k]; !ok {
		return
	}
	delete(c.holder, k)
	member, id := k.member, k.id
	ms := slices.DeleteFunc(c.owners[id], func(m string) bool { return m == member })
	if len(ms) == 0 {
		delete(c.owners, id)
	} else {
		c.owners[id] = ms
	}
}

// release forgets and returns the cursors client connection conn was the
// last to use, ordered by member and id.
func (c *cursors) release(conn uint64) []openCursor {
	c.mu.Lock()
	var ks []openCursor
	for k, u := range c.holder {
		if u.conn == conn {
			ks = append(ks, openCursor{k, u.ns})
		}
	}
	for _, k := range ks {
		c.removeLocked(k.cursorKey)
	}
	c.mu.Unlock()
	slices.SortFunc(ks, func(a, b openCursor) int {
		return cmp.Or(cmp.Compare(a.member, b.member), cmp.Compare(a.id, b.id))
	})
	return ks
}

// len returns how many cursors the map holds.
func (c *cursors) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.holder)
}
