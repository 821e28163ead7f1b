package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/sprobe"
	"github.com/decongestant/decongestant/workload/ycsb"
)

// runTinyDemo runs the demo with one short policy run on a small set, its temporary cluster
// directory under tmp, stdout and stderr in one stream.
func runTinyDemo(t *testing.T, tmp string, extra ...string) (string, error) {
	t.Helper()
	t.Setenv("TMPDIR", tmp) // the demo's default cluster directory is os.MkdirTemp("", ...)
	testutil.KillMongodsUnder(t, tmp)
	args := append([]string{"demo", "--records", "2000", "--duration", "4s", "--warmup", "0s", "--period", "2s",
		"--policies", "primary", "--sprobe=false", "--member-stats=false", "--cpu", "0",
		"--out-dir", filepath.Join(tmp, "out")}, extra...)
	var all testutil.SyncBuffer // one stream for stdout and stderr, in the order written
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := run(ctx, args, &all, &all)
	return all.String(), err
}

// demoDirs returns the demo's temporary cluster directories left in tmp.
func demoDirs(t *testing.T, tmp string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, "decongestant-demo-*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// tableLast checks that the comparison table comes after every progress line of the demo.
func tableLast(t *testing.T, out string) {
	t.Helper()
	table := strings.Index(out, "results.json: workload ycsb")
	if table < 0 {
		t.Fatalf("no comparison table in the output:\n%s", out)
	}
	for _, prefix := range []string{"demo: ", "report: ", "plots: ", "  ["} {
		if i := strings.LastIndex(out, "\n"+prefix); i > table {
			t.Errorf("a %q line comes after the comparison table:\n%s", prefix, out[table:])
		}
	}
}

func TestDemoKeepLeavesAWorkingCluster(t *testing.T) {
	testutil.SkipIfShort(t)
	tmp := t.TempDir()
	out, err := runTinyDemo(t, tmp, "--keep")
	if err != nil {
		t.Fatalf("demo --keep: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`cluster down --dir (\S+)\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no `cluster down --dir` hint in the output:\n%s", out)
	}
	dir := m[1]
	c, err := cluster.Open(dir)
	if err != nil {
		t.Fatalf("the kept cluster's directory %s: %v", dir, err)
	}
	if live := testutil.MongodsUnder(dir); len(live) != len(c.Members()) {
		t.Errorf("%d mongods run on %s, want its %d members", len(live), dir, len(c.Members()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.WaitHealthy(ctx); err != nil {
		t.Errorf("the kept cluster is not healthy: %v", err)
	}
	tableLast(t, out)
	if _, stderr, err := runCLI(t, "cluster", "down", "--dir", dir); err != nil {
		t.Fatalf("the printed `cluster down --dir %s` failed: %v\n%s", dir, err, stderr)
	}
	if live := testutil.MongodsUnder(dir); len(live) > 0 {
		t.Errorf("mongods %v still run on %s after cluster down", live, dir)
	}
}

func TestDemoTearsItsClusterDown(t *testing.T) {
	testutil.SkipIfShort(t)
	tmp := t.TempDir()
	out, err := runTinyDemo(t, tmp)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if live := testutil.MongodsUnder(tmp); len(live) > 0 {
		t.Errorf("mongods %v still run after the demo", live)
	}
	if left := demoDirs(t, tmp); len(left) > 0 {
		t.Errorf("the demo left its cluster directory %v", left)
	}
	if _, err := os.Stat(filepath.Join(tmp, "out", "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
	tableLast(t, out)
}

// TestDemoProbeWritesEvery50ms: the demo's capped members get the S probe's writer at 50 ms
// (at 5 ms it took over half of a 0.35-CPU primary); bench keeps the probe's own default.
func TestDemoProbeWritesEvery50ms(t *testing.T) {
	ycsbMeta, err := workload.Lookup(ycsb.Name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		define func(*flag.FlagSet) action
		want   string
	}{
		{"demo", defineDemo, "50ms"},
		{"bench ycsb", defineBench(ycsbMeta), sprobe.DefaultWriteInterval.String()},
	} {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.define(fs)
		if got := fs.Lookup("sprobe-write-interval").DefValue; got != c.want {
			t.Errorf("%s: --sprobe-write-interval defaults to %s, want %s", c.name, got, c.want)
		}
	}
}
