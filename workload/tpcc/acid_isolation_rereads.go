package tpcc

import (
	"context"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Isolation tests 7 to 9 (clauses 3.4.2.7 to 3.4.2.9): scripts on
// interleaving whose held transaction reads, lets the concurrent one run,
// and reads again (its then step) before it commits: it must read what it
// read before, with no non-repeatable read (7) and no phantom (8, 9).

// ---- 3.4.2.7: repeatable reads of item prices ----

// testIsolation7 is clause 3.4.2.7: T1 reads the prices of items x and y
// and commits; New-Order T2 reads x and is held open while T3 raises both
// prices by 10%; T2 then reads x and y again and orders them; T4 reads the
// prices at the end. The held transaction is T2, the concurrent one T3.
// Planted: T2 continues outside its transaction after T3.
func testIsolation7(ctx context.Context, e *acidEnv) (f acidFinding) {
	d := e.district(7)
	ws, err := e.workersN(3, nil)
	if err != nil {
		return failed(f, "workers", err)
	}
	w1, w2, w3 := ws[0], ws[1], ws[2]
	x, y := 11, 12
	var o priceObs
	t1 := beginTxn(ctx, w1, false)
	if err := t1.do(func(ctx context.Context) (err error) { o.T1, err = readPrices(ctx, w1, x, y); return err }); err != nil {
		return failed(f, "T1", err)
	}
	if err := t1.end(true); err != nil {
		return failed(f, "T1", err)
	}
	// Set the prices back however the test ends.
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := setPrices(rctx, w1, x, y, o.T1); err != nil {
			f.violate("set the prices of items %d and %d back to %.2f and %.2f: %v", x, y, o.T1[0], o.T1[1], err)
		}
	}()
	o.T3 = [2]float64{math.Round(o.T1[0]*110) / 100, math.Round(o.T1[1]*110) / 100}
	var oid int
	return interleaving{
		held: heldTxn{name: "New-Order T2", endName: "New-Order T2's commit", w: w2, commit: true,
			first: func(ctx context.Context) error {
				p, err := readPrices(ctx, w2, x)
				o.T2First = p[0]
				return err
			},
			then: func(sctx context.Context) (err error) {
				if e.planted {
					sctx = ctx
				}
				if o.T2Second, err = readPrices(sctx, w2, x, y); err != nil {
					return err
				}
				res, err := w2.newOrder(sctx, newOrderOf(e, d, isolationCustomer, x, y, x))
				oid = res.OID
				return err
			}},
		concurrent: concurrentTxn{w: w3, mode: bgRetry, body: func(ctx context.Context) error { return setPrices(ctx, w3, x, y, o.T3) }},
		observe: func(ctx context.Context, t3 concurrentOutcome) (err error) {
			o.T3Committed = t3.err == nil
			if o.T4, err = readPrices(ctx, w1, x, y); err != nil {
				return stepErr("T4", err)
			}
			ord, err := readOrder(ctx, w1, d, oid)
			if err != nil {
				return stepErr("read New-Order T2's order", err)
			}
			for _, l := range ord.Lines {
				for i, id := range [2]int{x, y} {
					if l.IID == id && l.Quantity > 0 {
						o.T2Charged[i] = l.Amount / float64(l.Quantity)
					}
				}
			}
			return nil
		},
		check: func() []string { return checkRepeatablePrices(o) },
		note: func(f *acidFinding, t3 concurrentOutcome) {
			switch {
			case t3.first && o.T3Committed:
				f.note("case D: T3 was not blocked and committed prices %.2f, %.2f while New-Order T2 was open", o.T3[0], o.T3[1])
			case !o.T3Committed:
				f.note("case C: T3 rolled back (%v)", t3.err)
			default:
				f.note("case A: T3 waited for New-Order T2's commit")
			}
			f.note("T2 read and charged x=%d at %.2f and y=%d at %.2f both times; T4 read %.2f, %.2f", x, o.T2Second[0], y, o.T2Second[1], o.T4[0], o.T4[1])
		},
	}.run(ctx)
}

// ---- 3.4.2.8: phantom, Delivery vs New-Order ----

// testIsolation8 is clause 3.4.2.8: Delivery T1 reads the NEW_ORDER rows
// of an emptied district and is held open while New-Order T2 inserts one
// there; T1 then delivers and commits. The clause empties the district by
// removing its NEW_ORDER rows; this test delivers them with Delivery
// transactions, so the database stays consistent (clause 3.3.2). Planted:
// T1 continues outside its transaction.
func testIsolation8(ctx context.Context, e *acidEnv) acidFinding {
	var f acidFinding
	d := e.district(8)
	ws, err := e.workersN(3, nil)
	if err != nil {
		return failed(f, "workers", err)
	}
	w1, w2, w3 := ws[0], ws[1], ws[2]
	emptied, err := emptyDistrict(ctx, w3, d)
	if err != nil {
		return failed(f, "empty the district", err)
	}
	var o deliveryPhantomObs
	return interleaving{
		held: heldTxn{name: "Delivery T1", endName: "Delivery T1's commit", w: w1, commit: true,
			first: func(ctx context.Context) (err error) {
				// The Delivery's own read of the district (clause 2.7.4.2).
				_, o.FirstFound, err = w1.takeNewOrder(ctx, e.wID, d)
				return err
			},
			then: func(sctx context.Context) error {
				if e.planted {
					sctx = ctx
				}
				res, err := w1.delivery(sctx, deliveryInput{WID: e.wID, CarrierID: 2, Date: time.Now().UTC()})
				o.T1Delivered = res.Delivered[d-1]
				return err
			}},
		concurrent: concurrentTxn{w: w2, mode: bgRetry, body: func(ctx context.Context) error {
			res, err := w2.newOrder(ctx, newOrderOf(e, d, isolationCustomer, 1, 2, 3))
			o.T2 = res.OID
			return err
		}},
		observe: func(ctx context.Context, t2 concurrentOutcome) error {
			o.T2Err = errString(t2.err)
			if o.T2Err != "" {
				return nil // T2 stored no order to look at
			}
			ord, err := readOrder(ctx, w1, d, o.T2)
			if err != nil {
				return stepErr("read New-Order T2's order", err)
			}
			n, err := w1.newOrders.CountDocuments(ctx, bson.D{{Key: "NO_W_ID", Value: e.wID}, {Key: "NO_D_ID", Value: d}, {Key: "NO_O_ID", Value: o.T2}})
			if err != nil {
				return stepErr("count NEW_ORDER rows", err)
			}
			o.T2Undelivered = ord.CarrierID == 0 && n == 1
			return nil
		},
		check: func() []string { return checkDeliveryPhantom(o) },
		note: func(f *acidFinding, t2 concurrentOutcome) {
			if t2.first {
				f.note("case B: New-Order T2 was not blocked by Delivery T1 and committed O_ID=%d", o.T2)
			} else {
				f.note("case A: New-Order T2 waited for Delivery T1")
			}
			f.note("the district was emptied by %d Delivery transactions; T1 found no undelivered order before or after T2 and left O_ID=%d undelivered", emptied, o.T2)
		},
	}.run(ctx)
}

// ---- 3.4.2.9: phantom, Order-Status vs New-Order ----

// testIsolation9 is clause 3.4.2.9: Order-Status T1 reads a customer's
// last order and is held open while New-Order T2 orders for the same
// customer; T1 then reads again and commits; Order-Status T3 reads at the
// end. Planted: T1 reads again outside its transaction.
func testIsolation9(ctx context.Context, e *acidEnv) acidFinding {
	var f acidFinding
	d := e.district(9)
	ws, err := e.workersN(2, nil)
	if err != nil {
		return failed(f, "workers", err)
	}
	w1, w2 := ws[0], ws[1]
	var o orderPhantomObs
	return interleaving{
		held: heldTxn{name: "Order-Status T1", endName: "Order-Status T1's commit", w: w1, commit: true,
			first: func(ctx context.Context) (err error) {
				o.First, err = lastOrder(ctx, w1, d, isolationCustomer)
				return err
			},
			then: func(sctx context.Context) (err error) {
				if e.planted {
					sctx = ctx
				}
				o.Second, err = lastOrder(sctx, w1, d, isolationCustomer)
				return err
			}},
		concurrent: concurrentTxn{w: w2, mode: bgRetry, body: func(ctx context.Context) error {
			res, err := w2.newOrder(ctx, newOrderOf(e, d, isolationCustomer, 1, 2, 3))
			o.T2 = res.OID
			return err
		}},
		observe: func(ctx context.Context, t2 concurrentOutcome) (err error) {
			o.T2Err = errString(t2.err)
			o.T3, err = orderStatusTxnOf(ctx, w1, d, isolationCustomer)
			return stepErr("Order-Status T3", err)
		},
		check: func() []string { return checkOrderPhantom(o) },
		note: func(f *acidFinding, t2 concurrentOutcome) {
			if t2.first {
				f.note("case B: New-Order T2 was not blocked by Order-Status T1 and committed O_ID=%d", o.T2)
			} else {
				f.note("case A: New-Order T2 waited for Order-Status T1")
			}
			f.note("T1 read the customer's last order as O_ID=%d before and after; T3 returned O_ID=%d", o.First, o.T3)
		},
	}.run(ctx)
}
