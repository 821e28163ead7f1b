package hints

import (
	"bytes"
	"hash/maphash"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Read is a captured read reduced to what a replay needs (seed 004 §4.9:
// the collection and the filter): no session, no cluster time, no read
// preference or concern.
type Read struct {
	// Host is the member that served the read.
	Host     string
	DB, Coll string
	Filter   bson.Raw
	Sort     bson.Raw // nil when unsorted
	// Limit is the captured find's limit, 0 for none.
	Limit int64
	key   uint64
}

var seed = maphash.MakeSeed()

// Summarise parses a batch's find commands and keeps the last read of each
// distinct query (same collection, filter, sort and limit), in the order of
// those last reads (seed 004 §4.10). Commands that are not finds, or that
// skip documents, are left out. The reads own their bytes: the batch can be
// released after.
func Summarise(bt *Batch) []Read {
	n := bt.Len()
	seen := make(map[uint64]bool, n)
	out := make([]Read, 0, n)
	for i := n - 1; i >= 0; i-- {
		cmd, host := bt.command(i)
		r, ok := parseFind(bson.Raw(cmd))
		if !ok {
			continue
		}
		r.key = r.hash()
		if seen[r.key] {
			continue
		}
		seen[r.key] = true
		r.Host = host
		r.Filter, r.Sort = bytes.Clone(r.Filter), bytes.Clone(r.Sort)
		out = append(out, r)
	}
	slices.Reverse(out)
	return out
}

// parseFind extracts a find command's namespace, filter, sort and limit; ok
// is false for other commands and for finds that skip.
func parseFind(cmd bson.Raw) (Read, bool) {
	if cmd.Validate() != nil {
		return Read{}, false
	}
	first, err := cmd.IndexErr(0)
	if err != nil || first.Key() != "find" {
		return Read{}, false
	}
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
	var l [8]byte
	for i := range l {
		l[i] = byte(r.Limit >> (8 * i))
	}
	h.Write(l[:])
	return h.Sum64()
}
