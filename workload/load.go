package workload

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/sync/errgroup"
)

// InsertBatches drops collection name of db, creates it afresh and inserts
// batches 0..n-1 in unordered InsertMany calls, at most parallel at a time.
// batch builds batch b's documents and names their range for errors
// ("records [0, 1000)"); it runs on several goroutines at once. progress,
// if not nil, gets (documents done, total) from several goroutines. The
// first failing batch stops the load; its error names the batch. Loaders
// that regenerate any batch from (seed, batch) share this.
func InsertBatches(ctx context.Context, db *mongo.Database, name string, parallel int, n, total int64,
	batch func(b int64) (docs []any, what string), progress Progress) error {
	if parallel < 1 {
		return fmt.Errorf("load: parallel must be at least 1, got %d", parallel)
	}
	coll := db.Collection(name)
	if err := coll.Drop(ctx); err != nil {
		return fmt.Errorf("load: drop %s: %w", name, err)
	}
	if err := db.CreateCollection(ctx, name); err != nil {
		return fmt.Errorf("load: create %s: %w", name, err)
	}
	var done atomic.Int64
	insertOpts := options.InsertMany().SetOrdered(false)
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(parallel)
	for b := range n {
		eg.Go(func() error {
			if ectx.Err() != nil {
				return ectx.Err() // an earlier batch failed
			}
			docs, what := batch(b)
			if _, err := coll.InsertMany(ectx, docs, insertOpts); err != nil {
				return fmt.Errorf("load batch %d, %s: %w", b, what, err)
			}
			if d := done.Add(int64(len(docs))); progress != nil {
				progress(d, total)
			}
			return nil
		})
	}
	return eg.Wait()
}
