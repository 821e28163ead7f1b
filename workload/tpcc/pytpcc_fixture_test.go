package tpcc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// pyRand mirrors pytpcc/util/rand.py on a seeded PCG (the values differ
// from py-tpcc's; their ranges and shapes do not).
type pyRand struct{ r *rand.Rand }

func (p pyRand) number(lo, hi int) int { return lo + p.r.IntN(hi-lo+1) }

func (p pyRand) numberExcluding(lo, hi, ex int) int {
	n := p.number(lo, hi-1)
	if n >= ex {
		n++
	}
	return n
}

func (p pyRand) fixedPoint(decimals int, lo, hi float64) float64 {
	m := math.Pow(10, float64(decimals))
	return float64(p.number(int(lo*m+0.5), int(hi*m+0.5))) / m
}

func (p pyRand) str(lo, hi int, base byte, n int) string {
	b := make([]byte, p.number(lo, hi))
	for i := range b {
		b[i] = base + byte(p.number(0, n-1))
	}
	return string(b)
}

func (p pyRand) astring(lo, hi int) string { return p.str(lo, hi, 'a', 26) }
func (p pyRand) nstring(lo, hi int) string { return p.str(lo, hi, '0', 10) }
func (p pyRand) zip() string               { return p.nstring(4, 4) + "11111" }

func (p pyRand) selectUniqueIDs(n, lo, hi int) map[int]bool {
	rows := map[int]bool{}
	for len(rows) < n {
		rows[p.number(lo, hi)] = true
	}
	return rows
}

// fillOriginal puts "ORIGINAL" at a random position of data.
func (p pyRand) fillOriginal(data string) string {
	pos := p.number(0, len(data)-8)
	return data[:pos] + "ORIGINAL" + data[pos+8:]
}

// pyLoad writes into db what py-tpcc writes when it loads warehouses
// 1..warehouses at scale sc (its --scalefactor 100 is SmallScale) through
// its MongoDB driver, after creating the indexes its loadConfig creates:
//   - Loader.loadItems and Loader.loadWarehouse (pytpcc/runtime/loader.py)
//     draw the rows, with constants.py's values: W_YTD 300000.0 and D_YTD
//     30000.0 whatever the scale, OL_AMOUNT in [0.01, 1000.00] on every
//     line (delivered ones too), OL_DELIVERY_D None on undelivered lines,
//     O_CARRIER_ID NULL_CARRIER_ID (0) on undelivered orders, OL_NUMBER
//     from 0, 1% of lines supplied by another warehouse, HISTORY with its
//     H_C_* columns, C_FIRST of 6 to 10 letters, no ORIGINAL in S_DATA
//     (generateStock drops fillOriginal's result);
//   - MongodbDriver.loadTuples makes each row a document of TABLE_COLUMNS
//     in order, ITEM rows with I_W_ID 0 appended (not sharded);
//     denormalized, an ORDER_LINE row becomes an element of its order's
//     ORDER_LINE array holding its columns from OL_I_ID on (no OL_O_ID,
//     OL_D_ID, OL_W_ID nor OL_NUMBER), and loadFinishDistrict inserts the
//     district's orders.
//
// Types are pymongo's: a Python int is an int32, a float a double, a
// datetime a date, None null. Warehouse 2's undelivered orders carry
// O_CARRIER_ID as an int64: Python 2's NULL_CARRIER_ID = 0L, which py-tpcc
// had when the TPC-C-on-MongoDB paper ran it. No TPCC_META is written.
func pyLoad(t *testing.T, ctx context.Context, db *mongo.Database, schema Schema, warehouses int, sc Scale, seed uint64) {
	t.Helper()
	if err := createPyIndexes(ctx, db, schema); err != nil {
		t.Fatal(err)
	}
	r := pyRand{rand.New(rand.NewPCG(seed, 0x9779))}
	now := time.Now().UTC().Truncate(time.Millisecond)
	insert := func(coll string, docs []any) {
		t.Helper()
		if len(docs) == 0 {
			return
		}
		if _, err := db.Collection(coll).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
			t.Fatalf("insert %d documents into %s: %v", len(docs), coll, err)
		}
	}
	i32 := func(n int) int32 { return int32(n) }
	// generateStreetAddress and generateAddress (a name, then the street).
	street := func(prefix string) bson.D {
		return bson.D{{Key: prefix + "STREET_1", Value: r.astring(10, 20)}, {Key: prefix + "STREET_2", Value: r.astring(10, 20)},
			{Key: prefix + "CITY", Value: r.astring(10, 20)}, {Key: prefix + "STATE", Value: r.astring(2, 2)}, {Key: prefix + "ZIP", Value: r.zip()}}
	}
	address := func(prefix string) bson.D {
		return append(bson.D{{Key: prefix + "NAME", Value: r.astring(6, 10)}}, street(prefix)...)
	}

	// Loader.loadItems
	original := r.selectUniqueIDs(sc.Items/10, 1, sc.Items)
	var items []any
	for i := 1; i <= sc.Items; i++ {
		imID, name, price, data := r.number(1, 10000), r.astring(14, 24), r.fixedPoint(2, 1, 100), r.astring(26, 50)
		if original[i] {
			data = r.fillOriginal(data)
		}
		items = append(items, bson.D{{Key: "I_ID", Value: i32(i)}, {Key: "I_IM_ID", Value: i32(imID)}, {Key: "I_NAME", Value: name},
			{Key: "I_PRICE", Value: price}, {Key: "I_DATA", Value: data}, {Key: "I_W_ID", Value: i32(0)}})
	}
	insert(collItem, items)

	for w := 1; w <= warehouses; w++ {
		// Loader.loadWarehouse: WAREHOUSE.
		wh := append(bson.D{{Key: "W_ID", Value: i32(w)}}, address("W_")...)
		wh = append(wh, bson.E{Key: "W_TAX", Value: r.fixedPoint(4, 0, 0.2)}, bson.E{Key: "W_YTD", Value: 300000.0})
		insert(collWarehouse, []any{wh})

		for d := 1; d <= sc.Districts; d++ {
			dist := append(bson.D{{Key: "D_ID", Value: i32(d)}, {Key: "D_W_ID", Value: i32(w)}}, address("D_")...)
			dist = append(dist, bson.E{Key: "D_TAX", Value: r.fixedPoint(4, 0, 0.2)}, bson.E{Key: "D_YTD", Value: 30000.0},
				bson.E{Key: "D_NEXT_O_ID", Value: i32(sc.Customers + 1)})

			bad := r.selectUniqueIDs(sc.Customers/10, 1, sc.Customers)
			var customers, history []any
			perm := make([]int, sc.Customers)
			for c := 1; c <= sc.Customers; c++ {
				// generateCustomer
				first := r.astring(6, 10)
				last := lastName((c - 1) % 1000)
				if c > 1000 { // makeRandomLastName
					last = lastName((r.number(0, 255) | r.number(0, 999)) % 1000)
				}
				phone := r.nstring(16, 16)
				credit := "GC"
				if bad[c] {
					credit = "BC"
				}
				discount, data := r.fixedPoint(4, 0, 0.5), r.astring(300, 500)
				addr := street("C_")
				cu := bson.D{{Key: "C_ID", Value: i32(c)}, {Key: "C_D_ID", Value: i32(d)}, {Key: "C_W_ID", Value: i32(w)},
					{Key: "C_FIRST", Value: first}, {Key: "C_MIDDLE", Value: "OE"}, {Key: "C_LAST", Value: last}}
				cu = append(cu, addr...)
				cu = append(cu, bson.D{{Key: "C_PHONE", Value: phone}, {Key: "C_SINCE", Value: now}, {Key: "C_CREDIT", Value: credit},
					{Key: "C_CREDIT_LIM", Value: 50000.0}, {Key: "C_DISCOUNT", Value: discount}, {Key: "C_BALANCE", Value: -10.0},
					{Key: "C_YTD_PAYMENT", Value: 10.0}, {Key: "C_PAYMENT_CNT", Value: i32(1)}, {Key: "C_DELIVERY_CNT", Value: i32(0)},
					{Key: "C_DATA", Value: data}}...)
				customers = append(customers, cu)
				// generateHistory
				history = append(history, bson.D{{Key: "H_C_ID", Value: i32(c)}, {Key: "H_C_D_ID", Value: i32(d)}, {Key: "H_C_W_ID", Value: i32(w)},
					{Key: "H_D_ID", Value: i32(d)}, {Key: "H_W_ID", Value: i32(w)}, {Key: "H_DATE", Value: now},
					{Key: "H_AMOUNT", Value: 10.0}, {Key: "H_DATA", Value: r.astring(12, 24)}})
				perm[c-1] = c
			}
			r.r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })

			var orders, lines, newOrders []any
			for o := 1; o <= sc.Customers; o++ {
				olCnt := r.number(5, 15)
				isNew := sc.Customers-sc.NewOrders < o
				// generateOrder
				var carrier any = i32(r.number(1, 10))
				if isNew {
					carrier = i32(0)
					if w == 2 {
						carrier = int64(0)
					}
				}
				ord := bson.D{{Key: "O_ID", Value: i32(o)}, {Key: "O_C_ID", Value: i32(perm[o-1])}, {Key: "O_D_ID", Value: i32(d)},
					{Key: "O_W_ID", Value: i32(w)}, {Key: "O_ENTRY_D", Value: now}, {Key: "O_CARRIER_ID", Value: carrier},
					{Key: "O_OL_CNT", Value: i32(olCnt)}, {Key: "O_ALL_LOCAL", Value: i32(1)}}
				var embedded bson.A
				for n := 0; n < olCnt; n++ {
					// generateOrderLine
					iID, supply := r.number(1, sc.Items), w
					if r.number(1, 100) == 1 && warehouses > 1 {
						supply = r.numberExcluding(1, warehouses, w)
					}
					amount := r.fixedPoint(2, 0.01, 1000)
					var delivery any = now
					if isNew {
						delivery = nil
					}
					cols := bson.D{{Key: "OL_I_ID", Value: i32(iID)}, {Key: "OL_SUPPLY_W_ID", Value: i32(supply)},
						{Key: "OL_DELIVERY_D", Value: delivery}, {Key: "OL_QUANTITY", Value: i32(5)}, {Key: "OL_AMOUNT", Value: amount},
						{Key: "OL_DIST_INFO", Value: r.astring(24, 24)}}
					if schema == Denormalized {
						embedded = append(embedded, cols)
					} else {
						lines = append(lines, append(bson.D{{Key: "OL_O_ID", Value: i32(o)}, {Key: "OL_D_ID", Value: i32(d)},
							{Key: "OL_W_ID", Value: i32(w)}, {Key: "OL_NUMBER", Value: i32(n)}}, cols...))
					}
				}
				if schema == Denormalized {
					ord = append(ord, bson.E{Key: fieldOrderLines, Value: embedded})
				}
				orders = append(orders, ord)
				if isNew {
					newOrders = append(newOrders, bson.D{{Key: "NO_O_ID", Value: i32(o)}, {Key: "NO_D_ID", Value: i32(d)}, {Key: "NO_W_ID", Value: i32(w)}})
				}
			}
			insert(collDistrict, []any{dist})
			insert(collCustomer, customers)
			if schema == Normalized {
				insert(collOrders, orders)
				insert(collOrderLine, lines)
			}
			insert(collNewOrder, newOrders)
			insert(collHistory, history)
			if schema == Denormalized { // loadFinishDistrict
				insert(collOrders, orders)
			}
		}

		// STOCK: generateStock ignores its "original" rows (fillOriginal's
		// result is not assigned), so no S_DATA holds ORIGINAL.
		r.selectUniqueIDs(sc.Items/10, 1, sc.Items)
		var stock []any
		for i := 1; i <= sc.Items; i++ {
			q, data := r.number(10, 100), r.astring(26, 50)
			s := bson.D{{Key: "S_I_ID", Value: i32(i)}, {Key: "S_W_ID", Value: i32(w)}, {Key: "S_QUANTITY", Value: i32(q)}}
			for k := 1; k <= 10; k++ {
				s = append(s, bson.E{Key: fmt.Sprintf("S_DIST_%02d", k), Value: r.astring(24, 24)})
			}
			s = append(s, bson.D{{Key: "S_YTD", Value: i32(0)}, {Key: "S_ORDER_CNT", Value: i32(0)}, {Key: "S_REMOTE_CNT", Value: i32(0)},
				{Key: "S_DATA", Value: data}}...)
			stock = append(stock, s)
		}
		insert(collStock, stock)
	}
}
