package hints

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Replay is one query sent to a member to warm its cache: a captured read
// with the limit capped, many equality reads of one field merged into one
// $in query, or a captured aggregation as it was.
type Replay struct {
	DB, Coll string
	Filter   bson.Raw
	Sort     bson.Raw
	// Pipeline, when set, is an aggregation to run as captured (Filter,
	// Sort and Limit unused).
	Pipeline bson.Raw
	// Limit is the most documents to read (0: as many as the $in asks).
	Limit int64
	// Keys is the number of captured reads the replay stands for.
	Keys int
}

// Plan returns the replays of a summarised batch for target: the reads
// another member served, sampled to the fraction apply (the same key is in
// or out for every target of a batch; seq varies the sample from batch to
// batch), equality reads of one field merged into $in queries of at most
// cfg.Coalesce keys, aggregations as captured, other reads with their limit
// capped at cfg.MaxLimit.
func Plan(reads []Read, target string, apply float64, seq uint64, cfg Config) []Replay {
	type group struct {
		db, coll, field string
		values          []bsoncore.Value
	}
	var groups []*group
	find := func(db, coll, field string) *group {
		for _, g := range groups {
			if g.db == db && g.coll == coll && g.field == field {
				return g
			}
		}
		g := &group{db: db, coll: coll, field: field}
		groups = append(groups, g)
		return g
	}
	var out []Replay
	cut := uint64(math.MaxUint64)
	if apply < 1 {
		cut = uint64(apply * math.MaxUint64)
	}
	for _, r := range reads {
		if r.Host == target || mix(r.key^seq) > cut {
			continue
		}
		if r.Pipeline != nil {
			out = append(out, Replay{DB: r.DB, Coll: r.Coll, Pipeline: r.Pipeline, Keys: 1})
			continue
		}
		if field, v, ok := pointRead(r); ok {
			g := find(r.DB, r.Coll, field)
			g.values = append(g.values, v)
			continue
		}
		limit := cfg.MaxLimit
		if r.Limit > 0 && r.Limit < limit {
			limit = r.Limit
		}
		out = append(out, Replay{DB: r.DB, Coll: r.Coll, Filter: r.Filter, Sort: r.Sort, Limit: limit, Keys: 1})
	}
	for _, g := range groups {
		for start := 0; start < len(g.values); start += cfg.Coalesce {
			vals := g.values[start:min(start+cfg.Coalesce, len(g.values))]
			out = append(out, Replay{DB: g.db, Coll: g.coll, Filter: inFilter(g.field, vals), Keys: len(vals)})
		}
	}
	return out
}

// pointRead reports whether r is an equality read of one field with a
// scalar value and no sort, and returns the field and the value.
func pointRead(r Read) (field string, value bsoncore.Value, ok bool) {
	if r.Sort != nil || r.Limit > 1 {
		return "", bsoncore.Value{}, false
	}
	elems, err := r.Filter.Elements()
	if err != nil || len(elems) != 1 {
		return "", bsoncore.Value{}, false
	}
	k, v := elems[0].Key(), elems[0].Value()
	if k == "" || k[0] == '$' {
		return "", bsoncore.Value{}, false
	}
	switch v.Type {
	case bson.TypeString, bson.TypeInt32, bson.TypeInt64, bson.TypeDouble, bson.TypeObjectID, bson.TypeBoolean,
		bson.TypeDateTime, bson.TypeBinary, bson.TypeDecimal128, bson.TypeTimestamp:
		return k, bsoncore.Value{Type: bsoncore.Type(v.Type), Data: v.Value}, true
	}
	return "", bsoncore.Value{}, false
}

// inFilter builds {field: {$in: [values...]}}.
func inFilter(field string, values []bsoncore.Value) bson.Raw {
	in := bsoncore.BuildDocumentFromElements(nil, bsoncore.AppendArrayElement(nil, "$in", bsoncore.BuildArray(nil, values...)))
	return bson.Raw(bsoncore.BuildDocumentFromElements(nil, bsoncore.AppendDocumentElement(nil, field, in)))
}

// mix is splitmix64's finaliser: a key's hash xor the batch number, spread
// over 64 bits so a cut at apply x 2^64 keeps that fraction.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}
