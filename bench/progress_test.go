package bench

import (
	"testing"

	"github.com/decongestant/decongestant/results"
)

// TestProgressLine: the process's heap and goroutines end a period's line
// only with Options.RuntimeStats.
func TestProgressLine(t *testing.T) {
	per := results.Period{TS: 20, ReadTput: 2104.4, ReadP80MS: 12.345, SecondaryPct: 81.25, BalanceFraction: 0.9,
		MaxLagMS: 37, SProbeStalenessP80MS: 12, HeapMB: 61.234, HeapLiveMB: 30.55, Goroutines: 1043}
	tests := []struct {
		runtime bool
		want    string
	}{
		{false, "  [spillway] t=  20s reads     2104/s p80  12.35ms  secondary  81.2%  fraction 0.90  lag     37ms  stale p80    12ms\n"},
		{true, "  [spillway] t=  20s reads     2104/s p80  12.35ms  secondary  81.2%  fraction 0.90  lag     37ms  stale p80    12ms" +
			"  heap   61.2MB live   30.6MB  goroutines  1043\n"},
	}
	for _, tt := range tests {
		if got := progressLine("spillway", per, tt.runtime); got != tt.want {
			t.Errorf("runtime %v:\n got %q\nwant %q", tt.runtime, got, tt.want)
		}
	}
}
