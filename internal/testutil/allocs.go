package testutil

import (
	"runtime"
	"testing"
)

// AllocBound is what a parser may allocate for an input of n bytes: PerByte
// times n plus Fixed. Fuzz targets assert it (CheckAllocs) so that no input
// makes the proxy allocate much more than a peer sent.
type AllocBound struct {
	PerByte uint64
	Fixed   uint64
}

// Max is the bound for an n-byte input.
func (b AllocBound) Max(n int) uint64 { return b.PerByte*uint64(n) + b.Fixed }

// Allocated returns the bytes f allocated (runtime.MemStats.TotalAlloc), the
// fewest over runs calls: other goroutines' allocations (a fuzzing worker's,
// a driver's pool) add to one call's count, never to all of them, while f's
// own cost is the same at every call. f must leave no state that changes
// what its next call allocates.
func Allocated(runs int, f func()) uint64 {
	var before, after runtime.MemStats
	least := ^uint64(0)
	for range max(runs, 1) {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// CheckAllocs fails tb when f, given an n-byte input, allocates more than
// bound allows. It calls f once, and twice more when that call went over,
// keeping the fewest bytes (see Allocated): a fuzz target pays for one
// measurement per input.
func CheckAllocs(tb testing.TB, what string, n int, bound AllocBound, f func()) {
	tb.Helper()
	got := Allocated(1, f)
	if got > bound.Max(n) {
		got = min(got, Allocated(2, f))
	}
	if got > bound.Max(n) {
		tb.Fatalf("%s allocated %d bytes for a %d-byte input; the bound is %d (%d per byte + %d)",
			what, got, n, bound.Max(n), bound.PerByte, bound.Fixed)
	}
}
