package tpcc

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// stockLevelInput is the input of a Stock-Level (clause 2.8.1): the
// terminal's fixed warehouse and district and a threshold in 10..20.
type stockLevelInput struct {
	WID, DID  int
	Threshold int
}

// stockLevelResult is the number of distinct items of the district's last
// 20 orders whose stock is below the threshold, and where the read ran.
type stockLevelResult struct {
	LowStock  int64
	Secondary bool
}

func (w *worker) drawStockLevel() stockLevelInput {
	return stockLevelInput{WID: w.wID, DID: w.dID, Threshold: w.rnd.Int(10, 20)}
}

// stockLevel runs a Stock-Level (clause 2.8.2) outside a transaction, as the
// TPC-C-on-MongoDB paper (§4.5.1) does, routed by the balancer as one unit (the
// Decongestant paper), so all three queries go to the member it chose. With
// StockLevelMajority they read with read concern majority in the worker's
// causally consistent session; with StockLevelLocal, with read concern local
// outside it (in the driver's implicit session, which is not causally
// consistent).
func (w *worker) stockLevel(ctx context.Context, in stockLevelInput) (stockLevelResult, error) {
	copts := w.local
	if w.cfg.StockLevelReadConcern == StockLevelMajority {
		// The session goes in before Begin, so a router that reads
		// from a member's own pool carries it there.
		ctx, copts = mongo.NewSessionContext(ctx, w.sess), w.majority
	}
	u := w.env.Reads.Begin(ctx)
	res, err := w.stockLevelOn(u.Ctx, u.DB, copts, in)
	res.Secondary = u.Secondary
	u.Done(err)
	return res, err
}

func (w *worker) stockLevelOn(ctx context.Context, db *mongo.Database, copts *options.CollectionOptionsBuilder, in stockLevelInput) (stockLevelResult, error) {
	var res stockLevelResult
	var d struct {
		NextOID int `bson:"D_NEXT_O_ID"`
	}
	err := db.Collection(collDistrict, copts).FindOne(ctx, bson.D{{Key: "D_W_ID", Value: in.WID}, {Key: "D_ID", Value: in.DID}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "D_NEXT_O_ID", Value: 1}})).Decode(&d)
	if err != nil {
		return res, found(err, "district W_ID=%d D_ID=%d", in.WID, in.DID)
	}
	oidRange := bson.D{{Key: "$gte", Value: d.NextOID - 20}, {Key: "$lt", Value: d.NextOID}}
	var items []int
	seen := map[int]bool{}
	add := func(id int) {
		if !seen[id] {
			seen[id] = true
			items = append(items, id)
		}
	}
	if w.cfg.Schema == Denormalized {
		cur, err := db.Collection(collOrders, copts).Find(ctx,
			bson.D{{Key: "O_W_ID", Value: in.WID}, {Key: "O_D_ID", Value: in.DID}, {Key: "O_ID", Value: oidRange}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: fieldOrderLines + ".OL_I_ID", Value: 1}}))
		if err != nil {
			return res, err
		}
		var orders []struct {
			Lines []struct {
				IID int `bson:"OL_I_ID"`
			} `bson:"ORDER_LINE"`
		}
		if err := cur.All(ctx, &orders); err != nil {
			return res, err
		}
		for _, o := range orders {
			for _, l := range o.Lines {
				add(l.IID)
			}
		}
	} else {
		cur, err := db.Collection(collOrderLine, copts).Find(ctx,
			bson.D{{Key: "OL_O_ID", Value: oidRange}, {Key: "OL_D_ID", Value: in.DID}, {Key: "OL_W_ID", Value: in.WID}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "OL_I_ID", Value: 1}}))
		if err != nil {
			return res, err
		}
		var lines []struct {
			IID int `bson:"OL_I_ID"`
		}
		if err := cur.All(ctx, &lines); err != nil {
			return res, err
		}
		for _, l := range lines {
			add(l.IID)
		}
	}
	if len(items) == 0 {
		return res, nil
	}
	n, err := db.Collection(collStock, copts).CountDocuments(ctx, bson.D{{Key: "S_W_ID", Value: in.WID},
		{Key: "S_I_ID", Value: bson.D{{Key: "$in", Value: items}}}, {Key: "S_QUANTITY", Value: bson.D{{Key: "$lt", Value: in.Threshold}}}})
	res.LowStock = n
	return res, err
}
