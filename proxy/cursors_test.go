package proxy

import (
	"errors"
	"slices"
	"testing"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestCursorsOwner(t *testing.T) {
	c := newCursors()
	c.add("a:1", 7, "db.c", 1)
	c.add("b:1", 8, "db.c", 1)
	c.add("b:1", 0, "db.c", 1) // an exhausted cursor is never recorded
	for _, tc := range []struct {
		id     int64
		member string
		ok     bool
	}{{7, "a:1", true}, {8, "b:1", true}, {9, "", false}, {0, "", false}} {
		m, ok, err := c.owner(tc.id)
		if m != tc.member || ok != tc.ok || err != nil {
			t.Errorf("owner(%d) = %q, %v, %v; want %q, %v, nil", tc.id, m, ok, err, tc.member, tc.ok)
		}
	}
	if n := c.len(); n != 2 {
		t.Errorf("len = %d, want 2", n)
	}
}

// Two members may hand out the same id: the map keeps both and refuses to
// guess; once one is gone the other is found again.
func TestCursorsSameIDOnTwoMembers(t *testing.T) {
	c := newCursors()
	c.add("a:1", 7, "db.c", 1)
	c.add("b:1", 7, "db.d", 2)
	if _, ok, err := c.owner(7); ok || !errors.Is(err, errAmbiguousCursor) {
		t.Fatalf("owner(7) = %v, %v; want errAmbiguousCursor", ok, err)
	}
	c.remove("a:1", 7)
	if m, ok, err := c.owner(7); m != "b:1" || !ok || err != nil {
		t.Fatalf("after removing a's: owner(7) = %q, %v, %v; want b:1", m, ok, err)
	}
	c.remove("a:1", 7) // twice: no effect
	c.remove("b:1", 7)
	if _, ok, _ := c.owner(7); ok || c.len() != 0 {
		t.Fatalf("after removing both: owner ok %v, len %d", ok, c.len())
	}
}

// A disconnecting connection releases the cursors it was the last to use,
// not those another connection continued since.
func TestCursorsRelease(t *testing.T) {
	c := newCursors()
	c.add("b:1", 5, "db.c", 1)
	c.add("a:1", 9, "db.c", 1)
	c.add("a:1", 3, "db.d", 1)
	c.add("a:1", 4, "db.c", 1)
	c.add("a:1", 4, "", 2) // a getMore over connection 2: ns kept
	got := c.release(1)
	want := []openCursor{{cursorKey{"a:1", 3}, "db.d"}, {cursorKey{"a:1", 9}, "db.c"}, {cursorKey{"b:1", 5}, "db.c"}}
	if !slices.Equal(got, want) {
		t.Fatalf("release(1) = %v, want %v", got, want)
	}
	if got := c.release(1); got != nil {
		t.Fatalf("release(1) again = %v, want nothing", got)
	}
	if got := c.release(2); !slices.Equal(got, []openCursor{{cursorKey{"a:1", 4}, "db.c"}}) {
		t.Fatalf("release(2) = %v", got)
	}
	if c.len() != 0 {
		t.Fatalf("len = %d after releasing all", c.len())
	}
}

func TestRoute(t *testing.T) {
	members := []upstream.Member{
		{Addr: "a:1", Role: upstream.RoleSecondary},
		{Addr: "b:1", Role: upstream.RolePrimary},
		{Addr: "c:1", Role: upstream.RoleSecondary},
	}
	c := newCursors()
	c.add("c:1", 7, "db.c", 1)
	c.add("a:1", 8, "db.c", 1)
	c.add("a:1", 9, "db.c", 1)
	c.add("c:1", 9, "db.c", 1)
	for _, tc := range []struct {
		name    string
		class   wire.Class
		members []upstream.Member
		want    string
		err     bool
	}{
		{"find", wire.Class{Kind: wire.KindRead}, members, "b:1", false},
		{"insert", wire.Class{Kind: wire.KindWrite}, members, "b:1", false},
		{"other", wire.Class{Kind: wire.KindPrimary}, members, "b:1", false},
		{"getMore of a cursor on c", wire.Class{Kind: wire.KindGetMore, CursorID: 7}, members, "c:1", false},
		{"getMore of an unknown cursor", wire.Class{Kind: wire.KindGetMore, CursorID: 1}, members, "b:1", false},
		{"getMore of an ambiguous cursor", wire.Class{Kind: wire.KindGetMore, CursorID: 9}, members, "", true},
		{"killCursors on a", wire.Class{Kind: wire.KindKillCursors, CursorIDs: []int64{1, 8}}, members, "a:1", false},
		{"killCursors across members", wire.Class{Kind: wire.KindKillCursors, CursorIDs: []int64{7, 8}}, members, "", true},
		{"killCursors unknown", wire.Class{Kind: wire.KindKillCursors, CursorIDs: []int64{1}}, members, "b:1", false},
		{"no primary", wire.Class{Kind: wire.KindWrite}, members[:1], "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := route(&tc.class, tc.members, c)
			if got != tc.want || (err != nil) != tc.err {
				t.Fatalf("route = %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}

// A change stream's cursor stays one while a getMore continues it, and is
// forgotten with it; server.track marks it from the aggregate's class.
func TestCursorsChangeStream(t *testing.T) {
	s := &Server{cursors: newCursors()}
	open := wire.Reply{Cursor: true, CursorID: 7, Namespace: "db.c"}
	s.track("a:1", 1, &wire.Class{Kind: wire.KindRead, Command: "aggregate", ChangeStream: true}, open)
	s.track("a:1", 1, &wire.Class{Kind: wire.KindRead, Command: "aggregate"}, wire.Reply{Cursor: true, CursorID: 8, Namespace: "db.c"})
	getMore := func(id int64) *wire.Class {
		return &wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: id}
	}
	s.track("a:1", 2, getMore(7), open) // continued on another connection
	for _, tc := range []struct {
		c    *wire.Class
		want bool
	}{
		{getMore(7), true},
		{getMore(8), false},
		{getMore(9), false},
		{&wire.Class{Kind: wire.KindRead, Command: "aggregate", ChangeStream: true}, true},
		{&wire.Class{Kind: wire.KindKillCursors, Command: "killCursors", CursorIDs: []int64{7}}, false},
	} {
		if got := s.changeStream(tc.c); got != tc.want {
			t.Errorf("changeStream(%s %d) = %v, want %v", tc.c.Command, tc.c.CursorID, got, tc.want)
		}
	}
	s.track("a:1", 2, getMore(7), wire.Reply{Cursor: true, CursorID: 0})
	if s.changeStream(getMore(7)) {
		t.Error("an exhausted change stream's id is still a change stream's")
	}
}
