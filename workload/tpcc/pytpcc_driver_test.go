package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// pyDriver reimplements, for tests, the queries of py-tpcc's MongoDB driver,
// the reference implementation of the TPC-C-on-MongoDB paper:
// github.com/mongodb-labs/py-tpcc, pytpcc/drivers/mongodbdriver.py, class
// MongodbDriver (its Python 3 version, commit 09296eeb). Every query has the
// driver's collection, filter (with its $comment), projection, sort and limit,
// in the driver's order, and the writes have the driver's documents; each
// method names the driver function it mirrors. No driver code is copied: this
// is Go written from reading it.
//
// Settings are the driver's defaults except where a field says otherwise:
// not sharded (I_W_ID 0), no_global_items False, batch writes and one
// transaction for Delivery's ten districts (fixed in the driver), agg False
// (the aggregation of Stock-Level is stockLevelAgg). The client has the
// driver's read concern majority; transactions commit with write concern
// majority (the user's configuration) and read preference primary.
type pyDriver struct {
	client *mongo.Client
	db     *mongo.Database
	// denormalize and findAndModify are the driver's "denormalize" and
	// "findandmodify" settings.
	denormalize, findAndModify bool
	districts                  int // constants.DISTRICTS_PER_WAREHOUSE
}

// newPyDriver returns a driver on database name of client, which must have
// been connected with read concern majority (the driver's readConcernLevel).
func newPyDriver(client *mongo.Client, name string, schema Schema, findAndModify bool, districts int) *pyDriver {
	return &pyDriver{client: client, db: client.Database(name, options.Database().SetWriteConcern(writeconcern.Majority())),
		denormalize: schema == Denormalized, findAndModify: findAndModify, districts: districts}
}

func (p *pyDriver) coll(name string) *mongo.Collection { return p.db.Collection(name) }

// errPyRollback is the driver's New-Order returning None after aborting on
// an unused item (the 1%).
var errPyRollback = errors.New("py-tpcc new order rolled back")

// txn mirrors run_transaction_with_retries and run_transaction: a session
// with the driver's causal_consistency (True), a transaction with read
// concern None (the client's majority), write concern majority and read
// preference primary, retried on TransientTransactionError.
func (p *pyDriver) txn(ctx context.Context, body func(ctx context.Context) error) error {
	sess, err := p.client.StartSession(options.Session().SetCausalConsistency(true))
	if err != nil {
		return err
	}
	defer sess.EndSession(context.WithoutCancel(ctx))
	_, err = sess.WithTransaction(ctx, func(ctx context.Context) (any, error) { return nil, body(ctx) },
		options.Transaction().SetWriteConcern(writeconcern.Majority()).SetReadPreference(readpref.Primary()))
	return err
}

// Reading results: the driver indexes result dictionaries (d["D_TAX"]), so
// a missing field is a KeyError that fails the transaction. These helpers
// fail the same way, naming the field.

func pyGet(m bson.M, key string) (any, error) {
	v, ok := m[key]
	if !ok {
		return nil, fmt.Errorf("KeyError: %q not in %s document", key, describeDoc(m))
	}
	return v, nil
}

func describeDoc(m bson.M) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "{" + strings.Join(keys, ",") + "}"
}

func pyNum(m bson.M, key string) (float64, error) {
	v, err := pyGet(m, key)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("%s is %T, not a number", key, v)
}

func pyInt(m bson.M, key string) (int, error) {
	f, err := pyNum(m, key)
	if err == nil && f != math.Trunc(f) {
		err = fmt.Errorf("%s=%v is not an integer", key, f)
	}
	return int(f), err
}

func pyStr(m bson.M, key string) (string, error) {
	v, err := pyGet(m, key)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is %T, not a string", key, v)
	}
	return s, nil
}

// pyInts reads several integer fields, as the driver reads a row's columns.
func pyInts(m bson.M, keys ...string) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		v, err := pyInt(m, k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// pyStrs reads several string fields.
func pyStrs(m bson.M, keys ...string) ([]string, error) {
	out := make([]string, len(keys))
	for i, k := range keys {
		v, err := pyStr(m, k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// pyDocs returns the array at key as documents.
func pyDocs(m bson.M, key string) ([]bson.M, error) {
	v, err := pyGet(m, key)
	if err != nil {
		return nil, err
	}
	a, ok := v.(bson.A)
	if !ok {
		return nil, fmt.Errorf("%s is %T, not an array", key, v)
	}
	out := make([]bson.M, len(a))
	for i, e := range a {
		if out[i], ok = asM(e); !ok {
			return nil, fmt.Errorf("%s[%d] is %T, not a document", key, i, e)
		}
	}
	return out, nil
}

func asM(v any) (bson.M, bool) {
	switch x := v.(type) {
	case bson.M:
		return x, true
	case bson.D:
		m := make(bson.M, len(x))
		for _, e := range x {
			m[e.Key] = e.Value
		}
		return m, true
	}
	return nil, false
}

// withComment returns a result document used as the next query's filter,
// as the driver does (d["$comment"] = comment; update_one(d, …)).
func withComment(m bson.M, comment string) bson.M {
	f := make(bson.M, len(m)+1)
	for k, v := range m {
		f[k] = v
	}
	f["$comment"] = comment
	return f
}

func findAllM(ctx context.Context, coll *mongo.Collection, filter any, o *options.FindOptionsBuilder) ([]bson.M, error) {
	cur, err := coll.Find(ctx, filter, o)
	if err != nil {
		return nil, err
	}
	var out []bson.M
	err = cur.All(ctx, &out)
	return out, err
}

// findOneM returns nil, nil when nothing matches (Python's None).
func findOneM(ctx context.Context, coll *mongo.Collection, filter any, o *options.FindOneOptionsBuilder) (bson.M, error) {
	var m bson.M
	err := coll.FindOne(ctx, filter, o).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	return m, err
}

// pyNewOrderIn is generateNewOrderParams' output (pytpcc/runtime/executor.py).
type pyNewOrderIn struct {
	wID, dID, cID      int
	iIDs, iWIDs, iQtys []int
	entry              time.Time
}

// pyNewOrderOut is what the driver found and wrote.
type pyNewOrderOut struct {
	rolledBack    bool
	oID           int
	items, stocks int     // documents its ITEM and STOCK queries returned
	stockMatched  int64   // STOCK documents its bulk update matched
	total         float64 // the order's total (clause 2.4.2.2)
}

// newOrder mirrors MongodbDriver._doNewOrderTxn in a transaction
// (doNewOrder).
func (p *pyDriver) newOrder(ctx context.Context, in pyNewOrderIn) (pyNewOrderOut, error) {
	var out pyNewOrderOut
	err := p.txn(ctx, func(ctx context.Context) error {
		out = pyNewOrderOut{}
		const comment = "NEW_ORDER"
		sDistCol := fmt.Sprintf("S_DIST_%02d", in.dID)

		// getDistrict (and incrementNextOrderId).
		dFilter := bson.D{{Key: "D_ID", Value: in.dID}, {Key: "D_W_ID", Value: in.wID}, {Key: "$comment", Value: comment}}
		dProj := bson.D{{Key: "_id", Value: 0}, {Key: "D_ID", Value: 1}, {Key: "D_W_ID", Value: 1}, {Key: "D_TAX", Value: 1}, {Key: "D_NEXT_O_ID", Value: 1}}
		inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "D_NEXT_O_ID", Value: 1}}}}
		var d bson.M
		if p.findAndModify {
			// The driver sorts the district on NO_O_ID, a field DISTRICT
			// does not have; the filter matches one document anyway.
			err := p.coll(collDistrict).FindOneAndUpdate(ctx, dFilter, inc,
				options.FindOneAndUpdate().SetProjection(dProj).SetSort(bson.D{{Key: "NO_O_ID", Value: 1}})).Decode(&d)
			if err != nil {
				return fmt.Errorf("getDistrict W_ID=%d D_ID=%d: %w", in.wID, in.dID, err)
			}
		} else {
			var err error
			if d, err = findOneM(ctx, p.coll(collDistrict), dFilter, options.FindOne().SetProjection(dProj)); err != nil || d == nil {
				return fmt.Errorf("getDistrict W_ID=%d D_ID=%d: %v, %w", in.wID, in.dID, d, err)
			}
			// incrementNextOrderId: the projected district is the filter.
			r, err := p.coll(collDistrict).UpdateOne(ctx, withComment(d, comment), inc)
			if err != nil {
				return err
			}
			if r.MatchedCount != 1 {
				return fmt.Errorf("incrementNextOrderId matched %d districts with %v", r.MatchedCount, d)
			}
		}
		dTax, err := pyNum(d, "D_TAX")
		if err != nil {
			return err
		}
		next, err := pyInt(d, "D_NEXT_O_ID")
		if err != nil {
			return err
		}

		// The items, unsharded: I_W_ID 0.
		items, err := findAllM(ctx, p.coll(collItem),
			bson.D{{Key: "I_ID", Value: bson.D{{Key: "$in", Value: in.iIDs}}}, {Key: "I_W_ID", Value: 0}, {Key: "$comment", Value: comment}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "I_ID", Value: 1}, {Key: "I_PRICE", Value: 1}, {Key: "I_NAME", Value: 1}, {Key: "I_DATA", Value: 1}}))
		if err != nil {
			return err
		}
		out.items = len(items)
		if len(items) != len(in.iIDs) {
			return errPyRollback // s.abort_transaction(); return None
		}
		if err := sortByPosition(items, in.iIDs, "I_ID"); err != nil {
			return err
		}

		// getWarehouseTaxRate
		w, err := findOneM(ctx, p.coll(collWarehouse), bson.D{{Key: "W_ID", Value: in.wID}, {Key: "$comment", Value: comment}},
			options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "W_TAX", Value: 1}}))
		if err != nil || w == nil {
			return fmt.Errorf("getWarehouseTaxRate W_ID=%d: %v, %w", in.wID, w, err)
		}
		wTax, err := pyNum(w, "W_TAX")
		if err != nil {
			return err
		}
		// getCustomer
		c, err := findOneM(ctx, p.coll(collCustomer),
			bson.D{{Key: "C_ID", Value: in.cID}, {Key: "C_D_ID", Value: in.dID}, {Key: "C_W_ID", Value: in.wID}, {Key: "$comment", Value: comment}},
			options.FindOne().SetProjection(bson.D{{Key: "C_DISCOUNT", Value: 1}, {Key: "C_LAST", Value: 1}, {Key: "C_CREDIT", Value: 1}}))
		if err != nil || c == nil {
			return fmt.Errorf("getCustomer: %v, %w", c, err)
		}
		cDiscount, err := pyNum(c, "C_DISCOUNT")
		if err != nil {
			return err
		}

		// createNewOrder
		if _, err := p.coll(collNewOrder).InsertOne(ctx, bson.D{{Key: "NO_O_ID", Value: next}, {Key: "NO_D_ID", Value: in.dID}, {Key: "NO_W_ID", Value: in.wID}}); err != nil {
			return err
		}
		olCnt := len(in.iIDs)
		allLocal := 1
		for _, sw := range in.iWIDs {
			if sw != in.wID {
				allLocal = 0
			}
		}

		// The stock rows: one query, by $in when all local, else an $or
		// of (S_I_ID, S_W_ID) pairs.
		stockProj := bson.D{{Key: "_id", Value: 0}, {Key: "S_I_ID", Value: 1}, {Key: "S_W_ID", Value: 1}, {Key: "S_QUANTITY", Value: 1},
			{Key: "S_DATA", Value: 1}, {Key: "S_YTD", Value: 1}, {Key: "S_ORDER_CNT", Value: 1}, {Key: "S_REMOTE_CNT", Value: 1}, {Key: sDistCol, Value: 1}}
		var stockFilter bson.D
		if allLocal == 1 {
			stockFilter = bson.D{{Key: "S_I_ID", Value: bson.D{{Key: "$in", Value: in.iIDs}}}, {Key: "S_W_ID", Value: in.wID}, {Key: "$comment", Value: comment}}
		} else {
			var or bson.A
			for i := range in.iIDs {
				or = append(or, bson.D{{Key: "S_I_ID", Value: in.iIDs[i]}, {Key: "S_W_ID", Value: in.iWIDs[i]}})
			}
			stockFilter = bson.D{{Key: "$or", Value: or}, {Key: "$comment", Value: comment}}
		}
		stocks, err := findAllM(ctx, p.coll(collStock), stockFilter, options.Find().SetProjection(stockProj))
		if err != nil {
			return err
		}
		out.stocks = len(stocks)
		if len(stocks) != olCnt {
			return fmt.Errorf("all_stocks len %d != ol_cnt %d", len(stocks), olCnt)
		}
		pos := make([]int, olCnt)
		for i := range pos {
			pos[i] = in.iIDs[i]*1000 + in.iWIDs[i]
		}
		for _, s := range stocks {
			si, _ := pyInt(s, "S_I_ID")
			sw, _ := pyInt(s, "S_W_ID")
			s["_pos"] = si*1000 + sw
		}
		if err := sortByPosition(stocks, pos, "_pos"); err != nil {
			return err
		}

		var stockWrites []mongo.WriteModel
		var lines bson.A
		total := 0.0
		for i := 0; i < olCnt; i++ {
			it, si := items[i], stocks[i]
			delete(si, "_pos")
			price, err := pyNum(it, "I_PRICE")
			if err != nil {
				return err
			}
			if _, err := pyStrs(it, "I_NAME", "I_DATA"); err != nil {
				return err
			}
			n, err := pyInts(si, "S_QUANTITY", "S_YTD", "S_ORDER_CNT", "S_REMOTE_CNT")
			if err != nil {
				return err
			}
			q, ytd, orders, remote := n[0], n[1], n[2], n[3]
			strs, err := pyStrs(si, "S_DATA", sDistCol)
			if err != nil {
				return err
			}
			dist := strs[1]
			qty := in.iQtys[i]
			ytd += qty
			if q >= qty+10 {
				q -= qty
			} else {
				q = q + 91 - qty
			}
			orders++
			if in.iWIDs[i] != in.wID {
				remote++
			}
			// updateStock: the projected stock row is the filter.
			stockWrites = append(stockWrites, mongo.NewUpdateOneModel().SetFilter(withComment(si, comment)).
				SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "S_QUANTITY", Value: q}, {Key: "S_YTD", Value: ytd},
					{Key: "S_ORDER_CNT", Value: orders}, {Key: "S_REMOTE_CNT", Value: remote}}}}))
			amount := float64(qty) * price
			total += amount
			ol := bson.D{{Key: "OL_O_ID", Value: next}, {Key: "OL_NUMBER", Value: i + 1}, {Key: "OL_I_ID", Value: in.iIDs[i]},
				{Key: "OL_SUPPLY_W_ID", Value: in.iWIDs[i]}, {Key: "OL_DELIVERY_D", Value: in.entry},
				{Key: "OL_QUANTITY", Value: qty}, {Key: "OL_AMOUNT", Value: amount}, {Key: "OL_DIST_INFO", Value: dist}}
			if !p.denormalize {
				ol = append(ol, bson.E{Key: "OL_D_ID", Value: in.dID}, bson.E{Key: "OL_W_ID", Value: in.wID})
			}
			lines = append(lines, ol)
		}
		total *= (1 - cDiscount) * (1 + wTax + dTax)

		if !p.denormalize {
			if _, err := p.coll(collOrderLine).InsertMany(ctx, []any(lines), options.InsertMany().SetOrdered(false)); err != nil {
				return err
			}
		}
		r, err := p.coll(collStock).BulkWrite(ctx, stockWrites)
		if err != nil {
			return err
		}
		out.stockMatched = r.MatchedCount
		// createOrder
		o := bson.D{{Key: "O_ID", Value: next}, {Key: "O_ENTRY_D", Value: in.entry}, {Key: "O_CARRIER_ID", Value: 0},
			{Key: "O_OL_CNT", Value: olCnt}, {Key: "O_ALL_LOCAL", Value: allLocal}}
		if p.denormalize {
			o = append(o, bson.E{Key: fieldOrderLines, Value: lines})
		}
		o = append(o, bson.E{Key: "O_D_ID", Value: in.dID}, bson.E{Key: "O_W_ID", Value: in.wID}, bson.E{Key: "O_C_ID", Value: in.cID})
		if _, err := p.coll(collOrders).InsertOne(ctx, o); err != nil {
			return err
		}
		out.oID, out.total = next, total
		return nil
	})
	if errors.Is(err, errPyRollback) {
		out.rolledBack = true
		return out, nil
	}
	return out, err
}

// sortByPosition orders docs as keys orders the values of their field key,
// as the driver's sorted(…, key=lambda x: i_ids.index(x['I_ID'])) does; a
// value not in keys is the driver's ValueError.
func sortByPosition(docs []bson.M, keys []int, key string) error {
	idx := make([]int, len(docs))
	for i, d := range docs {
		v, err := pyInt(d, key)
		if err != nil {
			return err
		}
		if idx[i] = slices.Index(keys, v); idx[i] < 0 {
			return fmt.Errorf("ValueError: %s=%d is not in the list", key, v)
		}
	}
	sorted := make([]bson.M, len(docs))
	for i, d := range docs {
		sorted[idx[i]] = d
	}
	copy(docs, sorted)
	return nil
}

// pyPaymentIn is generatePaymentParams' output; cID 0 means by last name.
type pyPaymentIn struct {
	wID, dID, cWID, cDID, cID int
	cLast                     string
	amount                    float64
	date                      time.Time
}

// pyPaymentOut is the customer the driver paid for and how many customers
// its lookup returned.
type pyPaymentOut struct {
	cID, found int
}

// payment mirrors MongodbDriver._doPaymentTxn in a transaction (doPayment).
func (p *pyDriver) payment(ctx context.Context, in pyPaymentIn) (pyPaymentOut, error) {
	var out pyPaymentOut
	err := p.txn(ctx, func(ctx context.Context) error {
		out = pyPaymentOut{}
		const comment = "PAYMENT"
		addr := func(prefix string) bson.D {
			var pr bson.D
			for _, f := range []string{"NAME", "STREET_1", "STREET_2", "CITY", "STATE", "ZIP"} {
				pr = append(pr, bson.E{Key: prefix + f, Value: 1})
			}
			return pr
		}
		// getDistrict / updateDistrictBalance, then the warehouse.
		readUpdate := func(coll string, filter bson.D, ytd string, proj bson.D) (bson.M, error) {
			upd := bson.D{{Key: "$inc", Value: bson.D{{Key: ytd, Value: in.amount}}}}
			if p.findAndModify {
				var m bson.M
				err := p.coll(coll).FindOneAndUpdate(ctx, filter, upd, options.FindOneAndUpdate().SetProjection(proj)).Decode(&m)
				return m, err
			}
			m, err := findOneM(ctx, p.coll(coll), filter, options.FindOne().SetProjection(proj))
			if err != nil || m == nil {
				return nil, fmt.Errorf("%s %v: %v, %w", coll, filter, m, err)
			}
			r, err := p.coll(coll).UpdateOne(ctx, bson.D{{Key: "_id", Value: m["_id"]}, {Key: "$comment", Value: comment}}, upd)
			if err == nil && r.MatchedCount != 1 {
				err = fmt.Errorf("update %s by _id matched %d", coll, r.MatchedCount)
			}
			return m, err
		}
		dFilter := bson.D{{Key: "D_ID", Value: in.dID}, {Key: "D_W_ID", Value: in.wID}, {Key: "$comment", Value: comment}}
		if !p.findAndModify {
			dFilter = bson.D{{Key: "D_W_ID", Value: in.wID}, {Key: "D_ID", Value: in.dID}, {Key: "$comment", Value: comment}}
		}
		d, err := readUpdate(collDistrict, dFilter, "D_YTD", addr("D_"))
		if err != nil {
			return fmt.Errorf("getDistrict: %w", err)
		}
		w, err := readUpdate(collWarehouse, bson.D{{Key: "W_ID", Value: in.wID}, {Key: "$comment", Value: comment}}, "W_YTD", addr("W_"))
		if err != nil {
			return fmt.Errorf("getWarehouse: %w", err)
		}

		search := bson.D{{Key: "C_W_ID", Value: in.cWID}, {Key: "C_D_ID", Value: in.cDID}, {Key: "$comment", Value: comment}}
		ret := bson.D{{Key: "C_BALANCE", Value: 0}, {Key: "C_YTD_PAYMENT", Value: 0}, {Key: "C_PAYMENT_CNT", Value: 0}}
		var c bson.M
		cID := in.cID
		if cID != 0 {
			// getCustomerByCustomerId
			if c, err = findOneM(ctx, p.coll(collCustomer), append(search, bson.E{Key: "C_ID", Value: cID}), options.FindOne().SetProjection(ret)); err != nil || c == nil {
				return fmt.Errorf("no customer in payment: %v, %w", c, err)
			}
			out.found = 1
		} else {
			// getCustomersByLastName: no sort; the customer at (n-1)//2.
			all, err := findAllM(ctx, p.coll(collCustomer), append(search, bson.E{Key: "C_LAST", Value: in.cLast}), options.Find().SetProjection(ret))
			if err != nil {
				return err
			}
			out.found = len(all)
			if len(all) == 0 {
				return fmt.Errorf("no matching customer w %d d %d clast %s", in.cWID, in.cDID, in.cLast)
			}
			c = all[(len(all)-1)/2]
			if cID, err = pyInt(c, "C_ID"); err != nil {
				return err
			}
		}
		cData, err := pyStr(c, "C_DATA")
		if err != nil {
			return err
		}
		update := bson.D{{Key: "$inc", Value: bson.D{{Key: "C_BALANCE", Value: -in.amount}, {Key: "C_YTD_PAYMENT", Value: in.amount}, {Key: "C_PAYMENT_CNT", Value: 1}}}}
		credit, err := pyStr(c, "C_CREDIT")
		if err != nil {
			return err
		}
		if credit == "BC" {
			nd := fmt.Sprintf("%d %d %d %d %d %v|%s", cID, in.cDID, in.cWID, in.dID, in.wID, in.amount, cData)
			update = append(update, bson.E{Key: "$set", Value: bson.D{{Key: "C_DATA", Value: nd[:min(len(nd), 500)]}}})
		}
		wName, err := pyStr(w, "W_NAME")
		if err != nil {
			return err
		}
		dName, err := pyStr(d, "D_NAME")
		if err != nil {
			return err
		}
		h := bson.D{{Key: "H_D_ID", Value: in.dID}, {Key: "H_W_ID", Value: in.wID}, {Key: "H_DATE", Value: in.date},
			{Key: "H_AMOUNT", Value: in.amount}, {Key: "H_DATA", Value: wName + "    " + dName}}
		// updateCustomer
		r, err := p.coll(collCustomer).UpdateOne(ctx, bson.D{{Key: "_id", Value: c["_id"]}, {Key: "$comment", Value: comment}}, update)
		if err != nil {
			return err
		}
		if r.MatchedCount != 1 {
			return fmt.Errorf("updateCustomer matched %d", r.MatchedCount)
		}
		// insertHistory
		if _, err := p.coll(collHistory).InsertOne(ctx, h); err != nil {
			return err
		}
		out.cID = cID
		return nil
	})
	return out, err
}

// pyOrderStatusOut is the customer, its last order and that order's lines
// as the driver found them.
type pyOrderStatusOut struct {
	cID, oID, lines, found int
}

// orderStatus mirrors doOrderStatus: _doOrderStatusTxn in a transaction,
// then once more outside any session, whose result it returns.
func (p *pyDriver) orderStatus(ctx context.Context, wID, dID, cID int, cLast string) (pyOrderStatusOut, error) {
	if err := p.txn(ctx, func(ctx context.Context) error {
		_, err := p.orderStatusBody(ctx, wID, dID, cID, cLast)
		return err
	}); err != nil {
		return pyOrderStatusOut{}, err
	}
	return p.orderStatusBody(ctx, wID, dID, cID, cLast)
}

// orderStatusBody mirrors MongodbDriver._doOrderStatusTxn.
func (p *pyDriver) orderStatusBody(ctx context.Context, wID, dID, cID int, cLast string) (pyOrderStatusOut, error) {
	var out pyOrderStatusOut
	const comment = "ORDER_STATUS"
	search := bson.D{{Key: "C_W_ID", Value: wID}, {Key: "C_D_ID", Value: dID}, {Key: "$comment", Value: comment}}
	ret := bson.D{{Key: "_id", Value: 0}, {Key: "C_ID", Value: 1}, {Key: "C_FIRST", Value: 1}, {Key: "C_MIDDLE", Value: 1},
		{Key: "C_LAST", Value: 1}, {Key: "C_BALANCE", Value: 1}}
	if cID != 0 {
		// getCustomerByCustomerId
		c, err := findOneM(ctx, p.coll(collCustomer), append(search, bson.E{Key: "C_ID", Value: cID}), options.FindOne().SetProjection(ret))
		if err != nil || c == nil {
			return out, fmt.Errorf("couldn't find customer in order status: %v, %w", c, err)
		}
		out.found = 1
	} else {
		// getCustomersByLastName: no sort; the customer at (n-1)//2.
		all, err := findAllM(ctx, p.coll(collCustomer), append(search, bson.E{Key: "C_LAST", Value: cLast}), options.Find().SetProjection(ret))
		if err != nil {
			return out, err
		}
		out.found = len(all)
		if len(all) == 0 {
			return out, fmt.Errorf("no matching customer for last name %s", cLast)
		}
		if cID, err = pyInt(all[(len(all)-1)/2], "C_ID"); err != nil {
			return out, err
		}
	}
	out.cID = cID
	// getLastOrder
	proj := bson.D{{Key: "O_ID", Value: 1}, {Key: "O_CARRIER_ID", Value: 1}, {Key: "O_ENTRY_D", Value: 1}}
	if p.denormalize {
		proj = append(proj, bson.E{Key: fieldOrderLines, Value: 1})
	}
	orders, err := findAllM(ctx, p.coll(collOrders),
		bson.D{{Key: "O_W_ID", Value: wID}, {Key: "O_D_ID", Value: dID}, {Key: "O_C_ID", Value: cID}, {Key: "$comment", Value: comment}},
		options.Find().SetProjection(proj).SetSort(bson.D{{Key: "O_ID", Value: -1}}).SetLimit(1))
	if err != nil {
		return out, err
	}
	if len(orders) == 0 {
		return out, errors.New("IndexError: no order for customer")
	}
	if out.oID, err = pyInt(orders[0], "O_ID"); err != nil {
		return out, err
	}
	// getOrderLines
	if p.denormalize {
		lines, err := pyDocs(orders[0], fieldOrderLines)
		if err != nil {
			return out, fmt.Errorf("no ORDER_LINE in order: %w", err)
		}
		out.lines = len(lines)
		return out, nil
	}
	lines, err := findAllM(ctx, p.coll(collOrderLine),
		bson.D{{Key: "OL_W_ID", Value: wID}, {Key: "OL_D_ID", Value: dID}, {Key: "OL_O_ID", Value: out.oID}, {Key: "$comment", Value: comment}},
		options.Find().SetProjection(bson.D{{Key: "OL_SUPPLY_W_ID", Value: 1}, {Key: "OL_I_ID", Value: 1}, {Key: "OL_QUANTITY", Value: 1},
			{Key: "OL_AMOUNT", Value: 1}, {Key: "OL_DELIVERY_D", Value: 1}}))
	out.lines = len(lines)
	return out, err
}

// pyDelivered is one district's delivery as the driver did it.
type pyDelivered struct {
	oID, cID int
	total    float64
}

// delivery mirrors doDelivery with all_in_one_txn (_doDelivery10Txn): the
// ten districts' _doDeliveryTxn in one transaction. The map holds the
// delivered districts.
func (p *pyDriver) delivery(ctx context.Context, wID, carrier int, date time.Time) (map[int]pyDelivered, error) {
	var out map[int]pyDelivered
	err := p.txn(ctx, func(ctx context.Context) error {
		out = map[int]pyDelivered{}
		for d := 1; d <= p.districts; d++ {
			r, ok, err := p.deliverDistrict(ctx, wID, d, carrier, date)
			if err != nil {
				return fmt.Errorf("district %d: %w", d, err)
			}
			if ok {
				out[d] = r
			}
		}
		return nil
	})
	return out, err
}

// deliverDistrict mirrors MongodbDriver._doDeliveryTxn.
func (p *pyDriver) deliverDistrict(ctx context.Context, wID, dID, carrier int, date time.Time) (pyDelivered, bool, error) {
	var out pyDelivered
	comment := fmt.Sprintf("DELIVERY %d", dID)
	// getNewOrder
	noQuery := bson.D{{Key: "NO_D_ID", Value: dID}, {Key: "NO_W_ID", Value: wID}, {Key: "$comment", Value: comment}}
	noProj := bson.D{{Key: "_id", Value: 0}, {Key: "NO_D_ID", Value: 1}, {Key: "NO_W_ID", Value: 1}, {Key: "NO_O_ID", Value: 1}}
	var no bson.M
	if p.findAndModify {
		err := p.coll(collNewOrder).FindOneAndDelete(ctx, noQuery,
			options.FindOneAndDelete().SetProjection(noProj).SetSort(bson.D{{Key: "NO_O_ID", Value: 1}})).Decode(&no)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return out, false, nil
		}
		if err != nil {
			return out, false, err
		}
	} else {
		nos, err := findAllM(ctx, p.coll(collNewOrder), noQuery,
			options.Find().SetProjection(noProj).SetSort(bson.D{{Key: "NO_O_ID", Value: 1}}).SetLimit(1))
		if err != nil {
			return out, false, err
		}
		if len(nos) == 0 {
			return out, false, nil
		}
		no = nos[0]
	}
	oID, err := pyInt(no, "NO_O_ID")
	if err != nil {
		return out, false, err
	}
	out.oID = oID

	// getCId
	oQuery := bson.D{{Key: "O_ID", Value: oID}, {Key: "O_D_ID", Value: dID}, {Key: "O_W_ID", Value: wID}, {Key: "$comment", Value: comment}}
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "O_CARRIER_ID", Value: carrier}, {Key: fieldOrderLines + ".$[].OL_DELIVERY_D", Value: date}}}}
	var o bson.M
	switch {
	case p.denormalize && p.findAndModify:
		// No projection: the whole pre-image comes back.
		if err := p.coll(collOrders).FindOneAndUpdate(ctx, oQuery, set).Decode(&o); err != nil {
			return out, false, fmt.Errorf("o cannot be none, delivery: %w", err)
		}
	case p.denormalize:
		if o, err = findOneM(ctx, p.coll(collOrders), oQuery, nil); err != nil || o == nil {
			return out, false, fmt.Errorf("o cannot be none, delivery: %v, %w", o, err)
		}
	default:
		if o, err = findOneM(ctx, p.coll(collOrders), oQuery, options.FindOne().SetProjection(bson.D{{Key: "O_C_ID", Value: 1},
			{Key: "O_ID", Value: 1}, {Key: "O_D_ID", Value: 1}, {Key: "O_W_ID", Value: 1}, {Key: "_id", Value: 0}})); err != nil || o == nil {
			return out, false, fmt.Errorf("o cannot be none, delivery: %v, %w", o, err)
		}
	}
	if out.cID, err = pyInt(o, "O_C_ID"); err != nil {
		return out, false, err
	}

	if p.denormalize {
		// sumOLAmount from the embedded lines, then updateOrders.
		lines, err := pyDocs(o, fieldOrderLines)
		if err != nil {
			return out, false, err
		}
		for _, l := range lines {
			a, err := pyNum(l, "OL_AMOUNT")
			if err != nil {
				return out, false, err
			}
			out.total += a
		}
		if !p.findAndModify {
			r, err := p.coll(collOrders).UpdateOne(ctx, bson.D{{Key: "_id", Value: o["_id"]}, {Key: "$comment", Value: comment}}, set)
			if err != nil {
				return out, false, err
			}
			if r.MatchedCount != 1 {
				return out, false, fmt.Errorf("updateOrders matched %d", r.MatchedCount)
			}
		}
	} else {
		// sumOLAmount
		olKey := bson.D{{Key: "OL_O_ID", Value: oID}, {Key: "OL_D_ID", Value: dID}, {Key: "OL_W_ID", Value: wID}}
		lines, err := findAllM(ctx, p.coll(collOrderLine), append(slices.Clone(olKey), bson.E{Key: "$comment", Value: comment}),
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "OL_AMOUNT", Value: 1}}))
		if err != nil {
			return out, false, err
		}
		for _, l := range lines {
			a, err := pyNum(l, "OL_AMOUNT")
			if err != nil {
				return out, false, err
			}
			out.total += a
		}
		// updateOrders: the projected order is the filter.
		r, err := p.coll(collOrders).UpdateOne(ctx, withComment(o, comment), bson.D{{Key: "$set", Value: bson.D{{Key: "O_CARRIER_ID", Value: carrier}}}})
		if err != nil {
			return out, false, err
		}
		if r.MatchedCount != 1 {
			return out, false, fmt.Errorf("updateOrders matched %d with %v", r.MatchedCount, o)
		}
		// updateOrderLines
		r, err = p.coll(collOrderLine).UpdateMany(ctx, olKey, bson.D{{Key: "$set", Value: bson.D{{Key: "OL_DELIVERY_D", Value: date}}}})
		if err != nil {
			return out, false, err
		}
		if int(r.MatchedCount) != len(lines) {
			return out, false, fmt.Errorf("updateOrderLines matched %d of %d lines", r.MatchedCount, len(lines))
		}
	}
	if !(out.total > 0) {
		return out, false, fmt.Errorf("ol_total is %v", out.total)
	}
	// updateCustomer
	r, err := p.coll(collCustomer).UpdateOne(ctx,
		bson.D{{Key: "C_ID", Value: out.cID}, {Key: "C_D_ID", Value: dID}, {Key: "C_W_ID", Value: wID}, {Key: "$comment", Value: comment}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "C_BALANCE", Value: out.total}}}})
	if err != nil {
		return out, false, err
	}
	if r.MatchedCount != 1 {
		return out, false, fmt.Errorf("updateCustomer C_ID=%d matched %d", out.cID, r.MatchedCount)
	}
	// deleteNewOrder
	if !p.findAndModify {
		r, err := p.coll(collNewOrder).DeleteOne(ctx, no)
		if err != nil {
			return out, false, err
		}
		if r.DeletedCount != 1 {
			return out, false, fmt.Errorf("deleteNewOrder deleted %d with %v", r.DeletedCount, no)
		}
	}
	return out, true, nil
}

// stockLevel mirrors MongodbDriver._doStockLevelTxn with agg False, outside
// any session (doStockLevel passes None): the number of distinct items of
// the district's last 20 orders whose stock is below threshold.
func (p *pyDriver) stockLevel(ctx context.Context, wID, dID, threshold int) (int, error) {
	const comment = "STOCK_LEVEL"
	d, err := findOneM(ctx, p.coll(collDistrict), bson.D{{Key: "D_W_ID", Value: wID}, {Key: "D_ID", Value: dID}, {Key: "$comment", Value: comment}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "D_NEXT_O_ID", Value: 1}}))
	if err != nil || d == nil {
		return 0, fmt.Errorf("didn't find matching district in stock level: %v, %w", d, err)
	}
	oID, err := pyInt(d, "D_NEXT_O_ID")
	if err != nil {
		return 0, err
	}
	rng := bson.D{{Key: "$lt", Value: oID}, {Key: "$gte", Value: oID - 20}}
	var lines []bson.M
	if p.denormalize {
		// getStockCount: the last 20 orders' embedded item ids.
		os, err := findAllM(ctx, p.coll(collOrders),
			bson.D{{Key: "O_W_ID", Value: wID}, {Key: "O_D_ID", Value: dID}, {Key: "O_ID", Value: rng}, {Key: "$comment", Value: comment}},
			options.Find().SetProjection(bson.D{{Key: fieldOrderLines + ".OL_I_ID", Value: 1}}))
		if err != nil {
			return 0, err
		}
		if len(os) == 0 {
			return 0, fmt.Errorf("didn't find orders in stock level %d %d %d", wID, dID, oID)
		}
		for _, o := range os {
			ls, err := pyDocs(o, fieldOrderLines)
			if err != nil {
				return 0, err
			}
			lines = append(lines, ls...)
		}
	} else {
		if lines, err = findAllM(ctx, p.coll(collOrderLine),
			bson.D{{Key: "OL_W_ID", Value: wID}, {Key: "OL_D_ID", Value: dID}, {Key: "OL_O_ID", Value: rng}, {Key: "$comment", Value: comment}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "OL_I_ID", Value: 1}}).SetBatchSize(1000)); err != nil {
			return 0, err
		}
	}
	if len(lines) == 0 {
		return 0, fmt.Errorf("order_lines should not be empty %d %d %d", wID, dID, oID)
	}
	var ids []int
	for _, l := range lines {
		id, err := pyInt(l, "OL_I_ID")
		if err != nil {
			return 0, err
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	// find(...).count(): pymongo 3's Cursor.count sends a count command
	// with the collection's read concern.
	var res struct {
		N int `bson:"n"`
	}
	err = p.db.RunCommand(ctx, bson.D{{Key: "count", Value: collStock}, {Key: "query", Value: bson.D{{Key: "S_W_ID", Value: wID},
		{Key: "S_I_ID", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "S_QUANTITY", Value: bson.D{{Key: "$lt", Value: threshold}}},
		{Key: "$comment", Value: comment}}}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}}}).Decode(&res)
	return res.N, err
}

// stockLevelAgg mirrors _doStockLevelTxn with agg True (denormalized
// only): one aggregation from DISTRICT through ORDERS to STOCK. It counts
// order lines, not distinct items.
func (p *pyDriver) stockLevelAgg(ctx context.Context, wID, dID, threshold int) (int, error) {
	cur, err := p.coll(collDistrict).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "D_W_ID", Value: wID}, {Key: "D_ID", Value: dID}}}},
		{{Key: "$limit", Value: 1}},
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "O_ID", Value: bson.D{{Key: "$range", Value: bson.A{
			bson.D{{Key: "$subtract", Value: bson.A{"$D_NEXT_O_ID", 20}}}, "$D_NEXT_O_ID"}}}}}}},
		{{Key: "$unwind", Value: "$O_ID"}},
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: collOrders}, {Key: "as", Value: "o"}, {Key: "let", Value: bson.D{{Key: "oid", Value: "$O_ID"}}},
			{Key: "pipeline", Value: bson.A{
				bson.D{{Key: "$match", Value: bson.D{{Key: "O_D_ID", Value: dID}, {Key: "O_W_ID", Value: wID},
					{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$O_ID", "$$oid"}}}}}}},
				bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "I_IDS", Value: "$" + fieldOrderLines + ".OL_I_ID"}}}},
			}}}}},
		{{Key: "$unwind", Value: "$o"}},
		{{Key: "$unwind", Value: "$o.I_IDS"}},
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: collStock}, {Key: "as", Value: "o"}, {Key: "let", Value: bson.D{{Key: "ids", Value: "$o.I_IDS"}}},
			{Key: "pipeline", Value: bson.A{
				bson.D{{Key: "$match", Value: bson.D{{Key: "S_W_ID", Value: wID}, {Key: "S_QUANTITY", Value: bson.D{{Key: "$lt", Value: threshold}}},
					{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$S_I_ID", "$$ids"}}}}}}},
				bson.D{{Key: "$project", Value: bson.D{{Key: "S_W_ID", Value: 1}}}},
			}}}}},
		{{Key: "$unwind", Value: "$o"}},
		{{Key: "$count", Value: "c"}},
	})
	if err != nil {
		return 0, err
	}
	var res []struct {
		C int `bson:"c"`
	}
	if err := cur.All(ctx, &res); err != nil || len(res) == 0 {
		return 0, err
	}
	return res[0].C, nil
}

// pyIndex is one index of py-tpcc's driver TABLE_INDEXES.
type pyIndex struct {
	coll string
	keys bson.D
}

// pyIndexes returns MongodbDriver.TABLE_INDEXES in the order its
// loadConfig creates them (constants.ALL_TABLES order, ORDER_LINE skipped
// when denormalized); the first index of each collection is created
// unique. Its typo O_ENTRY_ID is kept: that is the index it creates.
func pyIndexes(schema Schema) []pyIndex {
	asc := func(names ...string) bson.D {
		d := bson.D{}
		for _, n := range names {
			d = append(d, bson.E{Key: n, Value: 1})
		}
		return d
	}
	ix := []pyIndex{
		{collItem, asc("I_W_ID", "I_ID")},
		{collWarehouse, asc("W_ID", "W_TAX")},
		{collDistrict, asc("D_W_ID", "D_ID", "D_NEXT_O_ID", "D_TAX")},
		{collCustomer, asc("C_W_ID", "C_D_ID", "C_ID")},
		{collCustomer, asc("C_W_ID", "C_D_ID", "C_LAST")},
		{collStock, asc("S_W_ID", "S_I_ID", "S_QUANTITY")},
		{collStock, asc("S_I_ID")},
		{collOrders, asc("O_W_ID", "O_D_ID", "O_ID", "O_C_ID")},
		{collOrders, bson.D{{Key: "O_C_ID", Value: 1}, {Key: "O_D_ID", Value: 1}, {Key: "O_W_ID", Value: 1}, {Key: "O_ID", Value: -1},
			{Key: "O_CARRIER_ID", Value: 1}, {Key: "O_ENTRY_ID", Value: 1}}},
		{collNewOrder, asc("NO_W_ID", "NO_D_ID", "NO_O_ID")},
	}
	if schema == Normalized {
		ix = append(ix,
			pyIndex{collOrderLine, asc("OL_O_ID", "OL_D_ID", "OL_W_ID", "OL_NUMBER")},
			pyIndex{collOrderLine, bson.D{{Key: "OL_O_ID", Value: 1}, {Key: "OL_D_ID", Value: 1}, {Key: "OL_W_ID", Value: 1},
				{Key: "OL_I_ID", Value: -1}, {Key: "OL_AMOUNT", Value: 1}}})
	}
	return ix
}

// createPyIndexes creates pyIndexes(schema) on db as the driver's
// loadConfig does (create_index(index, unique=first of its collection)).
func createPyIndexes(ctx context.Context, db *mongo.Database, schema Schema) error {
	seen := map[string]bool{}
	for _, ix := range pyIndexes(schema) {
		m := mongo.IndexModel{Keys: ix.keys}
		if !seen[ix.coll] {
			m.Options = options.Index().SetUnique(true)
			seen[ix.coll] = true
		}
		if _, err := db.Collection(ix.coll).Indexes().CreateOne(ctx, m); err != nil {
			return fmt.Errorf("create py-tpcc index %s %v: %w", ix.coll, ix.keys, err)
		}
	}
	return nil
}

// pyClientOptions are the driver's client settings that change what the
// server sees: readConcernLevel majority (retryWrites is the Go default).
func pyClientOptions() *options.ClientOptions {
	return options.Client().SetReadConcern(readconcern.Majority())
}
