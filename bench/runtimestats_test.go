package bench

import (
	"runtime"
	"testing"
)

// TestRuntimeStats: every figure this Go release names is read.
func TestRuntimeStats(t *testing.T) {
	runtime.GC() // the live heap is known from the first collection on
	f := newRuntimeStats().read()
	if f.heapMB <= 0 || f.heapLiveMB <= 0 || f.goroutines < 1 {
		t.Fatalf("read %+v: want a heap, a live heap and goroutines", f)
	}
}

// BenchmarkRuntimeStats is the cost of a period's reading, beside the
// stop-the-world runtime.ReadMemStats it avoids, with 1000 goroutines
// parked as a 1000-client run's would be.
func BenchmarkRuntimeStats(b *testing.B) {
	stop := make(chan struct{})
	defer close(stop)
	for range 1000 {
		go func() { <-stop }()
	}
	b.Run("metrics", func(b *testing.B) {
		s := newRuntimeStats()
		for b.Loop() {
			s.read()
		}
	})
	b.Run("memstats", func(b *testing.B) {
		var m runtime.MemStats
		for b.Loop() {
			runtime.ReadMemStats(&m)
		}
	})
}
