package monitor_test

import (
	"context"
	"flag"
	"math"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
)

var agreePause = flag.Duration("agree-pause", 3*time.Second, "TestLagSourcesAgree: how long replication stays paused")

// lagSeries records one monitor's samples of one member.
type lagSeries struct {
	mu      sync.Mutex
	host    string
	samples []hostLag
}

type hostLag struct {
	at       time.Time
	lag, rtt time.Duration
}

func (l *lagSeries) add(s monitor.LagSample) {
	for _, m := range s.Members {
		if s.Known && m.Host == l.host && m.Role == balancer.Secondary {
			l.mu.Lock()
			l.samples = append(l.samples, hostLag{s.At, m.Lag, s.RTT})
			l.mu.Unlock()
		}
	}
}

// since returns the samples sent at or after t.
func (l *lagSeries) since(t time.Time) []hostLag {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []hostLag
	for _, s := range l.samples {
		if !s.at.Before(t) {
			out = append(out, s)
		}
	}
	return out
}

// last returns the latest sample's lag, and false before the first.
func (l *lagSeries) last() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.samples) == 0 {
		return 0, false
	}
	return l.samples[len(l.samples)-1].lag, true
}

// TestLagSourcesAgree pauses replication on one secondary while the primary
// keeps writing, with one monitor per lag source: both must see the
// member's lag grow past 1 s, agree while it grows within a poll interval +
// 100 ms, plus up to 1 s more for hello (its lastWriteDate has whole
// seconds), each hello sample against the replSetGetStatus sample sent
// nearest to it, and agree on about 0 after the resume (exactly 0 once the
// writes stop). -agree-pause sets the pause (docs/measurements.md: 60s).
func TestLagSourcesAgree(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	testutil.DropAtCleanup(t, client.Database("monitortest"))
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var paused string
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			paused = m.Name
			break
		}
	}
	member, err := rs.Member(paused)
	if err != nil {
		t.Fatal(err)
	}
	const interval = 500 * time.Millisecond
	series := map[monitor.LagSource]*lagSeries{}
	for _, src := range []monitor.LagSource{monitor.SourceReplSetGetStatus, monitor.SourceHello} {
		l := &lagSeries{host: member.Host}
		series[src] = l
		m, err := monitor.Start(ctx, rs.URI(), monitor.Config{LagInterval: interval, LagSource: src, OnLag: l.add})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close(context.Background()) })
		if got := m.LagSource(); got != src {
			t.Fatalf("asked for %v, got %v (%s)", src, got, m.LagSourceReason())
		}
	}
	status, hello := series[monitor.SourceReplSetGetStatus], series[monitor.SourceHello]

	wctx, stop := context.WithCancel(ctx)
	var writers sync.WaitGroup
	defer func() { stop(); writers.Wait() }()
	writers.Go(func() {
		c := client.Database("monitortest").Collection("agree")
		upsert := options.UpdateOne().SetUpsert(true)
		for i := 0; wctx.Err() == nil; i++ {
			c.UpdateOne(wctx, bson.D{{Key: "_id", Value: i % 10}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, upsert)
			time.Sleep(10 * time.Millisecond)
		}
	})
	if err := rs.PauseReplication(ctx, paused); err != nil {
		t.Fatal(err)
	}
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			_ = rs.ResumeReplication(context.Background(), paused)
		}
		testutil.WaitReplicated(t, client)
	})
	pausedAt := time.Now()
	testutil.Eventually(t, *agreePause+30*time.Second, func() bool {
		s, ok1 := status.last()
		h, ok2 := hello.last()
		return ok1 && ok2 && s > time.Second && h > time.Second && time.Since(pausedAt) >= *agreePause
	}, "the sources did not both see the paused member's lag pass 1 s")
	if err := rs.ResumeReplication(ctx, paused); err != nil {
		t.Fatal(err)
	}
	resumed = true
	resumedAt := time.Now()

	st, hs := status.since(pausedAt), hello.since(pausedAt)
	if len(st) == 0 || len(hs) == 0 {
		t.Fatalf("%d replSetGetStatus and %d hello samples of %s during the pause", len(st), len(hs), paused)
	}
	// hello's lastWriteDate has whole seconds (the optime's): its estimate
	// is up to 1 s higher than replSetGetStatus's (lastAppliedWallTime, ms).
	lo, hi := -(interval + 100*time.Millisecond), interval+100*time.Millisecond+time.Second
	var worst time.Duration
	alignedLo, alignedHi := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	compared := 0
	for _, h := range hs {
		if !h.at.Before(resumedAt) {
			break
		}
		near := st[0]
		for _, s := range st[1:] {
			if s.at.Before(resumedAt) && absDur(s.at.Sub(h.at)) < absDur(near.at.Sub(h.at)) {
				near = s
			}
		}
		if absDur(near.at.Sub(h.at)) > interval {
			continue // a poll was late: no pair
		}
		compared++
		d := h.lag - near.lag
		worst = max(worst, absDur(d))
		// The paused member's last write is fixed: what is left after the
		// send times' difference is when each primary answered, and the
		// truncation of that write's time to the second.
		aligned := d - h.at.Sub(near.at)
		alignedLo, alignedHi = min(alignedLo, aligned), max(alignedHi, aligned)
		if d < lo || d > hi {
			t.Errorf("hello sample at %s: lag %v (poll took %v); replSetGetStatus sample at %s: %v (took %v): hello - replSetGetStatus = %v, outside [%v, %v]",
				h.at.Format("15:04:05.000"), h.lag, h.rtt, near.at.Format("15:04:05.000"), near.lag, near.rtt, d, lo, hi)
		}
	}
	if compared < int(*agreePause/interval)/2 {
		t.Fatalf("compared %d sample pairs over a %v pause at %v polls", compared, time.Since(pausedAt).Round(time.Second), interval)
	}
	t.Logf("paused %v: %d pairs, max |hello - replSetGetStatus| %v; minus the send times' difference: %v to %v",
		resumedAt.Sub(pausedAt).Round(100*time.Millisecond), compared, worst, alignedLo, alignedHi)

	testutil.Eventually(t, 30*time.Second, func() bool {
		s, _ := status.last()
		h, _ := hello.last()
		return s < 250*time.Millisecond && h < time.Second
	}, "the sources did not both see the resumed member catch up")
	// With the primary idle, a caught-up member is exactly 0 behind by both.
	stop()
	writers.Wait()
	testutil.Eventually(t, 30*time.Second, func() bool {
		s, _ := status.last()
		h, _ := hello.last()
		return s == 0 && h == 0
	}, "the sources did not both see the resumed member at 0 lag once writes stopped")
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
