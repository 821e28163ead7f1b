package hints

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// in is the filter {field: {$in: values}}.
func in(field string, values ...any) bson.D {
	return bson.D{{Key: field, Value: bson.D{{Key: "$in", Value: bson.A(values)}}}}
}

// TestPlanReplays checks each read's replay on small batches: which reads
// merge into one $in (equality reads of one field of one collection, with a
// scalar value, unsorted, at most one document), in which order, and what
// is replayed as it was.
func TestPlanReplays(t *testing.T) {
	read := func(db, coll string, filter bson.D, sort bson.D, limit int64) Read {
		r := Read{Host: "p", DB: db, Coll: coll, Filter: mustMarshal(t, filter), Limit: limit}
		if sort != nil {
			r.Sort = mustMarshal(t, sort)
		}
		return r
	}
	point := func(coll string, id any) Read { return read("db", coll, bson.D{{Key: "_id", Value: id}}, nil, 0) }
	type want struct {
		db, coll string
		filter   bson.D
		sort     bson.D
		limit    int64
		keys     int
	}
	oid := bson.NewObjectID()
	tests := []struct {
		name     string
		coalesce int
		reads    []Read
		want     []want // singles in read order, then each $in group in order of its first read
	}{
		{"one $in per database, collection and field", 256,
			[]Read{point("c", 1), point("c", 2), point("d", 3), read("db", "c", bson.D{{Key: "a", Value: 4}}, nil, 0),
				read("other", "c", bson.D{{Key: "_id", Value: 5}}, nil, 0), point("c", 6)},
			[]want{
				{"db", "c", in("_id", 1, 2, 6), nil, 0, 3},
				{"db", "d", in("_id", 3), nil, 0, 1},
				{"db", "c", in("a", 4), nil, 0, 1},
				{"other", "c", in("_id", 5), nil, 0, 1},
			}},
		{"chunks of at most Coalesce keys, in read order", 2,
			[]Read{point("c", 1), point("c", 2), point("c", 3), point("c", 4), point("c", 5)},
			[]want{
				{"db", "c", in("_id", 1, 2), nil, 0, 2},
				{"db", "c", in("_id", 3, 4), nil, 0, 2},
				{"db", "c", in("_id", 5), nil, 0, 1},
			}},
		{"a findOne (limit 1) is a point read; limit 2 is not", 256,
			[]Read{read("db", "c", bson.D{{Key: "_id", Value: 1}}, nil, 1), read("db", "c", bson.D{{Key: "_id", Value: 2}}, nil, 1),
				read("db", "c", bson.D{{Key: "_id", Value: 3}}, nil, 2)},
			[]want{
				{"db", "c", bson.D{{Key: "_id", Value: 3}}, nil, 2, 1},
				{"db", "c", in("_id", 1, 2), nil, 0, 2},
			}},
		{"scalar types merge: strings, object ids, booleans", 256,
			[]Read{point("c", "user1"), point("c", "user2"), point("d", oid), read("db", "e", bson.D{{Key: "f", Value: true}}, nil, 0)},
			[]want{
				{"db", "c", in("_id", "user1", "user2"), nil, 0, 2},
				{"db", "d", in("_id", oid), nil, 0, 1},
				{"db", "e", in("f", true), nil, 0, 1},
			}},
		{"replayed as they were, limit capped at MaxLimit", 256,
			[]Read{
				read("db", "c", bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 2}}, nil, 0),             // two fields
				read("db", "c", bson.D{{Key: "$where", Value: "this.a == 1"}}, nil, 0),                  // an operator
				read("db", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 5}}}}, nil, 0),   // a document value
				read("db", "c", bson.D{{Key: "a", Value: nil}}, nil, 0),                                 // null: not a scalar
				read("db", "c", bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "x", Value: 1}}, 0),        // sorted
				read("db", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 9}}}}, nil, 3),    // a smaller limit stays
				read("db", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 9}}}}, nil, 1000), // a larger one is capped
				read("db", "c", bson.D{}, nil, 0),                                                       // no filter
			},
			[]want{
				{"db", "c", bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 2}}, nil, 100, 1},
				{"db", "c", bson.D{{Key: "$where", Value: "this.a == 1"}}, nil, 100, 1},
				{"db", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 5}}}}, nil, 100, 1},
				{"db", "c", bson.D{{Key: "a", Value: nil}}, nil, 100, 1},
				{"db", "c", bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "x", Value: 1}}, 100, 1},
				{"db", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 9}}}}, nil, 3, 1},
				{"db", "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 9}}}}, nil, 100, 1},
				{"db", "c", bson.D{}, nil, 100, 1},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Coalesce = tt.coalesce
			got := Plan(tt.reads, "s", 1, 1, cfg)
			if len(got) != len(tt.want) {
				t.Fatalf("%d replays, want %d: %v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i]
				var sort bson.Raw
				if w.sort != nil {
					sort = mustMarshal(t, w.sort)
				}
				if g.DB != w.db || g.Coll != w.coll || !bytes.Equal(g.Filter, mustMarshal(t, w.filter)) || !bytes.Equal(g.Sort, sort) ||
					g.Limit != w.limit || g.Keys != w.keys {
					t.Fatalf("replay %d: %s.%s %v sort %v limit %d keys %d, want %s.%s %v sort %v limit %d keys %d", i,
						g.DB, g.Coll, g.Filter, g.Sort, g.Limit, g.Keys, w.db, w.coll, w.filter, w.sort, w.limit, w.keys)
				}
			}
		})
	}
}
