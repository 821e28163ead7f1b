// Command mutate is the mutation pass: it plants each mutation of a list
// (a one-place source edit: a dropped clause, an off-by-one) in turn, runs
// `go test -short` on the mutated file's package, restores the file, and
// prints per mutation whether a test caught it and per package how many
// were caught. A mutation that does not build is reported as invalid and
// not counted.
//
//	go run ./internal/mutate                      # every mutation in mutations.txt
//	go run ./internal/mutate -only proxy/wire     # those of one package
//	go run ./internal/mutate -name 'gain floor'   # those whose name matches
//
// It exits non-zero when a package catches fewer than -min of its
// mutations, or when a mutation's text is not found exactly once.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	list := fs.String("list", "internal/mutate/mutations.txt", "the mutations file (run from the module root)")
	only := fs.String("only", "", "run only the mutations of this package directory (e.g. proxy/wire)")
	name := fs.String("name", "", "run only the mutations whose name matches this regular expression")
	minCaught := fs.Float64("min", 0.9, "the fraction of each package's mutations that must be caught")
	timeout := fs.Duration("timeout", 10*time.Minute, "the time one package's tests may take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if !(*minCaught >= 0 && *minCaught <= 1) {
		return fmt.Errorf("-min %v is not a fraction in [0, 1]", *minCaught)
	}
	f, err := os.Open(*list)
	if err != nil {
		return err
	}
	ms, err := parse(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *list, err)
	}
	match, err := regexp.Compile(*name)
	if err != nil {
		return fmt.Errorf("-name: %w", err)
	}
	for _, m := range ms {
		if err := m.check(); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tally := map[string]*[2]int{} // package -> caught, counted
	for _, m := range ms {
		if *only != "" && m.pkg() != *only || !match.MatchString(m.Name) {
			continue
		}
		res, err := apply(ctx, m, *timeout)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-8s %-14s %s: %s\n", res, m.pkg(), m.id(), m.Name)
		if res == invalid {
			continue
		}
		t := tally[m.pkg()]
		if t == nil {
			t = new([2]int)
			tally[m.pkg()] = t
		}
		t[1]++
		if res == caught {
			t[0]++
		}
	}
	pkgs := make([]string, 0, len(tally))
	for p := range tally {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var short []string
	fmt.Fprintf(out, "\n%-14s %6s %6s %6s\n", "package", "caught", "of", "%")
	for _, p := range pkgs {
		t := tally[p]
		frac := float64(t[0]) / float64(t[1])
		fmt.Fprintf(out, "%-14s %6d %6d %5.0f%%\n", p, t[0], t[1], 100*frac)
		if frac < *minCaught {
			short = append(short, p)
		}
	}
	if len(short) > 0 {
		return fmt.Errorf("packages catching fewer than %.0f%% of their mutations: %s", 100**minCaught, strings.Join(short, ", "))
	}
	return nil
}

type result string

const (
	caught  result = "caught"
	missed  result = "MISSED"
	invalid result = "invalid"
)

// apply plants m, runs its package's short tests and restores the file,
// whatever happens (an interrupt or SIGTERM included).
func apply(ctx context.Context, m mutation, timeout time.Duration) (result, error) {
	if err := m.check(); err != nil {
		return "", err
	}
	orig, err := os.ReadFile(m.File)
	if err != nil {
		return "", err
	}
	mutated := strings.Replace(string(orig), m.From, m.To, 1)
	info, err := os.Stat(m.File)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(m.File, []byte(mutated), info.Mode()); err != nil {
		return "", err
	}
	defer func() {
		if err := os.WriteFile(m.File, orig, info.Mode()); err != nil {
			fmt.Fprintf(os.Stderr, "mutate: restoring %s: %v\n", m.File, err)
		}
	}()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "go", "test", "-short", "-count=1", "-vet=off", "./"+m.pkg()+"/")
	outb, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return missed, nil
	case strings.Contains(string(outb), "[build failed]") || strings.Contains(string(outb), "[setup failed]"):
		return invalid, nil
	case errors.As(err, &exit) || tctx.Err() != nil:
		return caught, nil
	}
	return "", fmt.Errorf("%s: go test: %w", m.id(), err)
}

// check reports an error unless m's text occurs exactly once in its file.
func (m mutation) check() error {
	b, err := os.ReadFile(m.File)
	if err != nil {
		return err
	}
	if n := strings.Count(string(b), m.From); n != 1 {
		return fmt.Errorf("%s (%s): the text to mutate occurs %d times in %s, want once", m.id(), m.Name, n, m.File)
	}
	return nil
}

// pkg is the mutated file's package directory.
func (m mutation) pkg() string { return filepath.ToSlash(filepath.Dir(m.File)) }

// id names m by its file and line in the list.
func (m mutation) id() string { return fmt.Sprintf("#%d", m.Line) }
