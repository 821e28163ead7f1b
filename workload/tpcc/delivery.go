package tpcc

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// deliveryInput is the input of a Delivery (clause 2.7.1).
type deliveryInput struct {
	WID       int
	CarrierID int
	Date      time.Time
}

// deliveryResult lists the delivered order of every district; 0 where the
// district had no undelivered order (clause 2.7.4.2 "skipped").
type deliveryResult struct {
	Delivered []int // by district, index 0 = district 1
	Skipped   int
}

func (w *worker) drawDelivery() deliveryInput {
	return deliveryInput{WID: w.wID, CarrierID: w.rnd.Int(1, 10), Date: time.Now().UTC()}
}

// deliveryTxn delivers the oldest undelivered order of each of the
// warehouse's districts (clause 2.7.4) in one transaction, as py-tpcc does.
func (w *worker) deliveryTxn(ctx context.Context, in deliveryInput) (deliveryResult, int, error) {
	var res deliveryResult
	retries, _, err := w.txn.run(ctx, func(ctx context.Context) error {
		var err error
		res, err = w.delivery(ctx, in)
		return err
	})
	return res, retries, err
}

func (w *worker) delivery(ctx context.Context, in deliveryInput) (deliveryResult, error) {
	res := deliveryResult{Delivered: make([]int, w.cfg.Scale.Districts)}
	for d := 1; d <= w.cfg.Scale.Districts; d++ {
		oid, ok, err := w.takeNewOrder(ctx, in.WID, d)
		if err != nil {
			return res, err
		}
		if !ok {
			res.Skipped++
			continue
		}
		cid, amount, err := w.deliverOrder(ctx, in, d, oid)
		if err != nil {
			return res, err
		}
		_, err = w.customer.UpdateOne(ctx,
			bson.D{{Key: "C_W_ID", Value: in.WID}, {Key: "C_D_ID", Value: d}, {Key: "C_ID", Value: cid}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "C_BALANCE", Value: amount}, {Key: "C_DELIVERY_CNT", Value: 1}}}})
		if err != nil {
			return res, err
		}
		res.Delivered[d-1] = oid
	}
	return res, nil
}

// takeNewOrder deletes the district's oldest NEW_ORDER row and returns its
// order id; ok is false when there is none.
func (w *worker) takeNewOrder(ctx context.Context, wID, dID int) (oid int, ok bool, err error) {
	filter := bson.D{{Key: "NO_W_ID", Value: wID}, {Key: "NO_D_ID", Value: dID}}
	sort := bson.D{{Key: "NO_O_ID", Value: 1}}
	var no newOrderDoc
	if w.cfg.FindAndModify {
		err = w.newOrders.FindOneAndDelete(ctx, filter, options.FindOneAndDelete().SetSort(sort)).Decode(&no)
	} else {
		err = w.newOrders.FindOne(ctx, filter, options.FindOne().SetSort(sort)).Decode(&no)
		if err == nil {
			_, err = w.newOrders.DeleteOne(ctx, bson.D{{Key: "NO_W_ID", Value: wID}, {Key: "NO_D_ID", Value: dID}, {Key: "NO_O_ID", Value: no.OID}})
		}
	}
	if err == mongo.ErrNoDocuments {
		return 0, false, nil
	}
	return no.OID, err == nil, err
}

// deliverOrder sets the order's carrier and its lines' delivery date and
// returns the customer and the sum of the lines' amounts.
func (w *worker) deliverOrder(ctx context.Context, in deliveryInput, dID, oID int) (cid int, amount float64, err error) {
	key := bson.D{{Key: "O_W_ID", Value: in.WID}, {Key: "O_D_ID", Value: dID}, {Key: "O_ID", Value: oID}}
	set := bson.D{{Key: "O_CARRIER_ID", Value: in.CarrierID}}
	if w.cfg.Schema == Denormalized {
		set = append(set, bson.E{Key: fieldOrderLines + ".$[].OL_DELIVERY_D", Value: in.Date})
	}
	upd := bson.D{{Key: "$set", Value: set}}
	var o struct {
		CID   int `bson:"O_C_ID"`
		Lines []struct {
			Amount float64 `bson:"OL_AMOUNT"`
		} `bson:"ORDER_LINE"`
	}
	proj := bson.D{{Key: "_id", Value: 0}, {Key: "O_C_ID", Value: 1}, {Key: fieldOrderLines + ".OL_AMOUNT", Value: 1}}
	if err := w.readUpdate(ctx, w.orders, key, upd, proj, &o); err != nil {
		return 0, 0, found(err, "order W_ID=%d D_ID=%d O_ID=%d", in.WID, dID, oID)
	}
	if w.cfg.Schema == Normalized {
		lkey := bson.D{{Key: "OL_O_ID", Value: oID}, {Key: "OL_D_ID", Value: dID}, {Key: "OL_W_ID", Value: in.WID}}
		if _, err := w.orderLine.UpdateMany(ctx, lkey, bson.D{{Key: "$set", Value: bson.D{{Key: "OL_DELIVERY_D", Value: in.Date}}}}); err != nil {
			return 0, 0, err
		}
		cur, err := w.orderLine.Find(ctx, lkey, options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "OL_AMOUNT", Value: 1}}))
		if err != nil {
			return 0, 0, err
		}
		if err := cur.All(ctx, &o.Lines); err != nil {
			return 0, 0, err
		}
	}
	for _, l := range o.Lines {
		amount += l.Amount
	}
	return o.CID, amount, nil
}
