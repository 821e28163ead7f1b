package tpcc

import "fmt"

// The pure checks of the nine isolation tests of TPC-C clause 3.4.2: each
// takes what its test observed (an ...Obs value) and names every anomaly
// the clause forbids. They read neither the clock nor the database, so
// acid_test.go gives them synthetic observations, correct and planted.

// ---- 3.4.2.1 and 3.4.2.2: New-Order vs Order-Status ----

// orderStatusObs is what isolation tests 1 and 2 see: the customer's last
// order as Order-Status T0 (before), T2 (while New-Order T1 is stopped
// before its commit) and T3 (after T1 ended) return it, and T1's order.
type orderStatusObs struct {
	Committed      bool // T1 committed (test 1) or rolled back (test 2)
	T0, T1, T2, T3 int
	// T2Waited: T2 finished only after T1 ended.
	T2Waited bool
	T2Err    string
}

// checkNewOrderVsOrderStatus is the check of clauses 3.4.2.1 (T1
// committed) and 3.4.2.2 (T1 rolled back): T2 returns T0's order, or, if
// it waited for T1, T1's outcome; T3 returns T1's order if T1 committed,
// T0's if it rolled back.
func checkNewOrderVsOrderStatus(o orderStatusObs) []string {
	var v []string
	if o.T2Err != "" {
		return append(v, "Order-Status T2 failed: "+o.T2Err)
	}
	after := o.T0 // the last order once T1 ended
	if o.Committed {
		after = o.T1
	}
	switch {
	case o.T2Waited && o.T2 != after:
		v = append(v, fmt.Sprintf("Order-Status T2 waited for New-Order T1 and returned O_ID=%d, want %d", o.T2, after))
	case !o.T2Waited && o.T2 != o.T0:
		v = append(v, fmt.Sprintf("Order-Status T2 returned O_ID=%d while New-Order T1 (O_ID=%d) was not committed, want T0's O_ID=%d: a dirty read", o.T2, o.T1, o.T0))
	}
	if o.T3 != after {
		what := "committed"
		if !o.Committed {
			what = "rolled back"
		}
		v = append(v, fmt.Sprintf("Order-Status T3 returned O_ID=%d after New-Order T1 (O_ID=%d) %s, want %d", o.T3, o.T1, what, after))
	}
	return v
}

// ---- 3.4.2.3 and 3.4.2.4: New-Order vs New-Order on one district ----

// newOrderPairObs is what isolation tests 3 and 4 see: D_NEXT_O_ID before
// and after, the order numbers New-Orders T1 and T2 took, whether T1's
// order (by its customer) is stored and how many orders bear T2's number.
type newOrderPairObs struct {
	Committed     bool // T1 committed (test 3) or rolled back (test 4)
	Before, After int  // D_NEXT_O_ID
	T1, T2        int  // O_IDs
	T1Stored      bool
	T2Orders      int64
	T2Err         string
}

// checkNewOrderPair is the check of clauses 3.4.2.3 and 3.4.2.4: T1 takes
// D_NEXT_O_ID; T2 takes the next number if T1 committed (D_NEXT_O_ID up by
// two), T1's number if T1 rolled back (up by one); T1's order is stored
// iff it committed; T2's number is used once.
func checkNewOrderPair(o newOrderPairObs) []string {
	var v []string
	if o.T2Err != "" {
		v = append(v, "New-Order T2 failed: "+o.T2Err)
	}
	if o.T1 != o.Before {
		v = append(v, fmt.Sprintf("New-Order T1 took O_ID=%d, want D_NEXT_O_ID=%d", o.T1, o.Before))
	}
	wantT2, wantNext := o.T1+1, o.Before+2
	if !o.Committed {
		wantT2, wantNext = o.T1, o.Before+1
	}
	if o.T2 != wantT2 {
		v = append(v, fmt.Sprintf("New-Order T2 took O_ID=%d, want %d (T1 took %d)", o.T2, wantT2, o.T1))
	}
	if o.After != wantNext {
		v = append(v, fmt.Sprintf("D_NEXT_O_ID is %d after both, want %d (it was %d)", o.After, wantNext, o.Before))
	}
	if o.T1Stored != o.Committed {
		if o.Committed {
			v = append(v, fmt.Sprintf("committed New-Order T1's order O_ID=%d is missing", o.T1))
		} else {
			v = append(v, fmt.Sprintf("rolled-back New-Order T1's order O_ID=%d is stored", o.T1))
		}
	}
	if o.T2Err == "" && o.T2Orders != 1 {
		v = append(v, fmt.Sprintf("%d orders bear T2's O_ID=%d, want 1", o.T2Orders, o.T2))
	}
	return v
}

// ---- 3.4.2.5 and 3.4.2.6: Delivery vs Payment on one customer ----

// customerMoney is what Delivery and Payment change of a customer.
type customerMoney struct {
	Balance                 float64
	DeliveryCnt, PaymentCnt int
}

// deliveryPaymentObs is what isolation tests 5 and 6 see: the customer of
// the order Delivery T1 delivers, before and after T1 and Payment T2 for
// that customer; the order's amount and the payment's.
type deliveryPaymentObs struct {
	Committed       bool // T1 committed (test 5) or rolled back (test 6)
	Before, After   customerMoney
	Delivered, Paid float64
	// WantOrder is the district's oldest undelivered order; T1Delivered
	// the one T1 delivered in the district.
	WantOrder, T1Delivered int
	T2Err                  string
}

// checkDeliveryPayment is the check of clauses 3.4.2.5 and 3.4.2.6:
// C_BALANCE reflects T1 (+ the order's amount, C_DELIVERY_CNT + 1) if it
// committed, and T2 (- the payment, C_PAYMENT_CNT + 1) either way.
func checkDeliveryPayment(o deliveryPaymentObs) []string {
	var v []string
	if o.T2Err != "" {
		v = append(v, "Payment T2 failed: "+o.T2Err)
	}
	if o.T1Delivered != o.WantOrder {
		v = append(v, fmt.Sprintf("Delivery T1 delivered O_ID=%d, want the oldest undelivered order %d", o.T1Delivered, o.WantOrder))
	}
	want := customerMoney{Balance: o.Before.Balance - o.Paid, DeliveryCnt: o.Before.DeliveryCnt, PaymentCnt: o.Before.PaymentCnt + 1}
	if o.Committed {
		want.Balance += o.Delivered
		want.DeliveryCnt++
	}
	what := "Payment T2 and committed Delivery T1"
	if !o.Committed {
		what = "Payment T2 alone (Delivery T1 rolled back)"
	}
	if !moneyEqual(1, o.After.Balance, want.Balance) {
		v = append(v, fmt.Sprintf("C_BALANCE is %.2f, want %.2f: %.2f %+.2f delivered %+.2f paid, reflecting %s",
			o.After.Balance, want.Balance, o.Before.Balance, delivered(o), -o.Paid, what))
	}
	if o.After.DeliveryCnt != want.DeliveryCnt {
		v = append(v, fmt.Sprintf("C_DELIVERY_CNT is %d, want %d", o.After.DeliveryCnt, want.DeliveryCnt))
	}
	if o.After.PaymentCnt != want.PaymentCnt {
		v = append(v, fmt.Sprintf("C_PAYMENT_CNT is %d, want %d", o.After.PaymentCnt, want.PaymentCnt))
	}
	return v
}

func delivered(o deliveryPaymentObs) float64 {
	if o.Committed {
		return o.Delivered
	}
	return 0
}

// ---- 3.4.2.7: repeatable reads of item prices ----

// priceObs is what isolation test 7 sees of items x and y: their prices as
// T1 read them; New-Order T2's first read of x, its second reads of x and
// y and the unit prices its order lines were charged; the prices T3 set
// and whether it committed; the prices T4 read at the end.
type priceObs struct {
	T1                  [2]float64
	T2First             float64
	T2Second, T2Charged [2]float64
	T3                  [2]float64
	T3Committed         bool
	T4                  [2]float64
}

// checkRepeatablePrices is the check of clause 3.4.2.7 (cases A to D): T2
// reads x, then x and y, at T1's prices and charges them; T4 reads T3's
// prices if T3 committed, T1's if it rolled back.
func checkRepeatablePrices(o priceObs) []string {
	var v []string
	if !moneyEqual(1, o.T2First, o.T1[0]) {
		v = append(v, fmt.Sprintf("New-Order T2 read I_PRICE of x as %.2f, T1 read %.2f", o.T2First, o.T1[0]))
	}
	names := [2]string{"x", "y"}
	for i := range 2 {
		if !moneyEqual(1, o.T2Second[i], o.T1[i]) {
			v = append(v, fmt.Sprintf("New-Order T2 read I_PRICE of %s again as %.2f, want %.2f as read before: a non-repeatable read", names[i], o.T2Second[i], o.T1[i]))
		}
		if !moneyEqual(1, o.T2Charged[i], o.T1[i]) {
			v = append(v, fmt.Sprintf("New-Order T2 charged %.2f for item %s, want %.2f", o.T2Charged[i], names[i], o.T1[i]))
		}
		want := o.T1[i]
		if o.T3Committed {
			want = o.T3[i]
		}
		if !moneyEqual(1, o.T4[i], want) {
			v = append(v, fmt.Sprintf("T4 read I_PRICE of %s as %.2f at the end, want %.2f", names[i], o.T4[i], want))
		}
	}
	return v
}

// ---- 3.4.2.8: phantom, Delivery vs New-Order ----

// deliveryPhantomObs is what isolation test 8 sees: whether Delivery T1
// found an undelivered order in the emptied district at first, the order
// New-Order T2 inserted there meanwhile, the order T1 then delivered there
// (0: none) and whether T2's order is still undelivered at the end.
type deliveryPhantomObs struct {
	FirstFound    bool
	T2            int
	T1Delivered   int
	T2Undelivered bool
	T2Err         string
}

// checkDeliveryPhantom is the check of clause 3.4.2.8: T1, having found no
// undelivered order in the district, finds none when it continues, so
// T2's order stays undelivered.
func checkDeliveryPhantom(o deliveryPhantomObs) []string {
	var v []string
	if o.FirstFound {
		v = append(v, "Delivery T1 found an undelivered order in the district emptied for the test")
	}
	if o.T2Err != "" {
		v = append(v, "New-Order T2 failed: "+o.T2Err)
	}
	if o.T1Delivered != 0 {
		v = append(v, fmt.Sprintf("Delivery T1 delivered O_ID=%d, inserted by New-Order T2 after T1 read the district's NEW_ORDER rows: a phantom", o.T1Delivered))
	}
	if o.T2Err == "" && !o.T2Undelivered {
		v = append(v, fmt.Sprintf("New-Order T2's O_ID=%d is delivered at the end, want it undelivered", o.T2))
	}
	return v
}

// ---- 3.4.2.9: phantom, Order-Status vs New-Order ----

// orderPhantomObs is what isolation test 9 sees: the customer's last order
// as Order-Status T1 read it before and after New-Order T2 for the same
// customer committed, T2's order and what Order-Status T3 returns at the
// end.
type orderPhantomObs struct {
	First, Second, T2, T3 int
	T2Err                 string
}

// checkOrderPhantom is the check of clause 3.4.2.9: T1's second read
// returns the order of its first; T3 returns T2's.
func checkOrderPhantom(o orderPhantomObs) []string {
	var v []string
	if o.T2Err != "" {
		return append(v, "New-Order T2 failed: "+o.T2Err)
	}
	if o.Second != o.First {
		v = append(v, fmt.Sprintf("Order-Status T1 read the customer's last order again as O_ID=%d, first as %d: T2's order is a phantom", o.Second, o.First))
	}
	if o.T3 != o.T2 {
		v = append(v, fmt.Sprintf("Order-Status T3 returned O_ID=%d after New-Order T2 committed O_ID=%d", o.T3, o.T2))
	}
	return v
}
