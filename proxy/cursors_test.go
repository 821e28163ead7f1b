package proxy

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestCursorsOwner(t *testing.T) {
	c := newCursors(time.Minute)
	c.add("a:1", 7, t0)
	c.add("b:1", 8, t0)
	c.add("b:1", 0, t0) // an exhausted cursor is never recorded
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
	c := newCursors(time.Minute)
	c.add("a:1", 7, t0)
	c.add("b:1", 7, t0)
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

// An entry idle for longer than the timeout is forgotten by the next add
// after it (a sweep at most every tenth of the timeout); one used since
// stays, whoever used it.
func TestCursorsExpireWhenIdle(t *testing.T) {
	const timeout = 10 * time.Minute
	c := newCursors(timeout)
	c.add("a:1", 1, t0)
	c.add("a:1", 2, t0)
	c.add("b:1", 3, t0.Add(time.Minute))
	c.add("a:1", 2, t0.Add(9*time.Minute)) // continued (a getMore)
	c.add("a:1", 4, t0.Add(timeout))       // at the timeout: nothing idle beyond it
	if n := c.len(); n != 4 {
		t.Fatalf("at the timeout: %d entries, want 4", n)
	}
	c.add("a:1", 0, t0.Add(timeout+time.Second)) // a sweep is not due yet
	if n := c.len(); n != 4 {
		t.Fatalf("before the next sweep is due: %d entries, want 4", n)
	}
	c.add("b:1", 5, t0.Add(timeout+timeout/10)) // a sweep: cursor 1 idle 11 min
	if _, ok, _ := c.owner(1); ok {
		t.Fatal("cursor 1, idle beyond the timeout, is still known")
	}
	for _, id := range []int64{2, 3, 4, 5} {
		if _, ok, _ := c.owner(id); !ok {
			t.Fatalf("cursor %d, used within the timeout, was forgotten", id)
		}
	}
	c.add("b:1", 0, t0.Add(30*time.Minute)) // an exhausted cursor's reply sweeps too
	if n := c.len(); n != 0 {
		t.Fatalf("after 30 minutes: %d entries, want none", n)
	}
}

func TestRoute(t *testing.T) {
	members := []upstream.Member{
		{Addr: "a:1", Role: upstream.RoleSecondary},
		{Addr: "b:1", Role: upstream.RolePrimary},
		{Addr: "c:1", Role: upstream.RoleSecondary},
	}
	c := newCursors(time.Minute)
	c.add("c:1", 7, t0)
	c.add("a:1", 8, t0)
	c.add("a:1", 9, t0)
	c.add("c:1", 9, t0)
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

// TestTrack: the cursor map follows the members' replies: a new cursor is
// remembered, a getMore that exhausts it or meets CursorNotFound forgets
// it, another error keeps it, killCursors forgets its ids on that member.
func TestTrack(t *testing.T) {
	s := &Server{cursors: newCursors(time.Hour)}
	reply := func(doc bsoncore.Document) ([]byte, wire.Reply) {
		b := wire.AppendMsg(nil, 1, 1, 0, doc)
		info, ok := wire.InspectReply(b)
		if !ok {
			t.Fatal("reply not inspectable")
		}
		return b, info
	}
	cursor := func(id int64) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().
			AppendDocument("cursor", bsoncore.NewDocumentBuilder().AppendInt64("id", id).AppendString("ns", "db.c").Build()).
			AppendDouble("ok", 1).Build()
	}
	find := &wire.Class{Kind: wire.KindRead, Command: "find"}
	getMore := func(id int64) *wire.Class {
		return &wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: id}
	}
	track := func(addr string, c *wire.Class, doc bsoncore.Document) {
		b, info := reply(doc)
		s.track(addr, c, b, info)
	}
	known := func(id int64) bool { _, ok, _ := s.cursors.owner(id); return ok }

	track("a:1", find, cursor(7))
	track("a:1", find, cursor(8))
	track("a:1", find, cursor(9))
	track("b:1", find, cursor(0)) // a single batch: nothing to remember
	if !known(7) || !known(8) || !known(9) || s.cursors.len() != 3 {
		t.Fatalf("after three finds: %d cursors", s.cursors.len())
	}
	track("a:1", getMore(7), cursor(7)) // still open
	track("a:1", getMore(8), cursor(0)) // exhausted
	if !known(7) || known(8) {
		t.Fatalf("getMore: 7 known %v (want true), 8 known %v (want false)", known(7), known(8))
	}
	track("a:1", getMore(7), errorDoc(codeBadValue, "bad"))
	if !known(7) {
		t.Fatal("another error forgot cursor 7")
	}
	track("b:1", getMore(7), errorDoc(codeCursorNotFound, "cursor id 7 not found"))
	if !known(7) {
		t.Fatal("CursorNotFound from another member forgot a:1's cursor 7")
	}
	track("a:1", getMore(7), errorDoc(codeCursorNotFound, "cursor id 7 not found"))
	if known(7) {
		t.Fatal("CursorNotFound from its member kept cursor 7")
	}
	track("a:1", &wire.Class{Kind: wire.KindKillCursors, CursorIDs: []int64{9, 12}}, bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).Build())
	if known(9) || s.cursors.len() != 0 {
		t.Fatalf("after killCursors: %d cursors, want none", s.cursors.len())
	}
}

// A change stream's cursor stays one while a getMore continues it, and is
// forgotten with it; server.track marks it from the aggregate's class.
func TestCursorsChangeStream(t *testing.T) {
	s := &Server{cursors: newCursors(time.Hour)}
	open := wire.Reply{OK: true, Cursor: true, CursorID: 7, Namespace: "db.c"}
	s.track("a:1", &wire.Class{Kind: wire.KindRead, Command: "aggregate", ChangeStream: true}, nil, open)
	s.track("a:1", &wire.Class{Kind: wire.KindRead, Command: "aggregate"}, nil, wire.Reply{OK: true, Cursor: true, CursorID: 8, Namespace: "db.c"})
	getMore := func(id int64) *wire.Class {
		return &wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: id}
	}
	s.track("a:1", getMore(7), nil, open) // continued on another connection
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
	s.track("a:1", getMore(7), nil, wire.Reply{OK: true, Cursor: true, CursorID: 0})
	if s.changeStream(getMore(7)) {
		t.Error("an exhausted change stream's id is still a change stream's")

	}
}
