package wire

import (
	"errors"
	"runtime"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// hostileArray builds an array of n elements, each made by elem (the
// message is built by hand: bson.Marshal of millions of values is slow).
func hostileArray(n int, elem func(b []byte, key string) []byte) []byte {
	idx, b := bsoncore.ReserveLength(nil)
	for i := range n {
		b = elem(b, strconv.Itoa(i))
	}
	b = append(b, 0)
	return bsoncore.UpdateLength(b, idx, int32(len(b)-int(idx)))
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hostileFind is a find whose $readPreference has the given tags array.
func hostileFind(tags []byte) []byte {
	rp := bsoncore.NewDocumentBuilder().AppendString("mode", "nearest").AppendArray("tags", tags).Build()
	body := bsoncore.NewDocumentBuilder().AppendString("find", "c").AppendDocument("$readPreference", rp).AppendString("$db", "db").Build()
	return opMsg(0, body)
}

// A find with 3 million empty tag sets (41 MB) is refused after reading
// past at most the cap, without copying any of them.
func TestHostileTagSetsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 41 MB message")
	}
	empty := func(b []byte, key string) []byte {
		return bsoncore.AppendDocumentElement(b, key, bsoncore.Document{5, 0, 0, 0, 0})
	}
	msg := hostileFind(hostileArray(3_000_000, empty))
	if len(msg) < 40_000_000 {
		t.Fatalf("the hostile find is %d bytes, want 40 MB or more", len(msg))
	}
	var err error
	got := allocated(func() {
		var m Message
		if m, err = Parse(msg); err == nil {
			_, err = Classify(&m)
		}
	})
	if !errors.Is(err, ErrBadCommand) {
		t.Fatalf("Classify: %v, want ErrBadCommand", err)
	}
	// A bound well below the message's own size: what Classify of an
	// ordinary find allocates.
	if got > 64<<10 {
		t.Errorf("parsing a %d-byte find with 3M tag sets allocated %d bytes, want at most 64 KiB", len(msg), got)
	}
}

func TestTagSetLimits(t *testing.T) {
	tagSet := func(n int) bson.D {
		set := bson.D{}
		for i := range n {
			set = append(set, bson.E{Key: "k" + strconv.Itoa(i), Value: "v"})
		}
		return set
	}
	sets := func(n, tags int) bson.A {
		a := bson.A{}
		for range n {
			a = append(a, tagSet(tags))
		}
		return a
	}
	tests := []struct {
		name   string
		tags   bson.A
		wantOK bool
	}{
		{"64 tag sets of 64 tags", sets(MaxTagSets, MaxTags), true},
		{"65 tag sets", sets(MaxTagSets+1, 0), false},
		{"a tag set of 65 tags", sets(1, MaxTags+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(opMsg(0, doc(t, d("find", "c", "$readPreference", d("mode", "nearest", "tags", tt.tags), "$db", "db"))))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Classify(&m)
			if tt.wantOK {
				if err != nil || len(c.ReadPref.TagSets) != len(tt.tags) {
					t.Fatalf("Classify: %d tag sets, %v; want %d", len(c.ReadPref.TagSets), err, len(tt.tags))
				}
				return
			}
			if !errors.Is(err, ErrBadCommand) {
				t.Fatalf("Classify: %v, want ErrBadCommand", err)
			}
		})
	}
}

// killCursors' cursor ids cost one allocation of 8 bytes per id, less than
// the message's own 11 or more bytes per id.
func TestKillCursorsAllocation(t *testing.T) {
	n := 100_000
	if !testing.Short() {
		n = 2_500_000
	}
	ids := hostileArray(n, func(b []byte, key string) []byte { return bsoncore.AppendInt64Element(b, key, 1) })
	body := bsoncore.NewDocumentBuilder().AppendString("killCursors", "c").AppendArray("cursors", ids).AppendString("$db", "db").Build()
	msg := opMsg(0, body)
	m, err := Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	var c Class
	got := allocated(func() { c, err = Classify(&m) })
	if err != nil || len(c.CursorIDs) != n {
		t.Fatalf("Classify: %d ids, %v; want %d", len(c.CursorIDs), err, n)
	}
	if want := uint64(8*n + 64<<10); got > want {
		t.Errorf("killCursors of %d ids (%d bytes) allocated %d bytes, want at most %d", n, len(msg), got, want)
	}
	if allocs := testing.AllocsPerRun(10, func() { c, err = Classify(&m) }); allocs > 3 {
		t.Errorf("killCursors of %d ids: %v allocations, want at most 3", n, allocs)
	}
}

func TestMaxTimeMS(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want int64
	}{
		{"int32", int32(1500), 1500},
		{"int64", int64(90_000), 90_000},
		{"double", 2500.0, 2500},
		{"zero", int32(0), 0},
		{"negative", int32(-5), 0},
		{"string", "100", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(opMsg(0, doc(t, d("find", "c", "maxTimeMS", tt.v, "$db", "db"))))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Classify(&m)
			if err != nil || c.MaxTimeMS != tt.want {
				t.Fatalf("Classify: MaxTimeMS %d, %v; want %d", c.MaxTimeMS, err, tt.want)
			}
		})
	}
}

func TestCommandName(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"OP_MSG", opMsg(0, doc(t, d("find", "c", "$db", "db"))), "find"},
		{"OP_QUERY", opQuery("admin.$cmd", doc(t, d("isMaster", 1)), nil), "isMaster"},
		{"OP_QUERY wrapped", opQuery("admin.$cmd", doc(t, d("$query", d("hello", 1), "$readPreference", d("mode", "primary"))), nil), "hello"},
		{"OP_QUERY wrapped, not a document", opQuery("admin.$cmd", doc(t, d("$query", 1)), nil), ""},
		{"empty body", opMsg(0, doc(t, d())), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := CommandName(&m); got != tt.want {
				t.Fatalf("CommandName = %q, want %q", got, tt.want)
			}
			if allocs := testing.AllocsPerRun(10, func() { CommandName(&m) }); allocs != 0 {
				t.Errorf("CommandName: %v allocations, want 0", allocs)
			}
		})
	}
}
