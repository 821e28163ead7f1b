package wire

import (
	"bytes"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/internal/testutil"
)

func TestWithReadPreference(t *testing.T) {
	tests := []struct {
		name  string
		flags wiremessage.MsgFlag
		body  bson.D
		seqs  []seq
	}{
		{"no read preference", 0, d("find", "c", "filter", d("x", 1), "$db", "db"), nil},
		{"primary replaced", 0, d("find", "c", "$readPreference", d("mode", "primary"), "$db", "db"), nil},
		{"with a checksum", wiremessage.ChecksumPresent, d("count", "c", "$readPreference", d("mode", "primary"), "$db", "db", "lsid", d("id", int32(1))), nil},
		{"with a sequence", 0, d("find", "c", "$db", "db"), []seq{{"docs", []bsoncore.Document{doc(t, d("a", 1)), doc(t, d("b", 2))}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := opMsg(tt.flags, doc(t, tt.body), tt.seqs...)
			m, err := Parse(in)
			if err != nil {
				t.Fatal(err)
			}
			prefix := []byte("keep")
			out := WithReadPreference(bytes.Clone(prefix), &m, SecondaryPreferredMode)
			if !bytes.Equal(out[:len(prefix)], prefix) {
				t.Fatal("dst's bytes were overwritten")
			}
			got, err := Parse(out[len(prefix):])
			if err != nil {
				t.Fatalf("rewritten message does not parse (length or checksum): %v", err)
			}
			if got.Header.RequestID != m.Header.RequestID || got.Flags != m.Flags {
				t.Fatalf("header %+v flags %v, want %+v %v", got.Header, got.Flags, m.Header, m.Flags)
			}
			c, err := Classify(&got)
			if err != nil {
				t.Fatal(err)
			}
			if c.ReadPref.Mode != SecondaryPreferredMode {
				t.Fatalf("mode %v, want secondaryPreferred", c.ReadPref.Mode)
			}
			// Every other field is kept, in order, and there is one $readPreference.
			var want, have []string
			for _, e := range tt.body {
				if e.Key != "$readPreference" {
					want = append(want, e.Key)
				}
			}
			els, _ := got.Body.Elements()
			for _, e := range els {
				if e.Key() != "$readPreference" {
					have = append(have, e.Key())
				} else if !bytes.Equal(e.Value().Document(), doc(t, d("mode", "secondaryPreferred"))) {
					t.Fatalf("$readPreference %v", e.Value())
				}
			}
			if len(els) != len(want)+1 || !equalStrings(want, have) {
				t.Fatalf("fields %v, want %v and $readPreference", have, want)
			}
			orig, _ := m.Body.Elements()
			for _, e := range orig {
				if e.Key() == "$readPreference" {
					continue
				}
				if v := got.Body.Lookup(e.Key()); !v.Equal(e.Value()) {
					t.Fatalf("%s: %v, want %v", e.Key(), v, e.Value())
				}
			}
			if len(got.Sequences) != len(m.Sequences) {
				t.Fatalf("sequences %d, want %d", len(got.Sequences), len(m.Sequences))
			}
			for i := range m.Sequences {
				if got.Sequences[i].Identifier != m.Sequences[i].Identifier || !bytes.Equal(got.Sequences[i].Docs, m.Sequences[i].Docs) {
					t.Fatalf("sequence %d changed", i)
				}
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A rewrite allocates the new message once: grown by append element by
// element, a body of many small fields cost about 5.6 times its size in 18
// allocations. (Bytes, not allocations, are counted: the race detector adds
// small allocations of its own.)
func TestRewriteAllocatesOnce(t *testing.T) {
	body := d("find", "c")
	for i := range 2000 {
		body = append(body, bson.E{Key: "k" + strconv.Itoa(i), Value: int32(i)})
	}
	msg := opMsg(wiremessage.ChecksumPresent, doc(t, append(body, bson.E{Key: "$db", Value: "db"})))
	m, err := Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	once := testutil.AllocBound{PerByte: 1, Fixed: rewriteRoom + 2<<10} // size classes round up by less
	for _, tt := range []struct {
		name    string
		rewrite func() []byte
	}{
		{"WithReadPreference", func() []byte { return WithReadPreference(nil, &m, SecondaryPreferredMode) }},
		{"WithoutField", func() []byte { return WithoutField(nil, &m, "k7") }},
	} {
		testutil.CheckAllocs(t, tt.name, len(msg), once, func() { tt.rewrite() })
		if _, err := Parse(tt.rewrite()); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestWithoutField(t *testing.T) {
	body := d("ok", 0.0, "errmsg", "not primary", "code", int32(10107), "topologyVersion", d("processId", bson.NewObjectID(), "counter", int64(6)), "operationTime", bson.Timestamp{T: 5, I: 1})
	for _, flags := range []wiremessage.MsgFlag{0, wiremessage.ChecksumPresent} {
		in := opMsg(flags, doc(t, body))
		info, ok := InspectReply(in)
		if !ok || !info.TopologyVersion || info.OK {
			t.Fatalf("inspect %+v %v, want a failed reply with a topologyVersion", info, ok)
		}
		m, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		out := WithoutField(nil, &m, "topologyVersion")
		got, err := Parse(out)
		if err != nil {
			t.Fatalf("rewritten reply does not parse: %v", err)
		}
		if _, err := got.Body.LookupErr("topologyVersion"); err == nil {
			t.Fatal("topologyVersion still there")
		}
		els, _ := got.Body.Elements()
		if len(els) != len(body)-1 || got.Header.RequestID != m.Header.RequestID || got.Flags != m.Flags {
			t.Fatalf("reply %v flags %v, want the other %d fields and the header kept", got.Body, got.Flags, len(body)-1)
		}
		if info, _ := InspectReply(out); info.TopologyVersion || info.OperationTime != (Timestamp{T: 5, I: 1}) {
			t.Fatalf("rewritten reply inspects as %+v", info)
		}
	}
}

func TestInspectReply(t *testing.T) {
	ts := bson.Timestamp{T: 1700000000, I: 7}
	tests := []struct {
		name string
		body bson.D
		want Reply
	}{
		{"write", d("n", int32(1), "operationTime", ts, "ok", 1.0), Reply{OK: true, OperationTime: Timestamp{T: ts.T, I: ts.I}}},
		{"cursor", d("cursor", d("firstBatch", bson.A{}, "id", int64(42), "ns", "db.c"), "ok", int32(1), "operationTime", ts),
			Reply{OK: true, OperationTime: Timestamp{T: ts.T, I: ts.I}, Cursor: true, CursorID: 42, Namespace: "db.c"}},
		{"exhausted cursor", d("cursor", d("nextBatch", bson.A{}, "id", int64(0), "ns", "db.c"), "ok", 1.0),
			Reply{OK: true, Cursor: true, Namespace: "db.c"}},
		{"error", d("ok", 0.0, "errmsg", "no", "code", int32(13435)), Reply{}},
		{"operationTime of another type is ignored", d("ok", 1.0, "operationTime", int64(5)), Reply{OK: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := InspectReply(opMsg(0, doc(t, tt.body)))
			if !ok || got != tt.want {
				t.Fatalf("%+v %v, want %+v", got, ok, tt.want)
			}
		})
	}
	if _, ok := InspectReply([]byte{1, 2, 3}); ok {
		t.Fatal("garbage must not inspect")
	}
	if _, ok := InspectReply(opQuery("db.$cmd", doc(t, d("ping", 1)), nil)); ok {
		t.Fatal("an OP_QUERY is not a member's reply")
	}
}

// WithAfterClusterTime sets readConcern.afterClusterTime, keeping the level
// and every other field, replacing an earlier afterClusterTime.
func TestWithAfterClusterTime(t *testing.T) {
	at := Timestamp{T: 1700000000, I: 7}
	for _, tt := range []struct {
		name, level string
		body        bson.D
	}{
		{"majority", "majority", d("find", "c", "filter", d("x", 1), "readConcern", d("level", "majority"), "$db", "db")},
		{"earlier afterClusterTime replaced", "majority", d("find", "c", "readConcern", d("level", "majority", "afterClusterTime", bson.Timestamp{T: 5, I: 1}), "$db", "db")},
		{"no readConcern", "", d("count", "c", "$db", "db")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(opMsg(0, doc(t, tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(WithAfterClusterTime(nil, &m, at))
			if err != nil {
				t.Fatalf("rewritten message does not parse: %v", err)
			}
			c, err := Classify(&got)
			if err != nil {
				t.Fatal(err)
			}
			if c.ReadConcern.AfterClusterTime != at || c.ReadConcern.Level != tt.level || c.Command != tt.body[0].Key || c.Database != "db" {
				t.Fatalf("rewritten: %v; want readConcern {level %q, afterClusterTime %v}", bson.Raw(got.Body), tt.level, at)
			}
			rc, _ := bsoncore.Document(got.Body).Lookup("readConcern").DocumentOK()
			if n, _ := rc.Elements(); len(n) != 1+min(len(tt.level), 1) {
				t.Fatalf("readConcern %v; want level (if any) and afterClusterTime only", rc)
			}
			if f, want := bsoncore.Document(got.Body).Lookup("filter"), bsoncore.Document(m.Body).Lookup("filter"); !f.Equal(want) {
				t.Fatalf("filter %v; want %v kept", f, want)
			}
		})
	}
}
