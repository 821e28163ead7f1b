package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/tpcc"
)

const tpccAcidLong = `The TPC-C-on-MongoDB paper performed these tests by hand; here they run on a loaded TPC-C
database. The durability test (New-Orders with write concern majority while the primary is
killed) needs the replica set's directory (--cluster-dir, from "decongestant cluster up") to kill
the primary and restart it. The tests run TPC-C transactions on one warehouse and leave the
database consistent; run them while nothing else writes to it.
`

// defineTPCCAcid defines `tpcc acid`: the ACID tests, a table on stdout, the results as JSON
// with --out; it fails when a test failed.
func defineTPCCAcid(fs *flag.FlagSet) action {
	uri := fs.String("uri", "", "replica set connection string (required)")
	db := fs.String("db", "tpcc", "database holding a complete TPC-C load")
	clusterDir := fs.String("cluster-dir", "", "`dir` of the local replica set behind --uri (as given to decongestant cluster up --dir); the durability test kills its primary and restarts it")
	durability := fs.Bool("durability", true, "run the durability test (clause 3.5.4); it needs --cluster-dir")
	out := fs.String("out", "", "also write the results as JSON to this `file`")
	only := fs.String("test", "", "comma-separated tests or clauses to run (default: all): "+strings.Join(tpcc.ACIDTests(), ", "))
	load := fs.Bool("load", false, "if --db holds no TPC-C load, load a small one first (1 warehouse, --scale small)")
	warehouse := fs.Int("warehouse", 1, "the warehouse the tests use")
	clients := fs.Int("clients", 4, "New-Order clients of the durability test")
	var o tpcc.ACIDOptions
	check := noArgs("tpcc acid", func() error {
		if *clients < 1 {
			return fmt.Errorf("tpcc acid: --clients %d must be at least 1", *clients)
		}
		if *warehouse < 1 {
			return fmt.Errorf("tpcc acid: --warehouse %d must be at least 1", *warehouse)
		}
		var tests []string
		if *only != "" {
			tests = strings.Split(*only, ",")
		}
		o = tpcc.ACIDOptions{Only: tests, Warehouse: *warehouse, Durability: tpcc.DurabilityOptions{Clients: *clients}}
		if err := o.Validate(); err != nil {
			return fmt.Errorf("tpcc acid: --test: %w", err)
		}
		return checkURI(*uri)
	})
	return action{check: check, run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		o.Progress = stderr
		err := runTPCCAcid(ctx, o, *uri, *db, *clusterDir, *out, *durability, *load, stdout, stderr)
		return monitor.ExplainAccess(err, *uri)
	}}
}

// runTPCCAcid runs the ACID tests of o.
func runTPCCAcid(ctx context.Context, o tpcc.ACIDOptions, uri, db, clusterDir, out string, durability, load bool, stdout, stderr io.Writer) (err error) {
	var c *cluster.Cluster
	switch {
	case !durability:
		o.SkipDurability = "left out with --durability=false"
	case clusterDir == "":
		o.SkipDurability = "needs --cluster-dir (the directory of `decongestant cluster up`) to kill the primary; --durability=false leaves it out"
	default:
		if c, err = cluster.Open(clusterDir); err != nil {
			return fmt.Errorf("tpcc acid: --cluster-dir: %w", err)
		}
	}

	client, d, err := connectTPCC(ctx, uri, db)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	if c != nil {
		if err := sameSet(ctx, client, c); err != nil {
			return fmt.Errorf("tpcc acid: --cluster-dir %s: %w", clusterDir, err)
		}
		o.Failover = clusterFailover(c, stderr)
	}
	_, ok, err := tpcc.Loaded(ctx, d)
	if err != nil {
		return fmt.Errorf("%s: %w", redact.URI(uri), err)
	}
	if !ok {
		if !load {
			return fmt.Errorf("%w: database %q holds no TPC-C load (run `decongestant tpcc load --scale small` first, or pass --load)", tpcc.ErrEmpty, db)
		}
		if err := loadSmall(ctx, d, stderr); err != nil {
			return err
		}
	}
	res, err := tpcc.ACID(ctx, d, o)
	if err != nil {
		return err
	}
	printErr := printACID(stdout, res)
	if out != "" {
		if err := writeJSONPath(out, res); err != nil {
			return err
		}
	}
	return printErr
}

// loadSmall loads one warehouse at the small scale into db.
func loadSmall(ctx context.Context, db *mongo.Database, stderr io.Writer) error {
	f := tpcc.NewFlags()
	if err := f.Flags().Parse([]string{"--scale", "small", "--warehouses", "1"}); err != nil {
		return err
	}
	cfg, err := f.Config(workload.Shared{Seed: 1, WriteConcern: "majority"})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "acid: database %q holds no TPC-C load: loading 1 warehouse at --scale small\n", db.Name())
	if err := tpcc.Load(ctx, db, cfg, tpcc.LoadOptions{Progress: workload.PrintProgress(stderr)}); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

// sameSet checks that the cluster in the directory is the replica set the
// client is connected to, so the durability test kills the right primary.
func sameSet(ctx context.Context, client *mongo.Client, c *cluster.Cluster) error {
	var hello struct {
		SetName string   `bson:"setName"`
		Hosts   []string `bson:"hosts"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	if hello.SetName != c.ReplSet() {
		return fmt.Errorf("it holds replica set %q, but --uri reaches %q", c.ReplSet(), hello.SetName)
	}
	for _, m := range c.Members() {
		if slices.Contains(hello.Hosts, m.Host) {
			return nil
		}
	}
	return fmt.Errorf("none of its members (%s) is a host of the set --uri reaches (%s)",
		strings.Join(cluster.Names(c.Members()), ", "), strings.Join(hello.Hosts, ", "))
}

// clusterFailover kills the primary of c with SIGKILL and restarts it.
func clusterFailover(c *cluster.Cluster, stderr io.Writer) *tpcc.Failover {
	return &tpcc.Failover{
		KillPrimary: func(ctx context.Context) (string, error) {
			p, err := c.Primary(ctx)
			if err != nil {
				return "", err
			}
			if err := c.KillMember(ctx, p.Name); err != nil {
				return "", err
			}
			fmt.Fprintf(stderr, "acid: killed the primary %s (%s)\n", p.Name, p.Host)
			return p.Name, nil
		},
		Restart: func(ctx context.Context, member string) error {
			if err := c.RestartMember(ctx, member); err != nil {
				return err
			}
			if err := c.WaitHealthy(ctx); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "acid: restarted %s; the replica set is healthy\n", member)
			return nil
		},
	}
}

// printACID prints one line per test and fails when any failed.
func printACID(w io.Writer, res []tpcc.ACIDResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "test\tclause\tresult\ttime\tdetail")
	failed := 0
	for _, r := range res {
		if r.Status == tpcc.Fail {
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Test, r.Clause, strings.ToUpper(r.Status.String()), r.Duration.Round(time.Millisecond), r.Detail)
	}
	tw.Flush()
	if failed > 0 {
		return fmt.Errorf("%d of %d ACID tests failed", failed, len(res))
	}
	return nil
}
