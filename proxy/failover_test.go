package proxy

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"golang.org/x/sync/errgroup"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestStepdownThroughTheProxy: the primary steps down while clients write
// (retryable writes, w:majority) and read (secondaryPreferred, routed)
// through the proxy. Every write is acknowledged once the driver has
// retried it on the new primary, each exactly once (the retry carries the
// same txnNumber to a member that knows it); no read fails for good; no call
// hangs past its deadline; reads are routed to secondaries again after.
func TestStepdownThroughTheProxy(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.NewReplicaSet(t, 3, 0)
	s, addr, _, _ := startRouting(t, rs, Config{})
	// No client timeout and no deadlines: with either, the driver retries
	// until it expires, which would hide a proxy that fails during the
	// election; without, it retries once. The proxy's own request timeout
	// keeps any call from hanging.
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	coll := client.Database("proxy_failover").Collection("c")
	reads := client.Database("proxy_failover").Collection("c", options.Collection().SetReadPreference(readpref.SecondaryPreferred()))

	var written, readOK atomic.Int64
	stop := make(chan struct{})
	var g errgroup.Group
	gctx := context.Background()
	g.Go(func() error {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return nil
			default:
			}
			if _, err := coll.InsertOne(gctx, bson.D{{Key: "_id", Value: i}}); err != nil {
				return err
			}
			written.Add(1)
		}
	})
	g.Go(func() error {
		for {
			select {
			case <-stop:
				return nil
			default:
			}
			err := reads.FindOne(gctx, bson.D{{Key: "_id", Value: 0}}).Err()
			if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
				return err
			}
			readOK.Add(1)
		}
	})
	testutil.Eventually(t, time.Minute, func() bool { return written.Load() > 50 && readOK.Load() > 50 }, "no traffic through the proxy")
	if _, err := rs.StepDown(ctxFor(t, 2*time.Minute)); err != nil {
		close(stop)
		_ = g.Wait()
		t.Fatal(err)
	}
	w0, r0 := written.Load(), readOK.Load()
	testutil.Eventually(t, time.Minute, func() bool { return written.Load() > w0+50 && readOK.Load() > r0+50 }, "traffic did not resume after the stepdown")
	close(stop)
	if err := g.Wait(); err != nil {
		t.Fatalf("a call through the proxy failed across the stepdown: %v", err)
	}
	n, err := coll.CountDocuments(ctxFor(t, time.Minute), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if n != written.Load() {
		t.Fatalf("%d documents for %d acknowledged inserts: a retried write was lost or applied twice", n, written.Load())
	}
	// Routed reads reach a secondary of the new topology.
	testutil.Eventually(t, time.Minute, func() bool {
		before := s.Stats()
		for range 20 {
			if err := reads.FindOne(ctxFor(t, time.Minute), bson.D{{Key: "_id", Value: 0}}).Err(); err != nil {
				t.Fatal(err)
			}
		}
		p, err := rs.Primary(ctxFor(t, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		got := readsSince(s, before)
		return got[p.Host] < 20 // the policy's split names members, one of them now primary
	}, "routed reads never went back to the secondaries after the stepdown")
}
