package metrics

import (
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	ds := []time.Duration{4, 1, 3, 2}
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0, 1}, {0.25, 1}, {0.26, 2}, {0.5, 2}, {0.75, 3}, {0.8, 4}, {1, 4},
		{-0.5, 1}, {1.5, 4}, // clamped
	}
	for _, tt := range tests {
		if got := Quantile(ds, tt.q); got != tt.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", ds, tt.q, got, tt.want)
		}
	}
	if ds[0] != 4 {
		t.Error("Quantile sorted its input")
	}
	if got := Quantile([]time.Duration{1, 2, 3}, 0.5); got != 2 {
		t.Errorf("median of 3: %v", got)
	}
	if Quantile[time.Duration](nil, 0.5) != 0 || Quantile([]int64{7, 3, 5}, 0.5) != 5 {
		t.Error("no samples: not 0")
	}
}

func TestRound3(t *testing.T) {
	for in, want := range map[float64]float64{1.23456: 1.235, -0.0004: 0, 2: 2, 0.1 + 0.2: 0.3} {
		if got := Round3(in); got != want {
			t.Errorf("Round3(%v) = %v, want %v", in, got, want)
		}
	}
}
