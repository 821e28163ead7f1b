package cluster_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

func TestStepDown(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	old, err := c.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next, err := c.StepDown(ctx)
	if err != nil {
		t.Fatalf("step down: %v", err)
	}
	if next.Name == old.Name {
		t.Fatalf("step down: %s is still primary", old.Name)
	}
	if p, err := c.Primary(ctx); err != nil || p.Name != next.Name {
		t.Errorf("primary after step down: %q, %v; want %s", p.Name, err, next.Name)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Error(err)
	}
}

func opTime(t *testing.T, ctx context.Context, c *cluster.Cluster, name string) bson.Timestamp {
	t.Helper()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Name == name {
			return s.OpTime
		}
	}
	t.Fatalf("no member %s in status", name)
	return bson.Timestamp{}
}

func aSecondary(t *testing.T, ctx context.Context, c *cluster.Cluster) cluster.Member {
	t.Helper()
	p, err := c.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Members() {
		if m.Name != p.Name {
			return m
		}
	}
	t.Fatal("no secondary")
	return cluster.Member{}
}

func TestPauseReplication(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	p, err := c.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sec := aSecondary(t, ctx, c)
	coll := testutil.Connect(t, c.URI()).Database("cluster_test").Collection("pause")
	// w:all, so sec has applied everything before the pause and no batch is in flight.
	wAll := coll.Database().Collection("pause", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: len(c.Members())}))
	if _, err := wAll.InsertOne(ctx, bson.D{{Key: "phase", Value: "before"}}); err != nil {
		t.Fatal(err)
	}

	if err := c.PauseReplication(ctx, sec.Name); err != nil {
		t.Fatalf("pause: %v", err)
	}
	t.Cleanup(func() { _ = c.ResumeReplication(context.Background(), sec.Name) })
	secBefore, primBefore := opTime(t, ctx, c, sec.Name), opTime(t, ctx, c, p.Name)
	// Write for 1.5 s: the primary's optime must advance, the paused member's must not.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); <-tick.C {
		// Majority writes must not wait for the paused member (no secondary may chain behind it).
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := coll.InsertOne(wctx, bson.D{{Key: "phase", Value: "paused"}})
		cancel()
		if err != nil {
			t.Fatalf("majority write while %s is paused: %v", sec.Name, err)
		}
	}
	secPaused, primAfter := opTime(t, ctx, c, sec.Name), opTime(t, ctx, c, p.Name)
	if !primAfter.After(primBefore) {
		t.Fatalf("primary optime did not advance: %v -> %v", primBefore, primAfter)
	}
	if !secPaused.Equal(secBefore) {
		t.Errorf("paused member %s applied oplog: %v -> %v", sec.Name, secBefore, secPaused)
	}

	if err := c.ResumeReplication(ctx, sec.Name); err != nil {
		t.Fatalf("resume: %v", err)
	}
	var last bson.Timestamp
	for last = opTime(t, ctx, c, sec.Name); last.Before(primAfter); last = opTime(t, ctx, c, sec.Name) {
		select {
		case <-ctx.Done():
			t.Fatalf("member %s did not catch up after resume: at %v, primary at %v", sec.Name, last, primAfter)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestSlowReads: a gray failure. While n3's reads are slowed, a find, its
// getMore and an aggregate on a direct connection to n3 each wait at least
// the delay, and ping and hello do not (each answers within less than the
// delay, so it was not held); after UnslowReads a find is not held either.
func TestSlowReads(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	const delay = 500 * time.Millisecond
	m, err := c.Member("n3")
	if err != nil {
		t.Fatal(err)
	}
	// w:all, so n3 holds both documents before the test reads them there.
	all := testutil.Connect(t, c.URI()).Database("cluster_test").Collection("slow",
		options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: len(c.Members())}))
	if _, err := all.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil && !mongo.IsDuplicateKeyError(err) {
		t.Fatal(err)
	}
	direct := testutil.Connect(t, "mongodb://"+m.Host+"/?directConnection=true")
	db := direct.Database("cluster_test")
	coll := db.Collection("slow")
	took := func(what string, op func() error) time.Duration {
		t.Helper()
		began := time.Now()
		if err := op(); err != nil {
			t.Fatalf("%s on n3: %v", what, err)
		}
		return time.Since(began)
	}
	find := func() error { return coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err() }
	ping := func() error { return db.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err() }
	hello := func() error { return db.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Err() }
	// Both documents in batches of one: a find, then a getMore.
	findAll := func() error {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(1))
		if err != nil {
			return err
		}
		var docs []bson.D
		if err := cur.All(ctx, &docs); err != nil {
			return err
		}
		if len(docs) != 2 {
			return errors.New("want 2 documents, got " + strconv.Itoa(len(docs)))
		}
		return nil
	}
	// CountDocuments is an aggregate.
	count := func() error { _, err := coll.CountDocuments(ctx, bson.D{}); return err }
	took("ping", ping) // connected before the clock runs
	// mongod times the block with its own coarse clock: a held find has been seen to
	// return after 499.98 ms of a 500 ms block, so "held" means at least 4/5 of it.
	const held = delay * 4 / 5

	if err := c.SlowReads(ctx, m.Name, delay); err != nil {
		t.Fatalf("slow reads: %v", err)
	}
	t.Cleanup(func() { _ = c.UnslowReads(context.Background(), m.Name) })
	if d := took("find", find); d < held {
		t.Errorf("find took %v while n3's reads are slowed by %v: it was not held", d, delay)
	}
	if d := took("find and getMore", findAll); d < 2*held {
		t.Errorf("find and getMore took %v while n3's reads are slowed by %v: want both held (>= %v)", d, delay, 2*held)
	}
	if d := took("aggregate", count); d < held {
		t.Errorf("aggregate (count) took %v while n3's reads are slowed by %v: it was not held", d, delay)
	}
	if d := took("ping", ping); d >= held {
		t.Errorf("ping took %v, as long as the %v read delay: it was held", d, delay)
	}
	if d := took("hello", hello); d >= held {
		t.Errorf("hello took %v, as long as the %v read delay: it was held", d, delay)
	}

	if err := c.UnslowReads(ctx, m.Name); err != nil {
		t.Fatalf("unslow reads: %v", err)
	}
	if d := took("find", find); d >= held {
		t.Errorf("find took %v after the reads were no longer slowed: it was still held %v", d, delay)
	}
	for _, bad := range []time.Duration{0, -time.Second, 1500 * time.Microsecond} {
		if err := c.SlowReads(ctx, m.Name, bad); err == nil || !strings.Contains(err.Error(), "whole milliseconds, at least 1ms") {
			t.Errorf("SlowReads(%v): %v, want it refused", bad, err)
		}
	}
}

func TestKillAndRestartMember(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	sec := aSecondary(t, ctx, c)
	if err := c.KillMember(ctx, sec.Name); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if !procGone(sec.PID, sec.DBPath) {
		t.Fatalf("member %s pid %d runs after KillMember", sec.Name, sec.PID)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Name == sec.Name && (s.State != cluster.StateDown || s.Alive) {
			t.Errorf("killed member status: %s alive=%v, want DOWN", s.State, s.Alive)
		}
	}
	if err := c.WaitHealthy(ctx); !errors.Is(err, cluster.ErrNotRunning) {
		t.Errorf("WaitHealthy with a killed member: %v, want ErrNotRunning", err)
	}
	if err := c.SetFailPoint(ctx, sec.Name, bson.D{{Key: "configureFailPoint", Value: "rsSyncApplyStop"}, {Key: "mode", Value: "off"}}); !errors.Is(err, cluster.ErrNotRunning) {
		t.Errorf("fail point on a killed member: %v, want ErrNotRunning", err)
	}

	if err := c.RestartMember(ctx, sec.Name); err != nil {
		t.Fatalf("restart: %v", err)
	}
	m, err := c.Member(sec.Name)
	if err != nil {
		t.Fatal(err)
	}
	if m.PID == sec.PID || m.Port != sec.Port || m.DBPath != sec.DBPath {
		t.Errorf("restarted member: %+v, want a new pid, same port and dbpath as %+v", m, sec)
	}
	if got := states(t, c)[sec.Name]; got != "SECONDARY" {
		t.Errorf("restarted member state %s, want SECONDARY", got)
	}
	// The state file follows, so another process sees the new pid.
	opened, err := cluster.Open(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if om, _ := opened.Member(sec.Name); om.PID != m.PID {
		t.Errorf("state file pid %d, want %d", om.PID, m.PID)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Error(err)
	}
}

func TestBadArguments(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	if _, err := c.Member("n9"); err == nil || !strings.Contains(err.Error(), "n9") {
		t.Errorf("Member(n9): %v", err)
	}
	if err := c.KillMember(ctx, "n9"); err == nil {
		t.Error("KillMember(n9) succeeded")
	}
	if err := c.SetFailPoint(ctx, "n1", bson.D{{Key: "shutdown", Value: 1}}); err == nil {
		t.Error("SetFailPoint accepted a shutdown command")
	}
	if err := c.SetFailPoint(ctx, "n1", bson.D{{Key: "configureFailPoint", Value: "noSuchFailPoint"}, {Key: "mode", Value: "off"}}); err == nil {
		t.Error("SetFailPoint accepted an unknown fail point")
	}
}
