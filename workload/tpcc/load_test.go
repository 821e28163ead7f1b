package tpcc

import (
	"context"
	"errors"
	"reflect"
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

// newLoadDB returns an empty database "tpcc_load_<name>" on the shared
// replica set, dropped when the test ends.
func newLoadDB(t *testing.T, name string) *mongo.Database {
	t.Helper()
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	db := client.Database("tpcc_load_" + name)
	if err := db.Drop(t.Context()); err != nil {
		t.Fatalf("drop %s: %v", db.Name(), err)
	}
	testutil.DropAtCleanup(t, db)
	return db
}

// testLoadConfig is two warehouses at the small scale: about 5,000
// documents (11,000 normalized), loaded in about a second.
func testLoadConfig(s Schema) Config {
	cfg := DefaultConfig()
	cfg.Warehouses, cfg.Scale, cfg.Schema, cfg.Seed = 2, SmallScale(), s, 42
	return cfg
}

func loadCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustLoad(t *testing.T, ctx context.Context, db *mongo.Database, cfg Config, o LoadOptions) {
	t.Helper()
	if err := Load(ctx, db, cfg, o); err != nil {
		t.Fatalf("Load(%d warehouses, %s, %s): %v", cfg.Warehouses, scaleName(cfg.Scale), cfg.Schema, err)
	}
}

func loadCount(t *testing.T, ctx context.Context, db *mongo.Database, coll string, filter bson.D) int64 {
	t.Helper()
	if filter == nil {
		filter = bson.D{}
	}
	n, err := db.Collection(coll).CountDocuments(ctx, filter)
	if err != nil {
		t.Fatalf("count %s %v: %v", coll, filter, err)
	}
	return n
}

func sumLoadOLCnt(t *testing.T, ctx context.Context, db *mongo.Database) int64 {
	t.Helper()
	cur, err := db.Collection(collOrders).Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{
		{Key: "_id", Value: nil}, {Key: "n", Value: bson.D{{Key: "$sum", Value: "$O_OL_CNT"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var res []struct {
		N int64 `bson:"n"`
	}
	if err := cur.All(ctx, &res); err != nil || len(res) != 1 {
		t.Fatalf("sum O_OL_CNT: %v, %d results", err, len(res))
	}
	return res[0].N
}

// wantCounts is clause 4.3.3.1's cardinalities, spelled out independently
// of countCheck.
func wantLoadCounts(cfg Config) map[string]int64 {
	w, sc := int64(cfg.Warehouses), cfg.Scale
	d := w * int64(sc.Districts)
	return map[string]int64{
		collItem: int64(sc.Items), collWarehouse: w, collDistrict: d,
		collCustomer: d * int64(sc.Customers), collHistory: d * int64(sc.Customers),
		collOrders: d * int64(sc.Customers), collStock: w * int64(sc.Items),
		collNewOrder: d * int64(sc.NewOrders),
	}
}

func checkLoadCounts(t *testing.T, ctx context.Context, db *mongo.Database, cfg Config) {
	t.Helper()
	for coll, want := range wantLoadCounts(cfg) {
		if got := loadCount(t, ctx, db, coll, nil); got != want {
			t.Errorf("%s holds %d documents, want %d", coll, got, want)
		}
	}
	orders := wantLoadCounts(cfg)[collOrders]
	lines := sumLoadOLCnt(t, ctx, db)
	if lines < 5*orders || lines > 15*orders {
		t.Errorf("sum of O_OL_CNT is %d, want within [%d, %d]", lines, 5*orders, 15*orders)
	}
	if cfg.Schema == Normalized {
		if got := loadCount(t, ctx, db, collOrderLine, nil); got != lines {
			t.Errorf("%s holds %d documents, want the sum of O_OL_CNT %d", collOrderLine, got, lines)
		}
	} else {
		off := bson.D{{Key: "$expr", Value: bson.D{{Key: "$ne", Value: bson.A{
			bson.D{{Key: "$size", Value: "$" + fieldOrderLines}}, "$O_OL_CNT"}}}}}
		if n := loadCount(t, ctx, db, collOrders, off); n != 0 {
			t.Errorf("%d orders embed a number of lines other than their O_OL_CNT", n)
		}
	}
	if err := countCheck(ctx, db, cfg); err != nil {
		t.Errorf("countCheck: %v", err)
	}
}

// TestLoad loads each schema and checks the counts, the progress, the
// metadata, the indexes and the customers; then that a second Load of the
// same request reuses the data without touching or counting it.
func TestLoad(t *testing.T) {
	for _, schema := range []Schema{Denormalized, Normalized} {
		t.Run(schema.String(), func(t *testing.T) {
			ctx := loadCtx(t)
			db := newLoadDB(t, schema.String())
			cfg := testLoadConfig(schema)

			var mu sync.Mutex
			var maxDone, total int64
			totals := map[int64]bool{}
			progress := func(done, tot int64) {
				mu.Lock()
				defer mu.Unlock()
				maxDone = max(maxDone, done)
				total = tot
				totals[tot] = true
			}
			start := time.Now()
			mustLoad(t, ctx, db, cfg, LoadOptions{Parallel: 4, Progress: progress})
			t.Logf("loaded in %v", time.Since(start))

			checkLoadCounts(t, ctx, db, cfg)

			var docs int64
			for _, n := range wantLoadCounts(cfg) {
				docs += n
			}
			if schema == Normalized {
				docs += sumLoadOLCnt(t, ctx, db)
			}
			if maxDone != docs || total != docs || len(totals) != 1 {
				t.Errorf("progress reached %d of %d (totals %v), want %d of %d", maxDone, total, totals, docs, docs)
			}

			info, ok, err := Loaded(ctx, db)
			if err != nil || !ok {
				t.Fatalf("Loaded: %+v, %v, %v", info, ok, err)
			}
			if !info.Complete || !info.Items || !slices.Equal(info.Done, []int{1, 2}) ||
				info.Warehouses != 2 || info.Scale != cfg.Scale || info.Schema != schema || info.Seed != cfg.Seed ||
				info.Started.IsZero() || info.Finished.Before(info.Started) {
				t.Errorf("Loaded: %+v", info)
			}

			t.Run("indexes", func(t *testing.T) { checkLoadIndexes(t, ctx, db, schema) })

			t.Run("customers", func(t *testing.T) {
				// Clause 4.3.3.1: C_LAST of the first 1000 customers is
				// lastName(C_ID-1); about 10% have bad credit.
				for w := 1; w <= cfg.Warehouses; w++ {
					cur, err := db.Collection(collCustomer).Find(ctx, bson.D{{Key: "C_W_ID", Value: w}, {Key: "C_D_ID", Value: 3}})
					if err != nil {
						t.Fatal(err)
					}
					var cs []customerDoc
					if err := cur.All(ctx, &cs); err != nil {
						t.Fatal(err)
					}
					if len(cs) != cfg.Scale.Customers {
						t.Fatalf("W%d D3 has %d customers, want %d", w, len(cs), cfg.Scale.Customers)
					}
					for _, c := range cs {
						if c.ID <= 1000 && c.Last != lastName(c.ID-1) {
							t.Errorf("W%d D3 C%d: C_LAST %q, want %q", w, c.ID, c.Last, lastName(c.ID-1))
						}
					}
				}
				all := loadCount(t, ctx, db, collCustomer, nil)
				bc := loadCount(t, ctx, db, collCustomer, bson.D{{Key: "C_CREDIT", Value: "BC"}})
				gc := loadCount(t, ctx, db, collCustomer, bson.D{{Key: "C_CREDIT", Value: "GC"}})
				if bc+gc != all || bc < all/20 || bc > all*3/20 { // 10% ± 4 standard deviations at 600
					t.Errorf("%d BC and %d GC customers of %d, want about 10%% BC and the rest GC", bc, gc, all)
				}
			})

			t.Run("reuse", func(t *testing.T) {
				// A complete load of the same request is reused, whatever
				// the seed: no insert, no progress, and no count check (the
				// deleted document would fail it).
				if _, err := db.Collection(collStock).DeleteOne(ctx, bson.D{{Key: "S_W_ID", Value: 1}, {Key: "S_I_ID", Value: 7}}); err != nil {
					t.Fatal(err)
				}
				again := cfg
				again.Seed++
				called := atomic.Bool{}
				mustLoad(t, ctx, db, again, LoadOptions{Progress: func(int64, int64) { called.Store(true) }})
				if called.Load() {
					t.Error("reusing a complete load reported progress")
				}
				want := wantLoadCounts(cfg)[collStock] - 1
				if got := loadCount(t, ctx, db, collStock, nil); got != want {
					t.Errorf("after the reuse STOCK holds %d documents, want %d (untouched)", got, want)
				}
				err := countCheck(ctx, db, cfg)
				if err == nil || !strings.Contains(err.Error(), "STOCK holds 1999 documents, want 2000") {
					t.Errorf("countCheck with a STOCK row missing: %v, want it to name STOCK, 1999 and 2000", err)
				}
			})
		})
	}
}

func checkLoadIndexes(t *testing.T, ctx context.Context, db *mongo.Database, schema Schema) {
	t.Helper()
	for coll, models := range schemaIndexes(schema) {
		cur, err := db.Collection(coll).Indexes().List(ctx)
		if err != nil {
			t.Fatalf("list indexes of %s: %v", coll, err)
		}
		var have []struct {
			Key    bson.D `bson:"key"`
			Unique bool   `bson:"unique"`
		}
		if err := cur.All(ctx, &have); err != nil {
			t.Fatal(err)
		}
		for _, m := range models {
			want := m.Keys.(bson.D)
			var unique bool
			if m.Options != nil {
				var o options.IndexOptions
				for _, set := range m.Options.List() {
					if err := set(&o); err != nil {
						t.Fatal(err)
					}
				}
				unique = o.Unique != nil && *o.Unique
			}
			found := slices.ContainsFunc(have, func(h struct {
				Key    bson.D `bson:"key"`
				Unique bool   `bson:"unique"`
			}) bool {
				if len(h.Key) != len(want) || h.Unique != unique {
					return false
				}
				for i := range want {
					if h.Key[i].Key != want[i].Key {
						return false
					}
				}
				return true
			})
			if !found {
				t.Errorf("%s: no index %v (unique %v) among %v", coll, want, unique, have)
			}
		}
	}
}

// loadSample is part of a loaded database with the dates (the load time)
// zeroed, for comparing loads.
type loadSample struct {
	Items     []itemDoc
	Warehouse []warehouseDoc
	District  []districtDoc
	Customers []customerDoc
	History   []historyDoc
	Stock     []stockDoc
	Orders    []orderDoc
	NewOrders []newOrderDoc
	Lines     []orderLineDoc
}

func loadFind[T any](t *testing.T, ctx context.Context, db *mongo.Database, coll string, filter bson.D, sort bson.D, limit int64) []T {
	t.Helper()
	o := options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}})
	if filter == nil {
		filter = bson.D{}
	}
	if sort != nil {
		o.SetSort(sort)
	}
	if limit > 0 {
		o.SetLimit(limit)
	}
	cur, err := db.Collection(coll).Find(ctx, filter, o)
	if err != nil {
		t.Fatalf("find %s: %v", coll, err)
	}
	var out []T
	if err := cur.All(ctx, &out); err != nil {
		t.Fatalf("find %s: %v", coll, err)
	}
	if len(out) == 0 {
		t.Fatalf("find %s %v: nothing", coll, filter)
	}
	return out
}

func loadAsc(keys ...string) bson.D {
	d := bson.D{}
	for _, k := range keys {
		d = append(d, bson.E{Key: k, Value: 1})
	}
	return d
}

// takeSample reads warehouse 2's district 3 with everything in it, the
// first 50 STOCK rows of warehouse 2 and the first 50 items.
func takeLoadSample(t *testing.T, ctx context.Context, db *mongo.Database, schema Schema) loadSample {
	t.Helper()
	var s loadSample
	w2 := func(f string) bson.D { return bson.D{{Key: f, Value: 2}} }
	w2d3 := func(p string) bson.D { return bson.D{{Key: p + "W_ID", Value: 2}, {Key: p + "D_ID", Value: 3}} }
	s.Items = loadFind[itemDoc](t, ctx, db, collItem, nil, loadAsc("I_ID"), 50)
	s.Warehouse = loadFind[warehouseDoc](t, ctx, db, collWarehouse, w2("W_ID"), nil, 0)
	s.District = loadFind[districtDoc](t, ctx, db, collDistrict, bson.D{{Key: "D_W_ID", Value: 2}, {Key: "D_ID", Value: 3}}, nil, 0)
	s.Customers = loadFind[customerDoc](t, ctx, db, collCustomer, w2d3("C_"), loadAsc("C_ID"), 0)
	s.History = loadFind[historyDoc](t, ctx, db, collHistory, w2d3("H_"), loadAsc("H_C_ID"), 0)
	s.Stock = loadFind[stockDoc](t, ctx, db, collStock, w2("S_W_ID"), loadAsc("S_I_ID"), 50)
	s.Orders = loadFind[orderDoc](t, ctx, db, collOrders, w2d3("O_"), loadAsc("O_ID"), 0)
	s.NewOrders = loadFind[newOrderDoc](t, ctx, db, collNewOrder, w2d3("NO_"), loadAsc("NO_O_ID"), 0)
	if schema == Normalized {
		s.Lines = loadFind[orderLineDoc](t, ctx, db, collOrderLine, w2d3("OL_"), loadAsc("OL_O_ID", "OL_NUMBER"), 0)
	}
	epoch := time.Unix(0, 0).UTC()
	undate := func(ls []orderLineDoc) {
		for i := range ls {
			if ls[i].DeliveryD != nil {
				ls[i].DeliveryD = &epoch
			}
		}
	}
	for i := range s.Customers {
		s.Customers[i].Since = time.Time{}
	}
	for i := range s.History {
		s.History[i].Date = time.Time{}
	}
	for i := range s.Orders {
		s.Orders[i].EntryD = time.Time{}
		undate(s.Orders[i].Lines)
	}
	undate(s.Lines)
	return s
}

func compareLoadSamples(t *testing.T, what string, a, b loadSample) {
	t.Helper()
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			t.Errorf("%s: %s differ", what, va.Type().Field(i).Name)
		}
	}
}

// TestLoadDeterministic loads the same configuration with one goroutine
// and with eight: the data must not depend on the parallelism.
func TestLoadDeterministic(t *testing.T) {
	ctx := loadCtx(t)
	cfg := testLoadConfig(Normalized)
	one, eight := newLoadDB(t, "det1"), newLoadDB(t, "det8")
	mustLoad(t, ctx, one, cfg, LoadOptions{Parallel: 1})
	mustLoad(t, ctx, eight, cfg, LoadOptions{Parallel: 8})
	a, b := takeLoadSample(t, ctx, one, cfg.Schema), takeLoadSample(t, ctx, eight, cfg.Schema)
	compareLoadSamples(t, "Parallel 1 and 8", a, b)
	if n := len(a.Customers); n != cfg.Scale.Customers {
		t.Errorf("sample holds %d customers, want %d", n, cfg.Scale.Customers)
	}
}

// TestLoadMismatch asks a loaded database for other loads: each is refused
// with ErrMismatch and a message that says what it holds and suggests
// --reset, complete or interrupted; Reset then loads the new request.
func TestLoadMismatch(t *testing.T) {
	ctx := loadCtx(t)
	db := newLoadDB(t, "mismatch")
	cfg := testLoadConfig(Denormalized)
	mustLoad(t, ctx, db, cfg, LoadOptions{})

	one := cfg
	one.Warehouses = 1
	norm := cfg
	norm.Schema = Normalized
	std := cfg
	std.Scale = StandardScale()
	cases := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"warehouses", one, []string{`database "tpcc_load_mismatch" holds 2 warehouses (small scale, denormalized); asked for 1 warehouse:`, "--reset", "--warehouses 2"}},
		{"schema", norm, []string{"asked for the normalized schema", "--schema denormalized"}},
		{"scale", std, []string{"asked for standard scale", "--scale small"}},
	}
	check := func(t *testing.T, cfg Config, want []string) {
		err := Load(ctx, db, cfg, LoadOptions{})
		if !errors.Is(err, ErrMismatch) {
			t.Fatalf("Load: %v, want ErrMismatch", err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, c.cfg, c.want) })
	}

	t.Run("interrupted", func(t *testing.T) {
		setLoadMeta(t, ctx, db, bson.D{{Key: "$set", Value: bson.D{{Key: "complete", Value: false}}}})
		check(t, one, []string{"holds an interrupted load of 2 warehouses", "--reset"})
	})

	t.Run("reset", func(t *testing.T) {
		mustLoad(t, ctx, db, one, LoadOptions{Reset: true})
		checkLoadCounts(t, ctx, db, one)
		info, ok, err := Loaded(ctx, db)
		if err != nil || !ok || !info.Complete || info.Warehouses != 1 || !slices.Equal(info.Done, []int{1}) {
			t.Errorf("Loaded after reset: %+v, %v, %v", info, ok, err)
		}
	})
}

func setLoadMeta(t *testing.T, ctx context.Context, db *mongo.Database, update bson.D) {
	t.Helper()
	res, err := db.Collection(collMeta).UpdateOne(ctx, bson.D{{Key: "_id", Value: metaID}}, update)
	if err != nil || res.MatchedCount != 1 {
		t.Fatalf("update load metadata: %v, %+v", err, res)
	}
}

// TestLoadResume interrupts a load and resumes it, then fakes a load that
// died after inserting all of warehouse 2 (and a stray HISTORY row) but
// before recording it: each resume ends with exact counts, no duplicate,
// and the same data as an uninterrupted load.
func TestLoadResume(t *testing.T) {
	ctx := loadCtx(t)
	cfg := testLoadConfig(Normalized)
	ref := newLoadDB(t, "resume_ref")
	mustLoad(t, ctx, ref, cfg, LoadOptions{})
	want := takeLoadSample(t, ctx, ref, cfg.Schema)
	db := newLoadDB(t, "resume")

	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		err := Load(cctx, db, cfg, LoadOptions{Parallel: 2, Progress: func(done, total int64) {
			if done >= total/2 {
				cancel()
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled Load: %v, want context.Canceled", err)
		}
		info, ok, err := Loaded(ctx, db)
		if err != nil || !ok || info.Complete {
			t.Fatalf("Loaded after cancel: %+v, %v, %v; want an incomplete load", info, ok, err)
		}
		if n := loadCount(t, ctx, db, collOrderLine, nil); n >= sumLoadOLCnt(t, ctx, ref) {
			t.Errorf("canceled at half way, ORDER_LINE holds %d documents: all of them", n)
		}
		t.Logf("interrupted load: items %v, warehouses done %v", info.Items, info.Done)

		// A different seed must not matter: the resume keeps the first one.
		again := cfg
		again.Seed++
		mustLoad(t, ctx, db, again, LoadOptions{Parallel: 3})
		checkLoadCounts(t, ctx, db, cfg)
		compareLoadSamples(t, "resumed and uninterrupted loads", takeLoadSample(t, ctx, db, cfg.Schema), want)
	})

	t.Run("unrecorded", func(t *testing.T) {
		var before customerDoc
		if err := db.Collection(collCustomer).FindOne(ctx, bson.D{{Key: "C_W_ID", Value: 1}}).Decode(&before); err != nil {
			t.Fatal(err)
		}
		setLoadMeta(t, ctx, db, bson.D{
			{Key: "$set", Value: bson.D{{Key: "complete", Value: false}, {Key: "items", Value: false}}},
			{Key: "$pull", Value: bson.D{{Key: "done", Value: 2}}},
		})
		if _, err := db.Collection(collHistory).InsertOne(ctx, historyDoc{CID: 1, CDID: 1, CWID: 2, DID: 1, WID: 2, Date: time.Now()}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // let the load time differ from the first load's
		mustLoad(t, ctx, db, cfg, LoadOptions{})
		checkLoadCounts(t, ctx, db, cfg)
		compareLoadSamples(t, "reloaded warehouse 2 and uninterrupted load", takeLoadSample(t, ctx, db, cfg.Schema), want)

		// Warehouse 1 was done: kept as it was; warehouse 2 was loaded again.
		var after1, after2 customerDoc
		if err := db.Collection(collCustomer).FindOne(ctx, bson.D{{Key: "C_W_ID", Value: 1}, {Key: "C_D_ID", Value: before.DID}, {Key: "C_ID", Value: before.ID}}).Decode(&after1); err != nil {
			t.Fatal(err)
		}
		if err := db.Collection(collCustomer).FindOne(ctx, bson.D{{Key: "C_W_ID", Value: 2}}).Decode(&after2); err != nil {
			t.Fatal(err)
		}
		if !after1.Since.Equal(before.Since) {
			t.Errorf("warehouse 1 was loaded again (C_SINCE %v, was %v)", after1.Since, before.Since)
		}
		if !after2.Since.After(before.Since) {
			t.Errorf("warehouse 2 was not loaded again (C_SINCE %v, warehouse 1's %v)", after2.Since, before.Since)
		}
		info, ok, err := Loaded(ctx, db)
		if err != nil || !ok || !info.Complete || !info.Items || !slices.Equal(info.Done, []int{1, 2}) {
			t.Errorf("Loaded after resume: %+v, %v, %v", info, ok, err)
		}
	})
}

// TestLoadNotEmpty refuses to add to TPC-C collections it did not load.
func TestLoadNotEmpty(t *testing.T) {
	ctx := loadCtx(t)
	db := newLoadDB(t, "notempty")
	if _, err := db.Collection(collCustomer).InsertOne(ctx, bson.D{{Key: "C_ID", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	err := Load(ctx, db, testLoadConfig(Denormalized), LoadOptions{})
	if err == nil {
		t.Fatal("Load into a database with foreign TPC-C data succeeded")
	}
	for _, w := range []string{"not empty", "CUSTOMER", "--reset"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if _, ok, err := Loaded(ctx, db); ok || err != nil {
		t.Errorf("Loaded after the refusal: %v, %v; want no metadata", ok, err)
	}
}

// TestLoadInvalid rejects bad settings before touching the database.
func TestLoadInvalid(t *testing.T) {
	good := testLoadConfig(Denormalized)
	noW, noSchema, badScale := good, good, good
	noW.Warehouses = 0
	noSchema.Schema = 0
	badScale.Scale.NewOrders = badScale.Scale.Customers
	for name, c := range map[string]struct {
		cfg Config
		o   LoadOptions
	}{
		"warehouses": {noW, LoadOptions{}},
		"schema":     {noSchema, LoadOptions{}},
		"scale":      {badScale, LoadOptions{}},
		"parallel":   {good, LoadOptions{Parallel: -1}},
	} {
		t.Run(name, func(t *testing.T) {
			if err := Load(t.Context(), nil, c.cfg, c.o); !errors.Is(err, ErrConfig) {
				t.Errorf("Load: %v, want ErrConfig", err)
			}
		})
	}
}

// loadSink is a loadEmit that keeps the documents by collection.
type loadSink map[string][]any

func (c loadSink) emit(coll string, doc any) error {
	c[coll] = append(c[coll], doc)
	return nil
}

func sinkDocs[T any](c loadSink, coll string) []T {
	out := make([]T, len(c[coll]))
	for i, d := range c[coll] {
		out[i] = d.(T)
	}
	return out
}

// TestLoadGenerate checks the generated rows against clause 4.3.3.1 at the
// standard scale, without a database.
func TestLoadGenerate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Seed = 9
	sc := cfg.Scale
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	gen := func(schema Schema, u loadUnit) loadSink {
		t.Helper()
		c := cfg
		c.Schema = schema
		l := &loader{cfg: c, consts: c.constants(), now: now}
		out := loadSink{}
		if err := l.generate(u, out.emit); err != nil {
			t.Fatal(err)
		}
		return out
	}

	t.Run("district", func(t *testing.T) {
		c := gen(Denormalized, loadUnit{districtUnit, 3, 4})
		ds := sinkDocs[districtDoc](c, collDistrict)
		if len(ds) != 1 || ds[0].ID != 4 || ds[0].WID != 3 || ds[0].NextOID != 3001 || ds[0].YTD != 30000 ||
			ds[0].Tax < 0 || ds[0].Tax > 0.2 || len(ds[0].State) != 2 || !strings.HasSuffix(ds[0].Zip, "11111") {
			t.Errorf("DISTRICT: %+v", ds)
		}

		cs := sinkDocs[customerDoc](c, collCustomer)
		hs := sinkDocs[historyDoc](c, collHistory)
		if len(cs) != sc.Customers || len(hs) != sc.Customers {
			t.Fatalf("%d customers and %d history rows, want %d", len(cs), len(hs), sc.Customers)
		}
		names := map[string]bool{}
		for n := range 1000 {
			names[lastName(n)] = true
		}
		bc := 0
		for i, cu := range cs {
			switch {
			case cu.ID != i+1 || cu.DID != 4 || cu.WID != 3:
				t.Fatalf("customer %d: ids %d/%d/%d", i+1, cu.ID, cu.DID, cu.WID)
			case cu.ID <= 1000 && cu.Last != lastName(cu.ID-1), !names[cu.Last]:
				t.Fatalf("customer %d: C_LAST %q", cu.ID, cu.Last)
			case cu.Middle != "OE" || len(cu.First) < 8 || len(cu.First) > 16 || len(cu.Phone) != 16 ||
				len(cu.Data) < 300 || len(cu.Data) > 500 || !cu.Since.Equal(now):
				t.Fatalf("customer %d: %+v", cu.ID, cu)
			case cu.CreditLim != 50000 || cu.Balance != -10 || cu.YTDPayment != 10 || cu.PaymentCnt != 1 ||
				cu.DeliveryCnt != 0 || cu.Discount < 0 || cu.Discount > 0.5:
				t.Fatalf("customer %d: %+v", cu.ID, cu)
			case cu.Credit != "GC" && cu.Credit != "BC":
				t.Fatalf("customer %d: C_CREDIT %q", cu.ID, cu.Credit)
			}
			if cu.Credit == "BC" {
				bc++
			}
			h := hs[i]
			if h.CID != cu.ID || h.CDID != 4 || h.DID != 4 || h.CWID != 3 || h.WID != 3 || h.Amount != 10 ||
				len(h.Data) < 12 || len(h.Data) > 24 || !h.Date.Equal(now) {
				t.Fatalf("history of customer %d: %+v", cu.ID, h)
			}
		}
		if bc < 240 || bc > 360 { // 10% of 3000 ± 3.6 standard deviations
			t.Errorf("%d of %d customers have BC credit, want about 10%%", bc, len(cs))
		}

		ords := sinkDocs[orderDoc](c, collOrders)
		nos := sinkDocs[newOrderDoc](c, collNewOrder)
		if len(ords) != sc.Customers || len(nos) != sc.NewOrders || c[collOrderLine] != nil {
			t.Fatalf("%d orders, %d new orders, %d order line documents", len(ords), len(nos), len(c[collOrderLine]))
		}
		seen := map[int]bool{}
		for i, o := range ords {
			delivered := o.ID < 2101
			seen[o.CID] = true
			switch {
			case o.ID != i+1 || o.DID != 4 || o.WID != 3 || o.AllLocal != 1 || !o.EntryD.Equal(now):
				t.Fatalf("order %d: %+v", i+1, o)
			case delivered && (o.CarrierID < 1 || o.CarrierID > 10), !delivered && o.CarrierID != 0:
				t.Fatalf("order %d: O_CARRIER_ID %d", o.ID, o.CarrierID)
			case o.OLCnt < 5 || o.OLCnt > 15 || len(o.Lines) != o.OLCnt:
				t.Fatalf("order %d: O_OL_CNT %d, %d lines", o.ID, o.OLCnt, len(o.Lines))
			}
			for n, ol := range o.Lines {
				ok := ol.Number == n+1 && ol.IID >= 1 && ol.IID <= sc.Items && ol.SupplyWID == 3 && ol.Quantity == 5 &&
					len(ol.DistInfo) == 24 && ol.OID == 0 && ol.DID == 0 && ol.WID == 0
				if delivered {
					ok = ok && ol.Amount == 0 && ol.DeliveryD != nil && ol.DeliveryD.Equal(now)
				} else {
					ok = ok && ol.Amount >= 0.01 && ol.Amount <= 9999.99 && ol.DeliveryD == nil
				}
				if !ok {
					t.Fatalf("order %d line %d: %+v", o.ID, n+1, ol)
				}
			}
		}
		if len(seen) != sc.Customers {
			t.Errorf("O_C_ID takes %d distinct values, want a permutation of 1..%d", len(seen), sc.Customers)
		}
		for i, no := range nos {
			if no.OID != 2101+i || no.DID != 4 || no.WID != 3 {
				t.Fatalf("new order %d: %+v", i, no)
			}
		}

		// The normalized schema draws the same data into ORDER_LINE.
		n := gen(Normalized, loadUnit{districtUnit, 3, 4})
		lines := sinkDocs[orderLineDoc](n, collOrderLine)
		k := 0
		for _, o := range ords {
			for _, ol := range o.Lines {
				ol.OID, ol.DID, ol.WID = o.ID, 4, 3
				if k >= len(lines) || !reflect.DeepEqual(lines[k], ol) {
					t.Fatalf("normalized line %d differs from order %d's embedded line %d", k, o.ID, ol.Number)
				}
				k++
			}
		}
		if k != len(lines) {
			t.Errorf("%d normalized lines, %d embedded", len(lines), k)
		}
		for _, o := range sinkDocs[orderDoc](n, collOrders) {
			if o.Lines != nil {
				t.Fatalf("normalized order %d embeds lines", o.ID)
			}
		}
		if !reflect.DeepEqual(sinkDocs[customerDoc](n, collCustomer), cs) {
			t.Error("the schema changed the customers")
		}
	})

	t.Run("items and stock", func(t *testing.T) {
		items := sinkDocs[itemDoc](gen(Denormalized, loadUnit{itemUnit, 0, 99}), collItem)
		stock := sinkDocs[stockDoc](gen(Denormalized, loadUnit{stockUnit, 5, 99}), collStock)
		if len(items) != loadChunk || items[0].ID != 99001 || items[len(items)-1].ID != 100000 || len(stock) != loadChunk {
			t.Fatalf("last chunks: %d items from %d, %d stock rows", len(items), items[0].ID, len(stock))
		}
		original := 0
		for _, it := range items {
			if it.ImID < 1 || it.ImID > 10000 || len(it.Name) < 14 || len(it.Name) > 24 || it.Price < 1 || it.Price > 100 ||
				len(it.Data) < 26 || len(it.Data) > 50 {
				t.Fatalf("item %+v", it)
			}
			if strings.Contains(it.Data, "ORIGINAL") {
				original++
			}
		}
		for i, s := range stock {
			if s.IID != 99001+i || s.WID != 5 || s.Quantity < 10 || s.Quantity > 100 || len(s.Dist01) != 24 ||
				len(s.Dist10) != 24 || s.YTD != 0 || s.OrderCnt != 0 || s.RemoteCnt != 0 || len(s.Data) < 26 {
				t.Fatalf("stock %+v", s)
			}
			if strings.Contains(s.Data, "ORIGINAL") {
				original++
			}
		}
		if original < 120 || original > 280 { // 10% of 2000
			t.Errorf("%d of 2000 I_DATA and S_DATA hold ORIGINAL, want about 10%%", original)
		}
		w := sinkDocs[warehouseDoc](gen(Denormalized, loadUnit{warehouseUnit, 5, 0}), collWarehouse)
		if len(w) != 1 || w[0].ID != 5 || w[0].YTD != 300000 || w[0].Tax < 0 || w[0].Tax > 0.2 {
			t.Errorf("WAREHOUSE: %+v", w)
		}
	})

	t.Run("streams", func(t *testing.T) {
		// Different units draw different data; the same unit the same.
		a := sinkDocs[customerDoc](gen(Denormalized, loadUnit{districtUnit, 1, 1}), collCustomer)
		b := sinkDocs[customerDoc](gen(Denormalized, loadUnit{districtUnit, 2, 1}), collCustomer)
		c := sinkDocs[customerDoc](gen(Denormalized, loadUnit{districtUnit, 1, 2}), collCustomer)
		again := sinkDocs[customerDoc](gen(Denormalized, loadUnit{districtUnit, 1, 1}), collCustomer)
		if a[0].First == b[0].First || a[0].First == c[0].First {
			t.Errorf("districts W1D1, W2D1 and W1D2 start with the same C_FIRST: %q %q %q", a[0].First, b[0].First, c[0].First)
		}
		if !reflect.DeepEqual(a, again) {
			t.Error("W1D1 generated twice differs")
		}
		ids := map[uint64]loadUnit{}
		for _, u := range []loadUnit{{itemUnit, 0, 0}, {itemUnit, 0, 99}, {warehouseUnit, 1, 0}, {warehouseUnit, 2, 0},
			{stockUnit, 1, 0}, {stockUnit, 2, 0}, {districtUnit, 1, 1}, {districtUnit, 1, 10}, {olCntStream, 1, 1}} {
			id := streamID(u.kind, u.w, u.i)
			if prev, dup := ids[id]; dup {
				t.Errorf("%v and %v share stream %#x", prev, u, id)
			}
			ids[id] = u
		}
	})
}
