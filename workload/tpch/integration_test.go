package tpch

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/workload"
)

// countingReads wraps PlainReads and counts the aggregations made through
// it, to check that Q1 goes through env.Reads.
type countingReads struct {
	workload.PlainReads
	aggregates *atomic.Int64
}

func (c countingReads) Collection(name string) workload.ReadCollection {
	return countingCollection{c.PlainReads.Collection(name), c.aggregates}
}

type countingCollection struct {
	workload.ReadCollection
	aggregates *atomic.Int64
}

func (c countingCollection) Aggregate(ctx context.Context, pipeline any, opts ...options.Lister[options.AggregateOptions]) (*mongo.Cursor, error) {
	c.aggregates.Add(1)
	return c.ReadCollection.Aggregate(ctx, pipeline, opts...)
}

// testLoadAndQ1 loads SF 0.002 (3000 orders, about 12,000 line items),
// checks the load against the generator, and compares Q1's aggregation
// under every plan with ComputeQ1 over the same line items in Go.
func testLoadAndQ1(t *testing.T, db *mongo.Database) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := DefaultConfig()
	cfg.SF = 0.002
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reads := countingReads{workload.PlainReads{DB: db}, new(atomic.Int64)}
	env := workload.Env{DB: db, Reads: reads}
	coll := db.Collection(cfg.Collection)

	// Load starts from a clean collection and reports progress in line
	// items.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "stale"}}); err != nil {
		t.Fatal(err)
	}
	total := g.Records()
	var maxDone atomic.Int64
	err = g.Load(ctx, env, 4, func(done, n int64) {
		if n != total {
			t.Errorf("progress total %d, want %d", n, total)
		}
		for m := maxDone.Load(); done > m && !maxDone.CompareAndSwap(m, done); m = maxDone.Load() {
		}
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if maxDone.Load() != total {
		t.Errorf("progress reached %d, want %d", maxDone.Load(), total)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != total {
		t.Fatalf("after Load the collection holds %d documents (%v), want %d", n, err, total)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var indexed bool
	for _, s := range specs {
		indexed = indexed || (s.Name == ShipDateIndex && strings.Contains(string(s.KeysDocument), FieldShipDate))
	}
	if !indexed {
		t.Errorf("indexes %v: want %s on %s", specs, ShipDateIndex, FieldShipDate)
	}

	// Every line item is stored as generated.
	var lines []LineItem
	for b := range g.Data().Batches() {
		lines = g.Data().Batch(b, lines)
	}
	for _, i := range []int{0, len(lines) / 2, len(lines) - 1} {
		l := lines[i]
		var got, want bson.Raw
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: l.ID()}}).Decode(&got); err != nil {
			t.Fatalf("line %d: %v", l.ID(), err)
		}
		if want, err = bson.Marshal(l.Document()); err != nil {
			t.Fatal(err)
		}
		if !bytesEqual(got, want) {
			t.Errorf("stored line %s, generated %s", got, want)
		}
	}

	// Q1's aggregation agrees with ComputeQ1 at both ends of DELTA's range
	// and between, under every plan.
	for p := PlanAuto; p <= PlanCollScan; p++ {
		q := NewQ1(reads.Collection(cfg.Collection), p)
		for _, delta := range []int{MinQ1Delta, 90, MaxQ1Delta} {
			got, err := q.Run(ctx, delta)
			if err != nil {
				t.Fatalf("plan %v, delta %d: %v", p, delta, err)
			}
			want := ComputeQ1(lines, delta)
			if len(got) != 4 || len(got) != len(want) {
				t.Fatalf("plan %v, delta %d: %d rows %+v, want the 4 of %+v", p, delta, len(got), got, want)
			}
			for i := range want {
				if !rowsClose(got[i], want[i], 1e-9) {
					t.Errorf("plan %v, delta %d, row %d:\n got  %+v\n want %+v", p, delta, i, got[i], want[i])
				}
			}
		}
	}

	// The plans are what Plan's comments say: the planner scans the
	// l_shipdate index, and collscan scans the collection.
	for p, want := range map[Plan]string{PlanAuto: "IXSCAN", PlanIndex: "IXSCAN", PlanCollScan: "COLLSCAN"} {
		cmd := bson.D{{Key: "aggregate", Value: cfg.Collection}, {Key: "pipeline", Value: Q1Pipeline(90)},
			{Key: "explain", Value: true}}
		if h := p.hint(); h != nil {
			cmd = append(cmd, bson.E{Key: "hint", Value: h})
		}
		var plan bson.Raw
		if err := db.RunCommand(ctx, cmd).Decode(&plan); err != nil {
			t.Fatalf("explain plan %v: %v", p, err)
		}
		s := plan.String()
		other := map[string]string{"IXSCAN": "COLLSCAN", "COLLSCAN": "IXSCAN"}[want]
		if !strings.Contains(s, want) || strings.Contains(s, other) {
			t.Errorf("plan %v: explain shows no %s or a %s: %.2000s", p, want, other, s)
		}
	}

	// A worker runs Q1 through env.Reads and reports it as the read "Q1".
	before := reads.aggregates.Load()
	w, err := g.NewWorker(env, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		op, err := w.Do(ctx)
		if err != nil {
			t.Fatalf("Do: %v", err)
		}
		if op.Name != "Q1" || op.Class != workload.Read {
			t.Fatalf("op %+v, want the read Q1", op)
		}
	}
	if n := reads.aggregates.Load() - before; n != 5 {
		t.Errorf("%d aggregations through env.Reads for 5 Q1s", n)
	}

	// On an empty collection Q1 fails with ErrNoRows.
	if _, err := db.Collection(cfg.Collection).DeleteMany(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Do(ctx); !errors.Is(err, ErrNoRows) {
		t.Errorf("Q1 on an empty collection: %v, want ErrNoRows", err)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
