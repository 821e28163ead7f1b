package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/workload"
)

// worker is one closed-loop YCSB client: CoreWorkload.doTransaction over
// the MongoDB binding's operations. Its filters, update document and
// buffers are reused across calls; the driver marshals them before a call
// returns.
type worker struct {
	g     *Generator
	mix   Mix
	rng   *rand.Rand
	reads workload.ReadCollection
	coll  *mongo.Collection
	keys  keyChooser
	// writeKeys choose the updates' keys when Config.ReadKeys splits them
	// from the reads' (nil: keys for every operation).
	writeKeys keyChooser
	// sess is the client's causally consistent session (Config.Causal).
	sess *mongo.Session

	keybuf []byte
	valbuf []byte

	idFilter   bson.D // {_id: key}
	setFields  bson.D // {field: value}
	update     bson.D // {$set: setFields}
	gte        bson.D // {$gte: key}
	scanFilter bson.D // {_id: gte}
	scanOpts   scanOptions
}

var _ workload.Worker = (*worker)(nil)

func (w *worker) init() {
	w.keybuf = make([]byte, 0, 32)
	w.idFilter = bson.D{{Key: "_id"}}
	w.setFields = bson.D{{}}
	w.update = bson.D{{Key: "$set", Value: w.setFields}}
	w.gte = bson.D{{Key: "$gte"}}
	w.scanFilter = bson.D{{Key: "_id", Value: w.gte}}
	w.scanOpts.init()
}

// scanOptions is a reusable options.Lister for scans: sorted by _id, with
// the limit of the current scan (read by the driver during the call).
type scanOptions struct {
	limit int64
	fns   [1]func(*options.FindOptions) error
}

var sortByID = bson.D{{Key: "_id", Value: 1}}

func (s *scanOptions) init() {
	s.fns[0] = func(o *options.FindOptions) error {
		o.Sort = sortByID
		o.Limit = &s.limit
		return nil
	}
}

func (s *scanOptions) List() []func(*options.FindOptions) error { return s.fns[:] }

// Do performs one operation of the worker's mix and reports it under YCSB's
// name; the Op is valid even when err is not nil.
func (w *worker) Do(ctx context.Context) (workload.Op, error) {
	if w.sess != nil {
		ctx = mongo.NewSessionContext(ctx, w.sess)
	}
	o := chooseOp(w.mix, w.rng.Float64())
	if p := w.g.cfg.ReadProportion; p > 0 {
		o = opUpdate
		if w.rng.Float64() < p {
			o = opRead
		}
	}
	var err error
	switch o {
	case opRead:
		err = w.read(ctx)
	case opUpdate:
		err = w.doUpdate(ctx)
	case opInsert:
		err = w.insert(ctx)
	case opScan:
		err = w.scan(ctx)
	case opReadModifyWrite:
		err = w.readModifyWrite(ctx)
	}
	return o.op(), err
}

// nextKey chooses a key number with the worker's distribution and points
// the _id filter at its key.
func (w *worker) nextKey() (int64, string) { return w.nextKeyFrom(w.keys) }

// nextKeyFrom is nextKey with chooser c.
func (w *worker) nextKeyFrom(c keyChooser) (int64, string) {
	keynum := c.next(w.rng)
	w.keybuf = appendKey(w.keybuf[:0], keynum)
	key := string(w.keybuf)
	w.idFilter[0].Value = key
	return keynum, key
}

// missing turns a record that was not found into ErrNotFound if it was
// loaded; a run-phase insert may legitimately not be visible yet.
func (w *worker) missing(what, key string, keynum int64) error {
	if !w.g.loaded(keynum) {
		return nil
	}
	return fmt.Errorf("ycsb: %s %s (keynum %d): %w", what, key, keynum, ErrNotFound)
}

// read is YCSB's READ with readallfields=true: the whole record by _id,
// through the routed handle.
func (w *worker) read(ctx context.Context) error {
	keynum, key := w.nextKey()
	found, err := w.findOne(ctx)
	if err != nil {
		return fmt.Errorf("ycsb: read %s: %w", key, err)
	}
	if !found {
		return w.missing("read", key, keynum)
	}
	return nil
}

func (w *worker) findOne(ctx context.Context) (bool, error) {
	_, err := w.reads.FindOne(ctx, w.idFilter).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

// doUpdate is YCSB's UPDATE with writeallfields=false: one random field set
// to fresh random bytes, on the primary.
func (w *worker) doUpdate(ctx context.Context) error {
	keynum, key := w.nextKey()
	if w.writeKeys != nil {
		keynum, key = w.nextKeyFrom(w.writeKeys)
	}
	return w.setOneField(ctx, "update", key, keynum)
}

func (w *worker) setOneField(ctx context.Context, what, key string, keynum int64) error {
	field := w.g.names[w.rng.IntN(len(w.g.names))]
	fillRandom(w.valbuf, w.rng)
	w.setFields[0] = bson.E{Key: field, Value: string(w.valbuf)}
	res, err := w.coll.UpdateOne(ctx, w.idFilter, w.update)
	if err != nil {
		return fmt.Errorf("ycsb: %s %s: %w", what, key, err)
	}
	if res.MatchedCount == 0 {
		return w.missing(what, key, keynum)
	}
	return nil
}

// insert is YCSB's INSERT: the next key number of the generator's shared
// acknowledged counter, all fields, on the primary. The number is
// acknowledged whatever the outcome, as YCSB does.
func (w *worker) insert(ctx context.Context) error {
	c := w.g.inserts.Load()
	keynum := c.next()
	defer c.acknowledge(keynum)
	doc := record(w.g.names, w.g.cfg.FieldLength, w.g.cfg.Seed, keynum, w.valbuf)
	if _, err := w.coll.InsertOne(ctx, doc); err != nil {
		return fmt.Errorf("ycsb: insert %v (keynum %d): %w", doc[0].Value, keynum, err)
	}
	return nil
}

// scan is YCSB's SCAN as the MongoDB binding runs it: records with
// _id >= the start key, sorted by _id, limited to a length uniform in
// [1, maxscanlength], through the routed handle.
func (w *worker) scan(ctx context.Context) error {
	keynum, key := w.nextKey()
	w.gte[0].Value = key
	w.scanOpts.limit = 1 + w.rng.Int64N(int64(w.g.cfg.MaxScanLength))
	cur, err := w.reads.Find(ctx, w.scanFilter, &w.scanOpts)
	if err != nil {
		return fmt.Errorf("ycsb: scan from %s: %w", key, err)
	}
	n := 0
	for cur.Next(ctx) {
		n++
	}
	err = cur.Err()
	if cerr := cur.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ycsb: scan from %s: %w", key, err)
	}
	if n == 0 {
		return w.missing("scan from", key, keynum)
	}
	return nil
}

// readModifyWrite is YCSB's READ-MODIFY-WRITE: read the record through the
// routed handle, then set one field on the primary. As in YCSB, the write
// is skipped when the read fails.
func (w *worker) readModifyWrite(ctx context.Context) error {
	keynum, key := w.nextKey()
	found, err := w.findOne(ctx)
	if err != nil {
		return fmt.Errorf("ycsb: read-modify-write %s: %w", key, err)
	}
	if !found {
		return w.missing("read-modify-write", key, keynum)
	}
	return w.setOneField(ctx, "read-modify-write", key, keynum)
}

// Close ends the client's session, if it has one.
func (w *worker) Close() {
	if w.sess != nil {
		w.sess.EndSession(context.Background())
	}
}
