package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/tpcc"
)

var tpccBenchDefaults = benchDefaults{duration: 120 * time.Second, out: "results.json",
	balPeriod: benchCmdDefaults.balPeriod, db: "tpcc", writeConcern: "majority", clients: 16}

// tpccFlags are the TPC-C workload's flags.
type tpccFlags struct {
	warehouses, maxRetries                               int
	mix, schema, scale, stockLevelReadConcern            string
	findAndModify, batchWrites, routeOrderStatus, keying bool
	thinkTime, reset, check                              bool
	retryBackoff                                         time.Duration
}

func (t *tpccFlags) register(fs *flag.FlagSet) {
	d := tpcc.DefaultConfig()
	fs.IntVar(&t.warehouses, "warehouses", d.Warehouses, "TPC-C warehouses (scale factor)")
	fs.StringVar(&t.mix, "mix", "standard", "transaction mix: standard (45/43/4/4/4), readwrite (seed 000: Stock-Level 50%) or weights no=,pay=,os=,del=,sl= summing to 100")
	fs.StringVar(&t.schema, "schema", d.Schema.String(), "denormalized (order lines embedded in ORDERS, seed 002) or normalized")
	fs.StringVar(&t.scale, "scale", "standard", "database size: standard (TPC-C 4.3.3.1) or small (1000 items, 30 customers per district; for quick tries)")
	fs.BoolVar(&t.findAndModify, "find-and-modify", d.FindAndModify, "use findAndModify where a read is followed by an update of the same document (seed 002 §4.5.5)")
	fs.BoolVar(&t.batchWrites, "batch-writes", d.BatchWrites, "batch New-Order's stock updates into one bulk write (seed 002 §4.5.6)")
	fs.BoolVar(&t.routeOrderStatus, "route-order-status", false, "route Order-Status through the balancer like Stock-Level (outside a transaction)")
	fs.StringVar(&t.stockLevelReadConcern, "stock-level-read-concern", "", "Stock-Level's read concern: local (no causal session, as seed 000) or majority (in the terminal's causally consistent session, as seed 002); default local for --mix readwrite, majority for standard and custom weights")
	fs.BoolVar(&t.keying, "keying", false, "add TPC-C keying times (clause 5.2.5.7)")
	fs.BoolVar(&t.thinkTime, "think-time", false, "add TPC-C think times (clause 5.2.5.7)")
	fs.IntVar(&t.maxRetries, "max-retries", 0, "retries of one transaction on TransientTransactionError (0 = unbounded, as seed 002)")
	fs.DurationVar(&t.retryBackoff, "retry-backoff", d.RetryBackoff, "cap of the random pause before retrying a conflicted transaction (0 = retry at once, as seed 002)")
	fs.BoolVar(&t.reset, "reset", false, "drop an existing TPC-C database and load again")
	fs.BoolVar(&t.check, "check", true, "run the twelve consistency checks after every run (bench) or after loading (load)")
}

// config validates the flags into a tpcc.Config.
func (t *tpccFlags) config(seed int64, writeConcern string) (tpcc.Config, error) {
	c := tpcc.DefaultConfig()
	if t.warehouses < 1 {
		return c, fmt.Errorf("--warehouses %d must be at least 1", t.warehouses)
	}
	var err error
	if c.Mix, err = tpcc.ParseMix(t.mix); err != nil {
		return c, fmt.Errorf("--mix: %w", err)
	}
	if c.Schema, err = tpcc.ParseSchema(t.schema); err != nil {
		return c, fmt.Errorf("--schema: %w", err)
	}
	if t.stockLevelReadConcern != "" {
		if c.StockLevelReadConcern, err = tpcc.ParseStockLevelReadConcern(t.stockLevelReadConcern); err != nil {
			return c, fmt.Errorf("--stock-level-read-concern: %w", err)
		}
	}
	switch t.scale {
	case "standard":
	case "small":
		c.Scale = tpcc.SmallScale()
	default:
		return c, fmt.Errorf("--scale %q: want standard or small", t.scale)
	}
	if seed < 0 {
		return c, fmt.Errorf("--seed %d must not be negative", seed)
	}
	c.Warehouses, c.Seed, c.WriteConcern, c.MaxRetries = t.warehouses, uint64(seed), writeConcern, t.maxRetries
	c.FindAndModify, c.BatchWrites, c.RouteOrderStatus = t.findAndModify, t.batchWrites, t.routeOrderStatus
	c.Keying, c.ThinkTime, c.RetryBackoff = t.keying, t.thinkTime, t.retryBackoff
	return c, c.Validate()
}

func runBenchTPCC(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench tpcc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var b benchFlags
	var t tpccFlags
	b.registerCommon(fs, tpccBenchDefaults)
	t.register(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if t.warehouses < 1 {
		return fmt.Errorf("--warehouses %d must be at least 1", t.warehouses)
	}
	o, err := b.common(stderr)
	if err != nil {
		return err
	}
	cfg, err := t.config(b.seed, b.writeConcern)
	if err != nil {
		return err
	}
	gen, err := tpcc.NewGenerator(cfg)
	if err != nil {
		return err
	}
	gen.Reset, gen.CheckAfterRun = t.reset, t.check
	if err := setGenerator(&o, gen, t.mix); err != nil {
		return err
	}
	return execute(ctx, o, stdout, stderr)
}

// runTPCC runs the `tpcc` command: load and check outside a bench.
func runTPCC(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const use = "usage: decongestant tpcc load|check --uri URI [flags]"
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New(use)
	}
	switch args[0] {
	case "check":
		return runTPCCCheck(ctx, args[1:], stdout, stderr)
	case "load":
		return runTPCCLoad(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("unknown tpcc command %q (%s)", args[0], use)
}

func connectTPCC(ctx context.Context, uri, db string) (*mongo.Client, *mongo.Database, error) {
	if uri == "" {
		return nil, nil, errors.New("--uri is required (a replica set connection string; `decongestant cluster up` prints one)")
	}
	if _, err := connstring.ParseAndValidate(uri); err != nil {
		return nil, nil, fmt.Errorf("invalid --uri %s: %v", redact.URI(uri), err)
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(15 * time.Second))
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", redact.URI(uri), err)
	}
	return client, client.Database(db), nil
}

func runTPCCLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tpcc load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	uri := fs.String("uri", "", "replica set connection string (required)")
	db := fs.String("db", "tpcc", "database")
	seed := fs.Int64("seed", 1, "random seed of the data")
	parallel := fs.Int("load-parallel", 0, "loader goroutines (default 2 x CPUs)")
	var t tpccFlags
	t.register(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	cfg, err := t.config(*seed, "majority")
	if err != nil {
		return err
	}
	client, d, err := connectTPCC(ctx, *uri, *db)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	start := time.Now()
	if err := tpcc.Load(ctx, d, cfg, tpcc.LoadOptions{Parallel: *parallel, Progress: workload.PrintProgress(stderr), Reset: t.reset}); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	fmt.Fprintf(stdout, "loaded %d warehouses into %s in %.1fs (count check passed)\n", cfg.Warehouses, *db, time.Since(start).Seconds())
	if !t.check {
		return nil
	}
	fmt.Fprintf(stderr, "checking the twelve consistency conditions…\n")
	res, err := tpcc.Check(ctx, d, tpcc.CheckOptions{Schema: cfg.Schema, Scale: cfg.Scale})
	if err != nil {
		return err
	}
	return printChecks(stdout, res)
}

// printChecks prints one line per condition and fails when any failed.
func printChecks(w io.Writer, res []tpcc.CheckResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "clause\tcondition\tresult\ttime\tdetail")
	failed := 0
	for _, r := range res {
		if r.Status == tpcc.Fail {
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Clause, r.Name, r.Status, r.Duration.Round(time.Millisecond), r.Detail)
	}
	tw.Flush()
	if failed > 0 {
		return fmt.Errorf("%d of %d consistency conditions failed", failed, len(res))
	}
	return nil
}

func runTPCCCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tpcc check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	uri := fs.String("uri", "", "replica set connection string (required)")
	db := fs.String("db", "tpcc", "database")
	only := fs.String("clause", "", "comma-separated clauses to check, e.g. 3.3.2.1,3.3.2.10 (default: all twelve)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this file")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	client, d, err := connectTPCC(ctx, *uri, *db)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	info, ok, err := tpcc.Loaded(ctx, d)
	if err != nil {
		return fmt.Errorf("%s: %w", redact.URI(*uri), err)
	}
	if !ok {
		return fmt.Errorf("%w: database %q holds no TPC-C load (run `decongestant tpcc load` or `bench tpcc` first)", tpcc.ErrEmpty, *db)
	}
	var clauses []string
	if *only != "" {
		clauses = strings.Split(*only, ",")
	}
	res, err := tpcc.Check(ctx, d, tpcc.CheckOptions{Schema: info.Schema, Scale: info.Scale, Only: clauses})
	if err != nil {
		return err
	}
	printErr := printChecks(stdout, res)
	if *jsonOut != "" {
		if err := atomicfile.Write(*jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}); err != nil {
			return err
		}
	}
	return printErr
}
