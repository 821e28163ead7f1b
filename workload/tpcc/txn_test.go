package tpcc

import (
	"context"
	"errors"
	"math"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload"
)

// txnVariants are the configurations every transaction test runs under: the
// TPC-C-on-MongoDB paper's best practices, and the plain normalized schema with
// select-then-update and one write per row (its figures 2 and 3).
var txnVariants = []struct {
	name                       string
	schema                     Schema
	findAndModify, batchWrites bool
}{
	{"denormalized findAndModify batched", Denormalized, true, true},
	{"normalized update+select unbatched", Normalized, false, false},
}

func smallConfig(schema Schema) Config {
	cfg := DefaultConfig()
	cfg.Scale, cfg.Warehouses, cfg.Schema = SmallScale(), 2, schema
	return cfg
}

// loadedDB loads a small two-warehouse database, dropped at cleanup.
func loadedDB(t *testing.T, client *mongo.Client, name string, cfg Config) *mongo.Database {
	t.Helper()
	db := client.Database(name)
	t.Cleanup(func() { db.Drop(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := Load(ctx, db, cfg, LoadOptions{Reset: true}); err != nil {
		t.Fatalf("load: %v", err)
	}
	return db
}

func testWorker(t *testing.T, db *mongo.Database, cfg Config, id int) *worker {
	t.Helper()
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := g.newWorker(workload.Env{DB: db, Reads: workload.PlainReads{DB: db}}, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

func findOne[T any](t *testing.T, coll *mongo.Collection, filter bson.D) T {
	t.Helper()
	var v T
	if err := coll.FindOne(context.Background(), filter).Decode(&v); err != nil {
		t.Fatalf("%s %v: %v", coll.Name(), filter, err)
	}
	return v
}

func countDocs(t *testing.T, coll *mongo.Collection, filter bson.D) int64 {
	t.Helper()
	n, err := coll.CountDocuments(context.Background(), filter)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

func TestTransactions(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	for _, v := range txnVariants {
		t.Run(v.name, func(t *testing.T) {
			cfg := smallConfig(v.schema)
			cfg.FindAndModify, cfg.BatchWrites = v.findAndModify, v.batchWrites
			db := loadedDB(t, client, "tpcc_txn_"+v.schema.String(), cfg)
			w := testWorker(t, db, cfg, 0)
			testFiveTransactions(t, db, w)
			t.Run("transient error retried", func(t *testing.T) { testTransientRetry(t, rs.URI(), db, w) })
			t.Run("items loaded without I_W_ID", func(t *testing.T) { testItemsWithoutIWID(t, db, w) })
		})
	}
}

func testNewOrder(t *testing.T, db *mongo.Database, w *worker) {
	ctx := context.Background()
	dKey := bson.D{{Key: "D_W_ID", Value: 1}, {Key: "D_ID", Value: 3}}
	before := findOne[districtDoc](t, db.Collection(collDistrict), dKey)
	// Item 7 twice (the second line sees the first's quantity), item 8
	// supplied by the remote warehouse 2.
	in := newOrderInput{WID: 1, DID: 3, CID: 5, EntryD: time.Now().UTC().Truncate(time.Millisecond), Lines: []newOrderLine{
		{IID: 7, SupplyWID: 1, Quantity: 4}, {IID: 7, SupplyWID: 1, Quantity: 10}, {IID: 8, SupplyWID: 2, Quantity: 1}}}
	s7 := findOne[stockDoc](t, db.Collection(collStock), bson.D{{Key: "S_W_ID", Value: 1}, {Key: "S_I_ID", Value: 7}})
	s8 := findOne[stockDoc](t, db.Collection(collStock), bson.D{{Key: "S_W_ID", Value: 2}, {Key: "S_I_ID", Value: 8}})
	i7 := findOne[itemDoc](t, db.Collection(collItem), bson.D{{Key: "I_ID", Value: 7}})
	i8 := findOne[itemDoc](t, db.Collection(collItem), bson.D{{Key: "I_ID", Value: 8}})

	res, retries, err := w.newOrderTxn(ctx, in)
	if err != nil || res.RolledBack || retries != 0 {
		t.Fatalf("new order: %+v retries %d err %v", res, retries, err)
	}
	if res.OID != before.NextOID {
		t.Errorf("O_ID %d, want D_NEXT_O_ID before %d", res.OID, before.NextOID)
	}
	after := findOne[districtDoc](t, db.Collection(collDistrict), dKey)
	if after.NextOID != before.NextOID+1 {
		t.Errorf("D_NEXT_O_ID %d -> %d, want +1", before.NextOID, after.NextOID)
	}
	o := findOne[orderDoc](t, db.Collection(collOrders), bson.D{{Key: "O_W_ID", Value: 1}, {Key: "O_D_ID", Value: 3}, {Key: "O_ID", Value: res.OID}})
	if w.cfg.Schema == Normalized {
		if len(o.Lines) != 0 {
			t.Errorf("normalized order embeds %d lines", len(o.Lines))
		}
		cur, err := db.Collection(collOrderLine).Find(ctx, bson.D{{Key: "OL_W_ID", Value: 1}, {Key: "OL_D_ID", Value: 3}, {Key: "OL_O_ID", Value: res.OID}},
			options.Find().SetSort(bson.D{{Key: "OL_NUMBER", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		if err := cur.All(ctx, &o.Lines); err != nil {
			t.Fatal(err)
		}
	}
	if o.CID != 5 || o.OLCnt != 3 || o.AllLocal != 0 || o.CarrierID != 0 || len(o.Lines) != 3 {
		t.Fatalf("order %+v: want C_ID 5, 3 lines, not all local, no carrier", o)
	}
	wantAmount := []float64{4 * i7.Price, 10 * i7.Price, i8.Price}
	for i, l := range o.Lines {
		if l.Number != i+1 || l.IID != in.Lines[i].IID || l.SupplyWID != in.Lines[i].SupplyWID ||
			l.Quantity != in.Lines[i].Quantity || !near(l.Amount, wantAmount[i]) || l.DeliveryD != nil {
			t.Errorf("line %d: %+v, want item %d qty %d amount %.2f undelivered", i+1, l, in.Lines[i].IID, in.Lines[i].Quantity, wantAmount[i])
		}
	}
	if o.Lines[0].DistInfo != s7.Dist03 {
		t.Errorf("OL_DIST_INFO %q, want S_DIST_03 %q", o.Lines[0].DistInfo, s7.Dist03)
	}
	if n := countDocs(t, db.Collection(collNewOrder), bson.D{{Key: "NO_W_ID", Value: 1}, {Key: "NO_D_ID", Value: 3}, {Key: "NO_O_ID", Value: res.OID}}); n != 1 {
		t.Errorf("NEW_ORDER rows for the order: %d", n)
	}
	// Clause 2.4.2.2: S_QUANTITY - qty if >= qty+10, else +91.
	q := s7.Quantity
	for _, n := range []int{4, 10} {
		if q >= n+10 {
			q -= n
		} else {
			q = q - n + 91
		}
	}
	a7 := findOne[stockDoc](t, db.Collection(collStock), bson.D{{Key: "S_W_ID", Value: 1}, {Key: "S_I_ID", Value: 7}})
	if a7.Quantity != q || a7.YTD != s7.YTD+14 || a7.OrderCnt != s7.OrderCnt+2 || a7.RemoteCnt != s7.RemoteCnt {
		t.Errorf("stock 1/7 after: qty %d ytd %d orders %d remote %d; want %d %d %d %d",
			a7.Quantity, a7.YTD, a7.OrderCnt, a7.RemoteCnt, q, s7.YTD+14, s7.OrderCnt+2, s7.RemoteCnt)
	}
	a8 := findOne[stockDoc](t, db.Collection(collStock), bson.D{{Key: "S_W_ID", Value: 2}, {Key: "S_I_ID", Value: 8}})
	if a8.RemoteCnt != s8.RemoteCnt+1 || a8.YTD != s8.YTD+1 {
		t.Errorf("remote stock 2/8: remote %d ytd %d, want %d %d", a8.RemoteCnt, a8.YTD, s8.RemoteCnt+1, s8.YTD+1)
	}
	if res.Total <= 0 {
		t.Errorf("total %v", res.Total)
	}
}

// testNewOrderRollback is the atomicity test of clause 3.2.2.2: a New-Order
// that rolls back (unused item id) leaves no trace, although it had already
// incremented D_NEXT_O_ID and read the stock.
func testNewOrderRollback(t *testing.T, db *mongo.Database, w *worker) {
	ctx := context.Background()
	dKey := bson.D{{Key: "D_W_ID", Value: 2}, {Key: "D_ID", Value: 4}}
	before := findOne[districtDoc](t, db.Collection(collDistrict), dKey)
	orders := countDocs(t, db.Collection(collOrders), bson.D{})
	newOrders := countDocs(t, db.Collection(collNewOrder), bson.D{})
	s := findOne[stockDoc](t, db.Collection(collStock), bson.D{{Key: "S_W_ID", Value: 2}, {Key: "S_I_ID", Value: 9}})
	in := newOrderInput{WID: 2, DID: 4, CID: 1, EntryD: time.Now().UTC(), Lines: []newOrderLine{
		{IID: 9, SupplyWID: 2, Quantity: 5}, {IID: w.cfg.Scale.Items + 1, SupplyWID: 2, Quantity: 5}}}
	res, _, err := w.newOrderTxn(ctx, in)
	if err != nil || !res.RolledBack {
		t.Fatalf("new order with unused item: %+v %v, want a rollback", res, err)
	}
	after := findOne[districtDoc](t, db.Collection(collDistrict), dKey)
	if after.NextOID != before.NextOID {
		t.Errorf("D_NEXT_O_ID %d -> %d after rollback", before.NextOID, after.NextOID)
	}
	if n := countDocs(t, db.Collection(collOrders), bson.D{}); n != orders {
		t.Errorf("ORDERS %d -> %d after rollback", orders, n)
	}
	if n := countDocs(t, db.Collection(collNewOrder), bson.D{}); n != newOrders {
		t.Errorf("NEW_ORDER %d -> %d after rollback", newOrders, n)
	}
	if a := findOne[stockDoc](t, db.Collection(collStock), bson.D{{Key: "S_W_ID", Value: 2}, {Key: "S_I_ID", Value: 9}}); a != s {
		t.Errorf("stock changed by a rolled-back order: %+v -> %+v", s, a)
	}
}

func testPayment(t *testing.T, db *mongo.Database, w *worker, byName bool) {
	ctx := context.Background()
	cKey := func(id int) bson.D {
		return bson.D{{Key: "C_W_ID", Value: 2}, {Key: "C_D_ID", Value: 6}, {Key: "C_ID", Value: id}}
	}
	in := paymentInput{WID: 1, DID: 2, CWID: 2, CDID: 6, Amount: 123.45, Date: time.Now().UTC()}
	wantID := 11
	if byName {
		// Customers with the last name of customer 11, sorted by C_FIRST:
		// Payment takes the one at ceil(n/2).
		c11 := findOne[customerDoc](t, db.Collection(collCustomer), cKey(11))
		in.CLast = c11.Last
		cur, err := db.Collection(collCustomer).Find(ctx, bson.D{{Key: "C_W_ID", Value: 2}, {Key: "C_D_ID", Value: 6}, {Key: "C_LAST", Value: c11.Last}})
		if err != nil {
			t.Fatal(err)
		}
		var cs []customerDoc
		if err := cur.All(ctx, &cs); err != nil {
			t.Fatal(err)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].First < cs[j].First })
		wantID = cs[(len(cs)+1)/2-1].ID
	} else {
		in.CID = wantID
	}
	// Make the customer bad-credit so C_DATA is rewritten (clause 2.5.2.2).
	if _, err := db.Collection(collCustomer).UpdateOne(ctx, cKey(wantID), bson.D{{Key: "$set", Value: bson.D{{Key: "C_CREDIT", Value: "BC"}}}}); err != nil {
		t.Fatal(err)
	}
	wb := findOne[warehouseDoc](t, db.Collection(collWarehouse), bson.D{{Key: "W_ID", Value: 1}})
	db0 := findOne[districtDoc](t, db.Collection(collDistrict), bson.D{{Key: "D_W_ID", Value: 1}, {Key: "D_ID", Value: 2}})
	cb := findOne[customerDoc](t, db.Collection(collCustomer), cKey(wantID))
	hist := countDocs(t, db.Collection(collHistory), bson.D{})

	res, _, err := w.paymentTxn(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.CID != wantID {
		t.Errorf("paid customer %d, want %d", res.CID, wantID)
	}
	wa := findOne[warehouseDoc](t, db.Collection(collWarehouse), bson.D{{Key: "W_ID", Value: 1}})
	da := findOne[districtDoc](t, db.Collection(collDistrict), bson.D{{Key: "D_W_ID", Value: 1}, {Key: "D_ID", Value: 2}})
	ca := findOne[customerDoc](t, db.Collection(collCustomer), cKey(wantID))
	if !near(wa.YTD, wb.YTD+123.45) || !near(da.YTD, db0.YTD+123.45) {
		t.Errorf("W_YTD %.2f -> %.2f, D_YTD %.2f -> %.2f; want +123.45", wb.YTD, wa.YTD, db0.YTD, da.YTD)
	}
	if !near(ca.Balance, cb.Balance-123.45) || !near(ca.YTDPayment, cb.YTDPayment+123.45) || ca.PaymentCnt != cb.PaymentCnt+1 {
		t.Errorf("customer %d: balance %.2f -> %.2f, ytd %.2f -> %.2f, count %d -> %d", wantID,
			cb.Balance, ca.Balance, cb.YTDPayment, ca.YTDPayment, cb.PaymentCnt, ca.PaymentCnt)
	}
	wantData := badCreditData(wantID, 6, 2, 2, 1, 123.45, cb.Data)
	if ca.Data != wantData {
		t.Errorf("bad-credit C_DATA = %.60q…, want %.60q…", ca.Data, wantData)
	}
	if n := countDocs(t, db.Collection(collHistory), bson.D{}); n != hist+1 {
		t.Errorf("HISTORY %d -> %d", hist, n)
	}
	h := findOne[historyDoc](t, db.Collection(collHistory), bson.D{{Key: "H_C_ID", Value: wantID}, {Key: "H_C_W_ID", Value: 2}, {Key: "H_C_D_ID", Value: 6}, {Key: "H_AMOUNT", Value: 123.45}})
	if h.WID != 1 || h.DID != 2 || h.Data != wa.Name+"    "+da.Name {
		t.Errorf("history %+v", h)
	}
}

func testOrderStatus(t *testing.T, db *mongo.Database, w *worker) {
	ctx := context.Background()
	// A fresh order for customer 17 of 1/5 is its most recent one.
	no, _, err := w.newOrderTxn(ctx, newOrderInput{WID: 1, DID: 5, CID: 17, EntryD: time.Now().UTC(),
		Lines: []newOrderLine{{IID: 1, SupplyWID: 1, Quantity: 1}, {IID: 2, SupplyWID: 1, Quantity: 2}, {IID: 3, SupplyWID: 1, Quantity: 3},
			{IID: 4, SupplyWID: 1, Quantity: 4}, {IID: 5, SupplyWID: 1, Quantity: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	c := findOne[customerDoc](t, db.Collection(collCustomer), bson.D{{Key: "C_W_ID", Value: 1}, {Key: "C_D_ID", Value: 5}, {Key: "C_ID", Value: 17}})
	for _, in := range []orderStatusInput{{WID: 1, DID: 5, CID: 17}} {
		res, _, err := w.orderStatusTxn(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.CID != 17 || res.Order.ID != no.OID || len(res.Order.Lines) != 5 || !near(res.Balance, c.Balance) {
			t.Errorf("order status: customer %d order %d with %d lines balance %.2f; want 17, %d, 5, %.2f",
				res.CID, res.Order.ID, len(res.Order.Lines), res.Balance, no.OID, c.Balance)
		}
	}
	// By last name: the customer found must carry that name and its order
	// must be its own.
	res, _, err := w.orderStatusTxn(ctx, orderStatusInput{WID: 1, DID: 5, CLast: c.Last})
	if err != nil {
		t.Fatal(err)
	}
	got := findOne[customerDoc](t, db.Collection(collCustomer), bson.D{{Key: "C_W_ID", Value: 1}, {Key: "C_D_ID", Value: 5}, {Key: "C_ID", Value: res.CID}})
	if got.Last != c.Last || res.Order.CID != res.CID {
		t.Errorf("by last name %s: customer %d (%s), order of customer %d", c.Last, res.CID, got.Last, res.Order.CID)
	}
}

func testDelivery(t *testing.T, db *mongo.Database, w *worker) {
	ctx := context.Background()
	type snap struct {
		oid  int
		cust customerDoc
		sum  float64
	}
	districts := w.cfg.Scale.Districts
	want := make([]snap, districts)
	for d := 1; d <= districts; d++ {
		var no newOrderDoc
		err := db.Collection(collNewOrder).FindOne(ctx, bson.D{{Key: "NO_W_ID", Value: 2}, {Key: "NO_D_ID", Value: d}},
			options.FindOne().SetSort(bson.D{{Key: "NO_O_ID", Value: 1}})).Decode(&no)
		if err != nil {
			t.Fatal(err)
		}
		o := findOrder(t, db, w.cfg.Schema, 2, d, no.OID)
		var sum float64
		for _, l := range o.Lines {
			sum += l.Amount
		}
		c := findOne[customerDoc](t, db.Collection(collCustomer), bson.D{{Key: "C_W_ID", Value: 2}, {Key: "C_D_ID", Value: d}, {Key: "C_ID", Value: o.CID}})
		want[d-1] = snap{no.OID, c, sum}
	}
	date := time.Now().UTC().Truncate(time.Millisecond)
	res, _, err := w.deliveryTxn(ctx, deliveryInput{WID: 2, CarrierID: 7, Date: date})
	if err != nil {
		t.Fatal(err)
	}
	if res.Skipped != 0 {
		t.Errorf("skipped %d districts", res.Skipped)
	}
	for d := 1; d <= districts; d++ {
		s := want[d-1]
		if res.Delivered[d-1] != s.oid {
			t.Errorf("district %d: delivered %d, want oldest new order %d", d, res.Delivered[d-1], s.oid)
		}
		if n := countDocs(t, db.Collection(collNewOrder), bson.D{{Key: "NO_W_ID", Value: 2}, {Key: "NO_D_ID", Value: d}, {Key: "NO_O_ID", Value: s.oid}}); n != 0 {
			t.Errorf("district %d: NEW_ORDER %d not deleted", d, s.oid)
		}
		o := findOrder(t, db, w.cfg.Schema, 2, d, s.oid)
		if o.CarrierID != 7 {
			t.Errorf("district %d: O_CARRIER_ID %d", d, o.CarrierID)
		}
		for _, l := range o.Lines {
			if l.DeliveryD == nil || !l.DeliveryD.Equal(date) {
				t.Errorf("district %d line %d: OL_DELIVERY_D %v, want %v", d, l.Number, l.DeliveryD, date)
			}
		}
		c := findOne[customerDoc](t, db.Collection(collCustomer), bson.D{{Key: "C_W_ID", Value: 2}, {Key: "C_D_ID", Value: d}, {Key: "C_ID", Value: s.cust.ID}})
		if !near(c.Balance, s.cust.Balance+s.sum) || c.DeliveryCnt != s.cust.DeliveryCnt+1 {
			t.Errorf("district %d customer %d: balance %.2f -> %.2f (+%.2f expected), deliveries %d -> %d",
				d, c.ID, s.cust.Balance, c.Balance, s.sum, s.cust.DeliveryCnt, c.DeliveryCnt)
		}
	}
}

// findOrder reads an order with its lines in either schema.
func findOrder(t *testing.T, db *mongo.Database, schema Schema, wID, dID, oID int) orderDoc {
	t.Helper()
	o := findOne[orderDoc](t, db.Collection(collOrders), bson.D{{Key: "O_W_ID", Value: wID}, {Key: "O_D_ID", Value: dID}, {Key: "O_ID", Value: oID}})
	if schema == Normalized {
		ctx := context.Background()
		cur, err := db.Collection(collOrderLine).Find(ctx, bson.D{{Key: "OL_W_ID", Value: wID}, {Key: "OL_D_ID", Value: dID}, {Key: "OL_O_ID", Value: oID}})
		if err != nil {
			t.Fatal(err)
		}
		if err := cur.All(ctx, &o.Lines); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func testStockLevel(t *testing.T, db *mongo.Database, w *worker) {
	ctx := context.Background()
	// Brute force: the distinct items of the last 20 orders of 1/3 with
	// stock below the threshold.
	d := findOne[districtDoc](t, db.Collection(collDistrict), bson.D{{Key: "D_W_ID", Value: 1}, {Key: "D_ID", Value: 3}})
	items := map[int]bool{}
	for oid := d.NextOID - 20; oid < d.NextOID; oid++ {
		if oid < 1 {
			continue
		}
		for _, l := range findOrder(t, db, w.cfg.Schema, 1, 3, oid).Lines {
			items[l.IID] = true
		}
	}
	// Set a known quantity on some of those items so the count is not 0.
	var low int64
	i := 0
	for id := range items {
		q := 50
		if i%2 == 0 {
			q, low = 12, low+1
		}
		i++
		if _, err := db.Collection(collStock).UpdateOne(ctx, bson.D{{Key: "S_W_ID", Value: 1}, {Key: "S_I_ID", Value: id}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "S_QUANTITY", Value: q}}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.stockLevel(ctx, stockLevelInput{WID: 1, DID: 3, Threshold: 15})
	if err != nil {
		t.Fatal(err)
	}
	if res.LowStock != low || low == 0 {
		t.Errorf("stock level: %d items below 15, want %d (of %d items)", res.LowStock, low, len(items))
	}
}

// testTransientRetry injects a TransientTransactionError into the first
// insert of a New-Order (failpoint failCommand) and checks the transaction
// is retried once and commits.
func testTransientRetry(t *testing.T, uri string, db *mongo.Database, w *worker) {
	ctx := context.Background()
	rs := testutil.ReplicaSet(t)
	p, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 112},
			{Key: "errorLabels", Value: bson.A{"TransientTransactionError"}}}}}
	if err := rs.SetFailPoint(ctx, p.Name, fp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rs.SetFailPoint(context.Background(), p.Name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
	})
	before := findOne[districtDoc](t, db.Collection(collDistrict), bson.D{{Key: "D_W_ID", Value: 1}, {Key: "D_ID", Value: 9}})
	res, retries, err := w.newOrderTxn(ctx, newOrderInput{WID: 1, DID: 9, CID: 2, EntryD: time.Now().UTC(),
		Lines: []newOrderLine{{IID: 1, SupplyWID: 1, Quantity: 1}, {IID: 2, SupplyWID: 1, Quantity: 1}, {IID: 3, SupplyWID: 1, Quantity: 1},
			{IID: 4, SupplyWID: 1, Quantity: 1}, {IID: 5, SupplyWID: 1, Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if retries != 1 {
		t.Errorf("retries %d, want 1 (one injected TransientTransactionError)", retries)
	}
	after := findOne[districtDoc](t, db.Collection(collDistrict), bson.D{{Key: "D_W_ID", Value: 1}, {Key: "D_ID", Value: 9}})
	if after.NextOID != before.NextOID+1 || res.OID != before.NextOID {
		t.Errorf("D_NEXT_O_ID %d -> %d for order %d: the failed attempt must leave no trace", before.NextOID, after.NextOID, res.OID)
	}
	if n := countDocs(t, db.Collection(collOrders), bson.D{{Key: "O_W_ID", Value: 1}, {Key: "O_D_ID", Value: 9}, {Key: "O_ID", Value: res.OID}}); n != 1 {
		t.Errorf("order %d stored %d times", res.OID, n)
	}

	// A non-transient error is not retried.
	fp[2] = bson.E{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 2}}}
	if err := rs.SetFailPoint(ctx, p.Name, fp); err != nil {
		t.Fatal(err)
	}
	_, retries, err = w.newOrderTxn(ctx, newOrderInput{WID: 1, DID: 9, CID: 2, EntryD: time.Now().UTC(),
		Lines: []newOrderLine{{IID: 1, SupplyWID: 1, Quantity: 1}}})
	var ce mongo.CommandError
	if err == nil || retries != 0 || (errors.As(err, &ce) && ce.Code != 2) {
		t.Errorf("non-transient error: retries %d err %v, want the error and no retry", retries, err)
	}
}

// testItemsWithoutIWID runs a New-Order on items without I_W_ID, as loads
// made before the loader wrote the field hold them: it must find them.
func testItemsWithoutIWID(t *testing.T, db *mongo.Database, w *worker) {
	ctx := context.Background()
	ids := bson.D{{Key: "I_ID", Value: bson.D{{Key: "$in", Value: bson.A{41, 42, 43, 44, 45}}}}}
	if r, err := db.Collection(collItem).UpdateMany(ctx, ids, bson.D{{Key: "$unset", Value: bson.D{{Key: "I_W_ID", Value: ""}}}}); err != nil || r.ModifiedCount != 5 {
		t.Fatalf("unset I_W_ID: %+v %v", r, err)
	}
	var lines []newOrderLine
	for id := 41; id <= 45; id++ {
		lines = append(lines, newOrderLine{IID: id, SupplyWID: 1, Quantity: 1})
	}
	res, _, err := w.newOrderTxn(ctx, newOrderInput{WID: 1, DID: 8, CID: 3, EntryD: time.Now().UTC(), Lines: lines})
	if err != nil || res.RolledBack {
		t.Errorf("new order on items without I_W_ID: %+v %v, want it placed", res, err)
	}
}

// testFiveTransactions runs the assertions of the five transactions, in
// order (each builds on the data the previous left), on a loaded database.
func testFiveTransactions(t *testing.T, db *mongo.Database, w *worker) {
	t.Run("new order", func(t *testing.T) { testNewOrder(t, db, w) })
	t.Run("new order rollback", func(t *testing.T) { testNewOrderRollback(t, db, w) })
	t.Run("payment by id", func(t *testing.T) { testPayment(t, db, w, false) })
	t.Run("payment by last name", func(t *testing.T) { testPayment(t, db, w, true) })
	t.Run("order status", func(t *testing.T) { testOrderStatus(t, db, w) })
	t.Run("delivery", func(t *testing.T) { testDelivery(t, db, w) })
	t.Run("stock level", func(t *testing.T) { testStockLevel(t, db, w) })
}
