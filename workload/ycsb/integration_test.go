package ycsb

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/workload"
)

// countingReads wraps PlainReads and counts the reads made through it, to
// check that every read of a worker goes through env.Reads.
type countingReads struct {
	workload.PlainReads
	findOnes, finds *atomic.Int64
}

func (c countingReads) Collection(name string) workload.ReadCollection {
	return countingCollection{c.PlainReads.Collection(name), c}
}

type countingCollection struct {
	workload.ReadCollection
	c countingReads
}

func (c countingCollection) FindOne(ctx context.Context, filter any, opts ...options.Lister[options.FindOneOptions]) *mongo.SingleResult {
	c.c.findOnes.Add(1)
	return c.ReadCollection.FindOne(ctx, filter, opts...)
}

func (c countingCollection) Find(ctx context.Context, filter any, opts ...options.Lister[options.FindOptions]) (*mongo.Cursor, error) {
	c.c.finds.Add(1)
	return c.ReadCollection.Find(ctx, filter, opts...)
}

// testWorkloads loads 2000 records into db and runs every mix against
// them.
func testWorkloads(t *testing.T, db *mongo.Database) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const records = 2000
	cfg := DefaultConfig()
	cfg.Records = records
	cfg.Mix = MixA
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reads := countingReads{workload.PlainReads{DB: db}, new(atomic.Int64), new(atomic.Int64)}
	env := workload.Env{DB: db, Reads: reads}
	coll := db.Collection(cfg.Collection)

	// Load starts from a clean collection.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "stale"}}); err != nil {
		t.Fatal(err)
	}
	var calls, maxDone atomic.Int64
	err = g.Load(ctx, env, 4, func(done, total int64) {
		calls.Add(1)
		if total != records {
			t.Errorf("progress total %d, want %d", total, records)
		}
		for {
			m := maxDone.Load()
			if done <= m || maxDone.CompareAndSwap(m, done) {
				break
			}
		}
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if calls.Load() != 2 || maxDone.Load() != records {
		t.Errorf("progress called %d times up to %d, want 2 batches up to %d", calls.Load(), maxDone.Load(), records)
	}
	count := func() int64 {
		t.Helper()
		n, err := coll.CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != records {
		t.Fatalf("after Load the collection holds %d documents, want %d", n, records)
	}

	// A known record has ten 100-byte fields and regenerates identically.
	const keynum = 1234
	var got bson.D
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: Key(keynum)}}).Decode(&got); err != nil {
		t.Fatalf("record %d (%s): %v", keynum, Key(keynum), err)
	}
	want := g.Document(keynum)
	if len(got) != 11 {
		t.Fatalf("record %d has %d elements, want _id and 10 fields", keynum, len(got))
	}
	for i, e := range got {
		if e.Key != want[i].Key || e.Value != want[i].Value {
			t.Errorf("record %d element %d = %s: %v, regenerated %s: %v", keynum, i, e.Key, e.Value, want[i].Key, want[i].Value)
		}
		if s, ok := e.Value.(string); i > 0 && (!ok || len(s) != 100) {
			t.Errorf("record %d field %s is %T of %d bytes, want a string of 100", keynum, e.Key, e.Value, len(s))
		}
	}

	expected := map[Mix][]string{
		MixA: {"READ", "UPDATE"},
		MixB: {"READ", "UPDATE"},
		MixC: {"READ"},
		MixD: {"INSERT", "READ"},
		MixE: {"INSERT", "SCAN"},
		MixF: {"READ", "READ-MODIFY-WRITE"},
	}
	classes := map[string]workload.Class{
		"READ": workload.Read, "SCAN": workload.Read,
		"UPDATE": workload.Write, "INSERT": workload.Write, "READ-MODIFY-WRITE": workload.Write,
	}
	const ops = 300
	for m := MixA; m <= MixF; m++ {
		t.Run(m.String(), func(t *testing.T) {
			if err := g.SetMix(m.String()); err != nil {
				t.Fatal(err)
			}
			w, err := g.NewWorker(env, int(m))
			if err != nil {
				t.Fatal(err)
			}
			before := count()
			findOnes, finds := reads.findOnes.Load(), reads.finds.Load()
			seen := map[string]int64{}
			for range ops {
				op, err := w.Do(ctx)
				if err != nil {
					t.Fatalf("%s: %v", op.Name, err)
				}
				if c, ok := classes[op.Name]; !ok || c != op.Class {
					t.Fatalf("op %+v, want a YCSB name with class %v", op, c)
				}
				seen[op.Name]++
			}
			names := make([]string, 0, len(seen))
			for n := range seen {
				names = append(names, n)
			}
			slices.Sort(names)
			if !slices.Equal(names, expected[m]) {
				t.Errorf("operations %v, want %v", seen, expected[m])
			}
			// Every read went through env.Reads.
			if n, want := reads.findOnes.Load()-findOnes, seen["READ"]+seen["READ-MODIFY-WRITE"]; n != want {
				t.Errorf("%d FindOne through env.Reads, want %d", n, want)
			}
			if n, want := reads.finds.Load()-finds, seen["SCAN"]; n != want {
				t.Errorf("%d Find through env.Reads, want %d", n, want)
			}
			// Inserts added exactly their records.
			if after := count(); after != before+seen["INSERT"] {
				t.Errorf("count went from %d to %d with %d inserts", before, after, seen["INSERT"])
			}
			if m == MixD && seen["INSERT"] == 0 {
				t.Error("workload D made no inserts in 300 operations")
			}
		})
	}

	// Concurrent workers of one generator never insert the same key.
	t.Run("concurrent", func(t *testing.T) {
		if err := g.SetMix("e"); err != nil {
			t.Fatal(err)
		}
		before := count()
		var inserts atomic.Int64
		var wg sync.WaitGroup
		for id := range 4 {
			w, err := g.NewWorker(env, 100+id)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				for range 200 {
					op, err := w.Do(ctx)
					if err != nil {
						t.Errorf("worker %d: %s: %v", id, op.Name, err)
						return
					}
					if op.Name == "INSERT" {
						inserts.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if after := count(); after != before+inserts.Load() {
			t.Errorf("count went from %d to %d with %d concurrent inserts", before, after, inserts.Load())
		}
	})
}

// testLoadBatchError makes one insert command fail with the failCommand
// fail point and checks that Load reports the batch. The fail point is
// always there: the test's set is started by cluster, whose members run
// with enableTestCommands=1.
func testLoadBatchError(t *testing.T, db *mongo.Database) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := db.Client().Database("admin")
	err := admin.RunCommand(ctx, bson.D{
		{Key: "configureFailPoint", Value: "failCommand"},
		{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{
			{Key: "failCommands", Value: bson.A{"insert"}},
			{Key: "errorCode", Value: 2}, // BadValue, not retryable
		}},
	}).Err()
	if err != nil {
		t.Fatalf("set the failCommand fail point: %v", err)
	}
	t.Cleanup(func() {
		admin.RunCommand(context.Background(), bson.D{
			{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"},
		})
	})

	cfg := DefaultConfig()
	cfg.Records = 3000
	cfg.Collection = "loadfail"
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = g.Load(ctx, workload.Env{DB: db, Reads: workload.PlainReads{DB: db}}, 1, nil)
	if err == nil {
		t.Fatal("Load succeeded with a failing insert")
	}
	if want := "ycsb: load batch 0, records [0, 1000)"; !strings.Contains(err.Error(), want) {
		t.Errorf("Load error %q does not name the batch (%q)", err, want)
	}
}
