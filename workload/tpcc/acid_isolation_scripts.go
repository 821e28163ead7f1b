package tpcc

import (
	"context"
	"time"
)

// Isolation tests 1 to 6 (clauses 3.4.2.1 to 3.4.2.6): scripts on
// interleaving whose held transaction T1 makes its writes and is stopped
// immediately prior to COMMIT while T2 runs, then commits (1, 3, 5) or
// rolls back (2, 4, 6). Each runs in its own district of the test
// warehouse (acidEnv.district); a script reads the state before, builds
// its interleaving and runs it.

// ---- 3.4.2.1 and 3.4.2.2: New-Order vs Order-Status ----

func testIsolation1(ctx context.Context, e *acidEnv) acidFinding {
	return isolationNewOrderStatus(ctx, e, e.district(1), true)
}

func testIsolation2(ctx context.Context, e *acidEnv) acidFinding {
	return isolationNewOrderStatus(ctx, e, e.district(2), false)
}

// isolationNewOrderStatus runs clause 3.4.2.1 (commit) or 3.4.2.2:
// Order-Status T0, then New-Order T1 stopped before its commit while
// Order-Status T2 reads the same customer, then Order-Status T3. Planted:
// T1 runs without a transaction.
func isolationNewOrderStatus(ctx context.Context, e *acidEnv, d int, commit bool) acidFinding {
	var f acidFinding
	ws, err := e.workersN(2, nil)
	if err != nil {
		return failed(f, "workers", err)
	}
	w1, w2 := ws[0], ws[1]
	o := orderStatusObs{Committed: commit}
	if o.T0, err = orderStatusTxnOf(ctx, w2, d, isolationCustomer); err != nil {
		return failed(f, "Order-Status T0", err)
	}
	return interleaving{
		held: heldTxn{name: "New-Order T1", endName: "New-Order T1's end", w: w1, plain: e.planted, commit: commit,
			first: func(ctx context.Context) error {
				res, err := w1.newOrder(ctx, newOrderOf(e, d, isolationCustomer, 1, 2, 3, 4, 5))
				o.T1 = res.OID
				return err
			}},
		concurrent: concurrentTxn{w: w2, mode: bgRetry, body: func(ctx context.Context) (err error) {
			o.T2, err = lastOrder(ctx, w2, d, isolationCustomer)
			return err
		}},
		observe: func(ctx context.Context, t2 concurrentOutcome) (err error) {
			o.T2Waited, o.T2Err = !t2.first, errString(t2.err)
			o.T3, err = orderStatusTxnOf(ctx, w2, d, isolationCustomer)
			return stepErr("Order-Status T3", err)
		},
		check: func() []string { return checkNewOrderVsOrderStatus(o) },
		note: func(f *acidFinding, _ concurrentOutcome) {
			if o.T2Waited {
				f.note("case A: Order-Status T2 waited for New-Order T1 (O_ID=%d) and returned O_ID=%d", o.T1, o.T2)
			} else {
				f.note("T2 was not blocked by T1: Order-Status T2 returned T0's O_ID=%d while New-Order T1 (O_ID=%d) was stopped before its commit", o.T2, o.T1)
			}
			f.note("T1 %s, then Order-Status T3 returned O_ID=%d", endedAs(commit), o.T3)
		},
	}.run(ctx)
}

// ---- 3.4.2.3 and 3.4.2.4: New-Order vs New-Order on one district ----

func testIsolation3(ctx context.Context, e *acidEnv) acidFinding {
	return isolationNewOrders(ctx, e, e.district(3), true)
}

func testIsolation4(ctx context.Context, e *acidEnv) acidFinding {
	return isolationNewOrders(ctx, e, e.district(4), false)
}

// isolationNewOrders runs clause 3.4.2.3 (commit) or 3.4.2.4: New-Order
// T1 stopped before its commit while New-Order T2 of another customer
// takes the district's next order number. Planted in 3: T2 runs without a
// transaction, reading D_NEXT_O_ID before its update (no findAndModify);
// in 4: T1 runs without a transaction.
func isolationNewOrders(ctx context.Context, e *acidEnv, d int, commit bool) acidFinding {
	var f acidFinding
	plantT1, plantT2 := e.planted && !commit, e.planted && commit
	w1, err := e.worker(nil)
	if err != nil {
		return failed(f, "worker", err)
	}
	w2, err := e.worker(func(c *Config) { c.FindAndModify = c.FindAndModify && !plantT2 })
	if err != nil {
		return failed(f, "worker", err)
	}
	o := newOrderPairObs{Committed: commit}
	if o.Before, err = nextOrderID(ctx, w1, d); err != nil {
		return failed(f, "read D_NEXT_O_ID", err)
	}
	c1, c2 := isolationCustomer, isolationCustomer+1
	mode := bgRetry
	if plantT2 {
		mode = bgPlain
	}
	return interleaving{
		held: heldTxn{name: "New-Order T1", endName: "New-Order T1's end", w: w1, plain: plantT1, commit: commit,
			first: func(ctx context.Context) error {
				res, err := w1.newOrder(ctx, newOrderOf(e, d, c1, 1, 2, 3, 4, 5))
				o.T1 = res.OID
				return err
			}},
		concurrent: concurrentTxn{w: w2, mode: mode, body: func(ctx context.Context) error {
			res, err := w2.newOrder(ctx, newOrderOf(e, d, c2, 6, 7, 8, 9, 10))
			o.T2 = res.OID
			return err
		}},
		observe: func(ctx context.Context, t2 concurrentOutcome) (err error) {
			o.T2Err = errString(t2.err)
			if o.After, err = nextOrderID(ctx, w1, d); err != nil {
				return stepErr("read D_NEXT_O_ID", err)
			}
			n1, err := countOrders(ctx, w1, d, o.T1, c1)
			if err != nil {
				return stepErr("count orders", err)
			}
			o.T1Stored = n1 > 0
			o.T2Orders, err = countOrders(ctx, w1, d, o.T2, 0)
			return stepErr("count orders", err)
		},
		check: func() []string { return checkNewOrderPair(o) },
		note: func(f *acidFinding, t2 concurrentOutcome) {
			switch {
			case t2.first:
				f.note("New-Order T2 finished before T1 ended")
			case t2.conflicts > 0:
				f.note("New-Order T2 met T1's uncommitted D_NEXT_O_ID: %d WriteConflict(s), retried until T1 ended (case: T2 waits)", t2.conflicts)
			default:
				f.note("New-Order T2 was blocked until T1 ended")
			}
			f.note("T1 took O_ID=%d and %s; T2 took O_ID=%d; D_NEXT_O_ID %d -> %d", o.T1, endedAs(commit), o.T2, o.Before, o.After)
		},
	}.run(ctx)
}

// ---- 3.4.2.5 and 3.4.2.6: Delivery vs Payment on one customer ----

func testIsolation5(ctx context.Context, e *acidEnv) acidFinding {
	return isolationDeliveryPayment(ctx, e, e.district(5), true)
}

func testIsolation6(ctx context.Context, e *acidEnv) acidFinding {
	return isolationDeliveryPayment(ctx, e, e.district(6), false)
}

// isolationDeliveryPayment runs clause 3.4.2.5 (commit) or 3.4.2.6:
// Delivery T1 stopped before its commit while Payment T2 pays for the
// customer of the order T1 delivers. Planted in 5: T2 makes one attempt
// and its write conflict is dropped; in 6: T1 runs without a transaction.
func isolationDeliveryPayment(ctx context.Context, e *acidEnv, d int, commit bool) acidFinding {
	var f acidFinding
	ws, err := e.workersN(2, nil)
	if err != nil {
		return failed(f, "workers", err)
	}
	w1, w2 := ws[0], ws[1]
	o := deliveryPaymentObs{Committed: commit, Paid: 100}
	oid, err := oldestUndelivered(ctx, w2, d)
	if err != nil {
		return failed(f, "find an undelivered order", err)
	}
	o.WantOrder = oid
	ord, err := readOrder(ctx, w1, d, oid)
	if err != nil {
		return failed(f, "read the order", err)
	}
	for _, l := range ord.Lines {
		o.Delivered += l.Amount
	}
	if o.Before, err = readCustomerMoney(ctx, w1, d, ord.CID); err != nil {
		return failed(f, "read the customer", err)
	}
	mode := bgRetry
	if e.planted && commit {
		mode = bgOnce
	}
	pay := paymentInput{WID: e.wID, DID: d, CWID: e.wID, CDID: d, CID: ord.CID, Amount: o.Paid, Date: time.Now().UTC()}
	return interleaving{
		held: heldTxn{name: "Delivery T1", endName: "Delivery T1's end", w: w1, plain: e.planted && !commit, commit: commit,
			first: func(ctx context.Context) error {
				res, err := w1.delivery(ctx, deliveryInput{WID: e.wID, CarrierID: 1, Date: time.Now().UTC()})
				o.T1Delivered = res.Delivered[d-1]
				return err
			}},
		concurrent: concurrentTxn{w: w2, mode: mode, body: func(ctx context.Context) error {
			_, err := w2.payment(ctx, pay)
			return err
		}},
		observe: func(ctx context.Context, t2 concurrentOutcome) (err error) {
			if t2.err != nil && mode != bgOnce {
				o.T2Err = t2.err.Error()
			}
			o.After, err = readCustomerMoney(ctx, w1, d, ord.CID)
			return stepErr("read the customer", err)
		},
		check: func() []string { return checkDeliveryPayment(o) },
		note: func(f *acidFinding, t2 concurrentOutcome) {
			switch {
			case t2.first:
				f.note("Payment T2 finished before Delivery T1 ended")
			case t2.conflicts > 0:
				f.note("Payment T2 met T1's uncommitted C_BALANCE: %d WriteConflict(s), retried until T1 ended (case: T2 waits)", t2.conflicts)
			default:
				f.note("Payment T2 was blocked until T1 ended")
			}
			f.note("Delivery T1 of O_ID=%d (%.2f) %s, Payment T2 of %.2f: C_BALANCE %.2f -> %.2f",
				oid, o.Delivered, endedAs(commit), o.Paid, o.Before.Balance, o.After.Balance)
		},
	}.run(ctx)
}
