package testutil

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/cluster"
)

// Eventually polls cond every 50 ms until it holds or timeout passes, then
// fails the test with msg. It ends the test, so it belongs on the test's
// goroutine; elsewhere, use Until and hand the error back.
func Eventually(tb testing.TB, timeout time.Duration, cond func() bool, msg string) {
	tb.Helper()
	if err := Until(context.Background(), timeout, cond, msg); err != nil {
		tb.Fatal(err)
	}
}

// Until polls cond every 50 ms until it holds (nil), timeout passes or ctx
// is done (an error naming msg). It takes no testing.TB: a goroutine the test
// started may call it and hand the error back to the test's goroutine.
func Until(ctx context.Context, timeout time.Duration, cond func() bool, msg string) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v: %s", timeout, msg)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", msg, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// WaitReplicated returns once every member of the replica set behind client
// has applied all writes made before the call: it writes a marker with a
// write concern of all members. It fails the test if it cannot; Replicated
// is the same for a goroutine the test started.
func WaitReplicated(tb testing.TB, client *mongo.Client) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := Replicated(ctx, client); err != nil {
		tb.Fatal(err)
	}
}

// Replicated returns once every member of the replica set behind client has
// applied all writes made before the call (a marker written with a write
// concern of all members), or the error that stopped it.
func Replicated(ctx context.Context, client *mongo.Client) error {
	var status struct {
		Members []bson.Raw `bson:"members"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&status); err != nil {
		return fmt.Errorf("replSetGetStatus: %w", err)
	}
	wc := &writeconcern.WriteConcern{W: len(status.Members)}
	coll := client.Database("decongestant_test").Collection("sync",
		options.Collection().SetWriteConcern(wc))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "at", Value: time.Now()}}); err != nil {
		return fmt.Errorf("waiting for %d members to replicate: %w", len(status.Members), err)
	}
	return nil
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// PauseSecondaries stops replication on every member but the current
// primary (failpoint rsSyncApplyStop) and returns a function that resumes
// them and waits until every member has caught up; the resume also runs at
// test cleanup, so a failing test never leaves the shared set paused or
// behind for the next test. The returned function may be called more than
// once.
func PauseSecondaries(tb testing.TB, rs *cluster.Cluster) (resume func()) {
	tb.Helper()
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	var paused []string
	var once sync.Once
	resume = func() {
		once.Do(func() {
			for _, name := range paused {
				if err := rs.ResumeReplication(ctx, name); err != nil {
					tb.Errorf("resume replication on %s: %v", name, err)
				}
			}
			uri, err := rs.AdminURI()
			if err != nil {
				tb.Errorf("wait for catch-up: %v", err)
				return
			}
			client, err := mongo.Connect(options.Client().ApplyURI(uri))
			if err != nil {
				tb.Errorf("connect to wait for catch-up: %v", err)
				return
			}
			defer client.Disconnect(context.Background())
			WaitReplicated(tb, client)
		})
	}
	tb.Cleanup(resume)
	for _, m := range rs.Members() {
		if m.Name == prim.Name {
			continue
		}
		if err := rs.PauseReplication(ctx, m.Name); err != nil {
			tb.Fatalf("pause replication on %s: %v", m.Name, err)
		}
		paused = append(paused, m.Name)
	}
	return resume
}

// DropAtCleanup drops db when the test ends. The drop waits for the primary
// only (w:1): on a loaded machine a majority drop can outwait any timeout,
// and the shared set goes away after the package's tests anyway.
func DropAtCleanup(tb testing.TB, db *mongo.Database) {
	tb.Helper()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		w1 := db.Client().Database(db.Name(), options.Database().SetWriteConcern(&writeconcern.WriteConcern{W: 1}))
		if err := w1.Drop(ctx); err != nil {
			tb.Errorf("drop %s: %v", db.Name(), err)
		}
	})
}
