package balancer

import (
	"math"
	"testing"
)

func TestRPM(t *testing.T) {
	tests := []struct {
		name  string
		steps []Period
		want  []float64
	}{
		{"starts at primary with exploration", nil, nil},
		{"secondary median under half the primary's recommends secondary",
			[]Period{period(100, 10, 4, 0, 0)}, []float64{0.9}},
		{"exactly half keeps primary", []Period{period(100, 10, 5, 0, 0)}, []float64{0.1}},
		{"back to primary when secondaries slow down",
			[]Period{period(100, 10, 4, 0, 0), period(100, 10, 9, 0, 0)}, []float64{0.9, 0.1}},
		{"too few samples keeps the recommendation",
			[]Period{period(100, 10, 4, 0, 0), period(2, 10, 20, 0, 0)}, []float64{0.9, 0.9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRPM(DefaultRPMConfig())
			if err != nil {
				t.Fatal(err)
			}
			if r.Fraction() != 0.1 {
				t.Fatalf("initial fraction %v, want 0.1", r.Fraction())
			}
			for i, per := range tt.steps {
				if got := r.EndPeriod(per).Fraction; math.Abs(got-tt.want[i]) > 1e-9 {
					t.Fatalf("period %d: fraction %v, want %v", i, got, tt.want[i])
				}
			}
			if got := r.ObserveLag(badLag); got != r.Fraction() {
				t.Fatalf("rpm reacted to lag: %v", got)
			}
		})
	}
}
