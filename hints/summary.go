package hints

import (
	"bytes"
	"hash/maphash"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Read is a captured read reduced to what a replay needs (the read-hints paper,
// §4.9: the collection and the filter): no session, no cluster time, no read
// preference or concern.
type Read struct {
	// Host is the member that served the read.
	Host     string
	DB, Coll string
	Filter   bson.Raw
	Sort     bson.Raw // nil when unsorted
	// Limit is the captured find's limit, 0 for none.
	Limit int64
	// Pipeline is a captured aggregation's pipeline (nil for a find): it is
	// replayed as itself, since what warms a member's cache for a scan is
	// the scan (the read-hints paper §4.11.2, TPC-H Q1).
	Pipeline bson.Raw
	key      uint64
}

var seed = maphash.MakeSeed()

// Summarise parses a batch's find and aggregate commands and keeps the last
// read of each distinct query (same collection, filter, sort and limit, or
// pipeline), in the order of those last reads (the read-hints paper, §4.10).
// Other commands, finds that skip documents and pipelines that write ($out,
// $merge) are left out. The reads own their bytes: the batch can be released
// after.
func Summarise(bt *Batch) []Read {
	n := bt.Len()
	seen := make(map[uint64]bool, n)
	out := make([]Read, 0, n)
	for i := n - 1; i >= 0; i-- {
		cmd, host := bt.command(i)
		r, ok := parseRead(bson.Raw(cmd))
		if !ok {
			continue
		}
		r.key = r.hash()
		if seen[r.key] {
			continue
		}
		seen[r.key] = true
		r.Host = host
		r.Filter, r.Sort, r.Pipeline = bytes.Clone(r.Filter), bytes.Clone(r.Sort), bytes.Clone(r.Pipeline)
		out = append(out, r)
	}
	slices.Reverse(out)
	return out
}

// parseRead extracts a find command's namespace, filter, sort and limit,
// or an aggregate command's namespace and pipeline; ok is false for other
// commands, for finds that skip and for pipelines that write.
func parseRead(cmd bson.Raw) (Read, bool) {
	if cmd.Validate() != nil {
		return Read{}, false
	}
	first, err := cmd.IndexErr(0)
	if err != nil {
		return Read{}, false
	}
	switch first.Key() {
	case "find":
		return parseFind(cmd, first)
	case "aggregate":
		return parseAggregate(cmd, first)
	}
	return Read{}, false
}

// parseAggregate keeps a collection's aggregation whose stages only read.
func parseAggregate(cmd bson.Raw, first bson.RawElement) (Read, bool) {
	coll, ok := first.Value().StringValueOK()
	db, ok2 := cmd.Lookup("$db").StringValueOK()
	if !ok || !ok2 {
		return Read{}, false // aggregate: 1 (a database's aggregation) or no $db
	}
	pipe, ok := cmd.Lookup("pipeline").ArrayOK()
	if !ok {
		return Read{}, false
	}
	stages, err := pipe.Values()
	if err != nil {
		return Read{}, false
	}
	for _, st := range stages {
		d, ok := st.DocumentOK()
		if !ok {
			return Read{}, false
		}
		el, err := d.IndexErr(0)
		if err != nil {
			return Read{}, false
		}
		switch el.Key() {
		case "$out", "$merge":
			return Read{}, false
		}
	}
	return Read{DB: db, Coll: coll, Filter: bson.Raw(emptyDoc), Pipeline: bson.Raw(pipe)}, true
}

// parseFind extracts a find command's namespace, filter, sort and limit.
func parseFind(cmd bson.Raw, first bson.RawElement) (Read, bool) {
	coll, ok := first.Value().StringValueOK()
	db, ok2 := cmd.Lookup("$db").StringValueOK()
	if !ok || !ok2 {
		return Read{}, false
	}
	r := Read{DB: db, Coll: coll, Filter: bson.Raw(emptyDoc)}
	if v, err := cmd.LookupErr("filter"); err == nil {
		if d, ok := v.DocumentOK(); ok {
			r.Filter = d
		}
	}
	if v, err := cmd.LookupErr("sort"); err == nil {
		if d, ok := v.DocumentOK(); ok && len(d) > len(emptyDoc) {
			r.Sort = d
		}
	}
	if v, err := cmd.LookupErr("skip"); err == nil {
		if n, ok := v.AsInt64OK(); ok && n > 0 {
			return Read{}, false
		}
	}
	if v, err := cmd.LookupErr("limit"); err == nil {
		if n, ok := v.AsInt64OK(); ok {
			r.Limit = max(n, -n)
		}
	}
	return r, true
}

var emptyDoc = []byte{5, 0, 0, 0, 0}

func (r Read) hash() uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(r.DB)
	h.WriteByte(0)
	h.WriteString(r.Coll)
	h.WriteByte(0)
	h.Write(r.Filter)
	h.Write(r.Sort)
	h.Write(r.Pipeline)
	var l [8]byte
	for i := range l {
		l[i] = byte(r.Limit >> (8 * i))
	}
	h.Write(l[:])
	return h.Sum64()
}
