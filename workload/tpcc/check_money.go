package tpcc

import (
	"maps"
	"math"
)

// halfCent is the tolerance of one term of a money condition.
const halfCent = 0.005

// moneyTolerance is how far apart the sides of a money condition with the
// given number of terms may be and still count as equal.
func moneyTolerance(terms int) float64 { return halfCent * float64(terms) }

func moneyEqual(terms int, a, b float64) bool { return math.Abs(a-b) <= moneyTolerance(terms) }

// check3321 is TPC-C 3.3.2.1: "Entries in the WAREHOUSE and DISTRICT tables
// must satisfy the relationship: W_YTD = sum(D_YTD) for each warehouse
// defined by (W_ID = D_W_ID)."
func check3321(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	sum := 0.0
	for _, r := range d.districts {
		sum += r.YTD
	}
	if !moneyEqual(2, d.wYTD, sum) {
		f.violate("W_ID=%d: W_YTD=%.2f, sum(D_YTD)=%.2f", d.w, d.wYTD, sum)
	}
	return f
}

// check3328 is TPC-C 3.3.2.8: "Entries in the WAREHOUSE and HISTORY tables
// must satisfy the relationship: W_YTD = sum(H_AMOUNT) for each warehouse
// defined by (W_ID = H_W_ID)."
func check3328(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	sum := 0.0
	for _, h := range d.history {
		if h.ID.W == d.w {
			sum += h.Amount
		}
	}
	if !moneyEqual(2, d.wYTD, sum) {
		f.violate("W_ID=%d: W_YTD=%.2f, sum(H_AMOUNT)=%.2f", d.w, d.wYTD, sum)
	}
	return f
}

// check3329 is TPC-C 3.3.2.9: "Entries in the DISTRICT and HISTORY tables
// must satisfy the relationship: D_YTD = sum(H_AMOUNT) for each district
// defined by (D_W_ID, D_ID) = (H_W_ID, H_D_ID)."
func check3329(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	dist, hist := d.districtMap(), d.historyByDistrict()
	for _, id := range unionKeys(maps.Keys(dist), maps.Keys(hist)) {
		r, ok := dist[id]
		if !ok {
			f.violate("W_ID=%d D_ID=%d: no DISTRICT row, sum(H_AMOUNT)=%.2f", d.w, id, hist[id])
			continue
		}
		if !moneyEqual(2, r.YTD, hist[id]) {
			f.violate("W_ID=%d D_ID=%d: D_YTD=%.2f, sum(H_AMOUNT)=%.2f", d.w, id, r.YTD, hist[id])
		}
	}
	return f
}

// check33210 is TPC-C 3.3.2.10: "Entries in the CUSTOMER, HISTORY, ORDER,
// and ORDER-LINE tables must satisfy the relationship: C_BALANCE =
// sum(OL_AMOUNT) - sum(H_AMOUNT) where H_AMOUNT is selected by (C_W_ID,
// C_D_ID, C_ID) = (H_C_W_ID, H_C_D_ID, H_C_ID) and OL_AMOUNT is selected by
// (OL_W_ID, OL_D_ID, OL_O_ID) = (O_W_ID, O_D_ID, O_ID) and (O_W_ID, O_D_ID,
// O_C_ID) = (C_W_ID, C_D_ID, C_ID) and (OL_DELIVERY_D is not a null value)."
func check33210(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	cust := d.customerMap()
	delivered, hist := d.deliveredByCustomer(), d.historyByCustomer()
	for _, k := range sortedCustKeys(delivered, hist) {
		if _, ok := cust[k]; !ok {
			f.violate("W_ID=%d D_ID=%d C_ID=%d: no CUSTOMER row, sum(OL_AMOUNT)=%.2f, sum(H_AMOUNT)=%.2f", d.w, k.D, k.C, delivered[k], hist[k])
		}
	}
	for _, c := range d.customers {
		k := custKey{c.D, c.C}
		if !moneyEqual(3, c.Balance, delivered[k]-hist[k]) {
			f.violate("W_ID=%d D_ID=%d C_ID=%d: C_BALANCE=%.2f, sum(OL_AMOUNT)-sum(H_AMOUNT)=%.2f-%.2f=%.2f",
				d.w, k.D, k.C, c.Balance, delivered[k], hist[k], delivered[k]-hist[k])
		}
	}
	return f
}

// check33212 is TPC-C 3.3.2.12: "Entries in the CUSTOMER and ORDER-LINE
// tables must satisfy the relationship: C_BALANCE + C_YTD_PAYMENT =
// sum(OL_AMOUNT) for any randomly selected customers and where OL_DELIVERY_D
// is not set to a null date/time." Checked for every customer.
func check33212(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	cust := d.customerMap()
	delivered := d.deliveredByCustomer()
	for _, k := range sortedCustKeys(delivered) {
		if _, ok := cust[k]; !ok {
			f.violate("W_ID=%d D_ID=%d C_ID=%d: no CUSTOMER row, sum(OL_AMOUNT)=%.2f", d.w, k.D, k.C, delivered[k])
		}
	}
	for _, c := range d.customers {
		k := custKey{c.D, c.C}
		if !moneyEqual(3, c.Balance+c.YTDPayment, delivered[k]) {
			f.violate("W_ID=%d D_ID=%d C_ID=%d: C_BALANCE+C_YTD_PAYMENT=%.2f+%.2f=%.2f, sum(OL_AMOUNT)=%.2f",
				d.w, k.D, k.C, c.Balance, c.YTDPayment, c.Balance+c.YTDPayment, delivered[k])
		}
	}
	return f
}
