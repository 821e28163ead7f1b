package tpcc

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// newOrderLine is one requested line of a New-Order (clause 2.4.1.5).
type newOrderLine struct {
	IID       int
	SupplyWID int
	Quantity  int
}

// newOrderInput is the terminal input of a New-Order (clause 2.4.1).
type newOrderInput struct {
	WID, DID, CID int
	Lines         []newOrderLine
	EntryD        time.Time
}

// newOrderResult is what a New-Order returns to the terminal (clause
// 2.4.3.3). RolledBack is set when an unused item id made it roll back; OID
// is then the order number that was not used.
type newOrderResult struct {
	OID        int
	Total      float64
	RolledBack bool
}

// drawNewOrder draws a New-Order's input (clause 2.4.1): 5..15 lines with
// NURand items, 1% remote supply warehouses, and in 1% of the orders an
// unused item id on the last line, which makes the transaction roll back.
func (w *worker) drawNewOrder() newOrderInput {
	s := w.cfg.Scale
	in := newOrderInput{WID: w.wID, DID: w.rnd.Int(1, s.Districts), CID: w.rnd.CustomerID(s.Customers),
		EntryD: time.Now().UTC()}
	n := w.rnd.Int(5, 15)
	rollback := w.rnd.Int(1, 100) == 1
	in.Lines = make([]newOrderLine, n)
	for i := range in.Lines {
		l := newOrderLine{IID: w.rnd.ItemID(s.Items), SupplyWID: w.wID, Quantity: w.rnd.Int(1, 10)}
		if w.cfg.Warehouses > 1 && w.rnd.Int(1, 100) == 1 {
			l.SupplyWID = w.otherWarehouse()
		}
		if rollback && i == n-1 {
			l.IID = s.Items + 1 // unused (clause 2.4.1.5 item 1)
		}
		in.Lines[i] = l
	}
	return in
}

type stockRow struct {
	IID      int    `bson:"S_I_ID"`
	WID      int    `bson:"S_W_ID"`
	Quantity int    `bson:"S_QUANTITY"`
	Data     string `bson:"S_DATA"`
	Dist     string `bson:"dist"`
}

// newOrderTxn runs a New-Order (clause 2.4.2) as one transaction. The
// TPC-C-on-MongoDB paper §4.5.5 order: the district's D_NEXT_O_ID first (the
// hottest document, so a write conflict aborts before any other work), then the
// reads, the stock updates and the inserts.
func (w *worker) newOrderTxn(ctx context.Context, in newOrderInput) (newOrderResult, int, error) {
	var res newOrderResult
	retries, rolledBack, err := w.txn.run(ctx, func(ctx context.Context) error {
		var err error
		res, err = w.newOrder(ctx, in)
		return err
	})
	res.RolledBack = rolledBack
	return res, retries, err
}

// newOrder is the body of a New-Order (clause 2.4.2.2), its steps in the
// TPC-C-on-MongoDB paper's order (newOrderTxn). An unused item rolls it back
// after the order number was taken (clause 2.4.2.3). The total is
// sum(OL_AMOUNT) * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX).
func (w *worker) newOrder(ctx context.Context, in newOrderInput) (newOrderResult, error) {
	var res newOrderResult
	oid, dTax, err := w.nextOrderID(ctx, in)
	if err != nil {
		return res, err
	}
	res.OID = oid
	wTax, discount, err := w.taxAndDiscount(ctx, in)
	if err != nil {
		return res, err
	}
	items, err := w.readItems(ctx, in)
	if err != nil {
		return res, err
	}
	lines, err := w.updateStock(ctx, in, items)
	if err != nil {
		return res, err
	}
	if err := w.insertOrder(ctx, in, oid, lines); err != nil {
		return res, err
	}
	var sum float64
	for _, l := range lines {
		sum += l.Amount
	}
	res.Total = sum * (1 - discount) * (1 + wTax + dTax)
	return res, nil
}

// nextOrderID reads the district's D_TAX and D_NEXT_O_ID and increments
// D_NEXT_O_ID (clause 2.4.2.2): one findAndModify, or a find and an update.
func (w *worker) nextOrderID(ctx context.Context, in newOrderInput) (oid int, tax float64, err error) {
	var d struct {
		Tax     float64 `bson:"D_TAX"`
		NextOID int     `bson:"D_NEXT_O_ID"`
	}
	dKey := bson.D{{Key: "D_W_ID", Value: in.WID}, {Key: "D_ID", Value: in.DID}}
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "D_NEXT_O_ID", Value: 1}}}}
	proj := bson.D{{Key: "_id", Value: 0}, {Key: "D_TAX", Value: 1}, {Key: "D_NEXT_O_ID", Value: 1}}
	if w.cfg.FindAndModify {
		err := w.district.FindOneAndUpdate(ctx, dKey, inc, options.FindOneAndUpdate().SetProjection(proj)).Decode(&d)
		if err != nil {
			return 0, 0, found(err, "district W_ID=%d D_ID=%d", in.WID, in.DID)
		}
	} else {
		if err := w.district.FindOne(ctx, dKey, options.FindOne().SetProjection(proj)).Decode(&d); err != nil {
			return 0, 0, found(err, "district W_ID=%d D_ID=%d", in.WID, in.DID)
		}
		if _, err := w.district.UpdateOne(ctx, dKey, inc); err != nil {
			return 0, 0, err
		}
	}
	return d.NextOID, d.Tax, nil
}

// taxAndDiscount reads the warehouse's W_TAX and the customer's C_DISCOUNT,
// C_LAST and C_CREDIT (clause 2.4.2.2).
func (w *worker) taxAndDiscount(ctx context.Context, in newOrderInput) (tax, discount float64, err error) {
	var wh struct {
		Tax float64 `bson:"W_TAX"`
	}
	if err := w.warehouse.FindOne(ctx, bson.D{{Key: "W_ID", Value: in.WID}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "W_TAX", Value: 1}})).Decode(&wh); err != nil {
		return 0, 0, found(err, "warehouse W_ID=%d", in.WID)
	}
	var c struct {
		Discount float64 `bson:"C_DISCOUNT"`
		Last     string  `bson:"C_LAST"`
		Credit   string  `bson:"C_CREDIT"`
	}
	if err := w.customer.FindOne(ctx, bson.D{{Key: "C_W_ID", Value: in.WID}, {Key: "C_D_ID", Value: in.DID}, {Key: "C_ID", Value: in.CID}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "C_DISCOUNT", Value: 1}, {Key: "C_LAST", Value: 1}, {Key: "C_CREDIT", Value: 1}})).Decode(&c); err != nil {
		return 0, 0, found(err, "customer W_ID=%d D_ID=%d C_ID=%d", in.WID, in.DID, in.CID)
	}
	return wh.Tax, c.Discount, nil
}

// readItems reads the ITEM row of every line in one query, by I_ID; a
// missing id is the rollback case (errRollback).
//
// I_W_ID is 0 in our loads and py-tpcc's (unsharded), missing in loads
// older than the field: the filter on it lets py-tpcc's only ITEM index
// (I_W_ID, I_ID) serve the query, and costs nothing on ours (I_ID).
func (w *worker) readItems(ctx context.Context, in newOrderInput) (map[int]itemDoc, error) {
	ids := make([]int, 0, len(in.Lines))
	seen := map[int]bool{}
	for _, l := range in.Lines {
		if !seen[l.IID] {
			seen[l.IID] = true
			ids = append(ids, l.IID)
		}
	}
	items := make(map[int]itemDoc, len(ids))
	cur, err := w.item.Find(ctx, bson.D{{Key: "I_ID", Value: bson.D{{Key: "$in", Value: ids}}},
		{Key: "I_W_ID", Value: bson.D{{Key: "$in", Value: bson.A{0, nil}}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "I_ID", Value: 1}, {Key: "I_PRICE", Value: 1}, {Key: "I_NAME", Value: 1}, {Key: "I_DATA", Value: 1}}))
	if err != nil {
		return nil, err
	}
	var its []itemDoc
	if err := cur.All(ctx, &its); err != nil {
		return nil, err
	}
	for _, it := range its {
		items[it.ID] = it
	}
	if len(items) < len(ids) {
		return nil, errRollback // clause 2.4.2.3: "Item number is not valid"
	}
	return items, nil
}

// updateStock reads every line's STOCK row in one query, updates each
// (S_QUANTITY, S_YTD, S_ORDER_CNT, S_REMOTE_CNT; clause 2.4.2.2), one by
// one or, with BatchWrites, in one bulk write, and returns the order lines
// with their OL_AMOUNT and OL_DIST_INFO.
func (w *worker) updateStock(ctx context.Context, in newOrderInput, items map[int]itemDoc) ([]orderLineDoc, error) {
	stocks, err := w.readStock(ctx, in)
	if err != nil {
		return nil, err
	}
	lines := make([]orderLineDoc, len(in.Lines))
	var updates []mongo.WriteModel
	for i, l := range in.Lines {
		key := [2]int{l.SupplyWID, l.IID}
		st, ok := stocks[key]
		if !ok {
			return nil, notFound("stock S_W_ID=%d S_I_ID=%d", l.SupplyWID, l.IID)
		}
		q := st.Quantity - l.Quantity
		if st.Quantity < l.Quantity+10 {
			q += 91
		}
		st.Quantity = q
		stocks[key] = st
		remote := 0
		if l.SupplyWID != in.WID {
			remote = 1
		}
		upd := bson.D{{Key: "$set", Value: bson.D{{Key: "S_QUANTITY", Value: q}}},
			{Key: "$inc", Value: bson.D{{Key: "S_YTD", Value: l.Quantity}, {Key: "S_ORDER_CNT", Value: 1}, {Key: "S_REMOTE_CNT", Value: remote}}}}
		filter := bson.D{{Key: "S_W_ID", Value: l.SupplyWID}, {Key: "S_I_ID", Value: l.IID}}
		if w.cfg.BatchWrites {
			updates = append(updates, mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(upd))
		} else if _, err := w.stock.UpdateOne(ctx, filter, upd); err != nil {
			return nil, err
		}
		lines[i] = orderLineDoc{Number: i + 1, IID: l.IID, SupplyWID: l.SupplyWID, Quantity: l.Quantity,
			Amount: float64(l.Quantity) * items[l.IID].Price, DistInfo: st.Dist}
	}
	if len(updates) > 0 {
		if _, err := w.stock.BulkWrite(ctx, updates); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// insertOrder inserts the ORDERS row (its lines embedded, or, normalized,
// ORDER_LINE documents: one insert, or one per line without BatchWrites)
// and the NEW_ORDER row (clause 2.4.2.2). O_ALL_LOCAL is 1 when every line
// is supplied by the home warehouse.
func (w *worker) insertOrder(ctx context.Context, in newOrderInput, oid int, lines []orderLineDoc) error {
	allLocal := 1
	for _, l := range in.Lines {
		if l.SupplyWID != in.WID {
			allLocal = 0
		}
	}
	o := orderDoc{ID: oid, CID: in.CID, DID: in.DID, WID: in.WID, EntryD: in.EntryD,
		OLCnt: len(lines), AllLocal: allLocal}
	if w.cfg.Schema == Denormalized {
		o.Lines = lines
	}
	if _, err := w.orders.InsertOne(ctx, o); err != nil {
		return err
	}
	if w.cfg.Schema == Normalized {
		docs := make([]any, len(lines))
		for i := range lines {
			lines[i].OID, lines[i].DID, lines[i].WID = oid, in.DID, in.WID
			docs[i] = lines[i]
		}
		if w.cfg.BatchWrites {
			if _, err := w.orderLine.InsertMany(ctx, docs); err != nil {
				return err
			}
		} else {
			for _, doc := range docs {
				if _, err := w.orderLine.InsertOne(ctx, doc); err != nil {
					return err
				}
			}
		}
	}
	_, err := w.newOrders.InsertOne(ctx, newOrderDoc{OID: oid, DID: in.DID, WID: in.WID})
	return err
}

// readStock reads the STOCK rows of the order's lines with their
// S_DIST_xx for the order's district, keyed by (S_W_ID, S_I_ID).
func (w *worker) readStock(ctx context.Context, in newOrderInput) (map[[2]int]stockRow, error) {
	byW := map[int][]int{}
	for _, l := range in.Lines {
		byW[l.SupplyWID] = append(byW[l.SupplyWID], l.IID)
	}
	var or bson.A
	for sw, ids := range byW {
		or = append(or, bson.D{{Key: "S_W_ID", Value: sw}, {Key: "S_I_ID", Value: bson.D{{Key: "$in", Value: ids}}}})
	}
	filter := or[0]
	if len(or) > 1 {
		filter = bson.D{{Key: "$or", Value: or}}
	}
	proj := bson.D{{Key: "_id", Value: 0}, {Key: "S_I_ID", Value: 1}, {Key: "S_W_ID", Value: 1},
		{Key: "S_QUANTITY", Value: 1}, {Key: "S_DATA", Value: 1}, {Key: "dist", Value: "$" + distField(in.DID)}}
	cur, err := w.stock.Find(ctx, filter, options.Find().SetProjection(proj))
	if err != nil {
		return nil, err
	}
	var rows []stockRow
	if err := cur.All(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[[2]int]stockRow, len(rows))
	for _, r := range rows {
		out[[2]int{r.WID, r.IID}] = r
	}
	return out, nil
}

// found turns mongo.ErrNoDocuments into ErrNotFound naming the row.
func found(err error, format string, a ...any) error {
	if err == mongo.ErrNoDocuments {
		return notFound(format, a...)
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), err)
}
