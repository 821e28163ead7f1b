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
	time.Sleep(500 * time.Millisecond)
	for _, s := range p.Drain() {
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

	testutil.PauseSecondaries(t, rs)
	p.Drain()
	time.Sleep(1500 * time.Millisecond)
	var worst time.Duration
	for _, s := range p.Drain() {
		worst = max(worst, s.Staleness)
	}
	if worst < time.Second {
		t.Fatalf("replication paused for 1.5s but the probe measured at most %v", worst)
	}

	// Fraction 0: the second read goes to the primary, which is never stale.
	pol.f.Store(0)
	time.Sleep(100 * time.Millisecond)
	p.Drain()
	time.Sleep(400 * time.Millisecond)
	samples := p.Drain()
	if len(samples) == 0 {
		t.Fatal("no samples")
	}
	for _, s := range samples {
		if s.Secondary || s.Staleness > 50*time.Millisecond || s.Host != prim.Host {
			t.Fatalf("fraction 0: sample %+v, want a fresh read served by the primary %s", s, prim.Host)
		}
	}
	if n, err := p.Errors(); n > 0 {
		t.Fatalf("%d probe errors, last %v", n, err)
	}
}
