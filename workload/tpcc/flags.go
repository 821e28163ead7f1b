package tpcc

import (
	"flag"
	"fmt"
	"time"

	"github.com/decongestant/decongestant/workload"
)

func init() {
	workload.Register(workload.Meta{Name: Name, Description: "TPC-C on MongoDB as the TPC-C-on-MongoDB paper ran it, with the Decongestant paper's read-write mix",
		Clients: 16, WriteConcern: "majority", New: func() workload.Flagser { return NewFlags() }})
}

// Flags are TPC-C's settings as command-line flags, declared once: `bench
// tpcc`, `tpcc load` and programs (workload.Configure) use the same set. It
// is the registered workload.
type Flags struct {
	warehouses, maxRetries                    int
	mix, schema, scale, stockLevelReadConcern string
	findAndModify, batchWrites                bool
	routeOrderStatus, keying, thinkTime       bool
	retryBackoff                              time.Duration
	// Reset drops an existing TPC-C database before loading; Check runs the
	// consistency checks after every run (bench) or after loading.
	Reset, Check bool
}

var _ workload.Flagser = (*Flags)(nil)

// NewFlags returns the settings at DefaultConfig, the standard mix and
// scale, and checks after every run.
func NewFlags() *Flags {
	d := DefaultConfig()
	return &Flags{warehouses: d.Warehouses, mix: "standard", schema: d.Schema.String(), scale: "standard",
		findAndModify: d.FindAndModify, batchWrites: d.BatchWrites, retryBackoff: d.RetryBackoff, Check: true}
}

// Flags returns the flag set bound to the settings.
func (f *Flags) Flags() *flag.FlagSet {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.IntVar(&f.warehouses, "warehouses", f.warehouses, "TPC-C warehouses (scale factor)")
	fs.StringVar(&f.mix, "mix", f.mix, "transaction mix: standard (45/43/4/4/4), readwrite (the Decongestant paper's: Stock-Level 50%) or weights no=,pay=,os=,del=,sl= summing to 100")
	fs.StringVar(&f.schema, "schema", f.schema, "denormalized (order lines embedded in ORDERS, as the TPC-C-on-MongoDB paper ran it) or normalized")
	fs.StringVar(&f.scale, "scale", f.scale, "database size: standard (TPC-C 4.3.3.1) or small (1000 items, 30 customers per district; for quick tries)")
	fs.BoolVar(&f.findAndModify, "find-and-modify", f.findAndModify, "use findAndModify where a read is followed by an update of the same document (the TPC-C-on-MongoDB paper, §4.5.5)")
	fs.BoolVar(&f.batchWrites, "batch-writes", f.batchWrites, "batch New-Order's stock updates into one bulk write (the TPC-C-on-MongoDB paper, §4.5.6)")
	fs.BoolVar(&f.routeOrderStatus, "route-order-status", f.routeOrderStatus, "route Order-Status through the balancer like Stock-Level (outside a transaction)")
	fs.StringVar(&f.stockLevelReadConcern, "stock-level-read-concern", f.stockLevelReadConcern, "Stock-Level's read concern: local (no causal session, as the Decongestant paper) or majority (in the terminal's causally consistent session, as the TPC-C-on-MongoDB paper); default local for --mix readwrite, majority for standard and custom weights")
	fs.BoolVar(&f.keying, "keying", f.keying, "add TPC-C keying times (clause 5.2.5.7)")
	fs.BoolVar(&f.thinkTime, "think-time", f.thinkTime, "add TPC-C think times (clause 5.2.5.7)")
	fs.IntVar(&f.maxRetries, "max-retries", f.maxRetries, "retries of one transaction on TransientTransactionError (0 = unbounded, as the TPC-C-on-MongoDB paper)")
	fs.DurationVar(&f.retryBackoff, "retry-backoff", f.retryBackoff, "cap of the random pause before retrying a conflicted transaction (0 = retry at once, as the TPC-C-on-MongoDB paper)")
	fs.BoolVar(&f.Reset, "reset", f.Reset, "drop an existing TPC-C database and load again")
	fs.BoolVar(&f.Check, "check", f.Check, "run the twelve consistency checks after every run (bench) or after loading (load)")
	return fs
}

// Config validates the settings, with the runner's seed and write concern
// (majority when unset), into a Config.
func (f *Flags) Config(s workload.Shared) (Config, error) {
	c := DefaultConfig()
	if f.warehouses < 1 {
		return c, fmt.Errorf("%w: --warehouses %d must be at least 1", ErrConfig, f.warehouses)
	}
	var err error
	if c.Mix, err = ParseMix(f.mix); err != nil {
		return c, fmt.Errorf("--mix: %w", err)
	}
	if c.Schema, err = ParseSchema(f.schema); err != nil {
		return c, fmt.Errorf("--schema: %w", err)
	}
	if f.stockLevelReadConcern != "" {
		if c.StockLevelReadConcern, err = ParseStockLevelReadConcern(f.stockLevelReadConcern); err != nil {
			return c, fmt.Errorf("--stock-level-read-concern: %w", err)
		}
	}
	switch f.scale {
	case "standard":
	case "small":
		c.Scale = SmallScale()
	default:
		return c, fmt.Errorf("%w: --scale %q: want standard or small", ErrConfig, f.scale)
	}
	if s.Seed < 0 {
		return c, fmt.Errorf("%w: --seed %d must not be negative", ErrConfig, s.Seed)
	}
	c.Warehouses, c.Seed, c.MaxRetries = f.warehouses, uint64(s.Seed), f.maxRetries
	if s.WriteConcern != "" {
		c.WriteConcern = s.WriteConcern
	}
	c.FindAndModify, c.BatchWrites, c.RouteOrderStatus = f.findAndModify, f.batchWrites, f.routeOrderStatus
	c.Keying, c.ThinkTime, c.RetryBackoff = f.keying, f.thinkTime, f.retryBackoff
	return c, c.Validate()
}

// Configure is Config followed by NewGenerator, with Reset and Check.
func (f *Flags) Configure(s workload.Shared) (workload.Generator, error) {
	c, err := f.Config(s)
	if err != nil {
		return nil, err
	}
	g, err := NewGenerator(c)
	if err != nil {
		return nil, err
	}
	g.Reset, g.CheckAfterRun = f.Reset, f.Check
	return g, nil
}
