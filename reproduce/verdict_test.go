package reproduce

import (
	"math"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	e := func(v, s float64) Estimate { return Estimate{V: v, Spread: s, N: 3} }
	share70 := Claim{Kind: Approx, Paper: 70, Tol: 10, Abs: true}
	ratio25 := Claim{Kind: Approx, Paper: 2.5, Ref: 1, Tol: 0.2}
	above1 := Claim{Kind: Above, Ref: 1}
	below0 := Claim{Kind: Below, Ref: 0}
	atMost0 := Claim{Kind: AtMost, Paper: 0}
	similar := Claim{Kind: Similar, Ref: 1, Tol: 0.05}
	tests := []struct {
		name string
		c    Claim
		e    Estimate
		want string
	}{
		{"inside an absolute tolerance", share70, e(62, 1), Agrees},
		{"on the edge of the tolerance", share70, e(80, 0), Agrees},
		{"the interval crosses the edge", share70, e(55, 5.5), Inconclusive},
		{"the interval covers the whole band", share70, e(70, 30), Inconclusive},
		{"outside, same side of the reference", share70, e(45, 2), SameDirection},
		{"just past the edge", share70, e(80.5, 0), SameDirection},
		{"a ratio within 20 %", ratio25, e(2.1, 0.1), Agrees},
		{"a smaller ratio above 1", ratio25, e(1.4, 0.1), SameDirection},
		{"a ratio below 1", ratio25, e(0.9, 0.05), Disagrees},
		{"a ratio whose interval covers 1", ratio25, e(1.05, 0.1), Disagrees},
		{"above, the interval clear of it", above1, e(1.2, 0.1), Agrees},
		{"above, the interval straddles it", above1, e(1.05, 0.1), Inconclusive},
		{"above, opposite", above1, e(0.8, 0), Disagrees},
		{"above, exactly at the reference", above1, e(1, 0), Disagrees},
		{"below zero", below0, e(-10, 2), Agrees},
		{"below zero, straddling", below0, e(-1, 2), Inconclusive},
		{"below zero, above it", below0, e(3, 2), Disagrees},
		{"at most 0", atMost0, e(0, 0), Agrees},
		{"over the bound", atMost0, e(1, 0), Disagrees},
		{"over the bound within the interval", Claim{Kind: AtMost, Paper: 10}, e(12, 5), Inconclusive},
		{"under the bound but the interval reaches past it", Claim{Kind: AtMost, Paper: 10}, e(8, 5), Inconclusive},
		{"over the bound beyond the interval", Claim{Kind: AtMost, Paper: 10}, e(17, 5), Disagrees},
		{"similar, the interval inside the tolerance", similar, e(0.98, 0.02), Agrees},
		{"similar, the interval too wide to tell", similar, e(0.97, 0.12), Inconclusive},
		{"not similar", similar, e(0.9, 0.02), Disagrees},
		{"two repetitions", above1, Estimate{V: 5, Spread: 0.1, N: 2}, Inconclusive},
		{"one repetition, no interval", atMost0, Estimate{V: 0, N: 1}, Inconclusive},
		{"not exercised, whatever the value", atMost0, Estimate{V: 0, N: 3, NotExercised: "the bound was never approached"}, NotExercised},
		{"nothing measured", share70, Estimate{V: math.NaN()}, NotMeasured},
		{"no runs", above1, Estimate{}, NotMeasured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rule := Judge(tt.c, tt.e)
			if got != tt.want {
				t.Errorf("Judge(%+v, %v) = %q (%s), want %q", tt.c, tt.e, got, rule, tt.want)
			}
			if rule == "" {
				t.Error("no rule given")
			}
		})
	}
}

// TestJudgeCanSayNo feeds every kind of claim three datasets as
// repetitions: one that supports it (agrees), a counter-dataset
// (disagrees), and, for a claim of an effect, data with no effect, which
// must never agree.
func TestJudgeCanSayNo(t *testing.T) {
	tests := []struct {
		name                   string
		c                      Claim
		support, counter, none []float64 // none: data with no effect (claims of an effect only)
	}{
		{"approx: a ratio of 1.3", Claim{Kind: Approx, Paper: 1.3, Ref: 1, Tol: 0.1},
			[]float64{1.28, 1.31, 1.33}, []float64{0.82, 0.85, 0.8}, []float64{0.97, 1.04, 1.0}},
		{"approx: a share of 70 %", Claim{Kind: Approx, Paper: 70, Ref: 50, Tol: 10, Abs: true},
			[]float64{68, 72, 70}, []float64{20, 25, 22}, []float64{45, 55, 50}},
		{"above: faster", Claim{Kind: Above, Ref: 1},
			[]float64{1.2, 1.25, 1.22}, []float64{0.8, 0.82, 0.79}, []float64{0.95, 1.05, 1.01}},
		{"below: less", Claim{Kind: Below, Ref: 0},
			[]float64{-12, -10, -11}, []float64{9, 10, 12}, []float64{-2, 2, 0.5}},
		{"at most: no violation", Claim{Kind: AtMost, Paper: 0},
			[]float64{0, 0, 0}, []float64{3, 5, 4}, nil},
		{"similar: no effect", Claim{Kind: Similar, Ref: 1, Tol: 0.1},
			[]float64{0.99, 1.01, 1.0}, []float64{1.5, 1.6, 1.55}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if v, rule := Judge(tt.c, estimate(tt.support)); v != Agrees {
				t.Errorf("supporting data %v: %s (%s), want agrees", tt.support, v, rule)
			}
			if v, rule := Judge(tt.c, estimate(tt.counter)); v != Disagrees {
				t.Errorf("counter-data %v: %s (%s), want disagrees", tt.counter, v, rule)
			}
			if tt.none != nil {
				if v, rule := Judge(tt.c, estimate(tt.none)); v == Agrees || v == SameDirection {
					t.Errorf("data with no effect %v: %s (%s), want neither agrees nor same direction", tt.none, v, rule)
				}
			}
		})
	}
}

func TestEstimateAndCombinations(t *testing.T) {
	got := estimate([]float64{10, 14, math.NaN(), 12})
	// mean 12, sd 2, t(0.975, 2) = 4.303: 4.303 x 2 / sqrt(3) = 4.969
	if got.V != 12 || math.Abs(got.Spread-4.969) > 0.001 || got.N != 3 {
		t.Errorf("estimate = %+v, want 12 ± 4.969 over 3", got)
	}
	if one := estimate([]float64{7}); one.V != 7 || one.Spread != 0 || one.N != 1 {
		t.Errorf("estimate of one value = %+v, want 7 with no interval", one)
	}
	r := ratio(Estimate{V: 20, Spread: 3, N: 3}, Estimate{V: 10, Spread: 2, N: 4})
	// relative half-widths 0.15 and 0.2 in quadrature: 0.25 of 2
	if math.Abs(r.V-2) > 1e-9 || math.Abs(r.Spread-0.5) > 1e-9 || r.N != 3 {
		t.Errorf("ratio = %+v, want 2 ± 0.5 over 3", r)
	}
	d := diff(Estimate{V: 5, Spread: 3, N: 3}, Estimate{V: 7, Spread: 4, N: 3, NotExercised: "never"})
	if d.V != -2 || d.Spread != 5 || d.NotExercised != "never" {
		t.Errorf("diff = %+v, want -2 ± 5, not exercised", d)
	}
	if ratio(Estimate{V: 1, N: 1}, Estimate{V: 0, N: 1}).Measured() {
		t.Error("a ratio over zero is measured")
	}
}

func TestSummary(t *testing.T) {
	rows := func(vs ...string) []Row {
		var out []Row
		for _, v := range vs {
			out = append(out, Row{Verdict: v})
		}
		return out
	}
	for _, tt := range []struct {
		rows []Row
		want string
	}{
		{rows(Agrees, Agrees), Agrees},
		{rows(Agrees, NotMeasured), Agrees},
		{rows(Agrees, NotExercised), Agrees},
		{rows(Agrees, Inconclusive), Inconclusive},
		{rows(Agrees, SameDirection), SameDirection},
		{rows(SameDirection, Disagrees, Agrees), Disagrees},
		{rows(NotExercised, NotMeasured), NotExercised},
		{rows(NotMeasured), NotMeasured},
		{nil, NotMeasured},
	} {
		if got := Summary(tt.rows); got != tt.want {
			t.Errorf("Summary(%v) = %q, want %q", tt.rows, got, tt.want)
		}
	}
}

// TestRuleSaysWhy: the rule names the interval, n and what it was held to.
func TestRuleSaysWhy(t *testing.T) {
	_, rule := Judge(Claim{Kind: Above, Ref: 1}, Estimate{V: 1.2, Spread: 0.1, N: 3})
	for _, want := range []string{"95 % CI [1.10, 1.30]", "n=3", "above 1"} {
		if !strings.Contains(rule, want) {
			t.Errorf("rule %q lacks %q", rule, want)
		}
	}
}

// TestCauseBesideDisagreement: a claim's established cause is shown
// beside a disagreement, never beside an agreement or an inconclusive
// verdict, and never changes the verdict.
func TestCauseBesideDisagreement(t *testing.T) {
	at := func(v float64) func(Outputs) (Estimate, error) {
		return func(Outputs) (Estimate, error) { return Estimate{V: v, Spread: 0.05, N: 3}, nil }
	}
	for _, tc := range []struct {
		v       float64
		verdict string
		cause   bool
	}{{0.5, Disagrees, true}, {1.5, Agrees, false}, {1, Inconclusive, false}} {
		f := &Figure{Paper: Papers[0], ID: "figX", Claims: []Claim{{Text: "above 1", Kind: Above, Ref: 1, Measure: at(tc.v), Cause: "the members are saturated (run R)"}}}
		r := Evaluate(f, fakeOutputs{})[0]
		if r.Verdict != tc.verdict || (r.Cause != "") != tc.cause {
			t.Errorf("%v: %s, cause %q; want %s, cause shown %v", tc.v, r.Verdict, r.Cause, tc.verdict, tc.cause)
		}
	}
}
