package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/reproduce"
)

// TestReproduceQuickEndToEnd reproduces the Decongestant paper's fig. 11
// and Table 1 with --quick on a real local set the command starts: both
// figures are judged from the runs' results, the reports are drawn, and
// the set and its directory are gone afterwards.
func TestReproduceQuickEndToEnd(t *testing.T) {
	testutil.SkipIfShort(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the local set's directory is os.MkdirTemp("", ...)
	testutil.KillMongodsUnder(t, tmp)
	out := filepath.Join(tmp, "out")
	var all testutil.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if err := run(ctx, []string{"reproduce", "decongestant", "fig11", "--quick", "--out", out}, &all, &all); err != nil {
		testutil.SkipWithoutCgroups(t, err) // the members are CPU-capped
		t.Fatalf("reproduce: %v\n%s", err, all.String())
	}
	var ix reproduce.Index
	b, err := os.ReadFile(filepath.Join(out, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ix); err != nil {
		t.Fatal(err)
	}
	got := map[string]reproduce.Entry{}
	for _, e := range ix.Entries {
		got[e.Figure] = e
	}
	for _, name := range []string{"decongestant fig11", "decongestant table1"} {
		e, ok := got[name]
		if !ok {
			t.Fatalf("index lacks %s: %+v", name, ix.Entries)
		}
		if e.Error != "" || len(e.Rows) == 0 || e.Verdict == reproduce.NotMeasured {
			t.Errorf("%s: verdict %q, error %q, rows %+v", name, e.Verdict, e.Error, e.Rows)
		}
		for _, r := range e.Rows {
			if r.Verdict == reproduce.NotMeasured {
				t.Errorf("%s %q not measured: %s", name, r.Claim, r.Detail)
			}
		}
		if e.Report == "" {
			t.Errorf("%s: no report", name)
		} else if _, err := os.Stat(filepath.Join(out, e.Report)); err != nil {
			t.Errorf("%s: report: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
	// What the runs were made with is in the index, and their data is kept
	// gzipped beside it.
	if env := ix.Environment; env == nil || !strings.HasPrefix(env.Version, "decongestant ") || env.CPUs < 1 || env.Go == "" {
		t.Errorf("environment %+v, want the version, CPUs and Go", ix.Environment)
	}
	for _, name := range []string{"decongestant fig11", "decongestant table1"} {
		e := got[name]
		if !strings.HasPrefix(e.MongodVersion, "db version v") || !e.Quick || len(e.Commands) != len(e.Ran) ||
			!strings.Contains(strings.Join(e.Commands, "\n"), "--uri mongodb://127.0.0.1:") {
			t.Errorf("%s: mongod %q, quick %v, filled commands %q", name, e.MongodVersion, e.Quick, e.Commands)
		}
	}
	kept, _ := filepath.Glob(filepath.Join(out, "decongestant-fig11", "*.json.gz"))
	if plain, _ := filepath.Glob(filepath.Join(out, "decongestant-fig11", "fig11-*.json")); len(kept) != 2 || len(plain) != 0 {
		t.Errorf("kept %v and %v, want the two runs' results gzipped only", kept, plain)
	}
	if !strings.Contains(all.String(), "Stock-Level throughput with the probe over without") {
		t.Errorf("the verdict table was not printed:\n%s", all.String())
	}
	// Judged again from the outputs alone: the same verdicts, and the run's
	// record says how they were made.
	var again testutil.SyncBuffer
	if err := run(ctx, []string{"reproduce", "decongestant", "fig11", "--out", out, "--judge-only"}, &again, &again); err != nil {
		t.Fatalf("judge-only: %v\n%s", err, again.String())
	}
	var ix2 reproduce.Index
	if b, err := os.ReadFile(filepath.Join(out, "index.json")); err != nil || json.Unmarshal(b, &ix2) != nil {
		t.Fatalf("index after judge-only: %v", err)
	}
	if !ix2.Quick || ix2.Environment == nil || ix2.Environment.Version != ix.Environment.Version {
		t.Errorf("judged again: quick %v, environment %+v; want the runs' own", ix2.Quick, ix2.Environment)
	}
	for _, e := range ix2.Entries {
		if want := got[e.Figure]; e.Verdict != want.Verdict || len(e.Ran) == 0 || e.TookS != want.TookS {
			t.Errorf("%s judged again: verdict %q (was %q), %d commands, took %v (was %v)", e.Figure, e.Verdict, want.Verdict, len(e.Ran), e.TookS, want.TookS)
		}
	}
	left, _ := filepath.Glob(filepath.Join(tmp, "decongestant-reproduce-*"))
	if len(left) > 0 {
		t.Errorf("local set directories left behind: %v", left)
	}
}
