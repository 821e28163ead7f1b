package tpcc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/workload"
)

// ErrMismatch reports a database that holds a TPC-C load other than the one
// asked for (warehouses, scale or schema); the error says what it holds.
var ErrMismatch = errors.New("tpcc: database holds a different load")

// The load metadata: one document in collMeta with _id metaID.
const (
	collMeta = "TPCC_META"
	metaID   = "load"
)

// LoadOptions tune Load. The zero value is valid.
type LoadOptions struct {
	// Parallel is the number of loading goroutines (0 = 2*GOMAXPROCS).
	Parallel int
	// Progress, if not nil, gets (documents inserted, documents to insert)
	// from several goroutines. Embedded order lines are not documents.
	Progress workload.Progress
	// Reset drops every TPC-C collection and the load metadata first.
	Reset bool
}

// LoadInfo is the load metadata Load keeps in the database.
type LoadInfo struct {
	Warehouses int
	Scale      Scale
	Schema     Schema
	// Seed is the seed the data was generated with; a resumed load keeps it.
	Seed uint64
	// Items is true once ITEM is completely loaded.
	Items bool
	// Done lists the warehouses completely loaded, ascending.
	Done []int
	// Complete is true once every document is loaded and counted.
	Complete bool
	// Started is when the load (its first attempt) started; Finished when it
	// completed (zero while incomplete).
	Started, Finished time.Time
}

// loadMeta is LoadInfo as stored. The schema is stored by name and the seed
// as the int64 with the same bits (BSON has no unsigned integers).
type loadMeta struct {
	ID         string    `bson:"_id"`
	Warehouses int       `bson:"warehouses"`
	Scale      metaScale `bson:"scale"`
	Schema     string    `bson:"schema"`
	Seed       int64     `bson:"seed"`
	Items      bool      `bson:"items"`
	Done       []int     `bson:"done"`
	Complete   bool      `bson:"complete"`
	Started    time.Time `bson:"started"`
	Finished   time.Time `bson:"finished,omitempty"`
}

type metaScale struct {
	Items     int `bson:"items"`
	Districts int `bson:"districts"`
	Customers int `bson:"customers"`
	NewOrders int `bson:"new_orders"`
}

func (m loadMeta) info() (LoadInfo, error) {
	s, err := ParseSchema(m.Schema)
	if err != nil {
		return LoadInfo{}, fmt.Errorf("tpcc: load metadata %s.%s: %w", collMeta, metaID, err)
	}
	done := slices.Clone(m.Done)
	slices.Sort(done)
	return LoadInfo{
		Warehouses: m.Warehouses,
		Scale:      Scale(m.Scale),
		Schema:     s,
		Seed:       uint64(m.Seed),
		Items:      m.Items,
		Done:       done,
		Complete:   m.Complete,
		Started:    m.Started,
		Finished:   m.Finished,
	}, nil
}

// loadDB returns db with write concern majority and read preference
// primary, whatever db itself was opened with.
func loadDB(db *mongo.Database) *mongo.Database {
	return db.Client().Database(db.Name(), options.Database().
		SetWriteConcern(writeconcern.Majority()).
		SetReadPreference(readpref.Primary()))
}

// Loaded reads the load metadata of db; ok is false when db holds none.
func Loaded(ctx context.Context, db *mongo.Database) (info LoadInfo, ok bool, err error) {
	var m loadMeta
	err = loadDB(db).Collection(collMeta).FindOne(ctx, bson.D{{Key: "_id", Value: metaID}}).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return LoadInfo{}, false, nil
	}
	if err != nil {
		return LoadInfo{}, false, fmt.Errorf("tpcc: read load metadata of database %q: %w", db.Name(), err)
	}
	info, err = m.info()
	if err != nil {
		return LoadInfo{}, false, err
	}
	return info, true, nil
}

// validateLoad checks the settings Load uses (not the run-time ones).
func (c Config) validateLoad() error {
	if c.Warehouses < 1 {
		return fmt.Errorf("%w: warehouses %d must be at least 1", ErrConfig, c.Warehouses)
	}
	if err := c.Scale.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if c.Schema != Denormalized && c.Schema != Normalized {
		return fmt.Errorf("%w: no schema chosen", ErrConfig)
	}
	return nil
}

// Load populates db per TPC-C clause 4.3.3.1 at cfg.Scale (exactly the
// specification at StandardScale) for cfg.Warehouses warehouses, in the
// cfg.Schema layout, then verifies the document counts. It creates the
// collections and the indexes of the TPC-C-on-MongoDB paper, appendix B before
// inserting. Writes use write concern majority whatever db's own is.
//
// Load keeps its progress in the TPCC_META collection, which decides what a
// call does:
//   - no metadata and no TPC-C documents: load everything;
//   - a complete load of the same warehouses, scale and schema: nothing
//     (the caller reuses the data; its seed is in Loaded's LoadInfo);
//   - an interrupted load of the same warehouses, scale and schema: resume
//     with the seed it was started with; ITEM unless complete, and every
//     warehouse not in LoadInfo.Done, have their documents deleted and
//     loaded again;
//   - a load of something else: an error wrapping ErrMismatch;
//   - TPC-C documents without metadata: an error.
//
// With o.Reset, every TPC-C collection and the metadata are dropped first.
//
// The data depends only on the seed and the scale, not on o.Parallel or the
// order the goroutines run in: ITEM chunks, each warehouse row, STOCK chunks
// and each district (with its customers, history, orders, order lines and
// new orders) draw from their own random stream. Dates are the load's start
// time. On cancellation Load returns promptly with an error wrapping
// ctx.Err(); the metadata then says incomplete and a later Load resumes.
func Load(ctx context.Context, db *mongo.Database, cfg Config, o LoadOptions) error {
	if err := cfg.validateLoad(); err != nil {
		return err
	}
	parallel := o.Parallel
	if parallel < 0 {
		return fmt.Errorf("%w: load parallelism %d must not be negative", ErrConfig, parallel)
	}
	if parallel == 0 {
		parallel = 2 * runtime.GOMAXPROCS(0)
	}
	db = loadDB(db)
	meta := db.Collection(collMeta)

	if o.Reset {
		for _, name := range append(schemaCollections(Normalized), collMeta) {
			if err := db.Collection(name).Drop(ctx); err != nil {
				return fmt.Errorf("tpcc: reset: drop %s.%s: %w", db.Name(), name, err)
			}
		}
	}

	info, ok, err := Loaded(ctx, db)
	if err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Millisecond) // BSON dates hold milliseconds
	switch {
	case ok && !sameLoad(info, cfg):
		return mismatchError(db.Name(), info, cfg)
	case ok && info.Complete:
		return nil
	case ok:
		cfg.Seed = info.Seed // resume the data the interrupted load started
	default:
		if err := checkEmpty(ctx, db); err != nil {
			return err
		}
		info = LoadInfo{Warehouses: cfg.Warehouses, Scale: cfg.Scale, Schema: cfg.Schema, Seed: cfg.Seed, Started: now}
		m := loadMeta{ID: metaID, Warehouses: cfg.Warehouses, Scale: metaScale(cfg.Scale), Schema: cfg.Schema.String(),
			Seed: int64(cfg.Seed), Done: []int{}, Started: now}
		if _, err := meta.InsertOne(ctx, m); err != nil {
			return fmt.Errorf("tpcc: write load metadata of database %q: %w", db.Name(), err)
		}
	}

	if err := createSchema(ctx, db, cfg.Schema); err != nil {
		return err
	}
	if ok { // resuming
		if err := clearIncomplete(ctx, db, cfg, info); err != nil {
			return err
		}
	}

	l := &loader{db: db, cfg: cfg, consts: cfg.constants(), now: now, progress: o.Progress}
	units, remaining := l.plan(info)
	if err := l.run(ctx, units, remaining, parallel); err != nil {
		return err
	}

	if err := countCheck(ctx, db, cfg); err != nil {
		return fmt.Errorf("%w (run with --reset to drop the database and load again)", err)
	}
	_, err = meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: metaID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "complete", Value: true}, {Key: "finished", Value: time.Now().UTC()}}}})
	if err != nil {
		return fmt.Errorf("tpcc: mark the load of database %q complete: %w", db.Name(), err)
	}
	return nil
}

func sameLoad(info LoadInfo, cfg Config) bool {
	return info.Warehouses == cfg.Warehouses && info.Scale == cfg.Scale && info.Schema == cfg.Schema
}

// scaleName names the scales the CLI knows, else spells the cardinalities.
func scaleName(s Scale) string {
	switch s {
	case StandardScale():
		return "standard scale"
	case SmallScale():
		return "small scale"
	}
	return fmt.Sprintf("scale of %d items, %d districts of %d customers, %d new orders", s.Items, s.Districts, s.Customers, s.NewOrders)
}

// mismatchError says what the database holds, what was asked and how to
// reconcile them.
func mismatchError(dbName string, have LoadInfo, want Config) error {
	holds := "holds"
	if !have.Complete {
		holds = "holds an interrupted load of"
	}
	var asked, flags []string
	if have.Warehouses != want.Warehouses {
		asked = append(asked, warehouseCount(want.Warehouses))
		flags = append(flags, fmt.Sprintf("--warehouses %d", have.Warehouses))
	}
	if have.Scale != want.Scale {
		asked = append(asked, scaleName(want.Scale))
		if s := strings.TrimSuffix(scaleName(have.Scale), " scale"); !strings.Contains(s, " ") {
			flags = append(flags, "--scale "+s)
		} else {
			flags = append(flags, "its "+scaleName(have.Scale))
		}
	}
	if have.Schema != want.Schema {
		asked = append(asked, "the "+want.Schema.String()+" schema")
		flags = append(flags, "--schema "+have.Schema.String())
	}
	return fmt.Errorf("%w: database %q %s %s (%s, %s); asked for %s: run with --reset to drop it and load again, or ask for %s",
		ErrMismatch, dbName, holds, warehouseCount(have.Warehouses), scaleName(have.Scale), have.Schema,
		strings.Join(asked, ", "), strings.Join(flags, " "))
}

func warehouseCount(n int) string {
	if n == 1 {
		return "1 warehouse"
	}
	return fmt.Sprintf("%d warehouses", n)
}

// checkEmpty fails when a TPC-C collection holds documents although no load
// metadata exists: the data is not ours to add to.
func checkEmpty(ctx context.Context, db *mongo.Database) error {
	for _, name := range schemaCollections(Normalized) {
		err := db.Collection(name).FindOne(ctx, bson.D{}, options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return fmt.Errorf("tpcc: check that database %q is empty: %s: %w", db.Name(), name, err)
		}
		return fmt.Errorf("tpcc: database %q is not empty (%s holds documents) and was not loaded by decongestant: run with --reset to drop its TPC-C collections and load again",
			db.Name(), name)
	}
	return nil
}

// createSchema creates the schema's collections that do not exist yet and
// their indexes (an existing identical index is left as is).
func createSchema(ctx context.Context, db *mongo.Database, s Schema) error {
	existing, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return fmt.Errorf("tpcc: list collections of database %q: %w", db.Name(), err)
	}
	indexes := schemaIndexes(s)
	for _, name := range schemaCollections(s) {
		if !slices.Contains(existing, name) {
			if err := db.CreateCollection(ctx, name); err != nil {
				return fmt.Errorf("tpcc: create collection %s.%s: %w", db.Name(), name, err)
			}
		}
		if ix := indexes[name]; len(ix) > 0 {
			if _, err := db.Collection(name).Indexes().CreateMany(ctx, ix); err != nil {
				return fmt.Errorf("tpcc: create indexes of %s.%s: %w", db.Name(), name, err)
			}
		}
	}
	return nil
}

// warehouseField is the field of each collection that holds the warehouse
// a document belongs to (HISTORY: the warehouse of the payment, which at
// load is also the customer's).
var warehouseField = map[string]string{
	collWarehouse: "W_ID",
	collDistrict:  "D_W_ID",
	collCustomer:  "C_W_ID",
	collHistory:   "H_W_ID",
	collStock:     "S_W_ID",
	collOrders:    "O_W_ID",
	collNewOrder:  "NO_W_ID",
	collOrderLine: "OL_W_ID",
}

// clearIncomplete deletes what an interrupted load may have left of ITEM
// (unless complete) and of the warehouses not done, so they can be loaded
// again without duplicates.
func clearIncomplete(ctx context.Context, db *mongo.Database, cfg Config, info LoadInfo) error {
	if !info.Items {
		if _, err := db.Collection(collItem).DeleteMany(ctx, bson.D{}); err != nil {
			return fmt.Errorf("tpcc: resume: clear %s.%s: %w", db.Name(), collItem, err)
		}
	}
	var todo []int
	for w := 1; w <= cfg.Warehouses; w++ {
		if !slices.Contains(info.Done, w) {
			todo = append(todo, w)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	for _, name := range schemaCollections(cfg.Schema)[1:] { // every collection but ITEM
		filter := bson.D{{Key: warehouseField[name], Value: bson.D{{Key: "$in", Value: todo}}}}
		if _, err := db.Collection(name).DeleteMany(ctx, filter); err != nil {
			return fmt.Errorf("tpcc: resume: clear warehouses %v of %s.%s: %w", todo, db.Name(), name, err)
		}
	}
	return nil
}

// countCheck verifies the document counts of a freshly loaded database
// (clause 4.3.3.1's cardinalities at cfg.Scale): ITEM, WAREHOUSE, DISTRICT,
// CUSTOMER, HISTORY, ORDERS, STOCK and NEW_ORDER, and that the order lines
// (ORDER_LINE documents, or the lines embedded in ORDERS) number the sum of
// O_OL_CNT. Transactions change these counts, so it only holds right after
// a load. The error lists every collection whose count is off.
func countCheck(ctx context.Context, db *mongo.Database, cfg Config) error {
	db = loadDB(db)
	sc, w := cfg.Scale, int64(cfg.Warehouses)
	perDistrict := w * int64(sc.Districts)
	want := []struct {
		coll string
		n    int64
	}{
		{collItem, int64(sc.Items)},
		{collWarehouse, w},
		{collDistrict, perDistrict},
		{collCustomer, perDistrict * int64(sc.Customers)},
		{collHistory, perDistrict * int64(sc.Customers)},
		{collStock, w * int64(sc.Items)},
		{collOrders, perDistrict * int64(sc.Customers)},
		{collNewOrder, perDistrict * int64(sc.NewOrders)},
	}
	var bad []string
	for _, c := range want {
		n, err := db.Collection(c.coll).CountDocuments(ctx, bson.D{})
		if err != nil {
			return fmt.Errorf("tpcc: count check: count %s.%s: %w", db.Name(), c.coll, err)
		}
		if n != c.n {
			bad = append(bad, fmt.Sprintf("%s holds %d documents, want %d", c.coll, n, c.n))
		}
	}

	// Sum O_OL_CNT and the embedded lines in one pass over ORDERS.
	cur, err := db.Collection(collOrders).Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{
		{Key: "_id", Value: nil},
		{Key: "cnt", Value: bson.D{{Key: "$sum", Value: "$O_OL_CNT"}}},
		{Key: "embedded", Value: bson.D{{Key: "$sum", Value: bson.D{{Key: "$size",
			Value: bson.D{{Key: "$ifNull", Value: bson.A{"$" + fieldOrderLines, bson.A{}}}}}}}}},
	}}}})
	if err != nil {
		return fmt.Errorf("tpcc: count check: sum O_OL_CNT of %s.%s: %w", db.Name(), collOrders, err)
	}
	var sums []struct {
		Cnt      int64 `bson:"cnt"`
		Embedded int64 `bson:"embedded"`
	}
	if err := cur.All(ctx, &sums); err != nil {
		return fmt.Errorf("tpcc: count check: sum O_OL_CNT of %s.%s: %w", db.Name(), collOrders, err)
	}
	var olCnt, embedded int64
	if len(sums) == 1 {
		olCnt, embedded = sums[0].Cnt, sums[0].Embedded
	}
	if cfg.Schema == Normalized {
		n, err := db.Collection(collOrderLine).CountDocuments(ctx, bson.D{})
		if err != nil {
			return fmt.Errorf("tpcc: count check: count %s.%s: %w", db.Name(), collOrderLine, err)
		}
		if n != olCnt {
			bad = append(bad, fmt.Sprintf("%s holds %d documents, want %d (the sum of O_OL_CNT)", collOrderLine, n, olCnt))
		}
		if embedded != 0 {
			bad = append(bad, fmt.Sprintf("%s embeds %d order lines in the normalized schema, want 0", collOrders, embedded))
		}
	} else if embedded != olCnt {
		bad = append(bad, fmt.Sprintf("%s embeds %d order lines, want %d (the sum of O_OL_CNT)", collOrders, embedded, olCnt))
	}
	if len(bad) > 0 {
		return fmt.Errorf("tpcc: count check of database %q (%s, %s, %s): %s",
			db.Name(), warehouseCount(cfg.Warehouses), scaleName(sc), cfg.Schema, strings.Join(bad, "; "))
	}
	return nil
}
