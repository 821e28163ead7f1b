package router_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/router"
)

// queryCount is a member's serverStatus opcounters.query.
func queryCount(t *testing.T, uri, host string) int64 {
	t.Helper()
	c := testutil.Connect(t, "mongodb://"+host+"/?directConnection=true")
	var st struct {
		Opcounters struct {
			Query int64 `bson:"query"`
		} `bson:"opcounters"`
	}
	if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Opcounters.Query
}

// TestHintsReachTheNonServingMembers reads every document on the primary
// with hints on: each secondary answers the replays (its query count grows
// by at least the replays the router counted for it) while every
// application read stays on the primary and returns what it should.
func TestHintsReachTheNonServingMembers(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "hinted", 100)
	p, secs := secondaries(t, rs)
	before := map[string]int64{}
	for _, s := range secs {
		before[s.Host] = queryCount(t, rs.URI(), s.Host)
	}
	cfg := hints.DefaultConfig()
	cfg.Interval = 20 * time.Millisecond
	cfg.Coalesce = 16
	r := connect(t, rs.URI(), policy(t, "primary", nil), router.WithHints(cfg))
	c := r.Database(testDB).Collection("hinted")
	for i := range 100 {
		var doc struct {
			ID int    `bson:"_id"`
			V  string `bson:"v"`
		}
		if err := c.FindOne(context.Background(), bson.D{{Key: "_id", Value: i}}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if doc.ID != i || doc.V != fmt.Sprint("value-", i) {
			t.Fatalf("read %d returned %+v with hints on", i, doc)
		}
	}
	testutil.Eventually(t, 20*time.Second, func() bool {
		st, _ := r.Hints()
		keys := map[string]int64{}
		for _, m := range st.Members {
			keys[m.Host] = m.Keys
		}
		return keys[secs[0].Host] >= 100 && keys[secs[1].Host] >= 100
	}, "the secondaries never replayed the 100 reads")
	st, _ := r.Hints()
	for _, m := range st.Members {
		if m.Host == p.Host && m.Keys > 0 {
			t.Errorf("the primary served every read but was hinted %d keys", m.Keys)
		}
		if m.Errors > 0 {
			t.Errorf("%s: %d replays failed", m.Host, m.Errors)
		}
	}
	served := r.Served()
	if served.Total() != 100 || served.ByHost[p.Host] != 100 {
		t.Fatalf("application reads counted %v, want all 100 on the primary %s (replays are not application reads)", served.ByHost, p.Host)
	}
	for _, s := range secs {
		var replays int64
		for _, m := range st.Members {
			if m.Host == s.Host {
				replays = m.Replays
			}
		}
		if got := queryCount(t, rs.URI(), s.Host) - before[s.Host]; got < replays || replays == 0 {
			t.Errorf("%s answered %d queries, want at least the %d replays sent", s.Name, got, replays)
		}
	}
}

// TestHintsStopAndResumeWithLag pauses replication on the secondaries: the
// overload switch turns their hints off once their lag is over the limit,
// and on again after the resume, and reports both as events.
func TestHintsStopAndResumeWithLag(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "strained", 50)
	cfg := hints.DefaultConfig()
	cfg.Interval = 20 * time.Millisecond
	cfg.Overload.Period = 200 * time.Millisecond
	cfg.Overload.Hold = 2
	cfg.Overload.LagLimit = 500 * time.Millisecond
	var mu sync.Mutex
	var events []hints.Event
	onEvent := func(e router.Event) {
		if e.Kind == router.EventHints {
			mu.Lock()
			events = append(events, e.Hints)
			mu.Unlock()
		}
	}
	r := connect(t, rs.URI(), policy(t, "primary", nil), router.WithHints(cfg), router.WithEvents(onEvent))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // reads to hint and writes to lag behind
		defer wg.Done()
		c := r.Database(testDB).Collection("strained")
		w := client.Database(testDB).Collection("strained")
		for i := 0; ctx.Err() == nil; i++ {
			_ = c.FindOne(ctx, bson.D{{Key: "_id", Value: i % 50}}).Err()
			_, _ = w.UpdateOne(ctx, bson.D{{Key: "_id", Value: i % 50}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
			time.Sleep(2 * time.Millisecond)
		}
	}()
	defer wg.Wait()
	defer stop()
	state := func(on bool) func() bool {
		return func() bool {
			st, _ := r.Hints()
			n := 0
			for _, m := range st.Members {
				if m.On == on {
					n++
				}
			}
			return n == 3
		}
	}
	testutil.Eventually(t, 20*time.Second, state(true), "hints never reached every member")
	resume := testutil.PauseSecondaries(t, rs)
	testutil.Eventually(t, 30*time.Second, func() bool {
		st, _ := r.Hints()
		off := 0
		for _, m := range st.Members {
			if !m.On {
				off++
			}
		}
		return off == 2
	}, "hints stayed on for the lagging secondaries")
	resume()
	testutil.Eventually(t, 30*time.Second, state(true), "hints did not resume after the lag cleared")
	mu.Lock()
	defer mu.Unlock()
	var offs, ons int
	for _, e := range events {
		if e.On {
			ons++
		} else if e.Why != "" {
			offs++
		}
	}
	if offs < 2 || ons < 2 {
		t.Fatalf("events %+v: want each secondary switched off (with why) and on", events)
	}
}

// TestHintsLeaveNothingAfterClose closes a router with hints on: its
// goroutines end.
func TestHintsLeaveNothingAfterClose(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "closed", 10)
	base := runtime.NumGoroutine()
	cfg := hints.DefaultConfig()
	cfg.Interval = 10 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := router.Connect(ctx, rs.URI(), router.WithPolicy(policy(t, "primary", nil)), router.WithHints(cfg))
	if err != nil {
		t.Fatal(err)
	}
	c := r.Database(testDB).Collection("closed")
	for i := range 200 {
		_ = c.FindOne(ctx, bson.D{{Key: "_id", Value: i % 10}}).Err()
	}
	testutil.Eventually(t, 10*time.Second, func() bool { st, _ := r.Hints(); return st.Batches > 0 }, "no batch shipped")
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, func() bool { return runtime.NumGoroutine() <= base+2 }, fmt.Sprintf(
		"goroutines after Close: %d, before Connect %d", runtime.NumGoroutine(), base))
}

// TestHintsReplayAggregations runs aggregations on the primary with hints
// on: both secondaries replay them as sent, none fails (a captured
// pipeline is an array, which the driver refuses as a bson.Raw).
func TestHintsReplayAggregations(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "hintedagg", 50)
	p, secs := secondaries(t, rs)
	cfg := hints.DefaultConfig()
	cfg.Interval = 20 * time.Millisecond
	r := connect(t, rs.URI(), policy(t, "primary", nil), router.WithHints(cfg))
	c := r.Database(testDB).Collection("hintedagg")
	for i := range 5 {
		pipe := bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: i}}}}}},
			bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}
		cur, err := c.Aggregate(context.Background(), pipe)
		if err != nil {
			t.Fatal(err)
		}
		var out []struct {
			N int `bson:"n"`
		}
		if err := cur.All(context.Background(), &out); err != nil || len(out) != 1 || out[0].N != 50-i {
			t.Fatalf("aggregation %d returned %+v, %v with hints on", i, out, err)
		}
	}
	replays := func(host string) (n, errs int64) {
		st, _ := r.Hints()
		for _, m := range st.Members {
			if m.Host == host {
				return m.Replays, m.Errors
			}
		}
		return 0, 0
	}
	testutil.Eventually(t, 20*time.Second, func() bool {
		a, ea := replays(secs[0].Host)
		b, eb := replays(secs[1].Host)
		return a+ea >= 5 && b+eb >= 5
	}, "the secondaries were never sent the 5 aggregations")
	for _, s := range secs {
		if n, errs := replays(s.Host); n < 5 || errs > 0 {
			t.Errorf("%s: %d aggregations replayed, %d failed; want 5 and none", s.Name, n, errs)
		}
	}
	if n, _ := replays(p.Host); n > 0 {
		t.Errorf("the primary served every aggregation but replayed %d", n)
	}
}
