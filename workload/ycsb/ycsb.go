package ycsb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/workload"
)

// Name is the workload's registry name.
const Name = "ycsb"

// ErrNotFound reports a loaded record that a read, update, scan or
// read-modify-write did not find.
var ErrNotFound = errors.New("ycsb: record not found")

// Generator is a configured YCSB core workload. Its methods are safe for
// concurrent use; the workers it hands out are not.
type Generator struct {
	cfg   Config // Mix is the initial mix; the current one is in mix
	names []string
	mix   atomic.Uint32

	// inserts hands out the key numbers of run-phase inserts to every worker
	// of this generator; Load replaces it.
	inserts atomic.Pointer[ackCounter]

	// readOffset is where the reads' window of Config.ReadKeys keys starts,
	// from the first loaded key; a phase moves it (SetReadOffset).
	readOffset atomic.Int64

	latestOnce sync.Once
	latestZeta float64 // zeta(Records, 0.99), shared by latest choosers
}

var _ workload.Generator = (*Generator)(nil)

// NewGenerator validates cfg and returns a Generator. The run-phase insert
// counter starts right after the loaded records, at InsertStart+Records,
// which assumes the collection holds exactly the records Load inserts.
func NewGenerator(cfg Config) (*Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &Generator{cfg: cfg, names: fieldNames(cfg.Fields)}
	g.mix.Store(uint32(cfg.Mix))
	g.inserts.Store(newAckCounter(cfg.InsertStart + cfg.Records))
	return g, nil
}

// Config returns the configuration the generator was built with.
func (g *Generator) Config() Config { return g.cfg }

// Records returns the record count (workload.Sized).
func (g *Generator) Records() int64 { return g.cfg.Records }

// Name returns "ycsb".
func (g *Generator) Name() string { return Name }

// Mix returns the current workload letter, "a" to "f".
func (g *Generator) Mix() string { return g.currentMix().String() }

func (g *Generator) currentMix() Mix { return Mix(g.mix.Load()) }

// SetMix switches the workload for workers created from now on; it accepts
// what ParseMix accepts. The insert counter carries over, so inserts of a
// later phase never collide with earlier ones.
func (g *Generator) SetMix(mix string) error {
	m, err := ParseMix(mix)
	if err != nil {
		return err
	}
	g.mix.Store(uint32(m))
	return nil
}

// CheckReadOffset reports whether the reads' window can start at key n:
// it needs --readkeys, and the window must lie within the loaded keys.
func (g *Generator) CheckReadOffset(n int64) error {
	rk := g.cfg.ReadKeys
	switch {
	case rk == 0:
		return errors.New("ycsb: moving the reads' key window needs --readkeys (the window's size)")
	case n < 0 || n+rk > g.cfg.Records:
		return fmt.Errorf("ycsb: a read window of %d keys at %d does not fit in the %d loaded keys", rk, n, g.cfg.Records)
	}
	return nil
}

// SetReadOffset moves the reads' window of Config.ReadKeys keys to start at
// key n (from the first loaded key); workers created after it read there.
// Updates keep drawing from the keys after the first window.
func (g *Generator) SetReadOffset(n int64) error {
	if err := g.CheckReadOffset(n); err != nil && n != 0 {
		return err
	}
	g.readOffset.Store(n)
	return nil
}

// Document returns record keynum exactly as Load writes it (and as
// workloads D and E insert it), so loaded data can be checked.
func (g *Generator) Document(keynum int64) bson.D {
	return record(g.names, g.cfg.FieldLength, g.cfg.Seed, keynum, make([]byte, g.cfg.FieldLength))
}

// loadBatchRecords is the number of records per InsertMany, reduced for big
// records so a batch stays near loadBatchBytes.
const (
	loadBatchRecords = 1000
	loadBatchBytes   = 16 << 20
)

func (g *Generator) batchSize() int64 {
	per := int64(g.cfg.Fields)*int64(g.cfg.FieldLength) + 64
	return max(1, min(loadBatchRecords, loadBatchBytes/per))
}

// Load drops the collection and creates it afresh, so every load starts
// clean, then inserts records [InsertStart, InsertStart+Records) in
// unordered InsertMany batches of up to 1000 records, spread over parallel
// goroutines. Batch b holds a fixed key range and its content depends only
// on (Seed, key number), so any batch can be regenerated. Writes use
// env.DB's write concern. progress, if not nil, gets (records done, total)
// from several goroutines. Load must not run concurrently with workers; it
// resets the run-phase insert counter.
func (g *Generator) Load(ctx context.Context, env workload.Env, parallel int, progress workload.Progress) error {
	if env.DB == nil {
		return errors.New("ycsb: load: env.DB is nil")
	}
	start, total := g.cfg.InsertStart, g.cfg.Records
	size := g.batchSize()
	batches := (total + size - 1) / size
	err := workload.InsertBatches(ctx, env.DB, g.cfg.Collection, parallel, batches, total, func(b int64) ([]any, string) {
		lo := start + b*size
		hi := min(lo+size, start+total)
		buf := make([]byte, g.cfg.FieldLength)
		docs := make([]any, 0, hi-lo)
		for k := lo; k < hi; k++ {
			docs = append(docs, record(g.names, g.cfg.FieldLength, g.cfg.Seed, k, buf))
		}
		return docs, fmt.Sprintf("records [%d, %d)", lo, hi)
	}, progress)
	if err != nil {
		return fmt.Errorf("ycsb: %w", err)
	}
	g.inserts.Store(newAckCounter(start + total))
	return nil
}

// latestZetan returns zeta(Records, 0.99), computed once per generator, the
// starting point of every latest chooser.
func (g *Generator) latestZetan() float64 {
	g.latestOnce.Do(func() { g.latestZeta = zeta(0, g.cfg.Records, ZipfianConstant, 0) })
	return g.latestZeta
}

// Settings returns the settings the results record beside the mix and the
// record count.
func (g *Generator) Settings() map[string]string {
	c := g.cfg
	return map[string]string{"fields": strconv.Itoa(c.Fields), "fieldlength": strconv.Itoa(c.FieldLength),
		"distribution": c.distribution(g.currentMix()).String(), "causal": strconv.FormatBool(c.Causal)}
}

// NewWorker returns a worker running the current mix, with its own random
// stream seeded from (Seed, id). Reads go through env.Reads, writes through
// env.DB.
func (g *Generator) NewWorker(env workload.Env, id int) (workload.Worker, error) {
	if env.DB == nil {
		return nil, errors.New("ycsb: new worker: env.DB is nil")
	}
	if env.Reads == nil {
		return nil, errors.New("ycsb: new worker: env.Reads is nil")
	}
	m := g.currentMix()
	w := &worker{
		g:      g,
		mix:    m,
		rng:    rand.New(rand.NewPCG(uint64(g.cfg.Seed), uint64(id))),
		reads:  env.Reads.Collection(g.cfg.Collection),
		coll:   env.DB.Collection(g.cfg.Collection),
		keys:   g.keyChooser(g.cfg.distribution(m), readPart),
		valbuf: make([]byte, g.cfg.FieldLength),
	}
	if g.cfg.ReadKeys > 0 {
		w.writeKeys = g.keyChooser(g.cfg.distribution(m), writePart)
	}
	w.init()
	if g.cfg.Causal {
		sess, err := env.DB.Client().StartSession(options.Session().SetCausalConsistency(true))
		if err != nil {
			return nil, fmt.Errorf("ycsb: new worker: causal session: %w", err)
		}
		w.sess = sess
	}
	return w, nil
}

// keyPart is the part of the loaded keys a chooser draws from: all of
// them, or with Config.ReadKeys the reads' or the updates' part.
type keyPart uint8

const (
	readPart keyPart = iota
	writePart
)

func (g *Generator) keyChooser(d Distribution, part keyPart) keyChooser {
	start, n := g.cfg.InsertStart, g.cfg.Records
	if rk := g.cfg.ReadKeys; rk > 0 {
		if part == readPart {
			start, n = start+g.readOffset.Load(), rk
		} else {
			start, n = start+rk, n-rk
		}
	}
	switch d {
	case Uniform:
		return uniform{min: start, n: n}
	case Latest:
		return &skewedLatest{
			min:     start,
			counter: g.inserts.Load,
			zipf:    newZipfianZeta(0, n-1, ZipfianConstant, g.latestZetan()),
		}
	default:
		return newScrambledZipfian(start, n)
	}
}

// loaded reports whether keynum is one of the records Load inserts; only
// those must be found (later inserts may not have reached a secondary).
func (g *Generator) loaded(keynum int64) bool {
	return keynum >= g.cfg.InsertStart && keynum < g.cfg.InsertStart+g.cfg.Records
}
