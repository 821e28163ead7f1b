package tpcc

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// What the isolation scripts read and write around their two
// transactions: the inputs of their New-Orders, the Order-Status reads,
// and the rows they observe before and after or set up (an undelivered
// order, an emptied district, item prices).

// newOrderOf is a New-Order of customer cid in district d of e's
// warehouse, with one unit of each item, all supplied by the warehouse.
func newOrderOf(e *acidEnv, d, cid int, items ...int) newOrderInput {
	in := newOrderInput{WID: e.wID, DID: d, CID: cid, EntryD: time.Now().UTC()}
	for _, i := range items {
		in.Lines = append(in.Lines, newOrderLine{IID: i, SupplyWID: e.wID, Quantity: 1})
	}
	return in
}

// lastOrder runs an Order-Status's body (clause 2.6.2) for customer cid of
// district d and returns the O_ID of the customer's most recent order.
func lastOrder(ctx context.Context, w *worker, d, cid int) (int, error) {
	res, err := w.orderStatus(ctx, orderStatusInput{WID: w.wID, DID: d, CID: cid}, w.env.DB, nil)
	return res.Order.ID, err
}

// orderStatusTxnOf is a whole Order-Status transaction (lastOrder).
func orderStatusTxnOf(ctx context.Context, w *worker, d, cid int) (int, error) {
	res, _, err := w.orderStatusTxn(ctx, orderStatusInput{WID: w.wID, DID: d, CID: cid})
	return res.Order.ID, err
}

// nextOrderID reads district d's D_NEXT_O_ID.
func nextOrderID(ctx context.Context, w *worker, d int) (int, error) {
	var dist struct {
		Next int `bson:"D_NEXT_O_ID"`
	}
	if err := w.district.FindOne(ctx, bson.D{{Key: "D_W_ID", Value: w.wID}, {Key: "D_ID", Value: d}}).Decode(&dist); err != nil {
		return 0, found(err, "district W_ID=%d D_ID=%d", w.wID, d)
	}
	return dist.Next, nil
}

// countOrders counts the ORDERS rows numbered oid in district d (of
// customer cid, unless 0).
func countOrders(ctx context.Context, w *worker, d, oid, cid int) (int64, error) {
	filter := bson.D{{Key: "O_W_ID", Value: w.wID}, {Key: "O_D_ID", Value: d}, {Key: "O_ID", Value: oid}}
	if cid != 0 {
		filter = append(filter, bson.E{Key: "O_C_ID", Value: cid})
	}
	return w.orders.CountDocuments(ctx, filter)
}

// oldestUndelivered returns the oldest undelivered order of district d,
// running a New-Order first if there is none.
func oldestUndelivered(ctx context.Context, w *worker, d int) (int, error) {
	for range 2 {
		var no newOrderDoc
		err := w.newOrders.FindOne(ctx, bson.D{{Key: "NO_W_ID", Value: w.wID}, {Key: "NO_D_ID", Value: d}},
			options.FindOne().SetSort(bson.D{{Key: "NO_O_ID", Value: 1}})).Decode(&no)
		if err == nil {
			return no.OID, nil
		}
		if err != mongo.ErrNoDocuments {
			return 0, err
		}
		in := newOrderInput{WID: w.wID, DID: d, CID: isolationCustomer, EntryD: time.Now().UTC(),
			Lines: []newOrderLine{{IID: 1, SupplyWID: w.wID, Quantity: 1}, {IID: 2, SupplyWID: w.wID, Quantity: 1}}}
		if _, _, err := w.newOrderTxn(ctx, in); err != nil {
			return 0, fmt.Errorf("New-Order: %w", err)
		}
	}
	return 0, notFound("undelivered order in W_ID=%d D_ID=%d", w.wID, d)
}

// readOrder reads an order with its lines (either schema).
func readOrder(ctx context.Context, w *worker, d, oid int) (orderDoc, error) {
	var o orderDoc
	err := w.orders.FindOne(ctx, bson.D{{Key: "O_W_ID", Value: w.wID}, {Key: "O_D_ID", Value: d}, {Key: "O_ID", Value: oid}}).Decode(&o)
	if err != nil {
		return o, found(err, "order W_ID=%d D_ID=%d O_ID=%d", w.wID, d, oid)
	}
	if w.cfg.Schema == Normalized {
		cur, err := w.orderLine.Find(ctx, bson.D{{Key: "OL_W_ID", Value: w.wID}, {Key: "OL_D_ID", Value: d}, {Key: "OL_O_ID", Value: oid}},
			options.Find().SetSort(bson.D{{Key: "OL_NUMBER", Value: 1}}))
		if err != nil {
			return o, err
		}
		if err := cur.All(ctx, &o.Lines); err != nil {
			return o, err
		}
	}
	return o, nil
}

func readCustomerMoney(ctx context.Context, w *worker, d, cid int) (customerMoney, error) {
	var c struct {
		Balance     float64 `bson:"C_BALANCE"`
		DeliveryCnt int     `bson:"C_DELIVERY_CNT"`
		PaymentCnt  int     `bson:"C_PAYMENT_CNT"`
	}
	if err := w.customer.FindOne(ctx, bson.D{{Key: "C_W_ID", Value: w.wID}, {Key: "C_D_ID", Value: d}, {Key: "C_ID", Value: cid}}).Decode(&c); err != nil {
		return customerMoney{}, found(err, "customer W_ID=%d D_ID=%d C_ID=%d", w.wID, d, cid)
	}
	return customerMoney{Balance: c.Balance, DeliveryCnt: c.DeliveryCnt, PaymentCnt: c.PaymentCnt}, nil
}

// readPrices reads the I_PRICE of items ids.
func readPrices(ctx context.Context, w *worker, ids ...int) ([2]float64, error) {
	var p [2]float64
	for i, id := range ids {
		var it struct {
			Price float64 `bson:"I_PRICE"`
		}
		if err := w.item.FindOne(ctx, bson.D{{Key: "I_ID", Value: id}}).Decode(&it); err != nil {
			return p, found(err, "item I_ID=%d", id)
		}
		p[i] = it.Price
	}
	return p, nil
}

// setPrices sets the I_PRICE of items x and y.
func setPrices(ctx context.Context, w *worker, x, y int, p [2]float64) error {
	for i, id := range [2]int{x, y} {
		if _, err := w.item.UpdateOne(ctx, bson.D{{Key: "I_ID", Value: id}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "I_PRICE", Value: p[i]}}}}); err != nil {
			return fmt.Errorf("item I_ID=%d: %w", id, err)
		}
	}
	return nil
}

// emptyDistrict runs Delivery transactions until district d has no
// undelivered order and returns how many it ran.
func emptyDistrict(ctx context.Context, w *worker, d int) (int, error) {
	filter := bson.D{{Key: "NO_W_ID", Value: w.wID}, {Key: "NO_D_ID", Value: d}}
	n0, err := w.newOrders.CountDocuments(ctx, filter)
	if err != nil {
		return 0, err
	}
	for i := 0; ; i++ {
		n, err := w.newOrders.CountDocuments(ctx, filter)
		if err != nil {
			return i, err
		}
		if n == 0 {
			return i, nil
		}
		if int64(i) > n0+10 {
			return i, fmt.Errorf("%d undelivered orders left after %d Delivery transactions: another client is writing", n, i)
		}
		if _, _, err := w.deliveryTxn(ctx, deliveryInput{WID: w.wID, CarrierID: 3, Date: time.Now().UTC()}); err != nil {
			return i, fmt.Errorf("Delivery: %w", err)
		}
	}
}
