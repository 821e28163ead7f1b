package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/tpcc"
)

// checkURI checks a required --uri without connecting.
func checkURI(uri string) error {
	if uri == "" {
		return errors.New("--uri is required (a replica set connection string; `decongestant cluster up` prints one)")
	}
	if _, err := monitor.ParseURI(uri); err != nil {
		return fmt.Errorf("invalid --uri: %w", err)
	}
	return nil
}

func connectTPCC(ctx context.Context, uri, db string) (*mongo.Client, *mongo.Database, error) {
	if err := checkURI(uri); err != nil {
		return nil, nil, err
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(15 * time.Second))
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", redact.URI(uri), err)
	}
	return client, client.Database(db), nil
}

func defineTPCCLoad(fs *flag.FlagSet) action {
	uri := fs.String("uri", "", "replica set connection string (required)")
	db := fs.String("db", "tpcc", "database")
	seed := fs.Int64("seed", 1, "random seed of the data")
	parallel := fs.Int("load-parallel", 0, "loader goroutines (default 2 x CPUs)")
	t := tpcc.NewFlags()
	addFlags(fs, t.Flags())
	var cfg tpcc.Config
	return action{
		check: noArgs("tpcc load", func() (err error) {
			if cfg, err = t.Config(workload.Shared{Seed: *seed, WriteConcern: "majority"}); err != nil {
				return err
			}
			return checkURI(*uri)
		}),
		run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
			err := runTPCCLoad(ctx, *uri, *db, *parallel, t, cfg, stdout, stderr)
			return monitor.ExplainAccess(err, *uri)
		},
	}
}

func runTPCCLoad(ctx context.Context, uri, db string, parallel int, t *tpcc.Flags, cfg tpcc.Config, stdout, stderr io.Writer) error {
	client, d, err := connectTPCC(ctx, uri, db)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	start := time.Now()
	if err := tpcc.Load(ctx, d, cfg, tpcc.LoadOptions{Parallel: parallel, Progress: workload.PrintProgress(stderr), Reset: t.Reset}); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	fmt.Fprintf(stdout, "loaded %d warehouses into %s in %.1fs (count check passed)\n", cfg.Warehouses, db, time.Since(start).Seconds())
	if !t.Check {
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

func defineTPCCCheck(fs *flag.FlagSet) action {
	uri := fs.String("uri", "", "replica set connection string (required)")
	db := fs.String("db", "tpcc", "database")
	only := fs.String("clause", "", "comma-separated clauses to check, e.g. 3.3.2.1,3.3.2.10 (default: all twelve)")
	jsonOut := fs.String("json", "", "also write the results as JSON to this `file`")
	return action{
		check: noArgs("tpcc check", func() error { return checkURI(*uri) }),
		run: func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
			return monitor.ExplainAccess(runTPCCCheck(ctx, *uri, *db, *only, *jsonOut, stdout), *uri)
		},
	}
}

func runTPCCCheck(ctx context.Context, uri, db, only, jsonOut string, stdout io.Writer) error {
	client, d, err := connectTPCC(ctx, uri, db)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	info, ok, err := tpcc.Loaded(ctx, d)
	if err != nil {
		return fmt.Errorf("%s: %w", redact.URI(uri), err)
	}
	if !ok {
		return fmt.Errorf("%w: database %q holds no TPC-C load (run `decongestant tpcc load` or `bench tpcc` first)", tpcc.ErrEmpty, db)
	}
	var clauses []string
	if only != "" {
		clauses = strings.Split(only, ",")
	}
	res, err := tpcc.Check(ctx, d, tpcc.CheckOptions{Schema: info.Schema, Scale: info.Scale, Only: clauses})
	if err != nil {
		return err
	}
	printErr := printChecks(stdout, res)
	if jsonOut != "" {
		if err := writeJSONPath(jsonOut, res); err != nil {
			return err
		}
	}
	return printErr
}
