package sprobe_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload/sprobe"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// policy is a settable stand-in for the router's view.
type policy struct{ f atomic.Uint64 }

func (p *policy) Fraction() float64 { return float64(p.f.Load()) / 100 }
func (p *policy) ReadPref(s balancer.Side) *readpref.ReadPref {
	if s == balancer.Secondary {
		return readpref.Secondary()
	}
	return readpref.Primary()
}

// collect drains the probe until it has n samples taken after since, or
// fails the test after timeout.
func collect(t *testing.T, p *sprobe.Probe, since time.Time, n int, timeout time.Duration) []sprobe.Sample {
	t.Helper()
	var got []sprobe.Sample
	testutil.Eventually(t, timeout, func() bool {
		for _, s := range p.Drain() {
			if s.At.After(since) {
				got = append(got, s)
			}
		}
		return len(got) >= n
	}, "the probe took too few samples")
	return got
}

func TestProbeMeasuresPlantedStaleness(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	ctx := context.Background()
	pol := &policy{}
	pol.f.Store(100)
	p, err := sprobe.Start(ctx, rs.URI(), pol, sprobe.Config{ProbeInterval: 20 * time.Millisecond,
		Collection: "sprobe_test"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	prim, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Healthy set, fraction 1: second reads on secondaries, fresh.
	for _, s := range collect(t, p, time.Now(), 10, 10*time.Second) {
		if !s.Secondary {
			t.Fatal("fraction 1 but the second read went to the primary")
		}
		if s.Host == "" || s.Host == prim.Host {
			t.Fatalf("fraction 1: second read served by %q, want a secondary (primary %s)", s.Host, prim.Host)
		}
		if s.Staleness > time.Second {
			t.Fatalf("healthy set measured %v of staleness", s.Staleness)
		}
	}

	// Replication paused: the staleness measured grows past a second.
	resume := testutil.PauseSecondaries(t, rs)
	paused := time.Now()
	var worst time.Duration
	testutil.Eventually(t, 20*time.Second, func() bool {
		for _, s := range p.Drain() {
			if s.At.After(paused) {
				worst = max(worst, s.Staleness)
			}
		}
		return worst >= time.Second
	}, "replication paused but the probe never measured a second of staleness")
	resume()

	// Fraction 0: the second read goes to the primary, which is never stale.
	pol.f.Store(0)
	for _, s := range collect(t, p, time.Now(), 10, 10*time.Second) {
		if s.Secondary || s.Staleness > 50*time.Millisecond || s.Host != prim.Host {
			t.Fatalf("fraction 0: sample %+v, want a fresh read served by the primary %s", s, prim.Host)
		}
	}
	if n, err := p.Errors(); n > 0 {
		t.Fatalf("%d probe errors, last %v", n, err)
	}
}
