package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsistencyBadInput: every bad flag is refused before a cluster
// starts or anything is written.
func TestConsistencyBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	check := []string{"consistency", "check", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--out", out}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"consistency"}, "usage: decongestant consistency check|verify"},
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
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCLI(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a rejected check left %s behind (%v)", out, err)
	}
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
