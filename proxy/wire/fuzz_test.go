package wire

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// FuzzParse feeds arbitrary bytes through ReadMessage, Parse, Classify and
// RewriteIDs. None may panic; ReadMessage may not allocate past the limit
// nor much past what it was sent; every error wraps a sentinel; what parses
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

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzParse/seed-* from fuzzSeeds")

// TestFuzzSeeds keeps the committed seed corpus what fuzzSeeds builds
// (go test -run TestFuzzSeeds -update-seeds rewrites it). The fuzzer's own
// finds sit next to the seeds under their hash names.
func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	for name, data := range fuzzSeeds(t) {
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
	}
}
