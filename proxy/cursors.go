package proxy

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
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
// continue a cursor over any of its connections, as it does with a mongos,
// so a client connection that closes leaves its cursors alone. Entries are
// keyed by (member, id); should two members hand out the same id (random
// 64-bit ids: practically never), owner reports the id ambiguous rather
// than guess.
//
// Entries expire: remove forgets one exhausted, killed or unknown to its
// member (CursorNotFound), and an entry idle for longer than the timeout
// (the members' cursorTimeoutMillis, after which they have killed the
// cursor themselves) is forgotten by the next add after it, so nothing
// leaks on long-lived connections. Time is an input (now).
//
// It does no I/O; its methods are safe for concurrent use.
type cursors struct {
	mu      sync.Mutex
	timeout time.Duration
	owners  map[int64][]string      // id -> members owning it
	used    map[cursorKey]time.Time // -> when a client last used it
	streams map[cursorKey]bool      // the change streams' cursors among them
	swept   time.Time               // the latest sweep for idle entries
}

func newCursors(timeout time.Duration) *cursors {
	return &cursors{timeout: timeout, owners: map[int64][]string{}, used: map[cursorKey]time.Time{}, streams: map[cursorKey]bool{}}
}

// add records that member opened cursor id, or that a client continued it,
// at now. It forgets the entries idle for longer than the timeout, at most
// once per tenth of it (each sweep reads every entry).
func (c *cursors) add(member string, id int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timeout > 0 && now.Sub(c.swept) >= c.timeout/10 {
		c.sweepLocked(now)
	}
	if id == 0 {
		return
	}
	k := cursorKey{member, id}
	if _, ok := c.used[k]; !ok {
		c.owners[id] = append(c.owners[id], member)
	}
	c.used[k] = now
}

// sweepLocked forgets the entries idle for longer than the timeout at now.
func (c *cursors) sweepLocked(now time.Time) {
	c.swept = now
	for k, at := range c.used {
		if now.Sub(at) > c.timeout {
			c.removeLocked(k)
		}
	}
}

// markStream records that member's cursor id, which add recorded, is a
// change stream's.
func (c *cursors) markStream(member string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cursorKey{member, id}
	if _, ok := c.used[k]; ok {
		c.streams[k] = true
	}
}

// changeStream reports whether a member's cursor id is a change stream's.
func (c *cursors) changeStream(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.owners[id] {
		if c.streams[cursorKey{m, id}] {
			return true
		}
	}
	return false
}

// owner returns the member that owns cursor id; ok is false for an id the
// proxy never saw or forgot (the caller sends it to the primary, which
// answers CursorNotFound), err is errAmbiguousCursor when several members
// own it.
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

// remove forgets member's cursor id (exhausted, killed, or not found).
func (c *cursors) remove(member string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(cursorKey{member, id})
}

func (c *cursors) removeLocked(k cursorKey) {
	if _, ok := c.used[k]; !ok {
		return
	}
	delete(c.used, k)
	delete(c.streams, k)
	member, id := k.member, k.id
	ms := slices.DeleteFunc(c.owners[id], func(m string) bool { return m == member })
	if len(ms) == 0 {
		delete(c.owners, id)
	} else {
		c.owners[id] = ms
	}
}

// len returns how many cursors the map holds.
func (c *cursors) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.used)
}
