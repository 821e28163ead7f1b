package router_test

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/router"
)

// secondaries returns the set's secondaries, in name order.
func secondaries(t *testing.T, rs *cluster.Cluster) (primary cluster.Member, secs []cluster.Member) {
	t.Helper()
	p, err := rs.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rs.Members() {
		if m.Name != p.Name {
			secs = append(secs, m)
		}
	}
	return p, secs
}

// waitWeighted waits until the router routes to every host in hosts.
func waitWeighted(t *testing.T, r *router.Router, hosts ...string) {
	t.Helper()
	testutil.Eventually(t, 20*time.Second, func() bool {
		w, _ := r.Weights()
		for _, h := range hosts {
			if w.Of(h) == 0 {
				return false
			}
		}
		return true
	}, "the router never routed to all of "+strings.Join(hosts, ", "))
}

func TestPerMemberReadsLandOnTheChosenMember(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "member", 100)
	p, secs := secondaries(t, rs)
	s1, s2 := secs[0], secs[1]
	tests := []struct {
		spec string
		want map[string]float64 // host -> share
	}{
		{"weights:primary=1", map[string]float64{p.Host: 1}},
		{"weights:" + s1.Name + "=1", map[string]float64{s1.Host: 1}},
		{"weights:" + s2.Host + "=1", map[string]float64{s2.Host: 1}},
		{"weights:primary=0.2," + s1.Name + "=0.4," + s2.Name + "=0.4", map[string]float64{p.Host: 0.2, s1.Host: 0.4, s2.Host: 0.4}},
		{"weights:" + p.Name + "=0.5," + s2.Name + "=0.5", map[string]float64{p.Host: 0.5, s2.Host: 0.5}},
	}
	const n = 2400
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			r := connect(t, rs.URI(), policy(t, tt.spec, nil))
			var hosts []string
			for h, share := range tt.want {
				if h != p.Host && share > 0 {
					hosts = append(hosts, h)
				}
			}
			if len(hosts) > 0 {
				waitWeighted(t, r, hosts...)
			}
			readN(t, r, "member", n)
			s := r.Served()
			if s.Total() != n {
				t.Fatalf("counted %d routed reads, want %d (%+v)", s.Total(), n, s)
			}
			for _, m := range rs.Members() {
				got := float64(s.ByHost[m.Host]) / n
				want := tt.want[m.Host]
				// 5 sigma of the draw, and at least 1%: a member the driver
				// loses sight of for a heartbeat (a loaded host) is not
				// readable, and its reads go to the primary meanwhile, by
				// design (8 of 2400 once, with the whole suite running).
				tol := max(5*math.Sqrt(want*(1-want)/n), 0.01)
				if math.Abs(got-want) > tol {
					t.Fatalf("%s (%s) served %.3f of the reads, want %.2f±%.3f (%v)", m.Name, m.Host, got, want, tol, s.ByHost)
				}
			}
		})
	}
}

func TestPerMemberUnitsReportTheirMember(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "units", 10)
	p, secs := secondaries(t, rs)
	r := connect(t, rs.URI(), policy(t, "weights:primary=0.5,"+secs[0].Name+"=0.5", nil))
	waitWeighted(t, r, secs[0].Host)
	for range 50 {
		before := r.Served()
		rd := r.Begin(context.Background())
		err := rd.Database(testDB).Collection("units").FindOne(rd.Ctx, bson.D{{Key: "_id", Value: 1}}).Err()
		rd.Done(err)
		if err != nil {
			t.Fatal(err)
		}
		want := rd.Host
		if want == "" {
			want = p.Host
		}
		if d := r.Served().Sub(before); d.ByHost[want] != 1 || d.Total() != 1 {
			t.Fatalf("unit routed to %q was served by %v", want, d.ByHost)
		}
	}
}

// TestPerMemberSessionsStayCausal reads every write of a causally
// consistent session back from a secondary's own pool: the router bridges
// the session, so the secondary waits for the write (read-your-writes
// routing off, the default, so the reads go to the secondary however
// recent the write).
func TestPerMemberSessionsStayCausal(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "causal", 1)
	_, secs := secondaries(t, rs)
	r := connect(t, rs.URI(), policy(t, "weights:"+secs[0].Name+"=1", nil), router.WithReadYourWrites(false))
	waitWeighted(t, r, secs[0].Host)
	sess, err := r.Client().StartSession(options.Session().SetCausalConsistency(true))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	wc := options.Collection().SetWriteConcern(writeconcern.W1())
	coll := r.Client().Database(testDB).Collection("causal", wc)
	before := r.Served()
	for i := range 30 {
		sctx := mongo.NewSessionContext(context.Background(), sess)
		if _, err := coll.UpdateOne(sctx, bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "$set", Value: bson.D{{Key: "i", Value: i}}}}); err != nil {
			t.Fatal(err)
		}
		rd := r.Begin(sctx)
		var doc struct{ I int }
		err := rd.Database(testDB).Collection("causal").FindOne(rd.Ctx, bson.D{{Key: "_id", Value: 0}}).Decode(&doc)
		rd.Done(err)
		if err != nil {
			t.Fatalf("read %d in the session: %v", i, err)
		}
		if doc.I != i {
			t.Fatalf("read %d in a causal session saw %d: the session was not carried to %s", i, doc.I, rd.Host)
		}
	}
	if d := r.Served().Sub(before); d.ByHost[secs[0].Host] != 30 {
		t.Fatalf("session reads served by %v, want all 30 by %s", d.ByHost, secs[0].Host)
	}
}

// TestSessionReadsGoWhereTheWriteIs: with read-your-writes routing on and
// replication paused, a causal
// session's reads after its write go to the primary (they would wait on
// the secondary); the session's reads before any write, and reads outside
// it, go to the secondary; once the secondary applies the write, the
// session's reads go back to it.
func TestSessionReadsGoWhereTheWriteIs(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "ryw", 1)
	_, secs := secondaries(t, rs)
	r := connect(t, rs.URI(), policy(t, "weights:"+secs[0].Name+"=1", nil), router.WithReadYourWrites(true))
	waitWeighted(t, r, secs[0].Host)
	sess, err := r.Client().StartSession(options.Session().SetCausalConsistency(true))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	sctx := mongo.NewSessionContext(context.Background(), sess)
	read := func(ctx context.Context) (string, int) {
		t.Helper()
		// A read sent to the paused secondary would wait for the write
		// until this deadline.
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		rd := r.Begin(ctx)
		var doc struct{ I int }
		err := rd.Database(testDB).Collection("ryw").FindOne(rd.Ctx, bson.D{{Key: "_id", Value: 0}}).Decode(&doc)
		rd.Done(err)
		if err != nil {
			t.Fatal(err)
		}
		return rd.Host, doc.I
	}
	if host, _ := read(sctx); host != secs[0].Host {
		t.Fatalf("a fresh session's read went to %q, want %s", host, secs[0].Host)
	}
	resume := testutil.PauseSecondaries(t, rs)
	wc := options.Collection().SetWriteConcern(writeconcern.W1())
	if _, err := r.Client().Database(testDB).Collection("ryw", wc).UpdateOne(sctx, bson.D{{Key: "_id", Value: 0}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "i", Value: 7}}}}); err != nil {
		t.Fatal(err)
	}
	before := r.ReadYourWrites()
	for range 10 {
		if host, i := read(sctx); host != "" || i != 7 {
			t.Fatalf("read after the session's write: host %q saw %d, want the primary (\"\") and 7", host, i)
		}
	}
	if got := r.ReadYourWrites(); got.Held-before.Held != 10 || got.Reads-before.Reads != 10 {
		t.Fatalf("read-your-writes %+v (before %+v), want 10 more reads, all held", got, before)
	}
	if host, i := read(context.Background()); host != secs[0].Host || i == 7 {
		t.Fatalf("a read outside the session went to %q and saw %d: want %s, without the paused write", host, i, secs[0].Host)
	}
	resume()
	testutil.Eventually(t, 30*time.Second, func() bool {
		host, i := read(sctx)
		return host == secs[0].Host && i == 7
	}, "the session's reads never went back to the secondary after it applied the write")
}

// TestStaleMemberDropsOutAlone pauses replication on one secondary: it
// stops getting reads while the other keeps serving, and gets them back
// after the resume; with every lag source (the default, auto, prefers
// replSetGetStatus on this set without auth, a poll it does not answer in
// time going to the heartbeat; the heartbeat is what a user with readWrite
// only gets, hello one who may not write).
func TestStaleMemberDropsOutAlone(t *testing.T) {
	for _, tt := range []struct{ asked, want monitor.LagSource }{
		{monitor.SourceAuto, monitor.SourceReplSetGetStatus},
		{monitor.SourceHeartbeat, monitor.SourceHeartbeat},
		{monitor.SourceHello, monitor.SourceHello},
	} {
		t.Run(tt.asked.String(), func(t *testing.T) { testStaleMemberDropsOutAlone(t, tt.asked, tt.want) })
	}
}

func testStaleMemberDropsOutAlone(t *testing.T, asked, want monitor.LagSource) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "stale", 100)
	_, secs := secondaries(t, rs)
	paused, fresh := secs[0], secs[1]
	p := policy(t, "spillway", func(s *balancer.Settings) {
		s.Spillway.Bound = balancer.Bound{Max: 2 * time.Second}
		s.Spillway.Interval = 200 * time.Millisecond
		s.Spillway.ProbeShare = 0.1
	})
	var wrongSource atomic.Value
	r := connect(t, rs.URI(), p,
		router.WithMonitor(monitor.Config{RTTInterval: 100 * time.Millisecond, LagInterval: 200 * time.Millisecond, LagSource: asked,
			Heartbeat: monitor.Namespace{DB: testDB}}),
		router.WithEvents(func(e router.Event) {
			// Under auto a poll may be taken by a source after the
			// preferred one.
			if e.Kind == router.EventLag && e.Lag.Source != want && asked != monitor.SourceAuto {
				wrongSource.Store(e.Lag.Source)
			}
		}))
	if got := r.LagSource(); got != want {
		t.Fatalf("lag source %v (%s), want %v", got, r.LagSourceReason(), want)
	}
	waitWeighted(t, r, paused.Host, fresh.Host)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var writes atomic.Int64
	go func() {
		c := client.Database(testDB).Collection("stale")
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: i % 100}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err == nil {
				writes.Add(1)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if err := rs.PauseReplication(context.Background(), paused.Name); err != nil {
		t.Fatal(err)
	}
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			_ = rs.ResumeReplication(context.Background(), paused.Name)
		}
	})
	testutil.Eventually(t, 20*time.Second, func() bool { w, _ := r.Weights(); return w.Of(paused.Host) == 0 },
		"the paused secondary kept its share")
	before := r.Served()
	readN(t, r, "stale", 2000)
	d := r.Served().Sub(before)
	if d.ByHost[paused.Host] != 0 {
		t.Fatalf("the paused secondary %s served %d reads while stale (%v)", paused.Name, d.ByHost[paused.Host], d.ByHost)
	}
	if d.ByHost[fresh.Host] == 0 {
		t.Fatalf("the fresh secondary %s served no reads while the other was stale (%v)", fresh.Name, d.ByHost)
	}
	if err := rs.ResumeReplication(context.Background(), paused.Name); err != nil {
		t.Fatal(err)
	}
	resumed = true
	waitWeighted(t, r, paused.Host)
	stop()
	testutil.WaitReplicated(t, client)
	if src := wrongSource.Load(); src != nil {
		t.Fatalf("a lag event came from %v, want %v", src, want)
	}
}

// hostOfConfig returns a config member's host.
func hostOfConfig(m any) string {
	switch d := m.(type) {
	case bson.M:
		h, _ := d["host"].(string)
		return h
	case bson.D:
		for _, e := range d {
			if e.Key == "host" {
				h, _ := e.Value.(string)
				return h
			}
		}
	}
	return ""
}

// reconfig applies change to the replica set's config and bumps its
// version.
func reconfig(t *testing.T, client *mongo.Client, change func(members bson.A) bson.A) {
	t.Helper()
	ctx := context.Background()
	var res struct {
		Config bson.M `bson:"config"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetConfig", Value: 1}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	cfg := res.Config
	cfg["members"] = change(cfg["members"].(bson.A))
	cfg["version"] = cfg["version"].(int32) + 1
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetReconfig", Value: cfg}}).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestPerMemberSurvivesElectionsAndMembership keeps reading through a
// stepdown, a killed and restarted secondary, and a secondary removed from
// the set and added back: reads continue, a member that is down or removed
// gets no share, and it gets one again once it is back and vouched for.
func TestPerMemberSurvivesElectionsAndMembership(t *testing.T) {
	rs := testutil.NewReplicaSet(t, 3, 0)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "churn", 100)
	p := policy(t, "spillway", func(s *balancer.Settings) {
		s.Spillway.Bound = balancer.Bound{Max: 2 * time.Second}
		s.Spillway.Interval = 200 * time.Millisecond
		s.Spillway.ProbeShare = 0.1
	})
	r := connect(t, rs.URI(), p)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var ok atomic.Int64
	c := r.Database(testDB).Collection("churn")
	for range 4 {
		go func() {
			for ctx.Err() == nil {
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				if c.FindOne(rctx, bson.D{{Key: "_id", Value: 7}}).Err() == nil {
					ok.Add(1)
				}
				cancel()
			}
		}()
	}
	readsResume := func(what string) {
		before := ok.Load()
		testutil.Eventually(t, 30*time.Second, func() bool { return ok.Load() > before+100 }, "reads did not resume after "+what)
	}
	_, secs := secondaries(t, rs)
	waitWeighted(t, r, secs[0].Host, secs[1].Host)

	old, _ := rs.Primary(context.Background())
	newPrimary, err := rs.StepDown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	readsResume("the stepdown")
	waitWeighted(t, r, old.Host) // the old primary serves again, as a secondary
	if w, _ := r.Weights(); w.Of(newPrimary.Host) != 0 {
		t.Fatalf("the new primary %s is weighted as a secondary: %v", newPrimary.Host, w)
	}

	victim := old
	if err := rs.KillMember(context.Background(), victim.Name); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { w, _ := r.Weights(); return w.Of(victim.Host) == 0 },
		"the killed member kept its share")
	readsResume("the kill")
	if err := rs.RestartMember(context.Background(), victim.Name); err != nil {
		t.Fatal(err)
	}
	waitWeighted(t, r, victim.Host)

	var removed any
	reconfig(t, client, func(ms bson.A) bson.A {
		var keep bson.A
		for _, m := range ms {
			if hostOfConfig(m) == victim.Host {
				removed = m
				continue
			}
			keep = append(keep, m)
		}
		return keep
	})
	testutil.Eventually(t, 30*time.Second, func() bool { w, _ := r.Weights(); return w.Of(victim.Host) == 0 },
		"the removed member kept its share")
	readsResume("the removal")
	reconfig(t, client, func(ms bson.A) bson.A { return append(ms, removed) })
	waitWeighted(t, r, victim.Host)
	readsResume("adding the member back")
}
