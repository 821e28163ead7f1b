package router

import (
	"context"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
)

// offlineRouter is a Router with no connection, for the pure parts of the
// hot path.
func offlineRouter(f float64, mode balancer.Mode) *Router {
	r := &Router{sel: balancer.Selection{Mode: mode}, served: newServed()}
	for i := range r.lat {
		r.lat[i] = metrics.NewHistogram()
	}
	r.storeFraction(f)
	return r
}

func TestPickHonoursFraction(t *testing.T) {
	for _, f := range []float64{0, 0.1, 0.5, 0.7, 1} {
		r := offlineRouter(f, balancer.Split)
		const n = 200000
		sec := 0
		for range n {
			if r.Pick() == balancer.Secondary {
				sec++
			}
		}
		got := float64(sec) / n
		// 5 standard deviations of a binomial share.
		tol := 5*math.Sqrt(f*(1-f)/n) + 1e-12
		if math.Abs(got-f) > tol {
			t.Errorf("fraction %v: secondary share %v, outside ±%v", f, got, tol)
		}
	}
	if s := offlineRouter(0, balancer.Nearest).Pick(); s != balancer.Secondary {
		t.Errorf("driver-selected policy picked %v, want the policy's handle (secondary side)", s)
	}
}

func TestServedCountsOnlyRoutedReads(t *testing.T) {
	s := newServed()
	s.roles["h1:1"] = roleP
	s.roles["h2:2"] = roleS
	r := offlineRouter(0.5, balancer.Split)
	routed := r.Mark(context.Background(), balancer.Secondary)
	s.count(routed, "find", "h2:2[-3]")
	s.count(routed, "aggregate", "h1:1[-1]")
	s.count(routed, "getMore", "h2:2[-3]")            // continuation: not a new read
	s.count(routed, "insert", "h1:1[-1]")             // not a read
	s.count(context.Background(), "find", "h1:1[-2]") // unrouted
	s.count(routed, "find", "h9:9[-2]")               // unknown role
	got := s.snapshot()
	if got.Primary != 1 || got.Secondary != 1 || got.Other != 1 {
		t.Fatalf("served %+v, want 1 primary, 1 secondary, 1 other", got)
	}
	if got.ByHost["h2:2"] != 1 || got.ByHost["h1:1"] != 1 {
		t.Fatalf("by host %v", got.ByHost)
	}
	if pct := got.SecondaryPct(); math.Abs(pct-100.0/3) > 1e-9 {
		t.Fatalf("secondary pct %v", pct)
	}
}

func TestRecordDropsCancelledReads(t *testing.T) {
	r := offlineRouter(0.5, balancer.Split)
	r.Record(balancer.Primary, time.Millisecond, nil)
	r.Record(balancer.Primary, time.Millisecond, context.Canceled)
	r.Record(balancer.Secondary, time.Millisecond, context.DeadlineExceeded) // a slow server: keep
	if n := r.lat[balancer.Primary].Count(); n != 1 {
		t.Errorf("primary samples %d, want 1", n)
	}
	if n := r.lat[balancer.Secondary].Count(); n != 1 {
		t.Errorf("secondary samples %d, want 1", n)
	}
}

// BenchmarkRoute measures the routing hot path of one read: the biased coin,
// choosing the handle, marking the context and recording the latency sample.
func BenchmarkRoute(b *testing.B) {
	r := offlineRouter(0.5, balancer.Split)
	c := &Collection{r: r}
	ctx := context.Background()
	route := func() {
		_, s, mctx, start := c.route(ctx)
		_ = mctx
		r.Record(s, time.Since(start), nil)
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			route()
		}
	})
	b.Run("parallel64", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				route()
			}
		})
	})
}
