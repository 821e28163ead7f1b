package balancer

import (
	"errors"
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
		{"exactly MinSamples on each side decide",
			[]Period{period(5, 10, 4, 0, 0), period(5, 10, 9, 0, 0)}, []float64{0.9, 0.1}},
		{"one sample short on either side keeps the recommendation",
			[]Period{period(100, 10, 4, 0, 0),
				{Primary: Stats{Count: 4, P50: 10 * ms}, Secondary: Stats{Count: 5, P50: 9 * ms}},
				{Primary: Stats{Count: 5, P50: 10 * ms}, Secondary: Stats{Count: 4, P50: 9 * ms}}},
			[]float64{0.9, 0.9, 0.9}},
		{"a zero primary median gives no ratio and keeps the recommendation",
			[]Period{period(100, 10, 4, 0, 0), {Primary: Stats{Count: 100}, Secondary: Stats{Count: 100, P50: 4 * ms}}},
			[]float64{0.9, 0.9}},
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

func TestRPMConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*RPMConfig)
		ok     bool
	}{
		{"defaults", func(*RPMConfig) {}, true},
		{"no exploration", func(c *RPMConfig) { c.Exploration = 0 }, true},
		{"exploration just under half", func(c *RPMConfig) { c.Exploration = 0.49 }, true},
		{"exploration of half", func(c *RPMConfig) { c.Exploration = 0.5 }, false},
		{"negative exploration", func(c *RPMConfig) { c.Exploration = -0.1 }, false},
		{"zero interval", func(c *RPMConfig) { c.Interval = 0 }, false},
		{"zero threshold", func(c *RPMConfig) { c.Threshold = 0 }, false},
		{"no samples", func(c *RPMConfig) { c.MinSamples = 0 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultRPMConfig()
			tt.mutate(&cfg)
			_, err := NewRPM(cfg)
			if tt.ok && err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("err %v, want ErrInvalidPolicy", err)
			}
		})
	}
}
