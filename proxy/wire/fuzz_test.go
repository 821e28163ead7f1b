package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/internal/testutil"
)

// parseBound is what Parse and Classify together may allocate for a
// message of n bytes: the copies Classify makes (names, tags, cursor ids)
// and an error's text, never many times what a peer sent.
var parseBound = testutil.AllocBound{PerByte: 4, Fixed: 4 << 10}

// FuzzParse feeds arbitrary bytes through ReadMessage, Parse, Classify and
// RewriteIDs. None may panic; ReadMessage may not allocate past the limit
// nor much past what it was sent, Parse and Classify no more than
// parseBound, RewriteIDs nothing; every error wraps a sentinel; what parses
// round-trips; what classifies obeys the eligibility rules.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		buf, err := readMessage(nil, bytes.NewReader(data), MaxMessageSize)
		if c := cap(buf); c > MaxMessageSize || c > max(firstChunk, 2*len(data)) {
			t.Fatalf("ReadMessage of %d bytes grew a %d-byte buffer", len(data), c)
		}
		if err != nil {
			if !(err == io.EOF && len(data) == 0) && !isAny(err, ErrTruncated, ErrBadLength, ErrTooLarge) {
				t.Fatalf("ReadMessage: unexpected error %v", err)
			}
		} else {
			checkMessage(t, buf)
		}
		// Parse the input whole too: a messageLength that disagrees with
		// the bytes must fail cleanly.
		checkMessage(t, data)
		testutil.CheckAllocs(t, "Parse and Classify", len(data), parseBound, func() {
			if m, err := Parse(data); err == nil {
				_, _ = Classify(&m)
			}
		})
		if len(data) >= HeaderLen && int(int32(binary.LittleEndian.Uint32(data))) == len(data) {
			cp := bytes.Clone(data)
			if n := testing.AllocsPerRun(1, func() { _ = RewriteIDs(cp, 5, 6) }); n != 0 {
				t.Fatalf("RewriteIDs allocated %v times", n)
			}
		}
	})
}

// checkMessage parses and classifies msg and checks the invariants.
func checkMessage(t *testing.T, msg []byte) {
	m, err := Parse(msg)
	if err != nil {
		if !isAny(err, ErrTruncated, ErrBadLength, ErrMalformed, ErrUnsupported) {
			t.Fatalf("Parse: unexpected error %v", err)
		}
		return
	}
	if int(m.Header.Length) != len(msg) || m.Body == nil {
		t.Fatalf("Parse: header length %d for %d bytes, body %v", m.Header.Length, len(msg), m.Body)
	}
	if m.Header.OpCode == wiremessage.OpMsg && len(m.Sequences) == 0 {
		rebuilt := AppendMsg(nil, m.Header.RequestID, m.Header.ResponseTo, m.Flags, m.Body)
		if !bytes.Equal(rebuilt, msg) {
			t.Fatalf("OP_MSG does not round-trip:\n%x\n%x", msg, rebuilt)
		}
	}
	c, cerr := Classify(&m)
	if cerr != nil {
		if !isAny(cerr, ErrBadCommand, ErrUnsupported) {
			t.Fatalf("Classify: unexpected error %v", cerr)
		}
	} else {
		checkClass(t, &m, c)
	}

	// Rewriting the ids changes nothing else.
	cp := append([]byte{}, msg...)
	if err := RewriteIDs(cp, 1<<30, -1); err != nil {
		t.Fatalf("RewriteIDs of a parsed message: %v", err)
	}
	m2, err := Parse(cp)
	if err != nil {
		t.Fatalf("Parse after RewriteIDs: %v", err)
	}
	if m2.Header.RequestID != 1<<30 || m2.Header.ResponseTo != -1 || !bytes.Equal(m2.Body, m.Body) {
		t.Fatalf("after RewriteIDs: header %+v, body changed %v", m2.Header, !bytes.Equal(m2.Body, m.Body))
	}
	c2, cerr2 := Classify(&m2)
	if fmt.Sprint(cerr) != fmt.Sprint(cerr2) || !reflect.DeepEqual(c, c2) {
		t.Fatalf("Classify differs after RewriteIDs: %+v, %v vs %+v, %v", c, cerr, c2, cerr2)
	}
}

// checkClass checks a classification against the rules of Classify.
func checkClass(t *testing.T, m *Message, c Class) {
	if c.Kind < KindHandshake || c.Kind > KindPrimary || c.Command == "" {
		t.Fatalf("Classify: kind %d, command %q", c.Kind, c.Command)
	}
	if c.Reason != ReasonNone && c.Kind != KindPrimary && c.Kind != KindWrite {
		t.Fatalf("Classify: reason %v on kind %v", c.Reason, c.Kind)
	}
	if c.Kind == KindRead {
		switch {
		case c.Reason != ReasonNone, c.Session.InTransaction, c.Session.HasTxnNumber, len(m.Sequences) > 0,
			c.ReadConcern.Level == "linearizable", c.ReadConcern.Level == "snapshot", c.Database == "local":
			t.Fatalf("Classify: an ineligible read is KindRead: %+v", c)
		}
	}
	if c.ReadPref.Mode != 0 && !c.ReadPref.Mode.IsValid() {
		t.Fatalf("Classify: invalid mode %d", c.ReadPref.Mode)
	}
	if m.Header.OpCode == wiremessage.OpQuery && c.Kind != KindHandshake {
		t.Fatalf("Classify: OP_QUERY %s accepted", c.Command)
	}
}

func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// rewriteBound is what a rewrite may allocate for an n-byte message: the
// new message (the old one and a small $readPreference) once, not the
// successive copies of a slice grown by append.
var rewriteBound = testutil.AllocBound{PerByte: 2, Fixed: 1 << 10}

// FuzzRewrite rewrites every OP_MSG that parses with WithReadPreference in
// each mode and WithoutField for each of its body's keys: the result parses
// (checksum included), keeps the header ids, flags and document sequences,
// and its body is the old one without the field (and with the new
// $readPreference last). A rewrite allocates within rewriteBound.
func FuzzRewrite(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil || m.Header.OpCode != wiremessage.OpMsg {
			return
		}
		for mode := PrimaryMode; mode <= NearestMode; mode++ {
			body := checkRewrite(t, &m, WithReadPreference(nil, &m, mode), "$readPreference")
			last := body[len(body)-1]
			rp, err := parseReadPref(last.v)
			if last.key != "$readPreference" || err != nil || rp.Mode != mode || rp.MaxStaleness != 0 || rp.TagSets != nil {
				t.Fatalf("WithReadPreference(%v) ends the body with %s = %+v, %v", mode, last.key, rp, err)
			}
		}
		for _, key := range append(elemKeys(m.Body), "topologyVersion", "") {
			checkRewrite(t, &m, WithoutField(nil, &m, key), key)
		}
		prefix := []byte("prefix")
		if out := WithoutField(prefix, &m, "topologyVersion"); !bytes.Equal(out[:len(prefix)], prefix) ||
			!bytes.Equal(out[len(prefix):], WithoutField(nil, &m, "topologyVersion")) {
			t.Fatalf("WithoutField appended to a prefix differs from WithoutField alone")
		}
		testutil.CheckAllocs(t, "WithReadPreference", len(data), rewriteBound, func() {
			_ = WithReadPreference(nil, &m, SecondaryPreferredMode)
		})
		testutil.CheckAllocs(t, "WithoutField", len(data), rewriteBound, func() {
			_ = WithoutField(nil, &m, "topologyVersion")
		})
	})
}

// elem is a body element, for comparing bodies.
type elem struct {
	key string
	v   bsoncore.Value
}

func elemsOf(doc bsoncore.Document) []elem {
	var out []elem
	e := newElems(doc)
	for {
		key, v, ok := e.next()
		if !ok {
			return out
		}
		out = append(out, elem{string(key), v})
	}
}

func elemKeys(doc bsoncore.Document) []string {
	var keys []string
	for _, e := range elemsOf(doc) {
		keys = append(keys, e.key)
	}
	return keys
}

// checkRewrite checks that out, a rewrite of m without the top-level field
// drop, is m with that field left out of the body (and what the rewrite
// adds after the body's other elements), and returns out's body elements.
func checkRewrite(t *testing.T, m *Message, out []byte, drop string) []elem {
	t.Helper()
	got, err := Parse(out)
	if err != nil {
		t.Fatalf("a rewrite without %q does not parse: %v", drop, err)
	}
	if got.Header.RequestID != m.Header.RequestID || got.Header.ResponseTo != m.Header.ResponseTo ||
		got.Header.OpCode != wiremessage.OpMsg || got.Flags != m.Flags {
		t.Fatalf("a rewrite without %q: header %+v flags %v, was %+v flags %v", drop, got.Header, got.Flags, m.Header, m.Flags)
	}
	if !reflect.DeepEqual(got.Sequences, m.Sequences) {
		t.Fatalf("a rewrite without %q changed the document sequences", drop)
	}
	var kept []elem
	for _, e := range elemsOf(m.Body) {
		if e.key != drop {
			kept = append(kept, e)
		}
	}
	body := elemsOf(got.Body)
	if len(body) < len(kept) || !slices.EqualFunc(body[:len(kept)], kept, func(a, b elem) bool { return a.key == b.key && a.v.Equal(b.v) }) {
		t.Fatalf("a rewrite without %q: body %v, want %v first", drop, bson.Raw(got.Body), kept)
	}
	for _, e := range body[len(kept):] {
		if e.key == drop {
			return body // what a rewrite adds replaces what it dropped
		}
		t.Fatalf("a rewrite without %q added %q", drop, e.key)
	}
	return body
}

// inspectBound is what InspectReply may allocate for an n-byte reply: the
// cursor's namespace, at most.
var inspectBound = testutil.AllocBound{PerByte: 1, Fixed: 512}

// FuzzInspectReply reads arbitrary bytes as a member's reply: no panic, ok
// exactly for a well-formed OP_MSG, a zero Reply otherwise, fields that
// agree with a lookup in the body (a body without repeated keys), and
// allocation within inspectBound.
func FuzzInspectReply(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ok := InspectReply(data)
		m, err := Parse(data)
		if want := err == nil && m.Header.OpCode == wiremessage.OpMsg; ok != want {
			t.Fatalf("InspectReply ok %v for a message that parses %v (%v), opcode %v", ok, want, err, m.Header.OpCode)
		}
		testutil.CheckAllocs(t, "InspectReply", len(data), inspectBound, func() { _, _ = InspectReply(data) })
		if !ok {
			if r != (Reply{}) {
				t.Fatalf("InspectReply not ok, but %+v", r)
			}
			return
		}
		keys := elemKeys(m.Body)
		slices.Sort(keys)
		if len(slices.Compact(keys)) != len(elemKeys(m.Body)) {
			return // repeated keys: the last one counts, a lookup finds the first
		}
		body := m.Body
		var want Reply
		want.OK = truthy(body.Lookup("ok"))
		if ts, i, ok := body.Lookup("operationTime").TimestampOK(); ok {
			want.OperationTime = Timestamp{T: ts, I: i}
		}
		want.TopologyVersion = body.Lookup("topologyVersion").Type != 0
		if cur, ok := docValue(body.Lookup("cursor")); ok {
			if id, ok := cur.Lookup("id").AsInt64OK(); ok {
				want.Cursor, want.CursorID = true, id
				want.Namespace, _ = cur.Lookup("ns").StringValueOK()
			}
		}
		if r != want {
			t.Fatalf("InspectReply = %+v, a lookup finds %+v in %v", r, want, bson.Raw(body))
		}
	})
}

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/*/seed-* from the seed functions")

// fuzzTargets are the seed corpus of each fuzz target.
var fuzzTargets = map[string]func(testing.TB) map[string][]byte{
	"FuzzParse":        fuzzSeeds,
	"FuzzRewrite":      rewriteSeeds,
	"FuzzInspectReply": replySeeds,
}

// TestFuzzSeeds keeps the committed seed corpora what fuzzTargets build
// (go test -run TestFuzzSeeds -update-seeds rewrites them). The fuzzer's
// own finds sit next to the seeds under their hash names.
func TestFuzzSeeds(t *testing.T) {
	for target, seeds := range fuzzTargets {
		dir := filepath.Join("testdata", "fuzz", target)
		for name, data := range seeds(t) {
			path := filepath.Join(dir, "seed-"+name)
			want := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
			if *updateSeeds {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != want {
				t.Errorf("%s is missing or stale (%v): run go test -run TestFuzzSeeds -update-seeds", path, err)
			}
		}
	}
}

// fuzzSeeds are the seed corpus: one of each message shape and each way a
// message can be wrong.
func fuzzSeeds(tb testing.TB) map[string][]byte {
	lsid := d("id", bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")})
	hello := opMsg(0, doc(tb, d("hello", 1, "helloOk", true, "$db", "admin")))
	find := opMsg(0, doc(tb, d("find", "c", "filter", d("_id", 1), "lsid", lsid, "txnNumber", int64(1),
		"readConcern", d("level", "majority", "afterClusterTime", bson.Timestamp{T: 5, I: 1}),
		"$readPreference", d("mode", "nearest", "maxStalenessSeconds", 90, "tags", bson.A{d("dc", "east"), d()}),
		"$db", "db")))
	insert := opMsg(wiremessage.MoreToCome, doc(tb, d("insert", "c", "writeConcern", d("w", 0), "$db", "db")),
		seq{"documents", []bsoncore.Document{doc(tb, d("_id", 1)), doc(tb, d("_id", 2))}})
	twoMsgs := append(append([]byte{}, hello...), hello...)
	var manySeqs []seq
	for i := range 300 {
		manySeqs = append(manySeqs, seq{strconv.Itoa(i), nil})
	}
	return map[string][]byte{
		"hello":          hello,
		"hello-checksum": opMsg(wiremessage.ChecksumPresent|wiremessage.ExhaustAllowed, doc(tb, d("hello", 1, "topologyVersion", d("counter", int64(1)), "maxAwaitTimeMS", 10000, "$db", "admin"))),
		"find":           find,
		"aggregate-merge": opMsg(0, doc(tb, d("aggregate", "c", "pipeline", bson.A{d("$match", d()), d("$merge", d("into", "x"))},
			"cursor", d(), "$db", "db"))),
		"getMore":     opMsg(0, doc(tb, d("getMore", int64(42), "collection", "c", "$db", "db"))),
		"killCursors": opMsg(0, doc(tb, d("killCursors", "c", "cursors", bson.A{int64(42), int64(43)}, "$db", "db"))),
		"insert-w0":   insert,
		"opquery-isMaster": opQuery("admin.$cmd", doc(tb, d("$query", d("isMaster", 1, "helloOk", true),
			"$readPreference", d("mode", "secondaryPreferred"))), nil),
		"truncated":          hello[:len(hello)-3],
		"truncated-header":   hello[:9],
		"length-zero":        header(0, wiremessage.OpMsg),
		"length-15":          header(15, wiremessage.OpMsg),
		"length-negative":    header(-1, wiremessage.OpMsg),
		"length-huge":        header(1<<31-1, wiremessage.OpMsg),
		"length-over-max":    header(MaxMessageSize+1, wiremessage.OpMsg),
		"length-max":         header(MaxMessageSize, wiremessage.OpMsg),
		"unknown-opcode":     rawMsg(9999, []byte{0, 0, 0, 0}),
		"op-compressed":      rawMsg(wiremessage.OpCompressed, []byte{0xdd, 7, 0, 0, 30, 0, 0, 0, 0}),
		"kind1-bad-length":   withTail(hello, 1, 0xff, 0xff, 0, 0, 'd', 0),
		"kind1-short-length": withTail(hello, 1, 2, 0, 0, 0),
		"two-messages":       twoMsgs,
		"many-sequences":     opMsg(0, doc(tb, d("insert", "c", "$db", "db")), manySeqs...),
		"mode-unprintable":   opMsg(0, doc(tb, d("find", "c", "$readPreference", d("mode", strings.Repeat("\x01", 2000)), "$db", "db"))),
	}
}

// rewriteSeeds are the messages the proxy rewrites: routed reads, a
// member's state-change error, and the shapes that test the rewrite's
// copying (sequences, a checksum, repeated keys, an empty body).
func rewriteSeeds(tb testing.TB) map[string][]byte {
	seeds := fuzzSeeds(tb)
	return map[string][]byte{
		"find":        seeds["find"],
		"insert-w0":   seeds["insert-w0"],
		"checksum":    seeds["hello-checksum"],
		"aggregate":   seeds["aggregate-merge"],
		"empty-body":  opMsg(0, doc(tb, d())),
		"repeated-rp": opMsg(0, doc(tb, d("count", "c", "$readPreference", d("mode", "primary"), "$readPreference", d("mode", "nearest"), "$db", "db"))),
		"not-primary": opMsg(wiremessage.ChecksumPresent, doc(tb, d("ok", 0.0, "errmsg", "not primary", "code", 10107, "codeName", "NotWritablePrimary",
			"topologyVersion", d("processId", bson.ObjectID{1}, "counter", int64(4)), "$clusterTime", d("clusterTime", bson.Timestamp{T: 9, I: 1})))),
	}
}

// replySeeds are members' replies: a cursor's first and last batch, a
// write's, state-change and other errors, and a legacy OP_REPLY.
func replySeeds(tb testing.TB) map[string][]byte {
	reply := func(body bson.D) []byte { return opMsg(0, doc(tb, body)) }
	ts := bson.Timestamp{T: 1700000000, I: 3}
	return map[string][]byte{
		"cursor": reply(d("cursor", d("firstBatch", bson.A{d("_id", 1)}, "id", int64(77), "ns", "db.c"),
			"ok", 1.0, "operationTime", ts, "$clusterTime", d("clusterTime", ts))),
		"cursor-exhausted": reply(d("cursor", d("nextBatch", bson.A{}, "id", int64(0), "ns", "db.c"), "ok", 1)),
		"insert":           reply(d("n", 1, "electionId", bson.ObjectID{7}, "opTime", d("ts", ts, "t", int64(1)), "ok", 1.0, "operationTime", ts)),
		"write-concern-error": reply(d("n", 1, "writeConcernError", d("code", 91, "codeName", "ShutdownInProgress", "errmsg", "shutting down"),
			"ok", 1.0, "operationTime", ts)),
		"not-primary":   rewriteSeeds(tb)["not-primary"],
		"ok-as-bool":    reply(d("ok", true, "cursor", d("id", int32(5)))),
		"cursor-no-id":  reply(d("cursor", d("ns", "db.c"), "ok", 1)),
		"op-reply":      AppendReply(nil, 1, 7, 0, doc(tb, d("ok", 1))),
		"more-to-come":  opMsg(wiremessage.MoreToCome, doc(tb, d("ok", 1))),
		"truncated":     reply(d("ok", 1))[:20],
		"repeated-keys": reply(d("ok", 0, "ok", 1, "cursor", d("id", int64(1)), "cursor", 5)),
	}
}
