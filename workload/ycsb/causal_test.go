package ycsb

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload"
)

// TestCausalWorkerReadsAfterItsWrites: with causal=true a worker's
// operations run in its own causally consistent session, so a read after
// its update waits for it (readConcern.afterClusterTime); without, reads
// carry no afterClusterTime.
func TestCausalWorkerReadsAfterItsWrites(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	var mu sync.Mutex
	var finds []bson.Raw
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "find" {
			mu.Lock()
			finds = append(finds, bytes.Clone(e.Command))
			mu.Unlock()
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(rs.URI()).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) }) // after the drop below
	db := client.Database("ycsb_causal")
	testutil.DropAtCleanup(t, db)
	ctx := context.Background()
	for _, causal := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Records, cfg.Mix, cfg.Causal = 50, MixA, causal
		g, err := NewGenerator(cfg)
		if err != nil {
			t.Fatal(err)
		}
		env := workload.Env{DB: db, Reads: workload.PlainReads{DB: db}}
		if err := g.Load(ctx, env, 1, nil); err != nil {
			t.Fatal(err)
		}
		wk, err := g.NewWorker(env, 1)
		if err != nil {
			t.Fatal(err)
		}
		w := wk.(*worker)
		mu.Lock()
		finds = nil
		mu.Unlock()
		var reads, updates int
		for reads == 0 || updates == 0 || reads < 5 {
			op, err := w.Do(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch op.Name {
			case "READ":
				reads++
			case "UPDATE":
				updates++
			}
		}
		w.Close()
		mu.Lock()
		var after int
		for _, c := range finds {
			if _, err := c.LookupErr("readConcern", "afterClusterTime"); err == nil {
				after++
			}
		}
		n := len(finds)
		mu.Unlock()
		if causal && after == 0 || !causal && after != 0 {
			t.Errorf("causal %v: %d of %d finds carry afterClusterTime", causal, after, n)
		}
	}
}
