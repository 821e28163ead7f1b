package tpcc

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The atomicity tests of TPC-C clause 3.2.2, which the TPC-C-on-MongoDB
// paper performed by hand (§4.6.3): a Payment for a customer chosen by
// number (clause 2.5.1.2) committed must change WAREHOUSE, DISTRICT and
// CUSTOMER appropriately (3.2.2.1); the same Payment with a ROLLBACK in
// place of its COMMIT must change none of them (3.2.2.2). Both also look
// for the Payment's HISTORY row.

// paymentState is what a Payment changes: the warehouse's and district's
// year-to-date, the customer's balance, year-to-date payment and payment
// count, and the number of HISTORY rows of this very payment (customer,
// district, date and amount).
type paymentState struct {
	WYTD, DYTD, Balance, YTDPayment float64
	PaymentCnt                      int
	History                         int64
}

// checkPaymentCommitted lists what differs from a committed Payment of
// amount (clause 3.2.2.1): W_YTD and D_YTD up by amount, C_BALANCE down,
// C_YTD_PAYMENT up, C_PAYMENT_CNT up by one, one HISTORY row.
func checkPaymentCommitted(before, after paymentState, amount float64) []string {
	var v []string
	money := func(name string, got, want float64) {
		if !moneyEqual(1, got, want) {
			v = append(v, fmt.Sprintf("%s is %.2f after the commit, want %.2f", name, got, want))
		}
	}
	money("W_YTD", after.WYTD, before.WYTD+amount)
	money("D_YTD", after.DYTD, before.DYTD+amount)
	money("C_BALANCE", after.Balance, before.Balance-amount)
	money("C_YTD_PAYMENT", after.YTDPayment, before.YTDPayment+amount)
	if after.PaymentCnt != before.PaymentCnt+1 {
		v = append(v, fmt.Sprintf("C_PAYMENT_CNT is %d after the commit, want %d", after.PaymentCnt, before.PaymentCnt+1))
	}
	if n := after.History - before.History; n != 1 {
		v = append(v, fmt.Sprintf("%d HISTORY rows of the payment after the commit, want 1", n))
	}
	return v
}

// checkPaymentRolledBack lists what a rolled-back Payment changed (clause
// 3.2.2.2): nothing may differ.
func checkPaymentRolledBack(before, after paymentState) []string {
	var v []string
	money := func(name string, b, a float64) {
		if !moneyEqual(1, a, b) {
			v = append(v, fmt.Sprintf("%s changed from %.2f to %.2f by a rolled-back Payment", name, b, a))
		}
	}
	money("W_YTD", before.WYTD, after.WYTD)
	money("D_YTD", before.DYTD, after.DYTD)
	money("C_BALANCE", before.Balance, after.Balance)
	money("C_YTD_PAYMENT", before.YTDPayment, after.YTDPayment)
	if after.PaymentCnt != before.PaymentCnt {
		v = append(v, fmt.Sprintf("C_PAYMENT_CNT changed from %d to %d by a rolled-back Payment", before.PaymentCnt, after.PaymentCnt))
	}
	if n := after.History - before.History; n != 0 {
		v = append(v, fmt.Sprintf("%d HISTORY rows added by a rolled-back Payment", n))
	}
	return v
}

// readPaymentState reads in's warehouse, district and customer (by C_ID)
// and counts the HISTORY rows of exactly this payment.
func readPaymentState(ctx context.Context, w *worker, in paymentInput) (paymentState, error) {
	var s paymentState
	var wh struct {
		YTD float64 `bson:"W_YTD"`
	}
	if err := w.warehouse.FindOne(ctx, bson.D{{Key: "W_ID", Value: in.WID}}).Decode(&wh); err != nil {
		return s, found(err, "warehouse W_ID=%d", in.WID)
	}
	var d struct {
		YTD float64 `bson:"D_YTD"`
	}
	if err := w.district.FindOne(ctx, bson.D{{Key: "D_W_ID", Value: in.WID}, {Key: "D_ID", Value: in.DID}}).Decode(&d); err != nil {
		return s, found(err, "district W_ID=%d D_ID=%d", in.WID, in.DID)
	}
	var c struct {
		Balance    float64 `bson:"C_BALANCE"`
		YTDPayment float64 `bson:"C_YTD_PAYMENT"`
		PaymentCnt int     `bson:"C_PAYMENT_CNT"`
	}
	if err := w.customer.FindOne(ctx, bson.D{{Key: "C_W_ID", Value: in.CWID}, {Key: "C_D_ID", Value: in.CDID}, {Key: "C_ID", Value: in.CID}}).Decode(&c); err != nil {
		return s, found(err, "customer W_ID=%d D_ID=%d C_ID=%d", in.CWID, in.CDID, in.CID)
	}
	n, err := w.history.CountDocuments(ctx, bson.D{{Key: "H_C_W_ID", Value: in.CWID}, {Key: "H_C_D_ID", Value: in.CDID},
		{Key: "H_C_ID", Value: in.CID}, {Key: "H_W_ID", Value: in.WID}, {Key: "H_D_ID", Value: in.DID},
		{Key: "H_DATE", Value: in.Date}, {Key: "H_AMOUNT", Value: in.Amount}})
	if err != nil {
		return s, fmt.Errorf("count HISTORY rows: %w", err)
	}
	return paymentState{WYTD: wh.YTD, DYTD: d.YTD, Balance: c.Balance, YTDPayment: c.YTDPayment, PaymentCnt: c.PaymentCnt, History: n}, nil
}

// atomicityPayment is the Payment both tests run: by customer number
// (clause 3.2.2), through the home district, with a date that marks its
// HISTORY row.
func atomicityPayment(e *acidEnv, cid int, amount float64) paymentInput {
	d := e.district(10)
	return paymentInput{WID: e.wID, DID: d, CWID: e.wID, CDID: d, CID: cid, Amount: amount,
		Date: time.Now().UTC().Truncate(time.Millisecond)}
}

// testAtomicityCommit is clause 3.2.2.1. Planted: the Payment's
// transaction is aborted in place of its commit, yet taken as committed.
func testAtomicityCommit(ctx context.Context, e *acidEnv) acidFinding {
	var f acidFinding
	w, err := e.worker(nil)
	if err != nil {
		return failed(f, "worker", err)
	}
	in := atomicityPayment(e, 1, 1234.56)
	before, err := readPaymentState(ctx, w, in)
	if err != nil {
		return failed(f, "read before", err)
	}
	if e.planted {
		t := beginTxn(ctx, w, false)
		if err := t.do(func(ctx context.Context) error { _, err := w.payment(ctx, in); return err }); err != nil {
			return failed(f, "Payment", err)
		}
		if err := t.end(false); err != nil {
			return failed(f, "Payment", err)
		}
	} else if _, _, err := w.paymentTxn(ctx, in); err != nil {
		return failed(f, "Payment", err)
	}
	after, err := readPaymentState(ctx, w, in)
	if err != nil {
		return failed(f, "read after", err)
	}
	f.violations = checkPaymentCommitted(before, after, in.Amount)
	f.note("Payment of %.2f for customer W_ID=%d D_ID=%d C_ID=%d committed: W_YTD, D_YTD, C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT changed by it and its HISTORY row exists",
		in.Amount, in.CWID, in.CDID, in.CID)
	return f
}

// testAtomicityRollback is clause 3.2.2.2: the Payment's every step runs in
// a transaction that is then rolled back. Planted: no transaction.
func testAtomicityRollback(ctx context.Context, e *acidEnv) acidFinding {
	var f acidFinding
	w, err := e.worker(nil)
	if err != nil {
		return failed(f, "worker", err)
	}
	in := atomicityPayment(e, 2, 2345.67)
	before, err := readPaymentState(ctx, w, in)
	if err != nil {
		return failed(f, "read before", err)
	}
	t := beginTxn(ctx, w, e.planted)
	if err := t.do(func(ctx context.Context) error { _, err := w.payment(ctx, in); return err }); err != nil {
		return failed(f, "Payment", err)
	}
	// The Payment's writes are done: it sees them itself.
	if err := t.do(func(ctx context.Context) error {
		inside, err := readPaymentState(ctx, w, in)
		if err == nil && inside.History != before.History+1 {
			err = fmt.Errorf("the Payment does not see its own HISTORY row")
		}
		return err
	}); err != nil {
		return failed(f, "Payment", err)
	}
	if err := t.end(false); err != nil {
		return failed(f, "rollback", err)
	}
	after, err := readPaymentState(ctx, w, in)
	if err != nil {
		return failed(f, "read after", err)
	}
	f.violations = checkPaymentRolledBack(before, after)
	f.note("Payment of %.2f for customer W_ID=%d D_ID=%d C_ID=%d rolled back before its commit: nothing changed, no HISTORY row",
		in.Amount, in.CWID, in.CDID, in.CID)
	return f
}
