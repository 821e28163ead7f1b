package tpcc

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// check3322 is TPC-C 3.3.2.2: "Entries in the DISTRICT, ORDER, and NEW-ORDER
// tables must satisfy the relationship: D_NEXT_O_ID - 1 = max(O_ID) =
// max(NO_O_ID) for each district defined by (D_W_ID = O_W_ID = NO_W_ID) and
// (D_ID = O_D_ID = NO_D_ID)." max(NO_O_ID) is compared only for a district
// that has NEW_ORDER rows (all its orders may be delivered).
func check3322(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	maxO := map[int]int{}
	for _, o := range d.orders {
		maxO[o.D] = max(maxO[o.D], o.O)
	}
	no := d.newOrderStats()
	dist := d.districtMap()
	for _, id := range unionKeys(maps.Keys(dist), maps.Keys(maxO), maps.Keys(no)) {
		r, ok := dist[id]
		if !ok {
			f.violate("W_ID=%d D_ID=%d: no DISTRICT row, max(O_ID)=%d", d.w, id, maxO[id])
			continue
		}
		s, hasNO := no[id]
		if r.NextOID-1 != maxO[id] || (hasNO && s.max != maxO[id]) {
			maxNO := "none"
			if hasNO {
				maxNO = fmt.Sprint(s.max)
			}
			f.violate("W_ID=%d D_ID=%d: D_NEXT_O_ID-1=%d, max(O_ID)=%d, max(NO_O_ID)=%s", d.w, id, r.NextOID-1, maxO[id], maxNO)
		}
	}
	return f
}

// check3323 is TPC-C 3.3.2.3: "Entries in the NEW-ORDER table must satisfy
// the relationship: max(NO_O_ID) - min(NO_O_ID) + 1 = [number of rows in the
// NEW-ORDER table for this district] for each district defined by NO_W_ID
// and NO_D_ID." A district without NEW_ORDER rows satisfies it.
func check3323(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	no := d.newOrderStats()
	for _, id := range unionKeys(maps.Keys(no)) {
		s := no[id]
		if s.max-s.min+1 != s.n {
			f.violate("W_ID=%d D_ID=%d: max(NO_O_ID)-min(NO_O_ID)+1=%d (max %d, min %d), count(NEW_ORDER)=%d",
				d.w, id, s.max-s.min+1, s.max, s.min, s.n)
		}
	}
	return f
}

// check3324 is TPC-C 3.3.2.4: "Entries in the ORDER and ORDER-LINE tables
// must satisfy the relationship: sum(O_OL_CNT) = [number of rows in the
// ORDER-LINE table for this district] for each district defined by
// (O_W_ID = OL_W_ID) and (O_D_ID = OL_D_ID)." Denormalized, the rows are the
// elements of the orders' ORDER_LINE arrays.
func check3324(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	cnt, lines := map[int]int64{}, map[int]int64{}
	for _, o := range d.orders {
		cnt[o.D] += int64(o.OLCnt)
		lines[o.D] += o.Lines
	}
	for id, n := range d.orphanLines {
		lines[id] += n
	}
	for _, id := range unionKeys(maps.Keys(cnt), maps.Keys(lines)) {
		if cnt[id] != lines[id] {
			f.violate("W_ID=%d D_ID=%d: sum(O_OL_CNT)=%d, order lines=%d", d.w, id, cnt[id], lines[id])
		}
	}
	return f
}

// check3325 is TPC-C 3.3.2.5: "For any row in the ORDER table, O_CARRIER_ID
// is set to a null value if and only if there is a corresponding row in the
// NEW-ORDER table defined by (O_W_ID, O_D_ID, O_ID) = (NO_W_ID, NO_D_ID,
// NO_O_ID)." The null carrier is 0. A NEW_ORDER row without its order also
// violates it.
func check3325(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	no := d.newOrderSet()
	for _, o := range d.orders {
		k := orderKey{o.D, o.O}
		if (o.Carrier == 0) != no[k] {
			f.violate("W_ID=%d D_ID=%d O_ID=%d: O_CARRIER_ID=%d, NEW_ORDER row exists=%t", d.w, o.D, o.O, o.Carrier, no[k])
		}
		delete(no, k)
	}
	orphans := slices.SortedFunc(maps.Keys(no), func(a, b orderKey) int { return cmp.Or(cmp.Compare(a.D, b.D), cmp.Compare(a.O, b.O)) })
	for _, k := range orphans {
		f.violate("W_ID=%d D_ID=%d NO_O_ID=%d: NEW_ORDER row without an ORDERS row", d.w, k.D, k.O)
	}
	return f
}

// check3326 is TPC-C 3.3.2.6: "For any row in the ORDER table, O_OL_CNT must
// equal the number of rows in the ORDER-LINE table for the corresponding
// order defined by (O_W_ID, O_D_ID, O_ID) = (OL_W_ID, OL_D_ID, OL_O_ID)."
func check3326(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	for _, o := range d.orders {
		if int64(o.OLCnt) != o.Lines {
			f.violate("W_ID=%d D_ID=%d O_ID=%d: O_OL_CNT=%d, order lines=%d", d.w, o.D, o.O, o.OLCnt, o.Lines)
		}
	}
	return f
}

// check3327 is TPC-C 3.3.2.7: "For any row in the ORDER-LINE table,
// OL_DELIVERY_D is set to a null date/time if and only if the corresponding
// row in the ORDER table defined by (O_W_ID, O_D_ID, O_ID) = (OL_W_ID,
// OL_D_ID, OL_O_ID) has O_CARRIER_ID set to a null value." Checked per
// order: every line null when the carrier is 0, none null otherwise.
func check3327(d *checkData, _ Scale) checkFinding {
	var f checkFinding
	for _, o := range d.orders {
		switch {
		case o.Carrier == 0 && o.Undelivered != o.Lines:
			f.violate("W_ID=%d D_ID=%d O_ID=%d: O_CARRIER_ID null, but %d of %d lines have OL_DELIVERY_D set",
				d.w, o.D, o.O, o.Lines-o.Undelivered, o.Lines)
		case o.Carrier != 0 && o.Undelivered != 0:
			f.violate("W_ID=%d D_ID=%d O_ID=%d: O_CARRIER_ID=%d, but %d of %d lines have OL_DELIVERY_D null",
				d.w, o.D, o.O, o.Carrier, o.Undelivered, o.Lines)
		}
	}
	return f
}

// check33211 is TPC-C 3.3.2.11: "Entries in the CUSTOMER, ORDER and
// NEW-ORDER tables must satisfy the relationship: (count(*) from ORDER) -
// (count(*) from NEW-ORDER) = 2100 for each district defined by (O_W_ID,
// O_D_ID) = (NO_W_ID, NO_D_ID) = (C_W_ID, C_D_ID)." 2100 is Customers -
// NewOrders at other scales.
//
// New-Order keeps the difference (one ORDERS and one NEW_ORDER row), only
// Delivery changes it, so the condition holds until the first Delivery. A
// district has seen a Delivery iff one of its orders numbered from the first
// undelivered order of the load (Customers - NewOrders + 1) has a carrier:
// the load leaves them all undelivered, Delivery always delivers the oldest
// undelivered order, and nothing clears a carrier. Such districts are
// skipped; the condition is Skipped when any district was and none failed.
func check33211(d *checkData, sc Scale) checkFinding {
	var f checkFinding
	want := sc.Customers - sc.NewOrders
	orders, delivered := map[int]int{}, map[int]orderRow{}
	for _, o := range d.orders {
		orders[o.D]++
		if _, ok := delivered[o.D]; !ok && o.O >= sc.firstNewOrder() && o.Carrier != 0 {
			delivered[o.D] = o
		}
	}
	no := d.newOrderStats()
	for _, id := range unionKeys(maps.Keys(orders), maps.Keys(no)) {
		if o, ok := delivered[id]; ok {
			if f.skip == "" {
				f.skip = fmt.Sprintf("a Delivery has run (W_ID=%d D_ID=%d: O_ID=%d has O_CARRIER_ID=%d); the condition holds only until the first Delivery",
					d.w, id, o.O, o.Carrier)
			}
			continue
		}
		if got := orders[id] - no[id].n; got != want {
			f.violate("W_ID=%d D_ID=%d: count(ORDERS)-count(NEW_ORDER)=%d-%d=%d, want %d",
				d.w, id, orders[id], no[id].n, got, want)
		}
	}
	return f
}
