package tpch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/workload"
)

// Name is the workload's registry name.
const Name = "tpch"

// Mix is the workload's only operation mix: Q1.
const Mix = "q1"

// ShipDateIndex is the name of the index on l_shipdate, the field Q1
// filters on.
const ShipDateIndex = "l_shipdate_1"

// Generator is a configured TPC-H workload. Its methods are safe for
// concurrent use; the workers it hands out are not.
type Generator struct {
	cfg  Config
	data Data

	linesOnce sync.Once
	lines     int64
}

var (
	_ workload.Generator = (*Generator)(nil)
	_ workload.Sized     = (*Generator)(nil)
	_ workload.Described = (*Generator)(nil)
)

// NewGenerator validates cfg and returns a Generator.
func NewGenerator(cfg Config) (*Generator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := NewData(cfg.SF, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &Generator{cfg: cfg, data: d}, nil
}

// Config returns the configuration the generator was built with.
func (g *Generator) Config() Config { return g.cfg }

// Data returns the table the generator loads.
func (g *Generator) Data() Data { return g.data }

// Name returns "tpch".
func (g *Generator) Name() string { return Name }

// Mix returns "q1".
func (g *Generator) Mix() string { return Mix }

// SetMix accepts "q1", the only mix.
func (g *Generator) SetMix(mix string) error {
	if mix != Mix {
		return fmt.Errorf("%w: mix %q: tpch runs Q1 only (mix %s)", ErrConfig, mix, Mix)
	}
	return nil
}

// Records returns the number of line items Load inserts (workload.Sized),
// counted once.
func (g *Generator) Records() int64 {
	g.linesOnce.Do(func() { g.lines = g.data.Lines() })
	return g.lines
}

// Settings returns the settings the results record: the scale factor,
// collection, Q1 plan, and the table's orders and estimated BSON size.
func (g *Generator) Settings() map[string]string {
	_, bytes := Estimate(g.cfg.SF)
	return map[string]string{
		"sf":         strconv.FormatFloat(g.cfg.SF, 'g', -1, 64),
		"collection": g.cfg.Collection,
		"q1_plan":    g.cfg.Plan.String(),
		"orders":     strconv.FormatInt(g.data.scale.Orders, 10),
		"bson_mb":    strconv.FormatFloat(float64(bytes)/1e6, 'f', 1, 64),
	}
}

// Load drops the collection and creates it afresh, inserts the line items
// in unordered InsertMany batches of OrdersPerBatch orders spread over
// parallel goroutines, then builds the index on l_shipdate (as the
// read-hints paper, §4.11.2, "built indexes on fields used for the
// query"). Batch b holds fixed orders and its content depends only on
// (Seed, b): Data.Batch regenerates it. Writes use env.DB's write concern.
// progress, if not nil, gets (line items done, total) from several
// goroutines.
func (g *Generator) Load(ctx context.Context, env workload.Env, parallel int, progress workload.Progress) error {
	if env.DB == nil {
		return errors.New("tpch: load: env.DB is nil")
	}
	err := workload.InsertBatches(ctx, env.DB, g.cfg.Collection, parallel, g.data.Batches(), g.Records(), func(b int64) ([]any, string) {
		lines := g.data.Batch(b, make([]LineItem, 0, OrdersPerBatch*MaxLines))
		docs := make([]any, len(lines))
		for i, l := range lines {
			docs[i] = l.Document()
		}
		lo, hi := g.data.BatchOrders(b)
		return docs, fmt.Sprintf("orders [%d, %d)", lo, hi)
	}, progress)
	if err != nil {
		return fmt.Errorf("tpch: %w", err)
	}
	coll := env.DB.Collection(g.cfg.Collection)
	_, err = coll.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: FieldShipDate, Value: 1}},
		Options: options.Index().SetName(ShipDateIndex),
	})
	if err != nil {
		return fmt.Errorf("tpch: load: index on %s: %w", FieldShipDate, err)
	}
	return nil
}

// NewWorker returns a worker that runs Q1 through env.Reads, with its own
// stream of DELTA parameters seeded from (Seed, id).
func (g *Generator) NewWorker(env workload.Env, id int) (workload.Worker, error) {
	if env.Reads == nil {
		return nil, errors.New("tpch: new worker: env.Reads is nil")
	}
	return &worker{
		q1:  NewQ1(env.Reads.Collection(g.cfg.Collection), g.cfg.Plan),
		rng: rand.New(rand.NewPCG(uint64(g.cfg.Seed), uint64(id))),
	}, nil
}
