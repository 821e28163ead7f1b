package tpch

import (
	"math"
	"testing"
)

// TestComputeQ1 checks the reference Q1 on a hand-made table: the cutoff
// day is included and the day after it not, groups are sorted by flag and
// status, and the sums and averages follow clause 2.4.1.
func TestComputeQ1(t *testing.T) {
	cut := Q1Cutoff(90) // 1998-09-02
	lines := []LineItem{
		// qty 10 at 100.00, 10% off, 5% tax: disc 90.00, charge 94.50
		{Quantity: 10, ExtendedPriceCents: 10000, DiscountPct: 10, TaxPct: 5, ReturnFlag: 'N', LineStatus: 'O', ShipDate: cut},
		// qty 20 at 50.00, no discount, 8% tax: disc 50.00, charge 54.00
		{Quantity: 20, ExtendedPriceCents: 5000, DiscountPct: 0, TaxPct: 8, ReturnFlag: 'N', LineStatus: 'O', ShipDate: cut - 30},
		{Quantity: 5, ExtendedPriceCents: 2000, DiscountPct: 5, TaxPct: 0, ReturnFlag: 'A', LineStatus: 'F', ShipDate: StartDate + 10},
		// shipped the day after the cutoff: not counted
		{Quantity: 50, ExtendedPriceCents: 99999, DiscountPct: 1, TaxPct: 1, ReturnFlag: 'N', LineStatus: 'O', ShipDate: cut + 1},
	}
	got := ComputeQ1(lines, 90)
	want := []Q1Row{
		{ReturnFlag: "A", LineStatus: "F", SumQty: 5, SumBasePrice: 20, SumDiscPrice: 19, SumCharge: 19,
			AvgQty: 5, AvgPrice: 20, AvgDisc: 0.05, CountOrder: 1},
		{ReturnFlag: "N", LineStatus: "O", SumQty: 30, SumBasePrice: 150, SumDiscPrice: 140, SumCharge: 148.5,
			AvgQty: 15, AvgPrice: 75, AvgDisc: 0.05, CountOrder: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("ComputeQ1 = %+v, want %+v", got, want)
	}
	for i := range want {
		if !rowsClose(got[i], want[i], 1e-12) {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// rowsClose reports whether two Q1 rows agree: the keys, counts and
// quantities exactly, the money and averages within a relative tolerance
// (floating-point sums in another order).
func rowsClose(a, b Q1Row, tol float64) bool {
	close := func(x, y float64) bool { return math.Abs(x-y) <= tol*math.Max(1, math.Max(math.Abs(x), math.Abs(y))) }
	return a.ReturnFlag == b.ReturnFlag && a.LineStatus == b.LineStatus && a.SumQty == b.SumQty &&
		a.CountOrder == b.CountOrder && close(a.SumBasePrice, b.SumBasePrice) && close(a.SumDiscPrice, b.SumDiscPrice) &&
		close(a.SumCharge, b.SumCharge) && close(a.AvgQty, b.AvgQty) && close(a.AvgPrice, b.AvgPrice) &&
		close(a.AvgDisc, b.AvgDisc)
}
