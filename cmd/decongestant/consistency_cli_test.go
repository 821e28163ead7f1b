package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConsistencyBadInput: every bad flag is refused before a cluster
// starts or anything is written.
func TestConsistencyBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	check := []string{"consistency", "check", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--out", out}
	tests := []rejection{
		{"no subcommand", []string{"consistency"}, "usage: decongestant consistency check|verify|matrix"},
		{"unknown subcommand", []string{"consistency", "prove"}, `unknown consistency command "prove"`},
		{"unknown read concern", append(check, "--rc", "snapshot"), `read concern "snapshot": want one of local, majority, linearizable, available`},
		{"unknown write concern", append(check, "--w", "all"), `write concern "all"`},
		{"linearizable off the primary", append(check, "--rc", "linearizable", "--read", "secondary"),
			"MongoDB serves linearizable reads only on the primary"},
		{"unknown read target", append(check, "--read", "fastest"), `read "fastest" is neither a read preference`},
		{"document over 16 MB", append(check, "--doc-size", "17000000"), "document size 17000000 must be at most"},
		{"document below the register's fields", append(check, "--doc-size", "10"), "below the register's own fields"},
		{"negative interval", append(check, "--write-interval", "-1ms"), "intervals must not be negative"},
		{"no writers", append(check, "--writers", "0"), "writers 0 must be at least 1"},
		{"bad read share", append(check, "--read-share", "1"), "read share 1 must be in [0, 1)"},
		{"bad fault schedule", append(check, "--faults", "10s:partition=n2"), `"partition=n2" is not an action`},
		{"unknown nemesis", append(check, "--nemesis", "partition"), `nemesis "partition"`},
		{"nemesis with writes", append(check, "--nemesis", "stepdown", "--writes", "10"), "give --duration, not --writes"},
		{"nemesis longer than the run", append(check, "--nemesis", "kill", "--duration", "30s", "--nemesis-interval", "20s"), "no room"},
		{"faults on a set it did not start", append(check, "--faults", "10s:stepdown"), "give --cluster-dir with --uri"},
		{"bad bound", append(check, "--max-staleness", "-1s"), "--max-staleness"},
		{"verify without a file", []string{"consistency", "verify"}, "usage: decongestant consistency verify"},
		{"verify a missing file", []string{"consistency", "verify", filepath.Join(dir, "none.jsonl")}, "no such file"},
	}
	expectRejected(t, tests, out)
}

// TestConsistencyVerifyNamesTheBadLine: a truncated history is refused
// with the line where it stops, never checked in part.
func TestConsistencyVerifyNamesTheBadLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	lines := `{"header":{"history":1,"keys":["k1"],"started":"2026-01-01T00:00:00Z"}}
{"op":{"client":1,"key":"k1","kind":"write","value":1,"version":1,"outcome":"ok","invoke_ns":1,"complete_ns":2}}
{"op":{"client":2,"key":"k1","kind":"read","value":1,"version":1,"outcome":"ok","invoke_ns":3,"complete_ns":4}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCLI(t, "consistency", "verify", path)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("err %v, want the truncation after line 3", err)
	}
	if stdout != "" {
		t.Fatalf("a truncated history was checked: %q", stdout)
	}
	if err := os.WriteFile(path, []byte(lines+`{"end":{"ops":2}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err = runCLI(t, "consistency", "verify", path)
	if err != nil || !strings.Contains(stdout, "linearizable: ok") {
		t.Fatalf("complete history: err %v, output %q", err, stdout)
	}
}

// TestConsistencyMatrixBadInput: every bad matrix flag is refused before a
// cluster starts or anything is written.
func TestConsistencyMatrixBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	matrix := []string{"consistency", "matrix", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--out", out}
	tests := []rejection{
		{"unknown read concern", append(matrix, "--rc", "local,snapshot"), `read concern "snapshot": want one of local, majority, linearizable, available`},
		{"unknown write concern", append(matrix, "--w", "1,all"), `write concern "all"`},
		{"unacknowledged writes", append(matrix, "--w", "0"), "unacknowledged writes leave staleness"},
		{"only linearizable off the primary", append(matrix, "--rc", "linearizable", "--reads", "secondary,nearest"),
			"MongoDB serves linearizable reads only on the primary"},
		{"only linearizable on a policy", append(matrix, "--rc", "linearizable", "--reads", "decongestant"),
			"MongoDB serves linearizable reads only on the primary"},
		{"unknown read target", append(matrix, "--reads", "primary,fastest"), `read "fastest" is neither a read preference`},
		{"size over 16 MB", append(matrix, "--sizes", "1K,17M"), `size "17M" is over MongoDB's 16 MiB document limit`},
		{"size at 16 MB", append(matrix, "--sizes", "16M"), "MongoDB's 16 MiB limit less room for the register's log"},
		{"size below the fields", append(matrix, "--sizes", "10"), "below the register's own fields"},
		{"size not a size", append(matrix, "--sizes", "1G"), `size "1G": want a number of bytes`},
		{"negative write interval", append(matrix, "--write-interval", "-1ms"), "intervals must not be negative"},
		{"negative read interval", append(matrix, "--read-interval", "-1ms"), "intervals must not be negative"},
		{"negative interval with --full", append(matrix, "--full", "--write-interval", "-1s"), "intervals must not be negative"},
		{"unknown setup", append(matrix, "--setups", "operation,bulk"), `setup "bulk": want operation, session or multi`},
		{"no iterations", append(matrix, "--iterations", "0"), "iterations 0 must be at least 1"},
		{"no writes", append(matrix, "--writes", "0"), "writes 0 must be at least 1"},
		{"bad bound", append(matrix, "--max-staleness", "-1s"), "--max-staleness"},
		{"stray argument", append(matrix, "extra"), "unexpected arguments"},
	}
	expectRejected(t, tests, out)
}

// TestConsistencyMatrixFull: --full is the thesis' run, and the flags
// given explicitly win over it.
func TestConsistencyMatrixFull(t *testing.T) {
	tests := []struct {
		args       []string
		iterations int
		writes     int
		interval   time.Duration
	}{
		{nil, 3, 20, 20 * time.Millisecond},
		{[]string{"--full"}, 10, 100, time.Second},
		{[]string{"--full", "--iterations", "2"}, 2, 100, time.Second},
		{[]string{"--write-interval", "5ms", "--full"}, 10, 100, 5 * time.Millisecond},
	}
	for _, tt := range tests {
		f, _, err := parseMatrixFlags(tt.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		o := f.o
		if o.Iterations != tt.iterations || o.Writes != tt.writes || o.WriteInterval != tt.interval || o.ReadInterval != time.Millisecond {
			t.Errorf("%v: %d iterations of %d writes %v apart (reads %v), want %d of %d %v apart",
				tt.args, o.Iterations, o.Writes, o.WriteInterval, o.ReadInterval, tt.iterations, tt.writes, tt.interval)
		}
		if len(o.Setups) != 3 || len(o.Sizes) != 4 || len(o.W)*len(o.RC) != 6 || o.Sizes[3] != 1<<20 {
			t.Errorf("%v: setups %v sizes %v pairs %v x %v", tt.args, o.Setups, o.Sizes, o.W, o.RC)
		}
	}
}

// rejection is a command line and what its error must say.
type rejection struct {
	name string
	args []string
	want string
}

// expectRejected runs every command line, expects its error to say what
// it should, and nothing to have been written to out.
func expectRejected(t *testing.T, tests []rejection, out string) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCLI(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a rejected command left %s behind (%v)", out, err)
	}
}
