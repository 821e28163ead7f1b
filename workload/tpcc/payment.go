package tpcc

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// paymentInput is the terminal input of a Payment (clause 2.5.1). The
// customer is selected by CLast when it is not empty, else by CID.
type paymentInput struct {
	WID, DID   int
	CWID, CDID int
	CID        int
	CLast      string
	Amount     float64
	Date       time.Time
}

// paymentResult is what Payment returns: the customer it paid for.
type paymentResult struct {
	CID     int
	Balance float64
	Credit  string
}

// drawPayment draws a Payment's input (clause 2.5.1.2): 85% of payments
// through the home warehouse's district, 15% through a remote one; 60% of
// customers chosen by last name.
func (w *worker) drawPayment() paymentInput {
	s := w.cfg.Scale
	in := paymentInput{WID: w.wID, DID: w.rnd.Int(1, s.Districts), Amount: w.rnd.Float(1, 5000, 2), Date: time.Now().UTC()}
	in.CWID, in.CDID = in.WID, in.DID
	if w.cfg.Warehouses > 1 && w.rnd.Int(1, 100) > 85 {
		in.CWID, in.CDID = w.otherWarehouse(), w.rnd.Int(1, s.Districts)
	}
	if w.rnd.Int(1, 100) <= 60 {
		in.CLast = w.rnd.RunLastName(s.Customers)
	} else {
		in.CID = w.rnd.CustomerID(s.Customers)
	}
	return in
}

// paymentTxn runs a Payment (clause 2.5.2) as one transaction: W_YTD first
// (every Payment of the warehouse writes it, so a conflict aborts early),
// then D_YTD, the customer and the HISTORY row.
func (w *worker) paymentTxn(ctx context.Context, in paymentInput) (paymentResult, int, error) {
	var res paymentResult
	retries, _, err := w.txn.run(ctx, func(ctx context.Context) error {
		var err error
		res, err = w.payment(ctx, in)
		return err
	})
	return res, retries, err
}

func (w *worker) payment(ctx context.Context, in paymentInput) (paymentResult, error) {
	var res paymentResult
	var wh struct {
		Name string `bson:"W_NAME"`
	}
	wKey := bson.D{{Key: "W_ID", Value: in.WID}}
	wInc := bson.D{{Key: "$inc", Value: bson.D{{Key: "W_YTD", Value: in.Amount}}}}
	wProj := bson.D{{Key: "_id", Value: 0}, {Key: "W_NAME", Value: 1}, {Key: "W_STREET_1", Value: 1},
		{Key: "W_STREET_2", Value: 1}, {Key: "W_CITY", Value: 1}, {Key: "W_STATE", Value: 1}, {Key: "W_ZIP", Value: 1}}
	if err := w.readUpdate(ctx, w.warehouse, wKey, wInc, wProj, &wh); err != nil {
		return res, found(err, "warehouse W_ID=%d", in.WID)
	}
	var d struct {
		Name string `bson:"D_NAME"`
	}
	dKey := bson.D{{Key: "D_W_ID", Value: in.WID}, {Key: "D_ID", Value: in.DID}}
	dInc := bson.D{{Key: "$inc", Value: bson.D{{Key: "D_YTD", Value: in.Amount}}}}
	dProj := bson.D{{Key: "_id", Value: 0}, {Key: "D_NAME", Value: 1}, {Key: "D_STREET_1", Value: 1},
		{Key: "D_STREET_2", Value: 1}, {Key: "D_CITY", Value: 1}, {Key: "D_STATE", Value: 1}, {Key: "D_ZIP", Value: 1}}
	if err := w.readUpdate(ctx, w.district, dKey, dInc, dProj, &d); err != nil {
		return res, found(err, "district W_ID=%d D_ID=%d", in.WID, in.DID)
	}

	cid := in.CID
	if in.CLast != "" {
		var err error
		if cid, err = customerByLastName(ctx, w.customer, in.CWID, in.CDID, in.CLast); err != nil {
			return res, err
		}
	}
	// C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT and, for bad credit, C_DATA
	// (clause 2.5.2.2) in one pipeline update.
	badData := bson.D{{Key: "$substrCP", Value: bson.A{
		bson.D{{Key: "$concat", Value: bson.A{badCreditData(cid, in.CDID, in.CWID, in.DID, in.WID, in.Amount, ""), "$C_DATA"}}},
		0, 500}}}
	cUpd := mongo.Pipeline{{{Key: "$set", Value: bson.D{
		{Key: "C_BALANCE", Value: bson.D{{Key: "$subtract", Value: bson.A{"$C_BALANCE", in.Amount}}}},
		{Key: "C_YTD_PAYMENT", Value: bson.D{{Key: "$add", Value: bson.A{"$C_YTD_PAYMENT", in.Amount}}}},
		{Key: "C_PAYMENT_CNT", Value: bson.D{{Key: "$add", Value: bson.A{"$C_PAYMENT_CNT", 1}}}},
		{Key: "C_DATA", Value: bson.D{{Key: "$cond", Value: bson.A{
			bson.D{{Key: "$eq", Value: bson.A{"$C_CREDIT", "BC"}}}, badData, "$C_DATA"}}}},
	}}}}
	cKey := bson.D{{Key: "C_W_ID", Value: in.CWID}, {Key: "C_D_ID", Value: in.CDID}, {Key: "C_ID", Value: cid}}
	cProj := bson.D{{Key: "_id", Value: 0}, {Key: "C_ID", Value: 1}, {Key: "C_BALANCE", Value: 1}, {Key: "C_CREDIT", Value: 1},
		{Key: "C_FIRST", Value: 1}, {Key: "C_MIDDLE", Value: 1}, {Key: "C_LAST", Value: 1}, {Key: "C_CREDIT_LIM", Value: 1},
		{Key: "C_DISCOUNT", Value: 1}, {Key: "C_SINCE", Value: 1}}
	var c struct {
		ID      int     `bson:"C_ID"`
		Balance float64 `bson:"C_BALANCE"`
		Credit  string  `bson:"C_CREDIT"`
	}
	if w.cfg.FindAndModify {
		err := w.customer.FindOneAndUpdate(ctx, cKey, cUpd,
			options.FindOneAndUpdate().SetProjection(cProj).SetReturnDocument(options.After)).Decode(&c)
		if err != nil {
			return res, found(err, "customer W_ID=%d D_ID=%d C_ID=%d", in.CWID, in.CDID, cid)
		}
	} else {
		if err := w.customer.FindOne(ctx, cKey, options.FindOne().SetProjection(cProj)).Decode(&c); err != nil {
			return res, found(err, "customer W_ID=%d D_ID=%d C_ID=%d", in.CWID, in.CDID, cid)
		}
		if _, err := w.customer.UpdateOne(ctx, cKey, cUpd); err != nil {
			return res, err
		}
		c.Balance -= in.Amount
	}
	res = paymentResult{CID: c.ID, Balance: c.Balance, Credit: c.Credit}

	h := historyDoc{CID: cid, CDID: in.CDID, CWID: in.CWID, DID: in.DID, WID: in.WID, Date: in.Date,
		Amount: in.Amount, Data: wh.Name + "    " + d.Name}
	if _, err := w.history.InsertOne(ctx, h); err != nil {
		return res, err
	}
	return res, nil
}

// readUpdate reads a document and applies update to it: one findAndModify
// returning the pre-image (the TPC-C-on-MongoDB paper, §4.5.5), or a find and
// an update.
func (w *worker) readUpdate(ctx context.Context, coll *mongo.Collection, filter, update, proj bson.D, out any) error {
	if w.cfg.FindAndModify {
		return coll.FindOneAndUpdate(ctx, filter, update, options.FindOneAndUpdate().SetProjection(proj)).Decode(out)
	}
	if err := coll.FindOne(ctx, filter, options.FindOne().SetProjection(proj)).Decode(out); err != nil {
		return err
	}
	_, err := coll.UpdateOne(ctx, filter, update)
	return err
}

// customerByLastName returns the C_ID of the customer at position
// ceil(n/2) of the n customers with that last name sorted by C_FIRST
// (clause 2.5.2.2).
func customerByLastName(ctx context.Context, customers *mongo.Collection, wID, dID int, last string) (int, error) {
	cur, err := customers.Find(ctx,
		bson.D{{Key: "C_W_ID", Value: wID}, {Key: "C_D_ID", Value: dID}, {Key: "C_LAST", Value: last}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "C_ID", Value: 1}, {Key: "C_FIRST", Value: 1}}).
			SetSort(bson.D{{Key: "C_FIRST", Value: 1}}))
	if err != nil {
		return 0, err
	}
	var cs []struct {
		ID int `bson:"C_ID"`
	}
	if err := cur.All(ctx, &cs); err != nil {
		return 0, err
	}
	if len(cs) == 0 {
		return 0, notFound("customer W_ID=%d D_ID=%d C_LAST=%s", wID, dID, last)
	}
	return cs[(len(cs)+1)/2-1].ID, nil
}
