package tpcc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
)

// Test helpers of this file are prefixed chk: the package's other test
// files are written independently.

// chkDB returns a fresh database on the shared replica set, dropped at
// cleanup.
func chkDB(t *testing.T, name string) *mongo.Database {
	t.Helper()
	client := testutil.Connect(t, testutil.ReplicaSet(t).URI())
	db := client.Database(fmt.Sprintf("chk_%s_%d", name, time.Now().UnixNano()%1e12))
	testutil.DropAtCleanup(t, db)
	return db
}

// chkLoad loads 2 warehouses at SmallScale in the schema.
func chkLoad(t *testing.T, schema Schema) (*mongo.Database, Config) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Scale = SmallScale()
	cfg.Warehouses = 2
	cfg.Schema = schema
	db := chkDB(t, schema.String())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := Load(ctx, db, cfg, LoadOptions{Parallel: 8}); err != nil {
		t.Fatalf("load: %v", err)
	}
	return db, cfg
}

// chkRun runs Check and returns the results by clause.
func chkRun(t *testing.T, db *mongo.Database, o CheckOptions) map[string]CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Check(ctx, db, o)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	m := map[string]CheckResult{}
	for _, r := range res {
		m[r.Clause] = r
	}
	return m
}

// chkExpect asserts that exactly the clauses in fail failed, those in
// skipped were skipped (with a reason), and every other clause of
// CheckClauses passed.
func chkExpect(t *testing.T, res map[string]CheckResult, fail, skipped []string) {
	t.Helper()
	for _, c := range CheckClauses() {
		r, ok := res[c]
		want := Pass
		switch {
		case slices.Contains(fail, c):
			want = Fail
		case slices.Contains(skipped, c):
			want = Skipped
		}
		switch {
		case !ok:
			t.Errorf("%s: no result", c)
		case r.Status != want:
			t.Errorf("%s (%s): %v, want %v; detail %q", c, r.Name, r.Status, want, r.Detail)
		case want == Fail && (r.Violations < 1 || r.Detail == ""):
			t.Errorf("%s failed with %d violations and detail %q", c, r.Violations, r.Detail)
		case want == Pass && (r.Violations != 0 || r.Detail != ""):
			t.Errorf("%s passed with %d violations and detail %q", c, r.Violations, r.Detail)
		case want == Skipped && r.Detail == "":
			t.Errorf("%s skipped without a reason", c)
		}
	}
}

// chkUpdate applies update to the one document of coll matching filter and
// restores the document at cleanup.
func chkUpdate(t *testing.T, coll *mongo.Collection, filter, update bson.D) {
	t.Helper()
	ctx := context.Background()
	var saved bson.Raw
	if err := coll.FindOne(ctx, filter).Decode(&saved); err != nil {
		t.Fatalf("%s %v: %v", coll.Name(), filter, err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: saved.Lookup("_id")}}, update); err != nil {
		t.Fatalf("update %s %v: %v", coll.Name(), filter, err)
	}
	t.Cleanup(func() {
		if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: saved.Lookup("_id")}}, saved); err != nil {
			t.Errorf("restore %s %v: %v", coll.Name(), filter, err)
		}
	})
}

// chkDelete deletes the documents of coll matching filter (at least one)
// and inserts them again at cleanup.
func chkDelete(t *testing.T, coll *mongo.Collection, filter bson.D) {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	var saved []bson.Raw
	if err := cur.All(ctx, &saved); err != nil {
		t.Fatal(err)
	}
	if len(saved) == 0 {
		t.Fatalf("%s %v: no document to delete", coll.Name(), filter)
	}
	if _, err := coll.DeleteMany(ctx, filter); err != nil {
		t.Fatalf("delete %s %v: %v", coll.Name(), filter, err)
	}
	t.Cleanup(func() {
		if _, err := coll.InsertMany(ctx, saved); err != nil {
			t.Errorf("restore %s %v: %v", coll.Name(), filter, err)
		}
	})
}

// chkInsert inserts doc into coll and deletes it at cleanup.
func chkInsert(t *testing.T, coll *mongo.Collection, doc any) {
	t.Helper()
	ctx := context.Background()
	r, err := coll.InsertOne(ctx, doc)
	if err != nil {
		t.Fatalf("insert into %s: %v", coll.Name(), err)
	}
	t.Cleanup(func() {
		if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: r.InsertedID}}); err != nil {
			t.Errorf("restore %s: %v", coll.Name(), err)
		}
	})
}

func chkInc(field string, v any) bson.D {
	return bson.D{{Key: "$inc", Value: bson.D{{Key: field, Value: v}}}}
}

func chkSet(field string, v any) bson.D {
	return bson.D{{Key: "$set", Value: bson.D{{Key: field, Value: v}}}}
}

func chkOrder(w, d, o int) bson.D {
	return bson.D{{Key: "O_W_ID", Value: w}, {Key: "O_D_ID", Value: d}, {Key: "O_ID", Value: o}}
}

func chkLine(w, d, o, n int) bson.D {
	return bson.D{{Key: "OL_W_ID", Value: w}, {Key: "OL_D_ID", Value: d}, {Key: "OL_O_ID", Value: o}, {Key: "OL_NUMBER", Value: n}}
}

func chkCustomer(w, d, c int) bson.D {
	return bson.D{{Key: "C_W_ID", Value: w}, {Key: "C_D_ID", Value: d}, {Key: "C_ID", Value: c}}
}

func chkDistrict(w, d int) bson.D { return bson.D{{Key: "D_W_ID", Value: w}, {Key: "D_ID", Value: d}} }

// chkPlant is a violation planted to make one clause fail: plant changes
// the database and registers the undo with t.Cleanup. Changes are chosen to
// break as few other conditions as the conditions allow; fail lists all
// that break.
type chkPlant struct {
	clause     string
	plant      func(t *testing.T, db *mongo.Database)
	fail       []string
	skipped    []string
	detail     map[string]string // clause → substring of its Detail
	violations int64             // of clause; 0 = not asserted
}

// chkPlants plants in warehouse 2, district 7. At SmallScale orders 1..21
// of a district are delivered (lines with OL_AMOUNT 0.00 and a delivery
// date) and orders 22..30 are undelivered.
func chkPlants(schema Schema, sc Scale) []chkPlant {
	const w, d = 2, 7
	old := 1                        // a delivered order
	undel := sc.firstNewOrder() + 3 // an undelivered order in the middle of NEW_ORDER
	return []chkPlant{{
		// Breaks 8 too: W_YTD = sum(D_YTD) = sum(H_AMOUNT).
		clause: "3.3.2.1",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collWarehouse), bson.D{{Key: "W_ID", Value: w}}, chkInc("W_YTD", 1.0))
		},
		fail:   []string{"3.3.2.1", "3.3.2.8"},
		detail: map[string]string{"3.3.2.1": "W_ID=2: W_YTD=3001.00", "3.3.2.8": "W_ID=2"},
	}, {
		clause: "3.3.2.2",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collDistrict), chkDistrict(w, d), chkInc("D_NEXT_O_ID", 1))
		},
		fail:       []string{"3.3.2.2"},
		detail:     map[string]string{"3.3.2.2": "W_ID=2 D_ID=7: D_NEXT_O_ID-1=31, max(O_ID)=30, max(NO_O_ID)=30"},
		violations: 1,
	}, {
		// The undelivered order loses its NEW_ORDER row (5) and the
		// difference of counts grows (11).
		clause: "3.3.2.3",
		plant: func(t *testing.T, db *mongo.Database) {
			chkDelete(t, db.Collection(collNewOrder), bson.D{{Key: "NO_W_ID", Value: w}, {Key: "NO_D_ID", Value: d}, {Key: "NO_O_ID", Value: undel}})
		},
		fail: []string{"3.3.2.3", "3.3.2.5", "3.3.2.11"},
		detail: map[string]string{"3.3.2.3": "W_ID=2 D_ID=7", "3.3.2.5": fmt.Sprintf("W_ID=2 D_ID=7 O_ID=%d", undel),
			"3.3.2.11": "W_ID=2 D_ID=7"},
		violations: 1,
	}, {
		// A line of an undelivered order disappears: its order (6) and
		// district (4) count one line less.
		clause: "3.3.2.4",
		plant: func(t *testing.T, db *mongo.Database) {
			if schema == Normalized {
				chkDelete(t, db.Collection(collOrderLine), chkLine(w, d, undel, 1))
				return
			}
			chkUpdate(t, db.Collection(collOrders), chkOrder(w, d, undel), bson.D{{Key: "$pop", Value: bson.D{{Key: fieldOrderLines, Value: 1}}}})
		},
		fail:       []string{"3.3.2.4", "3.3.2.6"},
		detail:     map[string]string{"3.3.2.4": "W_ID=2 D_ID=7", "3.3.2.6": fmt.Sprintf("W_ID=2 D_ID=7 O_ID=%d", undel)},
		violations: 1,
	}, {
		// The carrier makes the order delivered with undelivered lines (7)
		// and looks like a Delivery to 11.
		clause: "3.3.2.5",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collOrders), chkOrder(w, d, undel), chkSet("O_CARRIER_ID", 5))
		},
		fail:       []string{"3.3.2.5", "3.3.2.7"},
		skipped:    []string{"3.3.2.11"},
		detail:     map[string]string{"3.3.2.5": fmt.Sprintf("W_ID=2 D_ID=7 O_ID=%d: O_CARRIER_ID=5", undel)},
		violations: 1,
	}, {
		// One line count moves between two orders of the district: the
		// district's sum (4) still holds.
		clause: "3.3.2.6",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collOrders), chkOrder(w, d, undel), chkInc("O_OL_CNT", 1))
			chkUpdate(t, db.Collection(collOrders), chkOrder(w, d, undel+1), chkInc("O_OL_CNT", -1))
		},
		fail:       []string{"3.3.2.6"},
		detail:     map[string]string{"3.3.2.6": fmt.Sprintf("W_ID=2 D_ID=7 O_ID=%d", undel)},
		violations: 2,
	}, {
		// A line of a delivered order loses its delivery date; its amount
		// is 0.00, so the balances (10, 12) still hold.
		clause: "3.3.2.7",
		plant: func(t *testing.T, db *mongo.Database) {
			if schema == Normalized {
				chkUpdate(t, db.Collection(collOrderLine), chkLine(w, d, old, 1), chkSet("OL_DELIVERY_D", nil))
				return
			}
			chkUpdate(t, db.Collection(collOrders), chkOrder(w, d, old), chkSet(fieldOrderLines+".0.OL_DELIVERY_D", nil))
		},
		fail:       []string{"3.3.2.7"},
		detail:     map[string]string{"3.3.2.7": "W_ID=2 D_ID=7 O_ID=1"},
		violations: 1,
	}, {
		// A remote payment: paid in W_ID=2 D_ID=7 (8, 9) by a customer of
		// warehouse 1 (10).
		clause: "3.3.2.8",
		plant: func(t *testing.T, db *mongo.Database) {
			chkInsert(t, db.Collection(collHistory), historyDoc{CID: 5, CDID: 3, CWID: 1, DID: d, WID: w, Date: time.Now(), Amount: 1})
		},
		fail: []string{"3.3.2.8", "3.3.2.9", "3.3.2.10"},
		detail: map[string]string{"3.3.2.8": "W_ID=2: W_YTD=3000.00, sum(H_AMOUNT)=3001.00", "3.3.2.9": "W_ID=2 D_ID=7",
			"3.3.2.10": "W_ID=1 D_ID=3 C_ID=5"},
		violations: 1,
	}, {
		// D_YTD moves between two districts: W_YTD = sum(D_YTD) (1) holds.
		clause: "3.3.2.9",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collDistrict), chkDistrict(w, d), chkInc("D_YTD", 1.0))
			chkUpdate(t, db.Collection(collDistrict), chkDistrict(w, d+1), chkInc("D_YTD", -1.0))
		},
		fail:       []string{"3.3.2.9"},
		detail:     map[string]string{"3.3.2.9": "W_ID=2 D_ID=7: D_YTD=301.00, sum(H_AMOUNT)=300.00"},
		violations: 2,
	}, {
		// C_BALANCE + C_YTD_PAYMENT (12) is unchanged.
		clause: "3.3.2.10",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collCustomer), chkCustomer(w, d, 5),
				bson.D{{Key: "$inc", Value: bson.D{{Key: "C_BALANCE", Value: 1.0}, {Key: "C_YTD_PAYMENT", Value: -1.0}}}})
		},
		fail:       []string{"3.3.2.10"},
		detail:     map[string]string{"3.3.2.10": "W_ID=2 D_ID=7 C_ID=5: C_BALANCE=-9.00"},
		violations: 1,
	}, {
		// Only the count of orders changes: removing a delivered order with
		// its lines keeps 2 (it is not the newest), 4 (its O_OL_CNT goes
		// with its lines) and the balances (its lines' amounts are 0.00),
		// and 11 does not mistake it for a Delivery (O_ID < 22).
		clause: "3.3.2.11",
		plant: func(t *testing.T, db *mongo.Database) {
			chkDelete(t, db.Collection(collOrders), chkOrder(w, d, old))
			if schema == Normalized {
				chkDelete(t, db.Collection(collOrderLine), bson.D{{Key: "OL_W_ID", Value: w}, {Key: "OL_D_ID", Value: d}, {Key: "OL_O_ID", Value: old}})
			}
		},
		fail:       []string{"3.3.2.11"},
		detail:     map[string]string{"3.3.2.11": "W_ID=2 D_ID=7: count(ORDERS)-count(NEW_ORDER)=29-9=20, want 21"},
		violations: 1,
	}, {
		clause: "3.3.2.12",
		plant: func(t *testing.T, db *mongo.Database) {
			chkUpdate(t, db.Collection(collCustomer), chkCustomer(w, d, 5), chkInc("C_YTD_PAYMENT", 1.0))
		},
		fail:       []string{"3.3.2.12"},
		detail:     map[string]string{"3.3.2.12": "W_ID=2 D_ID=7 C_ID=5: C_BALANCE+C_YTD_PAYMENT=-10.00+11.00=1.00, sum(OL_AMOUNT)=0.00"},
		violations: 1,
	}}
}

// TestCheck loads each schema once, checks that every condition holds,
// then for each clause plants a violation, checks that exactly the
// expected clauses fail naming the offending key, and undoes it.
func TestCheck(t *testing.T) {
	for _, schema := range []Schema{Denormalized, Normalized} {
		t.Run(schema.String(), func(t *testing.T) {
			db, cfg := chkLoad(t, schema)
			o := CheckOptions{Schema: schema, Scale: cfg.Scale}
			t.Run("loaded", func(t *testing.T) {
				chkExpect(t, chkRun(t, db, o), nil, nil)
			})
			t.Run("options from metadata", func(t *testing.T) {
				chkExpect(t, chkRun(t, db, CheckOptions{}), nil, nil)
			})
			plants := chkPlants(schema, cfg.Scale)
			if len(plants) != len(CheckClauses()) {
				t.Fatalf("%d plants for %d clauses", len(plants), len(CheckClauses()))
			}
			for _, p := range plants {
				t.Run(p.clause, func(t *testing.T) {
					p.plant(t, db)
					res := chkRun(t, db, o)
					chkExpect(t, res, p.fail, p.skipped)
					for c, sub := range p.detail {
						if !strings.Contains(res[c].Detail, sub) {
							t.Errorf("%s detail %q does not contain %q", c, res[c].Detail, sub)
						}
					}
					if r := res[p.clause]; p.violations != 0 && r.Violations != p.violations {
						t.Errorf("%s: %d violations, want %d (detail %q)", p.clause, r.Violations, p.violations, r.Detail)
					}
				})
			}
			t.Run("restored", func(t *testing.T) {
				chkExpect(t, chkRun(t, db, o), nil, nil)
			})
		})
	}
}

func TestCheckOnly(t *testing.T) {
	db, cfg := chkLoad(t, Denormalized)
	res, err := Check(context.Background(), db, CheckOptions{Schema: Denormalized, Scale: cfg.Scale, Only: []string{"3.3.2.12", "3.3.2.3", "3.3.2.12"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, r.Clause+"="+r.Status.String())
	}
	if want := []string{"3.3.2.3=pass", "3.3.2.12=pass"}; !slices.Equal(got, want) {
		t.Errorf("results %v, want %v", got, want)
	}
}

func TestCheckEmptyDatabase(t *testing.T) {
	db := chkDB(t, "empty")
	_, err := Check(context.Background(), db, CheckOptions{Schema: Denormalized, Scale: SmallScale()})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), db.Name()) {
		t.Fatalf("check of an empty database: %v, want ErrEmpty naming %s", err, db.Name())
	}
}

// TestCheckUnknownClause passes no database: options are validated before
// any read.
func TestCheckUnknownClause(t *testing.T) {
	_, err := Check(context.Background(), nil, CheckOptions{Only: []string{"3.3.2.1", "3.3.2.13"}})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `"3.3.2.13"`) || !strings.Contains(err.Error(), "3.3.2.12") {
		t.Fatalf("unknown clause: %v, want ErrConfig naming it and the valid clauses", err)
	}
}

func TestCheckClauses(t *testing.T) {
	got := CheckClauses()
	if len(got) != 12 || got[0] != "3.3.2.1" || got[11] != "3.3.2.12" {
		t.Fatalf("CheckClauses() = %v", got)
	}
	for i, c := range got {
		if want := fmt.Sprintf("3.3.2.%d", i+1); c != want {
			t.Errorf("clause %d is %q, want %q", i, c, want)
		}
	}
}

func TestCheckStatusJSON(t *testing.T) {
	r := CheckResult{Clause: "3.3.2.1", Name: "n", Status: Skipped, Detail: "why", Duration: time.Second}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"status":"skipped"`) {
		t.Errorf("JSON %s has no status \"skipped\"", b)
	}
	var back CheckResult
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Errorf("round trip: %+v, %v; want %+v", back, err, r)
	}
	if _, err := json.Marshal(CheckResult{}); err == nil {
		t.Error("the zero status marshals")
	}
	if err := json.Unmarshal([]byte(`{"status":"maybe"}`), &back); err == nil {
		t.Error("status \"maybe\" unmarshals")
	}
}

// TestCheckMoneyTolerance: half a cent per term, so a two-term condition
// tolerates 0.01 and a three-term one 0.015.
func TestCheckMoneyTolerance(t *testing.T) {
	for _, tt := range []struct {
		ytd  float64
		fail bool
	}{{30.009, false}, {29.991, false}, {30.011, true}, {29.989, true}} {
		d := &checkData{w: 1, wYTD: tt.ytd, districts: []districtRow{{D: 1, YTD: 10}, {D: 2, YTD: 20}}}
		if got := check3321(d, SmallScale()).violations > 0; got != tt.fail {
			t.Errorf("W_YTD %v vs sum(D_YTD) 30: fail %t, want %t", tt.ytd, got, tt.fail)
		}
	}
	c := &checkData{w: 1, customers: []customerRow{{D: 1, C: 1, Balance: -9.986, YTDPayment: 10}},
		orders: []orderRow{{D: 1, O: 1, C: 1}}}
	if f := check33212(c, SmallScale()); f.violations != 0 {
		t.Errorf("0.014 off on three terms fails: %s", f.detail)
	}
	c.customers[0].Balance = -9.984
	if f := check33212(c, SmallScale()); f.violations != 1 {
		t.Errorf("0.016 off on three terms passes")
	}
}

// TestCheck33211Rule: a district whose undelivered orders of the load
// (O_ID >= 22 at SmallScale) include a delivered one is skipped; another
// district is still checked.
func TestCheck33211Rule(t *testing.T) {
	sc := SmallScale()
	d := &checkData{w: 1}
	for dist := 1; dist <= 2; dist++ {
		for o := 1; o <= sc.Customers; o++ {
			row := orderRow{D: dist, O: o, C: o}
			if o < sc.firstNewOrder() || (dist == 1 && o == sc.firstNewOrder()) { // district 1 saw a Delivery
				row.Carrier = 1
			} else {
				d.newOrders = append(d.newOrders, newOrderRow{D: dist, O: o})
			}
			d.orders = append(d.orders, row)
		}
	}
	f := check33211(d, sc)
	if f.violations != 0 || !strings.Contains(f.skip, "W_ID=1 D_ID=1: O_ID=22") {
		t.Fatalf("after a Delivery in district 1: %+v, want skipped naming O_ID=22 and no violation", f)
	}
	i := slices.IndexFunc(d.newOrders, func(r newOrderRow) bool { return r.D == 2 })
	d.newOrders = slices.Delete(d.newOrders, i, i+1) // district 2 loses its oldest NEW_ORDER row
	if f := check33211(d, sc); f.violations != 1 || !strings.Contains(f.detail, "W_ID=1 D_ID=2") {
		t.Fatalf("district 2 without its first NEW_ORDER row: %+v, want 1 violation in D_ID=2", f)
	}
}

// chkWriter runs consistent TPC-C-like transactions (Payment, New-Order,
// Delivery of one district) on the denormalized schema until ctx ends.
// A transaction body returns true when it delivered an order.
type chkWriter struct {
	db         *mongo.Database
	cfg        Config
	rnd        *rand.Rand
	commits    *atomic.Int64
	deliveries *atomic.Int64
}

func (w *chkWriter) run(ctx context.Context) error {
	sess, err := w.db.Client().StartSession()
	if err != nil {
		return err
	}
	defer sess.EndSession(context.Background())
	for ctx.Err() == nil {
		body := w.delivery
		switch n := w.rnd.IntN(100); {
		case n < 50:
			body = w.payment
		case n < 85:
			body = w.newOrder
		}
		delivered, err := sess.WithTransaction(ctx, body)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		w.commits.Add(1)
		if delivered == true {
			w.deliveries.Add(1)
		}
	}
	return nil
}

func (w *chkWriter) pick() (wh, d, c int) {
	return 1 + w.rnd.IntN(w.cfg.Warehouses), 1 + w.rnd.IntN(w.cfg.Scale.Districts), 1 + w.rnd.IntN(w.cfg.Scale.Customers)
}

func chkUpdateOne(ctx context.Context, coll *mongo.Collection, filter, update bson.D) error {
	r, err := coll.UpdateOne(ctx, filter, update)
	if err == nil && r.MatchedCount != 1 {
		err = fmt.Errorf("%s %v: matched %d", coll.Name(), filter, r.MatchedCount)
	}
	return err
}

func (w *chkWriter) payment(ctx context.Context) (any, error) {
	wh, d, _ := w.pick()
	cw, cd, c := w.pick()
	amount := float64(100+w.rnd.IntN(500000)) / 100
	if err := chkUpdateOne(ctx, w.db.Collection(collWarehouse), bson.D{{Key: "W_ID", Value: wh}}, chkInc("W_YTD", amount)); err != nil {
		return nil, err
	}
	if err := chkUpdateOne(ctx, w.db.Collection(collDistrict), chkDistrict(wh, d), chkInc("D_YTD", amount)); err != nil {
		return nil, err
	}
	if err := chkUpdateOne(ctx, w.db.Collection(collCustomer), chkCustomer(cw, cd, c), bson.D{{Key: "$inc", Value: bson.D{
		{Key: "C_BALANCE", Value: -amount}, {Key: "C_YTD_PAYMENT", Value: amount}, {Key: "C_PAYMENT_CNT", Value: 1}}}}); err != nil {
		return nil, err
	}
	_, err := w.db.Collection(collHistory).InsertOne(ctx, historyDoc{CID: c, CDID: cd, CWID: cw, DID: d, WID: wh, Date: time.Now(), Amount: amount})
	return nil, err
}

func (w *chkWriter) newOrder(ctx context.Context) (any, error) {
	wh, d, c := w.pick()
	var dist districtDoc
	err := w.db.Collection(collDistrict).FindOneAndUpdate(ctx, chkDistrict(wh, d), chkInc("D_NEXT_O_ID", 1)).Decode(&dist)
	if err != nil {
		return nil, err
	}
	o := orderDoc{ID: dist.NextOID, CID: c, DID: d, WID: wh, EntryD: time.Now(), OLCnt: 5 + w.rnd.IntN(11), AllLocal: 1}
	for n := range o.OLCnt {
		o.Lines = append(o.Lines, orderLineDoc{Number: n + 1, IID: 1 + w.rnd.IntN(w.cfg.Scale.Items), SupplyWID: wh,
			Quantity: 5, Amount: float64(1+w.rnd.IntN(999999)) / 100})
	}
	if _, err := w.db.Collection(collOrders).InsertOne(ctx, o); err != nil {
		return nil, err
	}
	_, err = w.db.Collection(collNewOrder).InsertOne(ctx, newOrderDoc{OID: o.ID, DID: d, WID: wh})
	return nil, err
}

func (w *chkWriter) delivery(ctx context.Context) (any, error) {
	wh, d, _ := w.pick()
	var no newOrderDoc
	err := w.db.Collection(collNewOrder).FindOneAndDelete(ctx, bson.D{{Key: "NO_W_ID", Value: wh}, {Key: "NO_D_ID", Value: d}},
		options.FindOneAndDelete().SetSort(bson.D{{Key: "NO_O_ID", Value: 1}})).Decode(&no)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return nil, err
	}
	var o orderDoc
	err = w.db.Collection(collOrders).FindOneAndUpdate(ctx, chkOrder(wh, d, no.OID),
		bson.D{{Key: "$set", Value: bson.D{{Key: "O_CARRIER_ID", Value: 1 + w.rnd.IntN(10)},
			{Key: fieldOrderLines + ".$[].OL_DELIVERY_D", Value: time.Now()}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&o)
	if err != nil {
		return nil, err
	}
	sum := 0.0
	for _, l := range o.Lines {
		sum += l.Amount
	}
	err = chkUpdateOne(ctx, w.db.Collection(collCustomer), chkCustomer(wh, d, o.CID),
		bson.D{{Key: "$inc", Value: bson.D{{Key: "C_BALANCE", Value: sum}, {Key: "C_DELIVERY_CNT", Value: 1}}}})
	return err == nil, err
}

// TestCheckDuringWrites runs Check repeatedly while two goroutines commit
// consistent Payment, New-Order and Delivery transactions: every condition
// holds in every run (3.3.2.11 may be skipped once a Delivery committed).
func TestCheckDuringWrites(t *testing.T) {
	db, cfg := chkLoad(t, Denormalized)
	o := CheckOptions{Schema: Denormalized, Scale: cfg.Scale}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var commits, deliveries atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range 2 {
		w := &chkWriter{db: db, cfg: cfg, rnd: rand.New(rand.NewPCG(7, uint64(i))), commits: &commits, deliveries: &deliveries}
		wg.Go(func() { errs <- w.run(ctx) })
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return commits.Load() >= 20 }, "the writers commit 20 transactions")

	var during int64
	runs := 0
	for deadline := time.Now().Add(3 * time.Second); runs < 5 || time.Now().Before(deadline); runs++ {
		before := commits.Load()
		res := chkRun(t, db, o)
		during += commits.Load() - before
		for _, c := range CheckClauses() {
			r := res[c]
			if r.Status != Pass && (c != "3.3.2.11" || r.Status != Skipped) {
				t.Errorf("run %d: %s (%s): %v: %s", runs, c, r.Name, r.Status, r.Detail)
			}
		}
	}
	stop()
	wg.Wait()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	t.Logf("%d checks, %d commits while they ran, %d commits in all (%d deliveries)", runs, during, commits.Load(), deliveries.Load())
	if during == 0 || deliveries.Load() == 0 {
		t.Fatalf("%d commits during the checks and %d deliveries: the test proves nothing", during, deliveries.Load())
	}
	chkExpect(t, chkRun(t, db, o), nil, []string{"3.3.2.11"})
}
