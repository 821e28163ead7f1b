package reproduce

import (
	"math"
	"testing"
)

func TestJudge(t *testing.T) {
	e := func(v, s float64) Estimate { return Estimate{V: v, Spread: s, N: 2} }
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
		{"within an absolute tolerance", share70, e(62, 0), Agrees},
		{"just outside, the spread reaches it", share70, e(55, 5.5), Agrees},
		{"outside, same side of the reference", share70, e(45, 2), SameDirection},
		{"on the edge of the tolerance", share70, e(80, 0), Agrees},
		{"just past the edge", share70, e(80.5, 0), SameDirection},
		{"a ratio within 20 %", ratio25, e(2.1, 0.1), Agrees},
		{"a smaller ratio above 1", ratio25, e(1.4, 0.1), SameDirection},
		{"a ratio below 1", ratio25, e(0.9, 0.05), Disagrees},
		{"a ratio whose spread covers 1", ratio25, e(1.05, 0.1), Disagrees},
		{"above, clear of noise", above1, e(1.2, 0.1), Agrees},
		{"above, within noise", above1, e(1.05, 0.1), Disagrees},
		{"above, opposite", above1, e(0.8, 0), Disagrees},
		{"below zero", below0, e(-10, 2), Agrees},
		{"below zero within noise", below0, e(-1, 2), Disagrees},
		{"at most 0", atMost0, e(0, 0), Agrees},
		{"over the bound", atMost0, e(1, 0), Disagrees},
		{"over the bound within the noise", Claim{Kind: AtMost, Paper: 10}, e(12, 5), Agrees},
		{"over the bound beyond the noise", Claim{Kind: AtMost, Paper: 10}, e(17, 5), Disagrees},
		{"similar within tolerance", similar, e(0.97, 0), Agrees},
		{"similar within noise", similar, e(0.9, 0.12), Agrees},
		{"not similar", similar, e(0.9, 0.02), Disagrees},
		{"nothing measured", share70, Estimate{V: math.NaN()}, NotMeasured},
		{"no runs", above1, Estimate{}, NotMeasured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Judge(tt.c, tt.e); got != tt.want {
				t.Errorf("Judge(%+v, %v) = %q, want %q", tt.c, tt.e, got, tt.want)
			}
		})
	}
}

func TestEstimateAndCombinations(t *testing.T) {
	got := estimate([]float64{10, 14, math.NaN(), 12})
	if got.V != 12 || got.Spread != 2 || got.N != 3 {
		t.Errorf("estimate = %+v, want 12 ± 2 over 3", got)
	}
	r := ratio(Estimate{V: 20, Spread: 2, N: 2}, Estimate{V: 10, Spread: 1, N: 3})
	if math.Abs(r.V-2) > 1e-9 || math.Abs(r.Spread-0.4) > 1e-9 || r.N != 2 {
		t.Errorf("ratio = %+v, want 2 ± 0.4 over 2", r)
	}
	d := diff(Estimate{V: 5, Spread: 1, N: 1}, Estimate{V: 7, Spread: 0.5, N: 1})
	if d.V != -2 || d.Spread != 1.5 {
		t.Errorf("diff = %+v, want -2 ± 1.5", d)
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
		{rows(Agrees, SameDirection), SameDirection},
		{rows(SameDirection, Disagrees, Agrees), Disagrees},
		{rows(NotMeasured), NotMeasured},
		{nil, NotMeasured},
	} {
		if got := Summary(tt.rows); got != tt.want {
			t.Errorf("Summary(%v) = %q, want %q", tt.rows, got, tt.want)
		}
	}
}
