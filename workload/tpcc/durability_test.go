package tpcc

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestDurabilityPrimaryKilled is the durability test of the TPC-C-on-MongoDB
// paper, §4.6.5 (TPC-C clause 3.5): New-Orders commit with write concern
// majority while the primary is killed; afterwards every order the clients saw
// acknowledged is in the database, exactly once, and the database is
// consistent.
func TestDurabilityPrimaryKilled(t *testing.T) {
	rs := testutil.NewReplicaSet(t, 3, 0)
	client := testutil.Connect(t, rs.URI())
	cfg := smallConfig(Denormalized)
	cfg.Warehouses = 1
	db := loadedDB(t, client, "tpcc_durability", cfg)

	type key struct{ d, o int }
	var (
		mu        sync.Mutex
		acked     []key
		ackedKill int // acknowledged after the kill
		killed    bool
		errs      int
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range 4 {
		w := testWorker(t, db, cfg, i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				in := w.drawNewOrder()
				res, _, err := w.newOrderTxn(runCtx, in)
				mu.Lock()
				switch {
				case err != nil:
					errs++
				case !res.RolledBack:
					acked = append(acked, key{in.DID, res.OID})
					if killed {
						ackedKill++
					}
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	progress := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(acked), ackedKill
	}
	testutil.Eventually(t, 30*time.Second, func() bool { n, _ := progress(); return n >= 20 }, "20 orders acknowledged before the kill")
	p, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.KillMember(ctx, p.Name); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	killed = true
	mu.Unlock()
	testutil.Eventually(t, 60*time.Second, func() bool { _, k := progress(); return k >= 20 }, "20 orders acknowledged by the new primary")
	stop()
	wg.Wait()

	// Read with majority concern from the new primary.
	orders := db.Collection(collOrders, options.Collection().SetReadConcern(readconcern.Majority()))
	for _, k := range acked {
		n, err := orders.CountDocuments(ctx, bson.D{{Key: "O_W_ID", Value: 1}, {Key: "O_D_ID", Value: k.d}, {Key: "O_ID", Value: k.o}})
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("acknowledged order W_ID=1 D_ID=%d O_ID=%d is stored %d times after the failover", k.d, k.o, n)
		}
	}
	total, err := orders.CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	loaded := int64(cfg.Scale.Districts * cfg.Scale.Customers)
	if total-loaded < int64(len(acked)) {
		t.Errorf("%d orders beyond the load, fewer than the %d acknowledged", total-loaded, len(acked))
	}
	t.Logf("killed %s: %d orders acknowledged (%d after the kill), %d failed attempts, %d new orders stored",
		p.Name, len(acked), ackedKill, errs, total-loaded)
	assertConsistent(t, ctx, db, cfg)
}

// assertConsistent fails the test unless every consistency condition passes
// (3.3.2.11 may be skipped after deliveries).
func assertConsistent(t *testing.T, ctx context.Context, db *mongo.Database, cfg Config) {
	t.Helper()
	res, err := Check(ctx, db, CheckOptions{Schema: cfg.Schema, Scale: cfg.Scale})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, r := range res {
		if r.Status == Fail {
			t.Errorf("consistency condition %s (%s) fails: %s", r.Clause, r.Name, r.Detail)
		}
	}
}
