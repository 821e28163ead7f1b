package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/workload/tpcc"
)

// TestTPCCAcidBadInput: what `tpcc acid` rejects before it reaches a server.
func TestTPCCAcidBadInput(t *testing.T) {
	uri := "mongodb://127.0.0.1:1/?replicaSet=rs0"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--uri", uri, "--fast"}, "flag provided but not defined: -fast"},
		{"missing uri", []string{"--durability=false"}, "--uri is required"},
		{"unknown test", []string{"--uri", uri, "--test", "isolation-1,isolation-10"}, `unknown ACID test "isolation-10"`},
		{"no clients", []string{"--uri", uri, "--clients", "0"}, "--clients 0 must be at least 1"},
		{"bad warehouse", []string{"--uri", uri, "--warehouse", "0"}, "--warehouse 0 must be at least 1"},
		{"cluster dir without a cluster", []string{"--uri", uri, "--cluster-dir", t.TempDir()}, "--cluster-dir: no cluster in"},
		{"stray argument", []string{"--uri", uri, "now"}, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCLI(t, append([]string{"tpcc", "acid"}, tt.args...)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	stdout, _, err := runCLI(t, "tpcc", "acid", "--help")
	if err != nil || !strings.Contains(stdout, "TPC-C-on-MongoDB paper") || !strings.Contains(stdout, "-cluster-dir") {
		t.Fatalf("--help: %v\n%s", err, stdout)
	}
}

// TestTPCCAcidEndToEnd runs `tpcc acid` on a set of its own (the
// durability test kills its primary and restarts it through the cluster
// directory): an empty database is refused, --load loads a small one, all
// twelve tests pass, the JSON holds them; without --cluster-dir the
// durability test is skipped, saying why.
func TestTPCCAcidEndToEnd(t *testing.T) {
	testutil.SkipIfShort(t)
	dir := filepath.Join(t.TempDir(), "rs")
	stdout, stderr, err := runCLI(t, "cluster", "up", "--dir", dir)
	if err != nil {
		t.Fatalf("cluster up: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { runCLI(t, "cluster", "down", "--dir", dir) })
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	uri := lines[len(lines)-1]

	if _, _, err := runCLI(t, "tpcc", "acid", "--uri", uri, "--db", "tpcc_acid_empty"); err == nil ||
		!strings.Contains(err.Error(), "holds no TPC-C load") || !strings.Contains(err.Error(), "--load") {
		t.Fatalf("acid on an empty database: %v", err)
	}

	out := filepath.Join(t.TempDir(), "acid.json")
	stdout, stderr, err = runCLI(t, "tpcc", "acid", "--uri", uri, "--db", "tpcc_acid", "--load", "--cluster-dir", dir, "--clients", "3", "--out", out)
	if err != nil {
		t.Fatalf("tpcc acid: %v\n%s\n%s", err, stdout, stderr)
	}
	t.Logf("\n%s", stdout)
	if !strings.Contains(stderr, "loading 1 warehouse") || !strings.Contains(stderr, "killed the primary") || !strings.Contains(stderr, "healthy") {
		t.Errorf("stderr does not tell the load, the kill and the restart:\n%s", stderr)
	}
	if got := strings.Count(stdout, "PASS"); got != 12 {
		t.Errorf("%d PASS rows, want 12:\n%s", got, stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res []tpcc.ACIDResult
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 12 || res[11].Clause != "3.5.4" || res[11].Status != tpcc.Pass || res[0].Clause != "3.2.2.1" {
		t.Errorf("JSON results: %+v", res)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "needs --cluster-dir"},
		{[]string{"--durability=false", "--cluster-dir", dir}, "left out with --durability=false"},
	} {
		stdout, _, err := runCLI(t, append([]string{"tpcc", "acid", "--uri", uri, "--db", "tpcc_acid", "--test", "3.2.2.1,durability"}, tt.args...)...)
		if err != nil || !strings.Contains(stdout, "SKIPPED") || !strings.Contains(stdout, tt.want) || !strings.Contains(stdout, "PASS") {
			t.Errorf("%v: %v\n%s", tt.args, err, stdout)
		}
	}
}
