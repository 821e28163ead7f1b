package tpcc

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/sync/errgroup"

	"github.com/decongestant/decongestant/workload"
)

// loadBatch is the number of documents per InsertMany; loadChunk the number
// of ITEM or STOCK rows per load unit (each unit has its own random stream,
// so the chunk size is part of the data's definition: changing it changes
// the data a seed gives).
const (
	loadBatch = 1000
	loadChunk = 1000
)

// unitKind is what a load unit generates; with the unit's warehouse and
// index it makes the unit's random stream.
type unitKind uint64

const (
	itemUnit      unitKind = iota + 1 // ITEM rows [i*loadChunk+1, (i+1)*loadChunk]
	warehouseUnit                     // the WAREHOUSE row
	stockUnit                         // STOCK rows of items [i*loadChunk+1, (i+1)*loadChunk]
	districtUnit                      // DISTRICT i with its CUSTOMER, HISTORY, ORDERS, ORDER_LINE, NEW_ORDER
	olCntStream                       // O_OL_CNT of district i's orders (a stream, not a unit)
)

// loadUnit is one independently generated and inserted part of the load. w is
// its warehouse (0 for ITEM), which is also its completion group.
type loadUnit struct {
	kind unitKind
	w, i int
}

func (u loadUnit) String() string {
	switch u.kind {
	case itemUnit:
		return fmt.Sprintf("%s chunk %d", collItem, u.i)
	case warehouseUnit:
		return fmt.Sprintf("warehouse %d", u.w)
	case stockUnit:
		return fmt.Sprintf("warehouse %d %s chunk %d", u.w, collStock, u.i)
	case districtUnit:
		return fmt.Sprintf("warehouse %d district %d", u.w, u.i)
	}
	return fmt.Sprintf("unit(%d, %d, %d)", u.kind, u.w, u.i)
}

// streamID gives every unit its own PCG stream: kind in the top 4 bits,
// warehouse in the next 32, index in the low 28. Streams with the top bits
// set cannot collide with small stream numbers used elsewhere (workers).
func streamID(k unitKind, w, i int) uint64 {
	return uint64(k)<<60 | uint64(w)<<28 | uint64(i)
}

// loader generates and inserts the units of one Load call.
type loader struct {
	db       *mongo.Database
	cfg      Config
	consts   nurandConstants
	now      time.Time
	progress workload.Progress
	total    int64
	done     atomic.Int64
}

func (l *loader) rand(k unitKind, w, i int) *random {
	return newRandom(l.cfg.Seed, streamID(k, w, i), l.consts)
}

// olCounts returns O_OL_CNT (5..15) of orders 1..Customers of district d of
// warehouse w. They have their own stream so the number of ORDER_LINE
// documents is known before loading.
func (l *loader) olCounts(w, d int) []int {
	r := l.rand(olCntStream, w, d)
	n := make([]int, l.cfg.Scale.Customers)
	for i := range n {
		n[i] = r.Int(5, 15)
	}
	return n
}

// plan lists the units still to load (heaviest first within a warehouse so
// the pool stays busy), the number of units per completion group, and sets
// the total number of documents.
func (l *loader) plan(info LoadInfo) ([]loadUnit, map[int]*atomic.Int64) {
	sc := l.cfg.Scale
	chunks := (sc.Items + loadChunk - 1) / loadChunk
	var units []loadUnit
	remaining := map[int]*atomic.Int64{}
	group := func(w, n int) {
		remaining[w] = new(atomic.Int64)
		remaining[w].Store(int64(n))
	}
	if !info.Items {
		for i := range chunks {
			units = append(units, loadUnit{itemUnit, 0, i})
		}
		group(0, chunks)
		l.total += int64(sc.Items)
	}
	perDistrict := int64(1 + 3*sc.Customers + sc.NewOrders) // DISTRICT, CUSTOMER, HISTORY, ORDERS, NEW_ORDER
	for w := 1; w <= l.cfg.Warehouses; w++ {
		if slices.Contains(info.Done, w) {
			continue
		}
		for d := 1; d <= sc.Districts; d++ {
			units = append(units, loadUnit{districtUnit, w, d})
			l.total += perDistrict
			if l.cfg.Schema == Normalized {
				for _, n := range l.olCounts(w, d) {
					l.total += int64(n)
				}
			}
		}
		units = append(units, loadUnit{warehouseUnit, w, 0})
		for i := range chunks {
			units = append(units, loadUnit{stockUnit, w, i})
		}
		group(w, sc.Districts+1+chunks)
		l.total += 1 + int64(sc.Items)
	}
	return units, remaining
}

// run loads the units on parallel goroutines and records each completed
// group in the metadata.
func (l *loader) run(parent context.Context, units []loadUnit, remaining map[int]*atomic.Int64, parallel int) error {
	eg, ctx := errgroup.WithContext(parent)
	eg.SetLimit(parallel)
	for _, u := range units {
		eg.Go(func() error {
			if ctx.Err() != nil {
				return ctx.Err() // an earlier unit failed
			}
			b := &batcher{ctx: ctx, db: l.db, bufs: map[string][]any{}, inserted: l.inserted}
			if err := l.generate(u, b.add); err != nil {
				return fmt.Errorf("tpcc: load %s: %w", u, err)
			}
			if err := b.flushAll(); err != nil {
				return fmt.Errorf("tpcc: load %s: %w", u, err)
			}
			if remaining[u.w].Add(-1) == 0 {
				return l.markDone(ctx, u.w)
			}
			return nil
		})
	}
	err := eg.Wait()
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("tpcc: load of database %q interrupted after %d of %d documents (load again to resume): %w",
			l.db.Name(), l.done.Load(), l.total, perr)
	}
	return err
}

func (l *loader) inserted(n int) {
	done := l.done.Add(int64(n))
	if l.progress != nil {
		l.progress(done, l.total)
	}
}

// markDone records that group w (0 = ITEM) is completely inserted.
func (l *loader) markDone(ctx context.Context, w int) error {
	update := bson.D{{Key: "$addToSet", Value: bson.D{{Key: "done", Value: w}}}}
	what := fmt.Sprintf("warehouse %d", w)
	if w == 0 {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "items", Value: true}}}}
		what = collItem
	}
	if _, err := l.db.Collection(collMeta).UpdateOne(ctx, bson.D{{Key: "_id", Value: metaID}}, update); err != nil {
		return fmt.Errorf("tpcc: record %s loaded in %s.%s: %w", what, l.db.Name(), collMeta, err)
	}
	return nil
}

// batcher buffers a goroutine's documents per collection and inserts them
// unordered in batches of loadBatch.
type batcher struct {
	ctx      context.Context
	db       *mongo.Database
	bufs     map[string][]any
	inserted func(n int)
}

func (b *batcher) add(coll string, doc any) error {
	b.bufs[coll] = append(b.bufs[coll], doc)
	if len(b.bufs[coll]) >= loadBatch {
		return b.flush(coll)
	}
	return nil
}

func (b *batcher) flush(coll string) error {
	docs := b.bufs[coll]
	if len(docs) == 0 {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	if _, err := b.db.Collection(coll).InsertMany(b.ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
		return fmt.Errorf("insert %d documents into %s: %w", len(docs), coll, err)
	}
	b.inserted(len(docs))
	clear(docs)
	b.bufs[coll] = docs[:0]
	return nil
}

func (b *batcher) flushAll() error {
	for _, coll := range schemaCollections(Normalized) {
		if err := b.flush(coll); err != nil {
			return err
		}
	}
	return nil
}
