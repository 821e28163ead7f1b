package tpcc

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/workload"
)

// Name is the workload's registry name.
const Name = "tpcc"

// abortTimeout bounds an abort sent after a failed transaction body.
const abortTimeout = 5 * time.Second

// Generator is a configured TPC-C workload. Its methods are safe for
// concurrent use; the workers it hands out are not.
type Generator struct {
	cfg    Config
	consts nurandConstants
	wc     *writeconcern.WriteConcern

	// Reset makes Load drop an existing TPC-C database first.
	Reset bool
	// CheckAfterRun runs the consistency checks after every run and adds
	// them to the run's report.
	CheckAfterRun bool

	mu     sync.Mutex
	mix    Weights
	before serverCounters // at BeginRun
}

var _ workload.Generator = (*Generator)(nil)
var _ workload.RunReporter = (*Generator)(nil)

// NewGenerator validates cfg and returns a Generator. A zero
// StockLevelReadConcern becomes the default of cfg.Mix.
func NewGenerator(cfg Config) (*Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.StockLevelReadConcern == 0 {
		cfg.StockLevelReadConcern = DefaultStockLevelReadConcern(cfg.Mix)
	}
	wc := writeconcern.Majority()
	if cfg.WriteConcern != "majority" {
		n, _ := strconv.Atoi(cfg.WriteConcern)
		wc = &writeconcern.WriteConcern{W: n}
	}
	return &Generator{cfg: cfg, consts: cfg.constants(), wc: wc, mix: cfg.Mix}, nil
}

// Config returns the configuration the generator was built with.
func (g *Generator) Config() Config { return g.cfg }

// Name returns "tpcc".
func (g *Generator) Name() string { return Name }

// Mix returns the current mix: "standard", "readwrite" or its weights.
func (g *Generator) Mix() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mix.String()
}

// SetMix switches the mix for workers created from now on; it accepts what
// ParseMix accepts.
func (g *Generator) SetMix(mix string) error {
	w, err := ParseMix(mix)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.mix = w
	g.mu.Unlock()
	return nil
}

// Load loads the database (see the package function Load): it reuses a
// complete load of the same configuration and refuses a different one
// unless Reset is set.
func (g *Generator) Load(ctx context.Context, env workload.Env, parallel int, progress workload.Progress) error {
	return Load(ctx, env.DB, g.cfg, LoadOptions{Parallel: parallel, Progress: progress, Reset: g.Reset})
}

// NewWorker returns a terminal. Its home warehouse is id mod W + 1 and its
// Stock-Level district (fixed per terminal, clause 2.8.1) cycles with id,
// so N >= W*Districts workers cover every (warehouse, district).
func (g *Generator) NewWorker(env workload.Env, id int) (workload.Worker, error) {
	return g.newWorker(env, id)
}

func (g *Generator) newWorker(env workload.Env, id int) (*worker, error) {
	sess, err := env.DB.Client().StartSession(options.Session().SetCausalConsistency(true))
	if err != nil {
		return nil, fmt.Errorf("tpcc: start session: %w", err)
	}
	g.mu.Lock()
	mix, consts := g.mix, g.consts
	g.mu.Unlock()
	w := &worker{
		g: g, cfg: &g.cfg, env: env, sess: sess, mix: mix,
		rnd:      newRandom(g.cfg.Seed, 1<<32|uint64(id), consts),
		wID:      id%g.cfg.Warehouses + 1,
		dID:      id/g.cfg.Warehouses%g.cfg.Scale.Districts + 1,
		txn:      newTxnRunner(sess, g.wc, g.cfg.MaxRetries, g.cfg.RetryBackoff, g.cfg.Seed<<16^uint64(id)),
		majority: options.Collection().SetReadConcern(readconcern.Majority()),
		local:    options.Collection().SetReadConcern(readconcern.Local()),
	}
	db := env.DB
	w.item, w.warehouse, w.district = db.Collection(collItem), db.Collection(collWarehouse), db.Collection(collDistrict)
	w.customer, w.history, w.stock = db.Collection(collCustomer), db.Collection(collHistory), db.Collection(collStock)
	w.orders, w.newOrders, w.orderLine = db.Collection(collOrders), db.Collection(collNewOrder), db.Collection(collOrderLine)
	return w, nil
}

// worker is one TPC-C terminal: a home warehouse, a causally consistent
// session used by all its transactions, and its random stream.
type worker struct {
	g    *Generator
	cfg  *Config
	env  workload.Env
	sess *mongo.Session
	txn  *txnRunner
	rnd  *random
	mix  Weights
	wID  int
	dID  int

	item, warehouse, district, customer, history, stock, orders, newOrders, orderLine *mongo.Collection
	majority, local                                                                   *options.CollectionOptionsBuilder

	next txnType // chosen by Delay, run by Do
	prev txnType // for the think time after it
}

var _ workload.Pacer = (*worker)(nil)

// Close ends the worker's session.
func (w *worker) Close() { w.sess.EndSession(context.Background()) }

// choose picks the next transaction by the mix.
func (w *worker) choose() txnType { return w.mix.pick(w.rnd.Int(0, 99)) }

// Delay returns the pause before the next transaction: the think time of
// the previous one and the keying time of the next (clause 5.2.5.7), each
// only when enabled. It picks the next transaction.
func (w *worker) Delay() time.Duration {
	w.next = w.choose()
	var d time.Duration
	if w.cfg.ThinkTime && w.prev != 0 {
		// Negative exponential with the clause's mean, capped at 10 means.
		mean := thinkTime[w.prev].Seconds()
		r := math.Max(w.rnd.Float(0, 1, 6), 1e-6)
		d += time.Duration(math.Min(-math.Log(r)*mean, 10*mean) * float64(time.Second))
	}
	if w.cfg.Keying {
		d += keyingTime[w.next]
	}
	return d
}

// Keying and mean think times of clause 5.2.5.7.
var (
	keyingTime = map[txnType]time.Duration{txnNewOrder: 18 * time.Second, txnPayment: 3 * time.Second,
		txnOrderStatus: 2 * time.Second, txnDelivery: 2 * time.Second, txnStockLevel: 2 * time.Second}
	thinkTime = map[txnType]time.Duration{txnNewOrder: 12 * time.Second, txnPayment: 12 * time.Second,
		txnOrderStatus: 10 * time.Second, txnDelivery: 5 * time.Second, txnStockLevel: 5 * time.Second}
)

// Do runs one transaction: the one Delay picked, or a fresh pick.
func (w *worker) Do(ctx context.Context) (workload.Op, error) {
	t := w.next
	if t == 0 {
		t = w.choose()
	}
	w.next, w.prev = 0, t
	op := workload.Op{Name: t.String(), Class: workload.Write}
	var err error
	switch t {
	case txnNewOrder:
		var r newOrderResult
		r, op.Retries, err = w.newOrderTxn(ctx, w.drawNewOrder())
		op.RolledBack = r.RolledBack
	case txnPayment:
		_, op.Retries, err = w.paymentTxn(ctx, w.drawPayment())
	case txnOrderStatus:
		if w.cfg.RouteOrderStatus {
			op.Class = workload.Read
		}
		_, op.Retries, err = w.orderStatusTxn(ctx, w.drawOrderStatus())
	case txnDelivery:
		_, op.Retries, err = w.deliveryTxn(ctx, w.drawDelivery())
	case txnStockLevel:
		op.Class = workload.Read
		_, err = w.stockLevel(ctx, w.drawStockLevel())
	}
	return op, err
}

// otherWarehouse returns a warehouse other than home, uniformly, or home
// when there is only one.
func (w *worker) otherWarehouse() int {
	if w.cfg.Warehouses == 1 {
		return w.wID
	}
	o := w.rnd.Int(1, w.cfg.Warehouses-1)
	if o >= w.wID {
		o++
	}
	return o
}
