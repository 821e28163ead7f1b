package tpcc

import (
	"context"
	"math"
	"time"
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
