package tpcc

import (
	"context"
	"slices"
	"testing"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload"
)

// TestOurTransactionsOnPyTPCCData runs our five transactions on data shaped
// as py-tpcc's loader writes it (pyLoad), without our load metadata, as a
// run with --skip-load on a py-tpcc database does: they must do what TPC-C
// says, and py-tpcc's indexes must serve their queries.
func TestOurTransactionsOnPyTPCCData(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	plain := testutil.Connect(t, rs.URI())
	ctx := context.Background()
	for _, v := range txnVariants {
		t.Run(v.name, func(t *testing.T) {
			cfg := smallConfig(v.schema)
			cfg.FindAndModify, cfg.BatchWrites = v.findAndModify, v.batchWrites
			name := "tpcc_pyload_" + v.schema.String()
			db := plain.Database(name)
			if err := db.Drop(ctx); err != nil {
				t.Fatal(err)
			}
			testutil.DropAtCleanup(t, db)
			pyLoad(t, ctx, db, v.schema, cfg.Warehouses, cfg.Scale, 7)

			t.Run("our checks on its load", func(t *testing.T) {
				// Its W_YTD and D_YTD are TPC-C's full-scale values whatever
				// the scale factor (3.3.2.8, 3.3.2.9); its delivered lines
				// carry a random OL_AMOUNT that no customer paid
				// (3.3.2.10, 3.3.2.12).
				failed, _ := checkOutcome(t, db, cfg)
				if got := sortedKeys(failed); !slices.Equal(got, []string{"3.3.2.10", "3.3.2.12", "3.3.2.8", "3.3.2.9"}) {
					t.Errorf("failed %v, want 3.3.2.8, 3.3.2.9, 3.3.2.10 and 3.3.2.12: %v", got, failed)
				}
			})

			// The worker runs on a monitored client; the assertions read
			// through the plain one, so the log holds only the worker's
			// queries.
			mon, log := monitoredClient(t, rs.URI())
			wdb := mon.Database(name)
			g, err := NewGenerator(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.BeginRun(ctx, workload.Env{DB: wdb, Reads: workload.PlainReads{DB: wdb}}); err != nil {
				t.Fatalf("begin a run without load metadata: %v", err)
			}
			w := testWorker(t, wdb, cfg, 0)
			testFiveTransactions(t, db, w)
			t.Run("random transactions", func(t *testing.T) {
				// The generator's own inputs: last names, NURand ids,
				// remote warehouses, rollbacks.
				ran := map[string]int{}
				for i := 0; i < 150; i++ {
					op, err := w.Do(ctx)
					if err != nil {
						t.Fatalf("%s: %v", op.Name, err)
					}
					ran[op.Name]++
				}
				if len(ran) != 5 {
					t.Errorf("ran %v, want all five transactions", ran)
				}
			})
			t.Run("its indexes serve our queries", func(t *testing.T) {
				if n := assertNoCollScan(t, db, log.take()); n < 60 {
					t.Errorf("explained %d of our queries, want at least 60", n)
				}
			})
		})
	}
}
