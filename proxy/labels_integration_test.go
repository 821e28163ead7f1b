package proxy

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
)

// breakNext makes the primary close the connection of its next command
// cmd (failCommand closeConnection, times 1, sent to the primary directly),
// turned off at cleanup.
func breakNext(t *testing.T, cmd string) {
	t.Helper()
	rs := testutil.ReplicaSet(t)
	prim, err := rs.Primary(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	fp := func(mode any) bson.D {
		return bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{cmd}}, {Key: "closeConnection", Value: true}}}}
	}
	t.Cleanup(func() {
		if err := rs.SetFailPoint(ctxFor(t, time.Minute), prim.Name, fp("off")); err != nil {
			t.Errorf("turning the fail point off: %v", err)
		}
	})
	if err := rs.SetFailPoint(ctx(t), prim.Name, fp(bson.D{{Key: "times", Value: 1}})); err != nil {
		t.Fatal(err)
	}
}

// TestChangeStreamResumes: the primary's connection breaks during a change
// stream's getMore; through the proxy the Go driver sees an error it may
// resume (ResumableChangeStreamError), resumes, and sees every event.
func TestChangeStreamResumes(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	_, addr, _ := startProxy(t)
	testutil.DropAtCleanup(t, testutil.Connect(t, rs.URI()).Database("proxytest_stream"))
	var getMores atomic.Int32
	coll := connectDriver(t, addr, &getMores).Database("proxytest_stream").Collection("c")
	if err := coll.Database().CreateCollection(ctx(t), "c"); err != nil {
		t.Fatal(err)
	}
	cs, err := coll.Watch(ctx(t), mongo.Pipeline{}, options.ChangeStream().SetMaxAwaitTime(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(context.Background())
	var seen []int32
	next := func() {
		t.Helper()
		if !cs.Next(ctx(t)) {
			t.Fatalf("change stream ended after %v: %v", seen, cs.Err())
		}
		seen = append(seen, bson.Raw(cs.Current).Lookup("fullDocument", "_id").Int32())
	}
	if _, err := coll.InsertOne(ctx(t), bson.D{{Key: "_id", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	next()
	breakNext(t, "getMore")
	for i := int32(2); i <= 3; i++ {
		if _, err := coll.InsertOne(ctx(t), bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	next()
	next()
	if !slices.Equal(seen, []int32{1, 2, 3}) {
		t.Fatalf("events %v, want 1, 2, 3", seen)
	}
}

// commitBreaks makes the primary close the connection of its next n
// commitTransaction commands (failCommand, sent to the primary directly,
// not through the proxy; n 0: the caller sets it), so the proxy's round
// trip breaks mid-commit. It returns the primary's address; the fail point
// is turned off at cleanup.
func commitBreaks(t *testing.T, n int) string {
	t.Helper()
	rs := testutil.ReplicaSet(t)
	prim, err := rs.Primary(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	fp := func(mode any) bson.D {
		return bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"commitTransaction"}}, {Key: "closeConnection", Value: true}}}}
	}
	t.Cleanup(func() {
		if err := rs.SetFailPoint(ctxFor(t, time.Minute), prim.Name, fp("off")); err != nil {
			t.Errorf("turning the fail point off: %v", err)
		}
	})
	if n > 0 {
		if err := rs.SetFailPoint(ctx(t), prim.Name, fp(bson.D{{Key: "times", Value: n}})); err != nil {
			t.Fatal(err)
		}
	}
	return prim.Host
}

// TestCommitConnectionBroken: the primary's connection breaks during
// commitTransaction. Through the proxy the client sees a commit that may
// have run: RetryableWriteError and UnknownTransactionCommitResult, never
// TransientTransactionError (which has drivers run the whole transaction
// again); its retry commits, and the document is there once.
func TestCommitConnectionBroken(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	_, addr, _ := startProxy(t)
	db := testutil.Connect(t, rs.URI()).Database("proxytest_commit_broken")
	testutil.DropAtCleanup(t, db)
	if err := db.CreateCollection(ctx(t), "c"); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, addr)
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}}
	txn := func(d ...bson.E) bson.D {
		return append(d, bson.E{Key: "lsid", Value: lsid}, bson.E{Key: "txnNumber", Value: int64(1)}, bson.E{Key: "autocommit", Value: false})
	}
	r := c.command(txn(bson.E{Key: "insert", Value: "c"}, bson.E{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
		bson.E{Key: "startTransaction", Value: true}, bson.E{Key: "$db", Value: "proxytest_commit_broken"}))
	if r.Lookup("ok").Double() != 1 {
		t.Fatalf("insert in a transaction: %v", r)
	}
	commitBreaks(t, 1)
	commit := txn(bson.E{Key: "commitTransaction", Value: 1}, bson.E{Key: "$db", Value: "admin"})
	r = c.command(commit)
	want := []string{"RetryableWriteError", "UnknownTransactionCommitResult"}
	if got := labelsOf(r); r.Lookup("ok").Double() != 0 || !slices.Equal(got, want) {
		t.Fatalf("commit over a broken connection: %v; want an error labelled %v", r, want)
	}
	r = c.command(append(commit, bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}))
	if r.Lookup("ok").Double() != 1 {
		t.Fatalf("the commit's retry: %v", r)
	}
	n, err := db.Collection("c").CountDocuments(ctx(t), bson.D{})
	if err != nil || n != 1 {
		t.Fatalf("%d documents (%v), want the transaction's 1", n, err)
	}
}

// TestPymongoCommitConnectionBroken: pymongo's commit_transaction and
// with_transaction through the proxy, each commit's first attempt over a
// connection the primary closes (the script sets the fail point before
// each commit): pymongo retries the commit itself and runs the
// transaction once.
func TestPymongoCommitConnectionBroken(t *testing.T) {
	needPymongo(t)
	rs := testutil.ReplicaSet(t)
	_, addr, _ := startProxy(t)
	db := testutil.Connect(t, rs.URI()).Database("proxytest_py_commit_broken")
	testutil.DropAtCleanup(t, db)
	if err := db.CreateCollection(ctx(t), "c"); err != nil {
		t.Fatal(err)
	}
	primary := commitBreaks(t, 0)
	out := runScript(t, exec.CommandContext(ctxFor(t, 3*time.Minute), "python3", "testdata/pymongo_txn.py", addr, "proxytest_py_commit_broken", primary))
	want := []string{"callbacks 1", "documents ['explicit', 'with_transaction']"}
	if got := lines(out); !slices.Equal(got, want) {
		t.Fatalf("pymongo_txn.py printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
