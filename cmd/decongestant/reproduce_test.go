package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/reproduce"
	"github.com/decongestant/decongestant/results"
)

// TestReproduceStepsParse parses every command every figure runs, quick
// and full, against the real flag sets, so that no reproduction can
// name a flag that does not exist or a value a flag refuses.
func TestReproduceStepsParse(t *testing.T) {
	const uri = "mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs&localThresholdMS=1000"
	dir, out := t.TempDir(), t.TempDir()
	// the capacity steps' outputs (fig. 3's YCSB-A, fig. 4's TPC-C), for the rates later steps read from them
	capacity := &results.Results{Runs: []results.Run{{Policy: "primary", Clients: 1, Summary: results.Summary{ReadTput: 150, WriteTput: 150}}}}
	for _, name := range []string{"capacity-a", "capacity-tpcc"} {
		if err := capacity.WriteJSONPath(filepath.Join(out, name+".json")); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, e := range reproduce.Experiments(reproduce.Figures()) {
		for _, quick := range []bool{true, false} {
			for _, s := range e.AllSteps(quick) {
				// a set whose primary saturates at 7 clients: the paper's counts scaled down
				args, err := reproduce.FillClients(reproduce.Fill(s.Args, uri, dir, out), &reproduce.Scaling{Ours: 7, Paper: 50})
				if err == nil {
					args, err = reproduce.FillRate(args, out)
				}
				if err != nil {
					t.Errorf("%s: %v", e.Name, err)
					continue
				}
				if s.Resumable { // as a resumed reproduction runs it
					args = append(args, "--resume")
				}
				switch {
				case args[0] == "bench":
					_, _, err = benchOptions(args[1:], io.Discard)
				case args[0] == "consistency" && args[1] == "matrix":
					var f *matrixFlags
					if f, _, err = parseMatrixFlags(args[2:], io.Discard); err == nil {
						err = f.resolve()
					}
				case args[0] == "tpcc" && args[1] == "acid":
					continue // parsed by its own tests
				case args[0] == "tpcc" && args[1] == "check":
					c, rest, _ := lookup(commands(), args)
					err = c.parse(rest)
				default:
					t.Errorf("%s: no parser for %q in this test", e.Name, s.Command())
					continue
				}
				n++
				if err != nil {
					t.Errorf("%s (quick %v): %s: %v", e.Name, quick, s.Command(), err)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d commands parsed", n)
	}
}

func TestReproduceList(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"reproduce", "list"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, p := range reproduce.Papers {
		if !strings.Contains(s, p.Title) || !strings.Contains(s, p.Venue) {
			t.Errorf("list does not name %q (%s)", p.Title, p.Venue)
		}
	}
	for _, want := range []string{"cannot run here", "runs scaled down", "mongos", "HDD", "M50"} {
		if !strings.Contains(s, want) {
			t.Errorf("list does not say %q", want)
		}
	}
	for _, f := range reproduce.Figures() {
		if !strings.Contains(s, "  "+f.ID+" ") {
			t.Errorf("list lacks %s", f.Name())
		}
	}
	if strings.Contains(strings.ToLower(s), "seed 0") {
		t.Error("list names a paper by its file number")
	}
}

func TestReproduceBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "seed000", "fig5"}, "the papers are decongestant, rpm, tpcc, consistency, read-hints"},
		{[]string{"reproduce", "decongestant", "fig99"}, "its figures are fig1, table1, fig2"},
		{[]string{"reproduce", "read-hints", "fig9"}, "cannot run here: needs a sharded cluster"},
		{[]string{"reproduce", "decongestant", "fig1"}, "diagram: nothing to run"},
		{[]string{"reproduce", "seed000"}, "unknown paper \"seed000\""},
		{[]string{"reproduce", "decongestant"}, "which figure?"},
		{[]string{"reproduce", "all"}, "with --quick"},
		{[]string{"reproduce", "decongestant", "fig5", "--bogus"}, "flag provided but not defined"},
	} {
		err := run(context.Background(), tt.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one containing %q", tt.args, err, tt.want)
		}
		if errors.Is(err, errHelp) {
			t.Errorf("%v: usage error without a reason", tt.args)
		}
	}
}

func TestReproduceDryRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"reproduce", "all", "--quick", "--dry-run"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, e := range reproduce.Experiments(reproduce.Figures()) {
		if !strings.Contains(s, "# "+e.Name+" ") {
			t.Errorf("dry run lacks %s", e.Name)
		}
	}
	if !strings.Contains(s, "decongestant bench ycsb --uri {uri}") || !strings.Contains(s, "decongestant cluster up --dir {dir} --cpu 0.35") {
		t.Errorf("dry run does not show the commands:\n%s", s)
	}
}

// TestSaturateScalesTheSteps: the runner runs the probe first, finds the
// point in what it wrote, and keeps the scaling of every count the steps
// name beside the results, where the judge reads it.
func TestSaturateScalesTheSteps(t *testing.T) {
	var e *reproduce.Experiment
	for _, x := range reproduce.Experiments(reproduce.Figures()) {
		if x.Name == "decongestant-fig5" {
			e = x
		}
	}
	if e == nil || e.Saturate == nil {
		t.Fatal("decongestant-fig5 has no saturation probe")
	}
	dir := t.TempDir()
	var ran []string
	do := func(label string, s reproduce.Step) error {
		ran = append(ran, label)
		res := &results.Results{}
		for i, c := range []int{1, 2, 4, 8, 16} { // flat from 8 clients
			tput := []float64{300, 600, 1100, 1950, 2000}[i]
			res.Runs = append(res.Runs, results.Run{Policy: "primary", Clients: c, Summary: results.Summary{ReadTput: tput}})
		}
		return res.WriteJSONPath(filepath.Join(dir, s.Output+".json"))
	}
	sc, err := saturate(e, false, dir, do)
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 || ran[0] != "saturation probe" {
		t.Errorf("ran %q, want the probe alone", ran)
	}
	if sc.Ours != 8 || !sc.Reached || sc.Paper != 50 {
		t.Errorf("scaling %+v, want 8 clients of the paper's 50, reached", sc)
	}
	var kept reproduce.Scaling
	if err := dirOutputs(dir).JSON(reproduce.ScalingOutput, &kept); err != nil {
		t.Fatal(err)
	}
	// fig. 5's full sweep, 20-180 clients, at 8/50
	if kept.Mapping != "20→3, 60→10, 100→16, 140→22, 180→29" {
		t.Errorf("kept mapping %q", kept.Mapping)
	}
	if _, err := saturate(e, false, t.TempDir(), func(string, reproduce.Step) error { return nil }); err == nil {
		t.Error("a probe that wrote nothing gave a scaling")
	}
}

// TestReproduceResumeSkipsFinished: with --resume, an experiment whose
// full-shape run finished in --out is judged from what it kept, not run
// again (the committed fig. 9-10 run here; a run would need a mongod and
// fail); one whose record says it failed is run again.
func TestReproduceResumeSkipsFinished(t *testing.T) {
	src := filepath.Join("..", "..", "docs", "results", "reproduce-decongestant-fig9-10-2026-11-27", "decongestant-fig9-10")
	out := t.TempDir()
	dir := filepath.Join(out, "decongestant-fig9-10")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	f, err := reproduce.Find("decongestant", "fig9")
	if err != nil {
		t.Fatal(err)
	}
	rf := reproduceFlags{resume: true, out: out, mongod: filepath.Join(out, "no-mongod")}
	var stdout, stderr bytes.Buffer
	if err := reproduceRun(context.Background(), reproduce.FiguresOf(f.Experiment), rf, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "finished in an earlier run") || strings.Contains(stderr.String(), "step 1") {
		t.Errorf("the finished experiment ran again:\n%s", stderr.String())
	}
	ix, err := readIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ix.Entries {
		if e.Verdict != reproduce.Agrees || e.Quick {
			t.Errorf("%s: %s (quick %v), want the kept run's agreement", e.Figure, e.Verdict, e.Quick)
		}
	}
	// a record of a failed run is not finished: --resume runs it again (and fails here, without a mongod)
	if err := writeRunRecord(dir, runRecord{Commands: []string{"x"}, TookS: 5, Error: "interrupted"}); err != nil {
		t.Fatal(err)
	}
	if finished(dir, false) {
		t.Error("a failed run counted as finished")
	}
	if err := writeRunRecord(dir, runRecord{Commands: []string{"x"}, TookS: 5}); err != nil {
		t.Fatal(err)
	}
	if !finished(dir, false) || finished(dir, true) {
		t.Error("a finished full-shape record: finished as full, not as quick")
	}
}

// TestReproduceResumeKeepsFinishedSteps: with --resume, an unfinished
// experiment whose steps each start their own set (read-hints fig. 10,
// three cache sizes) keeps the steps an earlier sitting finished and whose
// output is still there, and runs the rest (here failing to start a set
// without a mongod); a step whose output is gone, or a quick sitting's
// steps for the full shape, run again.
func TestReproduceResumeKeepsFinishedSteps(t *testing.T) {
	f, err := reproduce.Find("read-hints", "fig10")
	if err != nil {
		t.Fatal(err)
	}
	steps := f.Experiment.Steps(false)
	if len(steps) < 3 {
		t.Fatalf("fig. 10 has %d steps, want a set per cache size", len(steps))
	}
	earlier := runRecord{TookS: 100, Error: "context canceled", MongodVersion: "db version v6.0.5"}
	for i, s := range steps[:2] {
		line := fmt.Sprintf("decongestant cluster up --dir {dir} %s", strings.Join(s.Cluster.Args, " "))
		earlier.Commands = append(earlier.Commands, line, s.Command())
		earlier.Steps = append(earlier.Steps, stepRecord{Command: s.Command(), Commands: []string{line, s.Command()}, TookS: float64(40 + i)})
	}
	sitting := func(t *testing.T, rec runRecord, outputs ...string) (string, string) {
		out := t.TempDir()
		dir := filepath.Join(out, f.Experiment.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, o := range outputs {
			if err := os.WriteFile(filepath.Join(dir, o), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeRunRecord(dir, rec); err != nil {
			t.Fatal(err)
		}
		rf := reproduceFlags{resume: true, out: out, mongod: filepath.Join(out, "no-mongod")}
		var stdout, stderr bytes.Buffer
		if err := reproduceRun(context.Background(), reproduce.FiguresOf(f.Experiment), rf, &stdout, &stderr); err == nil {
			t.Fatalf("the third step ran without a mongod:\n%s", stderr.String())
		}
		return dir, stderr.String()
	}
	kept := func(log string, step int) bool {
		return strings.Contains(log, fmt.Sprintf("step %d: finished in an earlier sitting", step))
	}

	dir, log := sitting(t, earlier, steps[0].Output+".json.gz", steps[1].Output+".json")
	if !kept(log, 1) || !kept(log, 2) || kept(log, 3) {
		t.Fatalf("want steps 1 and 2 kept, 3 run:\n%s", log)
	}
	rec, err := readRunRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Steps) != 2 || rec.Steps[1].Command != steps[1].Command() || rec.Error == "" {
		t.Errorf("the new record: %d steps finished, error %q; want the two kept and the failure", len(rec.Steps), rec.Error)
	}
	if len(rec.Commands) < 4 || rec.Commands[3] != steps[1].Command() {
		t.Errorf("the new record's commands %q do not begin with the kept steps'", rec.Commands)
	}
	if rec.TookS < 81 {
		t.Errorf("took %.0f s, want the kept steps' 81 s and this sitting's", rec.TookS)
	}

	if _, log := sitting(t, earlier, steps[0].Output+".json"); !kept(log, 1) || kept(log, 2) {
		t.Errorf("step 2's output is gone: want step 1 kept, step 2 run:\n%s", log)
	}
	quick := earlier
	quick.Quick = true
	if _, log := sitting(t, quick, steps[0].Output+".json", steps[1].Output+".json"); kept(log, 1) {
		t.Errorf("a quick sitting's step kept for the full shape:\n%s", log)
	}
}

// TestCPUInfoModel: the index names the processor from /proc/cpuinfo's
// first "model name", its spacing folded; none is "".
func TestCPUInfoModel(t *testing.T) {
	in := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel\t\t: 1\nmodel name\t: AMD EPYC  7B13 64-Core Processor\nflags\t\t: fpu\n\nprocessor\t: 1\nmodel name\t: other\n"
	if got, want := cpuinfoModel(strings.NewReader(in)), "AMD EPYC 7B13 64-Core Processor"; got != want {
		t.Errorf("model %q, want %q", got, want)
	}
	if got := cpuinfoModel(strings.NewReader("processor\t: 0\nmodel\t\t: 1\n")); got != "" {
		t.Errorf("model %q from a cpuinfo without a model name, want none", got)
	}
	env := reproduce.Environment{Version: "v", OS: "linux/amd64", CPUs: 2, CPUModel: "AMD EPYC", Go: "go1"}
	if s := env.String(); !strings.Contains(s, "2 CPUs (AMD EPYC)") {
		t.Errorf("environment line %q does not name the processor", s)
	}
}

// TestJudgeOnlyWithoutAnIndex: runs kept elsewhere (a committed run's
// experiment directory, no index beside it) judged again: the index says
// when it was judged and claims no start time or machine for the runs,
// whose commands, mongod and time each figure names itself.
func TestJudgeOnlyWithoutAnIndex(t *testing.T) {
	src := filepath.Join("..", "..", "docs", "results", "reproduce-decongestant-fig9-10-2026-11-27", "decongestant-fig9-10")
	out := t.TempDir()
	if err := os.CopyFS(filepath.Join(out, "decongestant-fig9-10"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	f, err := reproduce.Find("decongestant", "fig9")
	if err != nil {
		t.Fatal(err)
	}
	rf := reproduceFlags{judge: true, out: out}
	var stdout, stderr bytes.Buffer
	if err := reproduceRun(context.Background(), reproduce.FiguresOf(f.Experiment), rf, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	ix, err := readIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Started != "" || ix.Machine != "" || ix.Judged == "" {
		t.Errorf("index started %q on %q, judged %q; want only when it was judged", ix.Started, ix.Machine, ix.Judged)
	}
	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "Started") || !strings.Contains(string(html), "Judged again "+ix.Judged) {
		t.Errorf("the page does not say it was judged from kept runs:\n%.600s", html)
	}
	for _, e := range ix.Entries {
		if len(e.Ran) == 0 || e.MongodVersion == "" || e.TookS == 0 {
			t.Errorf("%s: no commands (%d), mongod (%q) or time (%v) of the run that made it", e.Figure, len(e.Ran), e.MongodVersion, e.TookS)
		}
	}
}

// TestMeasuredBefore: a resumed matrix's figure counts the time its earlier
// sittings measured (the journal's iterations), so a matrix gathered over
// several sittings does not claim to have taken only the last one.
func TestMeasuredBefore(t *testing.T) {
	f, err := reproduce.Find("consistency", "matrix")
	if err != nil {
		t.Fatal(err)
	}
	s := f.Experiment.Steps(false)[0]
	dir := t.TempDir()
	if got := measuredBefore(dir, s); got != 0 {
		t.Errorf("no matrix yet: %v s", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(s.Output)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, s.Output+".json"), []byte(`{"config":{"setups":[{"name":"operation"}]},"cells":[],"resumed_iterations":180,"resumed_s":18200.5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := measuredBefore(dir, s); got != 18200.5 {
		t.Errorf("a matrix resumed from 180 iterations: %v s, want 18200.5", got)
	}
	s.Resumable = false
	if got := measuredBefore(dir, s); got != 0 {
		t.Errorf("a step without a journal: %v s", got)
	}
}
