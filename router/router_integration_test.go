package router_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/router"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

const testDB = "routertest"

// seed writes n documents with w:majority so every secondary has them.
func seed(t *testing.T, client *mongo.Client, coll string, n int) {
	t.Helper()
	ctx := context.Background()
	c := client.Database(testDB).Collection(coll)
	_ = c.Drop(ctx)
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "v", Value: fmt.Sprint("value-", i)}}
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// Wait for the secondaries to have the data: a majority read after a
	// majority write is not enough for all members, so poll each.
	testutil.WaitReplicated(t, client)
}

func connect(t *testing.T, uri string, p balancer.Policy, opts ...router.Option) *router.Router {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts = append([]router.Option{router.WithPolicy(p),
		router.WithMonitor(monitor.Config{RTTInterval: 100 * time.Millisecond, LagInterval: 200 * time.Millisecond})}, opts...)
	r, err := router.Connect(ctx, uri, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

func policy(t *testing.T, spec string, mutate func(*balancer.Settings)) balancer.Policy {
	t.Helper()
	s := balancer.DefaultSettings()
	if mutate != nil {
		mutate(&s)
	}
	p, err := balancer.Parse(spec, s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readN does n routed FindOnes from a few goroutines and fails on any error.
func readN(t *testing.T, r *router.Router, coll string, n int) {
	t.Helper()
	c := r.Database(testDB).Collection(coll)
	var wg sync.WaitGroup
	var failed atomic.Value
	per := n / 8
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				var doc bson.M
				if err := c.FindOne(context.Background(), bson.D{{Key: "_id", Value: (g*per + i) % 100}}).Decode(&doc); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		t.Fatalf("routed read failed: %v", err)
	}
}

func TestReadsLandWhereThePolicyChose(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "land", 100)
	primary, err := rs.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec          string
		wantSecondary float64 // share, ±tol
		tol           float64
		reads         int
	}{
		{"primary", 0, 0, 400},
		{"secondary", 1, 0, 400},
		{"fixed:0.5", 0.5, 0.05, 2400},
		{"fixed:0.2", 0.2, 0.05, 2400},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			r := connect(t, rs.URI(), policy(t, tt.spec, nil))
			readN(t, r, "land", tt.reads)
			s := r.Served()
			if s.Total() != int64(tt.reads) {
				t.Fatalf("counted %d routed reads, want %d (%+v)", s.Total(), tt.reads, s)
			}
			got := float64(s.Secondary) / float64(s.Total())
			if math.Abs(got-tt.wantSecondary) > tt.tol {
				t.Fatalf("secondary share %.3f, want %.2f±%.2f (%+v)", got, tt.wantSecondary, tt.tol, s)
			}
			// The per-host counts agree with the roles: the primary served
			// exactly the reads counted as primary.
			if s.ByHost[primary.Host] != s.Primary {
				t.Fatalf("primary %s served %d reads, counted primary %d (%v)", primary.Host, s.ByHost[primary.Host], s.Primary, s.ByHost)
			}
		})
	}
}

func TestBoundZeroMeansNoSecondaryReads(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "bound0", 100)
	for _, spec := range []string{"decongestant", "spillway"} {
		t.Run(spec, func(t *testing.T) {
			p := policy(t, spec, func(s *balancer.Settings) {
				s.Decongestant.Bound, s.Spillway.Bound = balancer.Bound{}, balancer.Bound{}
				s.Decongestant.Interval, s.Spillway.Interval = 200*time.Millisecond, 100*time.Millisecond
			})
			r := connect(t, rs.URI(), p)
			readN(t, r, "bound0", 2000)
			if s := r.Served(); s.Secondary != 0 || s.Primary != 2000 {
				t.Fatalf("bound 0: served %+v, want all 2000 on the primary", s)
			}
			if f := r.Fraction(); f != 0 {
				t.Fatalf("fraction %v with bound 0", f)
			}
		})
	}
}

func TestPausedReplicationDropsFractionAndRecovers(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "pause", 100)
	const bound, headroom = 2 * time.Second, 200 * time.Millisecond // headroom = one lag poll
	p := policy(t, "decongestant", func(s *balancer.Settings) {
		s.Decongestant.Bound = balancer.Bound{Max: bound}
		s.Decongestant.Headroom = headroom
	})

	var mu sync.Mutex
	var lagEvents []router.Event
	r := connect(t, rs.URI(), p, router.WithEvents(func(e router.Event) {
		if e.Kind == router.EventLag {
			mu.Lock()
			lagEvents = append(lagEvents, e)
			mu.Unlock()
		}
	}))
	if r.Fraction() != 0.1 {
		t.Fatalf("initial fraction %v, want 0.1", r.Fraction())
	}
	// Keep writing so the primary's lastAppliedWallTime advances.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		c := client.Database(testDB).Collection("pause")
		for i := 0; ctx.Err() == nil; i++ {
			c.UpdateOne(ctx, bson.D{{Key: "_id", Value: i % 100}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
			time.Sleep(5 * time.Millisecond)
		}
	}()
	resume := testutil.PauseSecondaries(t, rs)
	testutil.Eventually(t, 20*time.Second, func() bool { return r.Fraction() == 0 }, "fraction did not drop to 0 while replication was paused")

	// The drop happened at the first lag poll that saw lag + headroom over
	// the bound, never later, and never earlier.
	mu.Lock()
	for _, e := range lagEvents {
		if e.Lag.Known && e.Lag.Max+headroom > bound && e.Fraction != 0 {
			t.Errorf("lag poll saw %v (+%v) > %v but the fraction stayed %v", e.Lag.Max, headroom, bound, e.Fraction)
		}
		if e.Lag.Known && e.Lag.Max+headroom <= bound && e.Fraction == 0 {
			t.Errorf("lag poll saw %v (+%v) <= %v but the fraction was 0", e.Lag.Max, headroom, bound)
		}
	}
	mu.Unlock()
	// While stale, routed reads all go to the primary.
	before := r.Served()
	readN(t, r, "pause", 400)
	if d := r.Served().Sub(before); d.Secondary != 0 {
		t.Fatalf("%d reads served by secondaries while their lag exceeded the bound", d.Secondary)
	}
	resume()
	testutil.Eventually(t, 20*time.Second, func() bool { return r.Fraction() > 0 }, "fraction not restored after replication resumed")
	if lag := r.Lag(); !lag.Known || lag.Max+headroom > bound {
		t.Fatalf("restored with lag %+v", lag)
	}
}

func TestSurvivesPrimaryStepdown(t *testing.T) {
	rs := testutil.NewReplicaSet(t, 3, 0)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "stepdown", 100)
	r := connect(t, rs.URI(), policy(t, "fixed:0.5", nil))
	old, err := rs.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	c := r.Database(testDB).Collection("stepdown")
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				if c.FindOne(rctx, bson.D{{Key: "_id", Value: 7}}).Err() == nil {
					ok.Add(1)
				} else if ctx.Err() == nil {
					failed.Add(1)
				}
				cancel()
			}
		}()
	}
	newPrimary, err := rs.StepDown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if newPrimary.Host == old.Host {
		t.Fatalf("stepdown kept %s primary", old.Host)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return r.Lag().Primary == newPrimary.Host },
		"monitor did not rediscover the new primary")
	before := ok.Load()
	testutil.Eventually(t, 30*time.Second, func() bool { return ok.Load() > before+200 }, "reads did not resume after the stepdown")
	stop()
	wg.Wait()
	// After the election, reads counted as primary are served by the new primary.
	s0 := r.Served()
	readN(t, r, "stepdown", 800)
	d := r.Served().Sub(s0)
	if d.ByHost[newPrimary.Host] != d.Primary || d.Primary == 0 {
		t.Fatalf("after stepdown: new primary %s served %d, counted primary %d (%v)", newPrimary.Host, d.ByHost[newPrimary.Host], d.Primary, d.ByHost)
	}
	t.Logf("reads: %d ok, %d failed during the election", ok.Load(), failed.Load())
}

func TestConnectRejectsBadTargets(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	tests := []struct {
		name, uri string
		want      error
		opts      []router.Option
	}{
		{"read hints against one member", "mongodb://" + rs.Members()[0].Host + "/?directConnection=true", router.ErrNotReplicaSet,
			[]router.Option{router.WithHints(hints.DefaultConfig())}},
		{"malformed", "mongodb://", router.ErrBadURI, nil},
		{"bad scheme", "http://localhost", router.ErrBadURI, nil},
		{"direct to one member", "mongodb://" + rs.Members()[0].Host + "/?directConnection=true", router.ErrNotReplicaSet, nil},
		{"unreachable", "mongodb://127.0.0.1:1/?replicaSet=rs0&serverSelectionTimeoutMS=500", router.ErrUnreachable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			r, err := router.Connect(ctx, tt.uri, append(tt.opts, router.WithConnectTimeout(2*time.Second))...)
			if err == nil {
				r.Close(ctx)
				t.Fatal("connected")
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
}

// TestPolicySeesServerTimeNotPoolWait: 16 goroutines share a pool of one
// connection to the primary, where every find of this client is held 20 ms
// (failCommand blockConnection). A read's client-observed latency is then
// mostly the wait for the connection (~16 x 20 ms); the server's share is 20
// ms. The policy must see the server's (the Decongestant paper, §3.3.1, wants
// the server-side latency), and events carry both.
func TestPolicySeesServerTimeNotPoolWait(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	seed(t, client, "poolwait", 10)
	const app = "decongestant-poolwait-test"
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fp := func(mode string) bson.D {
		return bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "blockConnection", Value: true},
				{Key: "blockTimeMS", Value: 20}, {Key: "appName", Value: app}}}}
	}
	if err := rs.SetFailPoint(ctx, prim.Name, fp("alwaysOn")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.SetFailPoint(ctx, prim.Name, fp("off")) })

	for _, src := range []router.LatencySource{router.CommandLatency, router.ClientLatency} {
		t.Run(src.String(), func(t *testing.T) {
			p := policy(t, "decongestant", func(s *balancer.Settings) {
				s.Decongestant.Bound = balancer.Bound{} // every read to the primary
				s.Decongestant.Interval = time.Second
			})
			periods := make(chan router.Event, 16)
			r := connect(t, rs.URI(), p, router.WithLatencySource(src),
				router.WithClientOptions(options.Client().SetMaxPoolSize(1).SetAppName(app)),
				router.WithEvents(func(e router.Event) {
					if e.Kind == router.EventPeriod && e.Latencies.Primary.Client.Count > 20 {
						select {
						case periods <- e:
						default:
						}
					}
				}))
			rctx, stop := context.WithCancel(ctx)
			defer stop()
			var wg sync.WaitGroup
			coll := r.Database(testDB).Collection("poolwait")
			for range 16 {
				wg.Go(func() {
					for rctx.Err() == nil {
						coll.FindOne(rctx, bson.D{{Key: "_id", Value: 1}})
					}
				})
			}
			var e router.Event
			select {
			case e = <-periods:
			case <-time.After(20 * time.Second):
				t.Fatal("no period with reads")
			}
			stop()
			wg.Wait()
			l := e.Latencies.Primary
			// 16 readers take turns on one connection: each waits for about
			// 15 others' 20 ms, so its client time is many times its own.
			if l.Command.P50 < 19*time.Millisecond || l.Client.P50 < 4*l.Command.P50 {
				t.Fatalf("client P50 %v (want >= 4x the command P50: queued for the connection), command P50 %v (want >= the 20ms hold)", l.Client.P50, l.Command.P50)
			}
			want := l.Command
			if src == router.ClientLatency {
				want = l.Client
			}
			if e.Period.Primary != want {
				t.Fatalf("policy saw %+v, want the %s latency %+v", e.Period.Primary, src, want)
			}
		})
	}
}
