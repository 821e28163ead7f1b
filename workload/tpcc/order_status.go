package tpcc

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// orderStatusInput is the terminal input of an Order-Status (clause
// 2.6.1); the customer is selected by CLast when it is not empty.
type orderStatusInput struct {
	WID, DID int
	CID      int
	CLast    string
}

// orderStatusResult is the customer's last order and its lines.
type orderStatusResult struct {
	CID     int
	Balance float64
	Order   orderDoc
}

func (w *worker) drawOrderStatus() orderStatusInput {
	s := w.cfg.Scale
	in := orderStatusInput{WID: w.wID, DID: w.rnd.Int(1, s.Districts)}
	if w.rnd.Int(1, 100) <= 60 {
		in.CLast = w.rnd.RunLastName(s.Customers)
	} else {
		in.CID = w.rnd.CustomerID(s.Customers)
	}
	return in
}

// orderStatusTxn runs an Order-Status (clause 2.6.2): in a snapshot
// transaction on the primary, or, with RouteOrderStatus, routed by the
// balancer like Stock-Level (read concern majority in the worker's causally
// consistent session).
func (w *worker) orderStatusTxn(ctx context.Context, in orderStatusInput) (orderStatusResult, int, error) {
	var res orderStatusResult
	if w.cfg.RouteOrderStatus {
		u := w.env.Reads.Begin(mongo.NewSessionContext(ctx, w.sess))
		var err error
		res, err = w.orderStatus(u.Ctx, in, u.DB, w.majority)
		u.Done(err)
		return res, 0, err
	}
	retries, _, err := w.txn.run(ctx, func(ctx context.Context) error {
		var err error
		res, err = w.orderStatus(ctx, in, w.env.DB, nil)
		return err
	})
	return res, retries, err
}

func (w *worker) orderStatus(ctx context.Context, in orderStatusInput, db *mongo.Database, copts *options.CollectionOptionsBuilder) (orderStatusResult, error) {
	var res orderStatusResult
	coll := func(name string) *mongo.Collection {
		if copts == nil {
			return db.Collection(name)
		}
		return db.Collection(name, copts)
	}
	customers := coll(collCustomer)
	cid := in.CID
	if in.CLast != "" {
		var err error
		if cid, err = customerByLastName(ctx, customers, in.WID, in.DID, in.CLast); err != nil {
			return res, err
		}
	}
	var c struct {
		Balance float64 `bson:"C_BALANCE"`
	}
	err := customers.FindOne(ctx, bson.D{{Key: "C_W_ID", Value: in.WID}, {Key: "C_D_ID", Value: in.DID}, {Key: "C_ID", Value: cid}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "C_BALANCE", Value: 1}, {Key: "C_FIRST", Value: 1},
			{Key: "C_MIDDLE", Value: 1}, {Key: "C_LAST", Value: 1}})).Decode(&c)
	if err != nil {
		return res, found(err, "customer W_ID=%d D_ID=%d C_ID=%d", in.WID, in.DID, cid)
	}
	res.CID, res.Balance = cid, c.Balance
	// The customer's most recent order (highest O_ID) with its lines.
	err = coll(collOrders).FindOne(ctx,
		bson.D{{Key: "O_W_ID", Value: in.WID}, {Key: "O_D_ID", Value: in.DID}, {Key: "O_C_ID", Value: cid}},
		options.FindOne().SetSort(bson.D{{Key: "O_ID", Value: -1}}).SetProjection(bson.D{{Key: "_id", Value: 0}})).Decode(&res.Order)
	if err != nil {
		return res, found(err, "last order of customer W_ID=%d D_ID=%d C_ID=%d", in.WID, in.DID, cid)
	}
	if w.cfg.Schema == Normalized {
		cur, err := coll(collOrderLine).Find(ctx,
			bson.D{{Key: "OL_O_ID", Value: res.Order.ID}, {Key: "OL_D_ID", Value: in.DID}, {Key: "OL_W_ID", Value: in.WID}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}}))
		if err != nil {
			return res, err
		}
		if err := cur.All(ctx, &res.Order.Lines); err != nil {
			return res, err
		}
	}
	return res, nil
}
