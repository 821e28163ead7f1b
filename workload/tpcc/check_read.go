package tpcc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// listWarehouses returns the W_IDs of db, ascending, or an error wrapping
// ErrEmpty when there are none.
func listWarehouses(ctx context.Context, db *mongo.Database) ([]int, error) {
	cur, err := db.Collection(collWarehouse).Find(ctx, bson.D{},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "W_ID", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("tpcc: check: list warehouses of database %q: %w", db.Name(), err)
	}
	var rows []struct {
		W int `bson:"W_ID"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("tpcc: check: list warehouses of database %q: %w", db.Name(), err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: %s of database %q is empty or missing", ErrEmpty, collWarehouse, db.Name())
	}
	ws := make([]int, len(rows))
	for i, r := range rows {
		ws[i] = r.W
	}
	slices.Sort(ws)
	return slices.Compact(ws), nil
}

// Server error codes after which a warehouse is read again in a new
// snapshot.
const (
	codeSnapshotTooOld      = 239
	codeSnapshotUnavailable = 246
)

func retrySnapshot(err error) bool {
	var se mongo.ServerError
	if errors.As(err, &se) && (se.HasErrorCode(codeSnapshotTooOld) || se.HasErrorCode(codeSnapshotUnavailable) ||
		se.HasErrorLabel("TransientTransactionError")) {
		return true
	}
	return mongo.IsNetworkError(err)
}

// readWarehouseRetry reads warehouse w, once more in a new snapshot after a
// transient failure.
func readWarehouseRetry(ctx context.Context, db *mongo.Database, s Schema, w int, needs checkSource) (*checkData, map[checkSource]time.Duration, error) {
	d, t, err := readWarehouse(ctx, db, s, w, needs)
	if err != nil && retrySnapshot(err) && ctx.Err() == nil {
		d, t, err = readWarehouse(ctx, db, s, w, needs)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("tpcc: check database %q W_ID=%d: %w", db.Name(), w, err)
	}
	return d, t, nil
}

// readWarehouse reads what needs asks of warehouse w in one snapshot and
// returns it with the time each read took.
func readWarehouse(ctx context.Context, db *mongo.Database, s Schema, w int, needs checkSource) (*checkData, map[checkSource]time.Duration, error) {
	sess, err := db.Client().StartSession(options.Session().SetSnapshot(true))
	if err != nil {
		return nil, nil, fmt.Errorf("start snapshot session: %w", err)
	}
	defer sess.EndSession(context.WithoutCancel(ctx))
	sctx := mongo.NewSessionContext(ctx, sess)

	d := &checkData{w: w}
	times := map[checkSource]time.Duration{}
	reads := []struct {
		src  checkSource
		read func(context.Context, *mongo.Database, Schema, *checkData) error
	}{
		{srcWarehouse, readWarehouseRow},
		{srcDistrict, readDistricts},
		{srcCustomer, readCustomers},
		{srcOrders, readOrders},
		{srcNewOrder, readNewOrders},
		{srcHistory, readHistory},
	}
	for _, r := range reads {
		src := r.src
		if src == srcOrders && needs&srcLines != 0 {
			src |= srcLines
		}
		if needs&src == 0 {
			continue
		}
		start := time.Now()
		if src&srcLines != 0 {
			d.withLines = true
		}
		if err := r.read(sctx, db, s, d); err != nil {
			return nil, nil, err
		}
		times[src] = time.Since(start)
	}
	return d, times, nil
}

func readWarehouseRow(ctx context.Context, db *mongo.Database, _ Schema, d *checkData) error {
	var row struct {
		YTD float64 `bson:"W_YTD"`
	}
	err := db.Collection(collWarehouse).FindOne(ctx, bson.D{{Key: "W_ID", Value: d.w}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "W_YTD", Value: 1}})).Decode(&row)
	if err != nil {
		return fmt.Errorf("read %s: %w", collWarehouse, err)
	}
	d.wYTD = row.YTD
	return nil
}

func readDistricts(ctx context.Context, db *mongo.Database, _ Schema, d *checkData) error {
	return findAll(ctx, db.Collection(collDistrict), bson.D{{Key: "D_W_ID", Value: d.w}},
		bson.D{{Key: "_id", Value: 0}, {Key: "D_ID", Value: 1}, {Key: "D_YTD", Value: 1}, {Key: "D_NEXT_O_ID", Value: 1}},
		&d.districts)
}

func readCustomers(ctx context.Context, db *mongo.Database, _ Schema, d *checkData) error {
	err := findAll(ctx, db.Collection(collCustomer), bson.D{{Key: "C_W_ID", Value: d.w}},
		bson.D{{Key: "_id", Value: 0}, {Key: "C_D_ID", Value: 1}, {Key: "C_ID", Value: 1},
			{Key: "C_BALANCE", Value: 1}, {Key: "C_YTD_PAYMENT", Value: 1}},
		&d.customers)
	slices.SortFunc(d.customers, func(a, b customerRow) int { return cmp.Or(cmp.Compare(a.D, b.D), cmp.Compare(a.C, b.C)) })
	return err
}

func readNewOrders(ctx context.Context, db *mongo.Database, _ Schema, d *checkData) error {
	return findAll(ctx, db.Collection(collNewOrder), bson.D{{Key: "NO_W_ID", Value: d.w}},
		bson.D{{Key: "_id", Value: 0}, {Key: "NO_D_ID", Value: 1}, {Key: "NO_O_ID", Value: 1}},
		&d.newOrders)
}

func findAll[T any](ctx context.Context, coll *mongo.Collection, filter, projection bson.D, out *[]T) error {
	cur, err := coll.Find(ctx, filter, options.Find().SetProjection(projection))
	if err != nil {
		return fmt.Errorf("read %s: %w", coll.Name(), err)
	}
	if err := cur.All(ctx, out); err != nil {
		return fmt.Errorf("read %s: %w", coll.Name(), err)
	}
	return nil
}

// undelivered is an expression that is true when the delivery date at path
// ("$$l.OL_DELIVERY_D", "$OL_DELIVERY_D") is null or missing.
func undelivered(path string) bson.D {
	return bson.D{{Key: "$eq", Value: bson.A{bson.D{{Key: "$ifNull", Value: bson.A{path, nil}}}, nil}}}
}

// readOrders reads one row per order of the warehouse and, with d.withLines,
// its line summary: in the denormalized schema computed from the embedded
// array, in the normalized one by a $group of ORDER_LINE by order.
func readOrders(ctx context.Context, db *mongo.Database, s Schema, d *checkData) error {
	project := bson.D{{Key: "_id", Value: 0}, {Key: "O_D_ID", Value: 1}, {Key: "O_ID", Value: 1}, {Key: "O_C_ID", Value: 1},
		{Key: "O_CARRIER_ID", Value: 1}, {Key: "O_OL_CNT", Value: 1}}
	if d.withLines && s == Denormalized {
		lines := bson.D{{Key: "$ifNull", Value: bson.A{"$" + fieldOrderLines, bson.A{}}}}
		filter := func(cond bson.D) bson.D {
			return bson.D{{Key: "$filter", Value: bson.D{{Key: "input", Value: lines}, {Key: "as", Value: "l"}, {Key: "cond", Value: cond}}}}
		}
		project = append(project,
			bson.E{Key: "lines", Value: bson.D{{Key: "$size", Value: lines}}},
			bson.E{Key: "undelivered", Value: bson.D{{Key: "$size", Value: filter(undelivered("$$l.OL_DELIVERY_D"))}}},
			bson.E{Key: "delivered_amount", Value: bson.D{{Key: "$sum", Value: bson.D{{Key: "$map", Value: bson.D{
				{Key: "input", Value: filter(bson.D{{Key: "$not", Value: bson.A{undelivered("$$l.OL_DELIVERY_D")}}})},
				{Key: "as", Value: "l"},
				{Key: "in", Value: "$$l.OL_AMOUNT"},
			}}}}}},
		)
	}
	cur, err := db.Collection(collOrders).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "O_W_ID", Value: d.w}}}},
		{{Key: "$project", Value: project}},
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", collOrders, err)
	}
	if err := cur.All(ctx, &d.orders); err != nil {
		return fmt.Errorf("read %s: %w", collOrders, err)
	}
	slices.SortFunc(d.orders, func(a, b orderRow) int { return cmp.Or(cmp.Compare(a.D, b.D), cmp.Compare(a.O, b.O)) })
	if !d.withLines || s == Denormalized {
		return nil
	}

	// Normalized: summarise ORDER_LINE per order and attach it. No index
	// of ORDER_LINE leads with OL_W_ID; the predicate on OL_O_ID, which
	// every line satisfies, lets the planner use the primary index
	// (OL_O_ID, OL_D_ID, OL_W_ID, OL_NUMBER) as a skip scan on OL_W_ID
	// instead of scanning every warehouse's lines.
	cur, err = db.Collection(collOrderLine).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "OL_O_ID", Value: bson.D{{Key: "$type", Value: "number"}}}, {Key: "OL_W_ID", Value: d.w}}}},
		{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "d", Value: "$OL_D_ID"}, {Key: "o", Value: "$OL_O_ID"}}},
			{Key: "lines", Value: bson.D{{Key: "$sum", Value: 1}}},
			{Key: "undelivered", Value: bson.D{{Key: "$sum", Value: bson.D{{Key: "$cond", Value: bson.A{undelivered("$OL_DELIVERY_D"), 1, 0}}}}}},
			{Key: "delivered_amount", Value: bson.D{{Key: "$sum", Value: bson.D{{Key: "$cond", Value: bson.A{undelivered("$OL_DELIVERY_D"), 0, "$OL_AMOUNT"}}}}}},
		}}},
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", collOrderLine, err)
	}
	var groups []struct {
		ID struct {
			D int `bson:"d"`
			O int `bson:"o"`
		} `bson:"_id"`
		Lines           int64   `bson:"lines"`
		Undelivered     int64   `bson:"undelivered"`
		DeliveredAmount float64 `bson:"delivered_amount"`
	}
	if err := cur.All(ctx, &groups); err != nil {
		return fmt.Errorf("read %s: %w", collOrderLine, err)
	}
	for _, g := range groups {
		i, ok := slices.BinarySearchFunc(d.orders, [2]int{g.ID.D, g.ID.O}, func(r orderRow, k [2]int) int {
			return cmp.Or(cmp.Compare(r.D, k[0]), cmp.Compare(r.O, k[1]))
		})
		if !ok {
			if d.orphanLines == nil {
				d.orphanLines = map[int]int64{}
			}
			d.orphanLines[g.ID.D] += g.Lines
			continue
		}
		o := &d.orders[i]
		o.Lines, o.Undelivered, o.DeliveredAmount = g.Lines, g.Undelivered, g.DeliveredAmount
	}
	return nil
}

// readHistory sums H_AMOUNT of the payments made in warehouse w (H_W_ID)
// or to its customers (H_C_W_ID), grouped by payment district and customer.
// HISTORY has no index, so this is one collection scan per warehouse.
func readHistory(ctx context.Context, db *mongo.Database, _ Schema, d *checkData) error {
	cur, err := db.Collection(collHistory).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "H_W_ID", Value: d.w}}, bson.D{{Key: "H_C_W_ID", Value: d.w}}}}}}},
		{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "w", Value: "$H_W_ID"}, {Key: "d", Value: "$H_D_ID"},
				{Key: "cw", Value: "$H_C_W_ID"}, {Key: "cd", Value: "$H_C_D_ID"}, {Key: "c", Value: "$H_C_ID"}}},
			{Key: "amount", Value: bson.D{{Key: "$sum", Value: "$H_AMOUNT"}}},
		}}},
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", collHistory, err)
	}
	if err := cur.All(ctx, &d.history); err != nil {
		return fmt.Errorf("read %s: %w", collHistory, err)
	}
	return nil
}
