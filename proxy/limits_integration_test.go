package proxy

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// opsWithComment counts the operations on the primary whose command
// carries comment.
func opsWithComment(t *testing.T, direct *mongo.Client, comment string) int {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	cur, err := direct.Database("admin").Aggregate(ctx, mongo.Pipeline{
		{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: true}}}},
		{{Key: "$match", Value: bson.D{{Key: "command.comment", Value: comment}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.M
	if err := cur.All(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return len(out)
}

// A w:majority write that waits for paused secondaries is not cut short by
// the proxy (it has no timeout of its own by default): it completes when
// they resume.
func TestMajorityWriteOutwaitsPausedSecondaries(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	direct := testutil.Connect(t, rs.URI())
	testutil.DropAtCleanup(t, direct.Database("proxylimits"))
	_, addr := serveProxy(t, Config{URI: rs.URI(), Logger: slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil))})
	resume := testutil.PauseSecondaries(t, rs)
	c := dialRaw(t, addr)
	replied := make(chan bson.Raw, 1)
	go func() {
		replied <- c.command(bson.D{{Key: "insert", Value: "w"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}, {Key: "comment", Value: "outwait"}, {Key: "$db", Value: "proxylimits"}})
	}()
	testutil.Eventually(t, time.Minute, func() bool { return opsWithComment(t, direct, "outwait") == 1 }, "the write to wait on the primary")
	// Past the proxy's former fixed timeout scaled down: still waiting.
	select {
	case r := <-replied:
		t.Fatalf("the write came back while the secondaries were paused: %v", r)
	case <-time.After(3 * time.Second):
	}
	resume()
	r := <-replied
	if r.Lookup("ok").Double() != 1 || r.Lookup("n").Int32() != 1 {
		t.Fatalf("the write after the secondaries resumed: %v", r)
	}
	if _, ok := r.Lookup("writeConcernError").DocumentOK(); ok {
		t.Fatalf("the write after the secondaries resumed: %v", r)
	}
}

// A member that does not answer within a command's maxTimeMS (plus the
// margin) gets the client a NetworkTimeout reply, with no proxy timeout
// configured.
func TestMaxTimeMSBoundsTheRoundTrip(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	_, addr := serveProxy(t, Config{URI: rs.URI(), Logger: slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil))})
	prim, err := rs.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// failCommand's blockConnection sleeps without heeding maxTimeMS: a
	// hung member.
	if err := rs.SetFailPoint(context.Background(), prim.Name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"count"}}, {Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 30_000},
			{Key: "appName", Value: "decongestant-proxy"}}}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rs.SetFailPoint(context.Background(), prim.Name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
	})
	c := dialRaw(t, addr)
	r := c.command(bson.D{{Key: "count", Value: "nothing"}, {Key: "maxTimeMS", Value: 500}, {Key: "$db", Value: "proxylimits"}})
	if r.Lookup("ok").Double() != 0 || r.Lookup("codeName").StringValue() != "NetworkTimeout" {
		t.Fatalf("count with maxTimeMS 500 on a member blocked 30 s: %v; want NetworkTimeout", r)
	}
}

// A client that hangs up while its request waits on the primary has the
// request cancelled there: the member sees the operation end.
func TestHangupCancelsTheRequest(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	direct := testutil.Connect(t, rs.URI())
	testutil.DropAtCleanup(t, direct.Database("proxylimits"))
	logs := &testutil.SyncBuffer{}
	_, addr := serveProxy(t, Config{URI: rs.URI(), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	testutil.PauseSecondaries(t, rs)
	c := dialRaw(t, addr)
	body, err := bson.Marshal(bson.D{{Key: "insert", Value: "h"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}, {Key: "comment", Value: "hangup"}, {Key: "$db", Value: "proxylimits"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.nc.Write(wire.AppendMsg(nil, 1, 0, 0, body)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, time.Minute, func() bool { return opsWithComment(t, direct, "hangup") == 1 }, "the write to wait on the primary")
	c.nc.Close()
	testutil.Eventually(t, time.Minute, func() bool { return opsWithComment(t, direct, "hangup") == 0 }, "the write to end on the primary")
	if !strings.Contains(logs.String(), "request cancelled") {
		t.Errorf("no log line for the cancelled request:\n%s", logs)
	}
}

// buildInfo before authentication is answered from what the proxy fetched
// of a member (its version), not forwarded: nothing of the build's
// environment, and the member sees no command of the client's.
func TestPreAuthBuildInfoCached(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	direct := testutil.Connect(t, rs.URI())
	var creds Credentials
	if _, err := creds.SetPassword("alice", "admin", alicePassword, 0); err != nil {
		t.Fatal(err)
	}
	s, addr := serveProxy(t, Config{URI: rs.URI(), Users: &creds, Logger: slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil))})
	var want bson.Raw
	if err := direct.Database("admin").RunCommand(ctxFor(t, time.Minute), bson.D{{Key: "buildInfo", Value: 1}}).Decode(&want); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, addr)
	for i := range 2 {
		r := c.command(bson.D{{Key: "buildInfo", Value: 1}, {Key: "$db", Value: "admin"}})
		if r.Lookup("ok").Double() != 1 || r.Lookup("version").StringValue() != want.Lookup("version").StringValue() ||
			r.Lookup("gitVersion").StringValue() != want.Lookup("gitVersion").StringValue() {
			t.Fatalf("buildInfo %d before authentication: %v; want the member's version %s", i, r, want.Lookup("version"))
		}
		if _, err := want.LookupErr("buildEnvironment"); err == nil {
			if _, err := r.LookupErr("buildEnvironment"); err == nil {
				t.Fatalf("buildInfo before authentication carries the member's buildEnvironment: %v", r)
			}
		}
	}
	s.build.mu.Lock()
	fetched := s.build.at
	s.build.mu.Unlock()
	if fetched.IsZero() {
		t.Fatal("buildInfo was answered without the cache")
	}
}
