package balancer

import (
	"fmt"
	"math"
	"testing"
)

func TestAllocate(t *testing.T) {
	const tol = 1e-9
	tests := []struct {
		name    string
		mu, pen []float64
		demand  float64
		// want, when set, is the exact split expected.
		want []float64
		// check, when set, asserts a property of the split.
		check func(s []float64) error
	}{
		{
			name: "equal members without penalty split equally",
			mu:   []float64{1000, 1000, 1000}, pen: []float64{0, 0, 0}, demand: 1500,
			want: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3},
		},
		{
			name: "equal members split equally at low demand too",
			mu:   []float64{1000, 1000}, pen: []float64{0, 0}, demand: 10,
			want: []float64{0.5, 0.5},
		},
		{
			name: "twice the capacity gets more",
			mu:   []float64{2000, 1000}, pen: []float64{0, 0}, demand: 600,
			check: func(s []float64) error {
				if s[0] <= s[1] {
					return fmt.Errorf("stronger member %v, weaker %v", s[0], s[1])
				}
				return nil
			},
		},
		{
			name: "twice the capacity gets about twice at high demand",
			mu:   []float64{2000, 1000}, pen: []float64{0, 0}, demand: 2970,
			check: func(s []float64) error {
				if r := s[0] / s[1]; r < 1.9 || r > 2.1 {
					return fmt.Errorf("ratio %v, want about 2", r)
				}
				return nil
			},
		},
		{
			name: "at low demand the stronger member takes everything",
			mu:   []float64{2000, 1000}, pen: []float64{0, 0}, demand: 50,
			// the weaker member's marginal cost at 0 load is 1/1000; the
			// stronger one reaches it at x = 2000 - sqrt(2000*1000) = 586
			want: []float64{1, 0},
		},
		{
			name: "a member without capacity gets nothing",
			mu:   []float64{1000, 0, 1000}, pen: []float64{0, 0, 0}, demand: 500,
			want: []float64{0.5, 0, 0.5},
		},
		{
			name: "a negative capacity counts as none",
			mu:   []float64{1000, -50}, pen: []float64{0, 0}, demand: 2000,
			want: []float64{1, 0},
		},
		{
			name: "demand at total capacity splits in proportion",
			mu:   []float64{3000, 1000}, pen: []float64{0, 0.01}, demand: 4000,
			want: []float64{0.75, 0.25},
		},
		{
			name: "demand above total capacity splits in proportion, penalties ignored",
			mu:   []float64{500, 1000, 500}, pen: []float64{0, 1, 1}, demand: 1e6,
			want: []float64{0.25, 0.5, 0.25},
		},
		{
			name: "zero demand goes to the cheapest member",
			mu:   []float64{1000, 1000}, pen: []float64{0, 0.015}, demand: 0,
			want: []float64{1, 0},
		},
		{
			name: "negative demand counts as zero",
			mu:   []float64{100, 1000}, pen: []float64{0, 0}, demand: -3,
			want: []float64{0, 1},
		},
		{
			name: "no member with capacity: all zero",
			mu:   []float64{0, 0}, pen: []float64{0, 0}, demand: 100,
			want: []float64{0, 0},
		},
		{
			name: "no members",
			mu:   nil, pen: nil, demand: 100,
			want: []float64{},
		},
		{
			name: "a single member takes everything",
			mu:   []float64{1000}, pen: []float64{0}, demand: 300,
			want: []float64{1},
		},
		{
			// penalty 0.015 s: the secondary's marginal cost at 0 load is
			// 0.016, the primary reaches it at x = 1000 - sqrt(1000/0.016) = 750.
			name: "a large penalty keeps a member at 0 at low demand",
			mu:   []float64{1000, 1000}, pen: []float64{0, 0.015}, demand: 700,
			want: []float64{1, 0},
		},
		{
			name: "a large penalty still gives a member load at high demand",
			mu:   []float64{1000, 1000}, pen: []float64{0, 0.015}, demand: 1500,
			check: func(s []float64) error {
				if s[1] < 0.2 || s[1] >= s[0] {
					return fmt.Errorf("penalised member %v, other %v: want a real share below the other's", s[1], s[0])
				}
				return nil
			},
		},
		{
			name: "demand a hair below total capacity terminates near proportional",
			mu:   []float64{2000, 1000}, pen: []float64{0, 0.015}, demand: math.Nextafter(3000, 0),
			check: func(s []float64) error {
				if math.Abs(s[0]-2.0/3) > 1e-3 {
					return fmt.Errorf("share %v, want about 2/3", s[0])
				}
				return nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := allocate(tt.mu, tt.pen, tt.demand)
			if len(s) != len(tt.mu) {
				t.Fatalf("%d shares for %d members", len(s), len(tt.mu))
			}
			var sum, total float64
			for i, x := range s {
				if x < 0 || x > 1 || math.IsNaN(x) {
					t.Fatalf("share %d is %v", i, x)
				}
				sum += x
				total += max(tt.mu[i], 0)
			}
			if total > 0 && math.Abs(sum-1) > tol {
				t.Fatalf("shares %v sum to %v", s, sum)
			}
			if tt.want != nil {
				for i := range tt.want {
					if math.Abs(s[i]-tt.want[i]) > tol {
						t.Fatalf("shares %v, want %v", s, tt.want)
					}
				}
			}
			if tt.check != nil {
				if err := tt.check(s); err != nil {
					t.Fatalf("shares %v: %v", s, err)
				}
			}
		})
	}
}

// TestAllocateIsOptimal checks the optimality condition: the members in use
// have equal marginal cost mu/(mu-x)^2 + penalty, and an idle member's
// marginal cost at no load is not below it.
func TestAllocateIsOptimal(t *testing.T) {
	tests := []struct {
		mu, pen []float64
		demand  float64
	}{
		{[]float64{1000, 1000, 1000}, []float64{0, 0.015, 0.015}, 900},
		{[]float64{1000, 1000, 1000}, []float64{0, 0.015, 0.015}, 2500},
		{[]float64{20, 1500, 1500}, []float64{0, 0.01, 0.01}, 1000},
		{[]float64{5000, 3000, 1000}, []float64{0, 0.005, 0.015}, 6000},
		{[]float64{1000, 3000, 1000}, []float64{0, 0.005, 0.015}, 1200},
		{[]float64{1000, 2000}, []float64{0, 0}, 100},
		{[]float64{1000, 2000}, []float64{0, 0}, 2999},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.mu, tt.pen, tt.demand), func(t *testing.T) {
			s := allocate(tt.mu, tt.pen, tt.demand)
			nu := math.NaN()
			for i, share := range s {
				x := share * tt.demand
				if x >= tt.mu[i] {
					t.Fatalf("member %d gets %v reads/s, over its capacity %v", i, x, tt.mu[i])
				}
				if x == 0 {
					continue
				}
				m := tt.mu[i]/((tt.mu[i]-x)*(tt.mu[i]-x)) + tt.pen[i]
				if math.IsNaN(nu) {
					nu = m
				} else if math.Abs(m-nu) > 1e-6*nu {
					t.Fatalf("shares %v: marginal cost of member %d is %v, others' %v", s, i, m, nu)
				}
			}
			for i, share := range s {
				if share == 0 && 1/tt.mu[i]+tt.pen[i] < nu*(1-1e-9) {
					t.Fatalf("shares %v: idle member %d has marginal cost %v below the level %v", s, i, 1/tt.mu[i]+tt.pen[i], nu)
				}
			}
			// No small move of load between two members lowers the cost.
			cost := func(s []float64) float64 {
				var c float64
				for i, share := range s {
					x := share * tt.demand
					c += x * (1/(tt.mu[i]-x) + tt.pen[i])
				}
				return c
			}
			base := cost(s)
			for i := range s {
				for j := range s {
					if i == j || s[i] < 1e-4 {
						continue
					}
					moved := append([]float64(nil), s...)
					moved[i] -= 1e-4
					moved[j] += 1e-4
					if moved[j]*tt.demand >= tt.mu[j] {
						continue
					}
					if c := cost(moved); c < base*(1-1e-12) {
						t.Fatalf("shares %v: moving 1e-4 from %d to %d lowers the cost from %v to %v", s, i, j, base, c)
					}
				}
			}
		})
	}
}

func TestRateAt(t *testing.T) {
	tests := []struct {
		mu, pen, nu, want float64
	}{
		{1000, 0, 0.001, 0},  // at the marginal cost of an idle member
		{1000, 0, 0.0005, 0}, // below it
		{0, 0, 1, 0},         // no capacity
		{-1, 0, 1, 0},
		{1000, 0, 0.004, 500}, // 1000 - sqrt(1000/0.004)
		{1000, 0.011, 0.015, 500},
	}
	for _, tt := range tests {
		if got := rateAt(tt.mu, tt.pen, tt.nu); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("rateAt(%v, %v, %v) = %v, want %v", tt.mu, tt.pen, tt.nu, got, tt.want)
		}
	}
}
