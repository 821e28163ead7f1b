package proxysoak

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
)

// maxIDs is how many offending ids the results list.
const maxIDs = 20

// checkWrites reads the docs collection from the replica set itself
// (majority read concern, on the primary) and returns the acknowledged
// inserts it lacks.
func checkWrites(ctx context.Context, db *mongo.Database, acked map[string]bool) (Writes, error) {
	present, err := ids(ctx, db.Collection(docsColl, options.Collection().SetReadConcern(readconcern.Majority())), nil)
	if err != nil {
		return Writes{}, fmt.Errorf("check the writes: %w", err)
	}
	w := Writes{Acked: int64(len(acked))}
	for id := range acked {
		if _, ok := present[id]; !ok {
			w.Lost++
			w.LostIDs = append(w.LostIDs, id)
		}
	}
	slices.Sort(w.LostIDs)
	w.LostIDs = w.LostIDs[:min(len(w.LostIDs), maxIDs)]
	return w, nil
}

// checkCounters reads every transaction's counter from the replica set
// itself: each must be 0 or 1, and 1 for every acknowledged commit.
func checkCounters(ctx context.Context, db *mongo.Database, committed map[string]bool) (Transactions, error) {
	n, err := ids(ctx, db.Collection(countersColl, options.Collection().SetReadConcern(readconcern.Majority())), func(d bson.Raw) int64 {
		v, _ := d.Lookup("n").AsInt64OK() // int32, int64 or a whole double
		return v
	})
	if err != nil {
		return Transactions{}, fmt.Errorf("check the transactions: %w", err)
	}
	return judgeCounters(n, committed), nil
}

// judgeCounters judges the counters (id -> n) against the acknowledged
// commits.
func judgeCounters(n map[string]int64, committed map[string]bool) Transactions {
	t := Transactions{Committed: int64(len(committed)), Attempted: int64(len(n))}
	for id, v := range n {
		switch {
		case v > 1:
			t.Twice++
			t.TwiceIDs = append(t.TwiceIDs, id)
		case v == 1 && !committed[id]:
			t.Unknown++
		}
	}
	for id := range committed {
		if n[id] < 1 {
			t.CommitLost++
		}
	}
	slices.Sort(t.TwiceIDs)
	t.TwiceIDs = t.TwiceIDs[:min(len(t.TwiceIDs), maxIDs)]
	return t
}

// ids returns every document's _id in coll, with value(doc) (0 when nil).
func ids(ctx context.Context, coll *mongo.Collection, value func(bson.Raw) int64) (map[string]int64, error) {
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(10000))
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)
	out := map[string]int64{}
	for cur.Next(ctx) {
		id, ok := cur.Current.Lookup("_id").StringValueOK()
		if !ok {
			continue
		}
		var v int64
		if value != nil {
			v = value(cur.Current)
		}
		out[id] = v
	}
	return out, cur.Err()
}
