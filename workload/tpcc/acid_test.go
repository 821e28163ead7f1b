package tpcc

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// wantViolation fails unless got is empty (want "") or one of its lines
// contains want.
func wantViolation(t *testing.T, got []string, want string) {
	t.Helper()
	if want == "" {
		if len(got) > 0 {
			t.Errorf("violations %q, want none", got)
		}
		return
	}
	for _, g := range got {
		if strings.Contains(g, want) {
			return
		}
	}
	t.Errorf("violations %q, want one containing %q", got, want)
}

func TestCheckPayment(t *testing.T) {
	before := paymentState{WYTD: 300000, DYTD: 30000, Balance: -10, YTDPayment: 10, PaymentCnt: 1}
	paid := paymentState{WYTD: 300100.5, DYTD: 30100.5, Balance: -110.5, YTDPayment: 110.5, PaymentCnt: 2, History: 1}
	tests := []struct {
		name      string
		committed bool
		after     func(s paymentState) paymentState
		want      string
	}{
		{"committed", true, func(s paymentState) paymentState { return s }, ""},
		{"committed within half a cent", true, func(s paymentState) paymentState { s.WYTD += 0.004; return s }, ""},
		{"W_YTD missing", true, func(s paymentState) paymentState { s.WYTD = before.WYTD; return s }, "W_YTD is 300000.00 after the commit, want 300100.50"},
		{"D_YTD twice", true, func(s paymentState) paymentState { s.DYTD += 100.5; return s }, "D_YTD"},
		{"balance not debited", true, func(s paymentState) paymentState { s.Balance = before.Balance; return s }, "C_BALANCE"},
		{"ytd payment", true, func(s paymentState) paymentState { s.YTDPayment = 0; return s }, "C_YTD_PAYMENT"},
		{"payment count", true, func(s paymentState) paymentState { s.PaymentCnt = 1; return s }, "C_PAYMENT_CNT is 1 after the commit, want 2"},
		{"no history row", true, func(s paymentState) paymentState { s.History = 0; return s }, "0 HISTORY rows"},
		{"rolled back", false, func(paymentState) paymentState { return before }, ""},
		{"rollback left W_YTD", false, func(paymentState) paymentState { s := before; s.WYTD = paid.WYTD; return s }, "W_YTD changed from 300000.00 to 300100.50"},
		{"rollback left the customer", false, func(paymentState) paymentState { s := before; s.Balance, s.PaymentCnt = paid.Balance, 2; return s }, "C_PAYMENT_CNT changed"},
		{"rollback left history", false, func(paymentState) paymentState { s := before; s.History = 1; return s }, "1 HISTORY rows added"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.committed {
				wantViolation(t, checkPaymentCommitted(before, tt.after(paid), 100.5), tt.want)
			} else {
				wantViolation(t, checkPaymentRolledBack(before, tt.after(paid)), tt.want)
			}
		})
	}
}

func TestCheckNewOrderVsOrderStatus(t *testing.T) {
	tests := []struct {
		name string
		o    orderStatusObs
		want string
	}{
		{"committed, T2 not blocked", orderStatusObs{Committed: true, T0: 7, T1: 31, T2: 7, T3: 31}, ""},
		{"committed, T2 waited", orderStatusObs{Committed: true, T0: 7, T1: 31, T2: 31, T2Waited: true, T3: 31}, ""},
		{"rolled back", orderStatusObs{T0: 7, T1: 31, T2: 7, T3: 7}, ""},
		{"rolled back, T2 waited", orderStatusObs{T0: 7, T1: 31, T2: 7, T2Waited: true, T3: 7}, ""},
		{"dirty read", orderStatusObs{Committed: true, T0: 7, T1: 31, T2: 31, T3: 31}, "a dirty read"},
		{"dirty read of a rollback", orderStatusObs{T0: 7, T1: 31, T2: 31, T3: 7}, "a dirty read"},
		{"waited and missed the commit", orderStatusObs{Committed: true, T0: 7, T1: 31, T2: 7, T2Waited: true, T3: 31}, "waited for New-Order T1 and returned O_ID=7, want 31"},
		{"commit lost", orderStatusObs{Committed: true, T0: 7, T1: 31, T2: 7, T3: 7}, "T3 returned O_ID=7 after New-Order T1 (O_ID=31) committed"},
		{"rollback kept", orderStatusObs{T0: 7, T1: 31, T2: 7, T3: 31}, "rolled back, want 7"},
		{"T2 failed", orderStatusObs{T2Err: "boom"}, "Order-Status T2 failed: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantViolation(t, checkNewOrderVsOrderStatus(tt.o), tt.want) })
	}
}

func TestCheckNewOrderPair(t *testing.T) {
	committed := newOrderPairObs{Committed: true, Before: 31, After: 33, T1: 31, T2: 32, T1Stored: true, T2Orders: 1}
	rolledBack := newOrderPairObs{Before: 31, After: 32, T1: 31, T2: 31, T2Orders: 1}
	tests := []struct {
		name string
		o    newOrderPairObs
		want string
	}{
		{"committed", committed, ""},
		{"rolled back", rolledBack, ""},
		{"lost update: same number", func() newOrderPairObs { o := committed; o.T2, o.T2Orders = 31, 2; return o }(), "T2 took O_ID=31, want 32"},
		{"increment lost", func() newOrderPairObs { o := committed; o.After = 32; return o }(), "D_NEXT_O_ID is 32 after both, want 33"},
		{"duplicate order", func() newOrderPairObs { o := committed; o.T2Orders = 2; return o }(), "2 orders bear T2's O_ID=32"},
		{"committed order missing", func() newOrderPairObs { o := committed; o.T1Stored = false; return o }(), "committed New-Order T1's order O_ID=31 is missing"},
		{"T1 skipped a number", func() newOrderPairObs { o := committed; o.T1, o.T2 = 32, 33; return o }(), "T1 took O_ID=32, want D_NEXT_O_ID=31"},
		{"rollback kept the increment", func() newOrderPairObs { o := rolledBack; o.T2, o.After = 32, 33; return o }(), "T2 took O_ID=32, want 31"},
		{"rollback kept the order", func() newOrderPairObs { o := rolledBack; o.T1Stored = true; return o }(), "rolled-back New-Order T1's order O_ID=31 is stored"},
		{"T2 failed", func() newOrderPairObs { o := committed; o.T2Err = "E11000"; return o }(), "New-Order T2 failed: E11000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantViolation(t, checkNewOrderPair(tt.o), tt.want) })
	}
}

func TestCheckDeliveryPayment(t *testing.T) {
	before := customerMoney{Balance: -10, DeliveryCnt: 0, PaymentCnt: 1}
	committed := deliveryPaymentObs{Committed: true, Before: before, Delivered: 500, Paid: 100, WantOrder: 22, T1Delivered: 22,
		After: customerMoney{Balance: 390, DeliveryCnt: 1, PaymentCnt: 2}}
	rolledBack := deliveryPaymentObs{Before: before, Delivered: 500, Paid: 100, WantOrder: 22, T1Delivered: 22,
		After: customerMoney{Balance: -110, DeliveryCnt: 0, PaymentCnt: 2}}
	tests := []struct {
		name string
		o    deliveryPaymentObs
		want string
	}{
		{"committed", committed, ""},
		{"rolled back", rolledBack, ""},
		{"payment lost", func() deliveryPaymentObs {
			o := committed
			o.After = customerMoney{Balance: 490, DeliveryCnt: 1, PaymentCnt: 1}
			return o
		}(), "C_BALANCE is 490.00, want 390.00"},
		{"delivery lost", func() deliveryPaymentObs { o := committed; o.After.Balance, o.After.DeliveryCnt = -110, 0; return o }(), "C_DELIVERY_CNT is 0, want 1"},
		{"rollback kept the delivery", func() deliveryPaymentObs { o := rolledBack; o.After.Balance, o.After.DeliveryCnt = 390, 1; return o }(), "reflecting Payment T2 alone"},
		{"wrong order delivered", func() deliveryPaymentObs { o := committed; o.T1Delivered = 23; return o }(), "delivered O_ID=23, want the oldest undelivered order 22"},
		{"T2 failed", func() deliveryPaymentObs { o := committed; o.T2Err = "x"; return o }(), "Payment T2 failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantViolation(t, checkDeliveryPayment(tt.o), tt.want) })
	}
}

func TestCheckRepeatablePrices(t *testing.T) {
	caseD := priceObs{T1: [2]float64{10, 20}, T2First: 10, T2Second: [2]float64{10, 20}, T2Charged: [2]float64{10, 20},
		T3: [2]float64{11, 22}, T3Committed: true, T4: [2]float64{11, 22}}
	tests := []struct {
		name string
		o    priceObs
		want string
	}{
		{"case D", caseD, ""},
		{"case C: T3 rolled back", func() priceObs { o := caseD; o.T3Committed, o.T4 = false, o.T1; return o }(), ""},
		{"non-repeatable read of x", func() priceObs { o := caseD; o.T2Second[0] = 11; return o }(), "read I_PRICE of x again as 11.00, want 10.00"},
		{"non-repeatable read of y", func() priceObs { o := caseD; o.T2Second[1] = 22; return o }(), "I_PRICE of y again"},
		{"charged the new price", func() priceObs { o := caseD; o.T2Charged[1] = 22; return o }(), "charged 22.00 for item y"},
		{"dirty first read", func() priceObs { o := caseD; o.T2First = 11; return o }(), "T2 read I_PRICE of x as 11.00"},
		{"T3's update lost", func() priceObs { o := caseD; o.T4 = o.T1; return o }(), "T4 read I_PRICE of x as 10.00 at the end, want 11.00"},
		{"rolled-back T3 visible", func() priceObs { o := caseD; o.T3Committed = false; return o }(), "want 10.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantViolation(t, checkRepeatablePrices(tt.o), tt.want) })
	}
}

func TestCheckPhantoms(t *testing.T) {
	t.Run("delivery", func(t *testing.T) {
		ok := deliveryPhantomObs{T2: 32, T2Undelivered: true}
		wantViolation(t, checkDeliveryPhantom(ok), "")
		o := ok
		o.T1Delivered, o.T2Undelivered = 32, false
		wantViolation(t, checkDeliveryPhantom(o), "a phantom")
		o = ok
		o.T2Undelivered = false
		wantViolation(t, checkDeliveryPhantom(o), "O_ID=32 is delivered at the end")
		o = ok
		o.FirstFound = true
		wantViolation(t, checkDeliveryPhantom(o), "emptied for the test")
	})
	t.Run("order-status", func(t *testing.T) {
		ok := orderPhantomObs{First: 13, Second: 13, T2: 32, T3: 32}
		wantViolation(t, checkOrderPhantom(ok), "")
		o := ok
		o.Second = 32
		wantViolation(t, checkOrderPhantom(o), "T2's order is a phantom")
		o = ok
		o.T3 = 13
		wantViolation(t, checkOrderPhantom(o), "T3 returned O_ID=13 after New-Order T2 committed O_ID=32")
		o = ok
		o.T2Err = "x"
		wantViolation(t, checkOrderPhantom(o), "New-Order T2 failed")
	})
}

func TestCheckDurable(t *testing.T) {
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	acked := []ackedOrder{{W: 1, D: 2, O: 31, C: 5, Entry: at}, {W: 1, D: 3, O: 40, C: 6, Entry: at.Add(time.Millisecond)}}
	whole := func() map[ackedKey][]storedOrder {
		return map[ackedKey][]storedOrder{
			{1, 2, 31}: {{C: 5, Entry: at, OLCnt: 7, Lines: 7, NewOrder: true}},
			{1, 3, 40}: {{C: 6, Entry: at.Add(time.Millisecond), OLCnt: 5, Lines: 5, NewOrder: true}},
		}
	}
	tests := []struct {
		name   string
		change func(m map[ackedKey][]storedOrder)
		want   string
	}{
		{"all stored", func(map[ackedKey][]storedOrder) {}, ""},
		{"deleted", func(m map[ackedKey][]storedOrder) { delete(m, ackedKey{1, 3, 40}) }, "W_ID=1 D_ID=3 O_ID=40 missing"},
		{"number reused after a rollback", func(m map[ackedKey][]storedOrder) { m[ackedKey{1, 2, 31}][0].C = 9 }, "W_ID=1 D_ID=2 O_ID=31 missing"},
		{"stored twice", func(m map[ackedKey][]storedOrder) {
			m[ackedKey{1, 2, 31}] = append(m[ackedKey{1, 2, 31}], m[ackedKey{1, 2, 31}][0])
		}, "stored 2 times"},
		{"lines lost", func(m map[ackedKey][]storedOrder) { m[ackedKey{1, 2, 31}][0].Lines = 3 }, "has 3 of its 7 lines"},
		{"no NEW_ORDER row", func(m map[ackedKey][]storedOrder) { m[ackedKey{1, 3, 40}][0].NewOrder = false }, "O_ID=40 has no NEW_ORDER row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := whole()
			tt.change(m)
			bad, problems := checkDurable(acked, m)
			wantViolation(t, problems, tt.want)
			if (tt.want == "") != (bad == 0) {
				t.Errorf("%d bad orders, problems %q", bad, problems)
			}
		})
	}
}

func TestSelectACIDTests(t *testing.T) {
	all, err := selectACIDTests(nil)
	if err != nil || len(all) != len(ACIDTests()) || len(all) != 12 {
		t.Fatalf("all: %d tests, %v", len(all), err)
	}
	sel, err := selectACIDTests([]string{"3.4.2.7", " atomicity-commit", "durability"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range sel {
		names = append(names, s.name)
	}
	if got := strings.Join(names, ","); got != "atomicity-commit,isolation-7,durability" {
		t.Errorf("selected %s", got)
	}
	if _, err := selectACIDTests([]string{"isolation-10"}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `unknown ACID test "isolation-10"`) {
		t.Errorf("unknown test: %v", err)
	}
	for _, tt := range acidTests {
		if tt.plant == "" || tt.title == "" || tt.run == nil {
			t.Errorf("%s: incomplete", tt.name)
		}
	}
}
