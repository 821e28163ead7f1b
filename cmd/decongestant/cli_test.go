package main

import (
	"errors"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/bench"
)

// TestHelpEveryCommand: -h and --help on every command of the table print its help on stdout
// (synopsis, summary, every flag) and succeed, with nothing on stderr.
func TestHelpEveryCommand(t *testing.T) {
	for _, c := range commands() {
		for _, h := range []string{"-h", "--help"} {
			t.Run(c.name+" "+h, func(t *testing.T) {
				args := append(strings.Fields(c.name), h)
				stdout, stderr, err := runCLI(t, args...)
				if err != nil || exitCode(err, false) != 0 {
					t.Fatalf("%v: %v (exit %d)", args, err, exitCode(err, false))
				}
				if stderr != "" {
					t.Errorf("%v wrote on stderr:\n%s", args, stderr)
				}
				if want := "usage: decongestant " + c.name; !strings.HasPrefix(stdout, want) {
					t.Errorf("%v: help does not start with %q:\n%s", args, want, stdout)
				}
				fs, _ := c.flagSet()
				fs.VisitAll(func(f *flag.Flag) {
					if !strings.Contains(stdout, "  -"+f.Name+" ") && !strings.Contains(stdout, "  -"+f.Name+"\n") {
						t.Errorf("%v: help does not list -%s", args, f.Name)
					}
				})
			})
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"cluster", "-h"}, {"bench", "--help"}, {"tpcc", "-h"}, {"consistency", "-h"}} {
		stdout, _, err := runCLI(t, args...)
		if err != nil || !strings.HasPrefix(stdout, "usage: decongestant") && !strings.Contains(stdout, "\nusage:\n") {
			t.Errorf("%v: %v\n%s", args, err, stdout)
		}
	}
}

// TestUsageListsEveryCommand: the top-level usage names every command (a group's subcommands
// in its one line).
func TestUsageListsEveryCommand(t *testing.T) {
	stdout, _, err := runCLI(t, "-h")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if !strings.Contains(stdout, "decongestant "+c.name) &&
			!(len(words) == 2 && regexp.MustCompile(`decongestant `+words[0]+` \S*\b`+words[1]+`\b`).MatchString(stdout)) {
			t.Errorf("usage does not name %q:\n%s", c.name, stdout)
		}
	}
}

// TestUsageErrorsExit2: a command line that names no command, or a flag or argument the command
// does not take, is a usage error (exit 2) that says what is wrong.
func TestUsageErrorsExit2(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"fly"}, `unknown command "fly"`},
		{[]string{"cluster"}, "usage: decongestant cluster up|down|status"},
		{[]string{"cluster", "explode"}, `unknown cluster command "explode"`},
		{[]string{"bench", "tpcx"}, `unknown workload "tpcx"`},
		{[]string{"version", "now"}, `version: unexpected arguments ["now"]`},
		{[]string{"report"}, "usage: decongestant report"},
		{[]string{"consistency", "verify", "a.jsonl", "b.jsonl"}, "usage: decongestant consistency verify"},
		{[]string{"proxy-user", "--user", "app"}, "--file and --user are required"},
	}
	for _, c := range commands() {
		tests = append(tests, struct {
			args []string
			want string
		}{append(strings.Fields(c.name), "--no-such-flag"), c.name + ": flag provided but not defined: -no-such-flag"})
	}
	for _, tt := range tests {
		_, _, err := runCLI(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.args, err, tt.want)
		}
		if code := exitCode(err, false); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%v)", tt.args, code, err)
		}
	}
	if code := exitCode(errors.New("cluster down: no cluster in /x"), false); code != 1 {
		t.Errorf("a failure exits %d, want 1", code)
	}
}

// TestFlagHelpRenders: every flag's help renders as meant by flag.PrintDefaults: a back-quoted
// word in the help is the flag's argument name, so a back-quoted command line there would be
// shown as the argument ("-keep decongestant cluster down --dir DIR"), and a second pair of back
// quotes is printed as is.
func TestFlagHelpRenders(t *testing.T) {
	argName := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:-]*$`)
	for _, c := range commands() {
		fs, _ := c.flagSet()
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			if name != "" && !argName.MatchString(name) {
				t.Errorf("%s -%s: argument name %q (back quotes in its help)", c.name, f.Name, name)
			}
			if strings.Contains(usage, "`") {
				t.Errorf("%s -%s: back quotes left in its help: %q", c.name, f.Name, usage)
			}
			if strings.TrimSpace(usage) == "" {
				t.Errorf("%s -%s has no help", c.name, f.Name)
			}
			if regexp.MustCompile(`(?i)seed ?00\d|issue \d`).MatchString(usage) {
				t.Errorf("%s -%s names a paper by our tracker's number: %q", c.name, f.Name, usage)
			}
		})
	}
}

// TestPhasesHelpNamesEveryKey: --phases' help documents every key bench.ParsePhases takes, as
// its error for an unknown key lists them.
func TestPhasesHelpNamesEveryKey(t *testing.T) {
	_, err := bench.ParsePhases("1s:nosuchkey=1")
	m := regexp.MustCompile(`\(known: ([^)]*)\)`).FindStringSubmatch(fmtErr(err))
	if m == nil {
		t.Fatalf("the parser's error does not list its keys: %v", err)
	}
	keys := strings.Split(m[1], ", ")
	if len(keys) < 10 {
		t.Fatalf("only %d keys in %q", len(keys), m[1])
	}
	for _, c := range commands() {
		fs, _ := c.flagSet()
		f := fs.Lookup("phases")
		if f == nil {
			continue
		}
		for _, k := range keys {
			if !regexp.MustCompile(`\b` + k + `\b`).MatchString(f.Usage) {
				t.Errorf("%s --phases help does not name the key %q", c.name, k)
			}
			if _, err := bench.ParsePhases("1s:" + k + "=x"); err != nil && strings.Contains(err.Error(), "unknown key") {
				t.Errorf("key %q listed by the parser is unknown to it", k)
			}
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestDemoFlags: the demo starts its own cluster, so it takes no --uri; its help says it needs no
// URI, and the rest of the demo's flags parse without I/O.
func TestDemoFlags(t *testing.T) {
	stdout, _, err := runCLI(t, "demo", "-h")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "-uri") || strings.Contains(stdout, "(required)") {
		t.Errorf("demo -h offers --uri or a required flag:\n%s", stdout)
	}
	if !strings.Contains(stdout, "  -keep\n") {
		t.Errorf("demo -h renders -keep with an argument:\n%s", stdout)
	}
	c, _, _ := lookup(commands(), []string{"demo"})
	if err := c.parse([]string{"--uri", "mongodb://h/?replicaSet=rs0"}); err == nil || !strings.Contains(err.Error(), "not defined: -uri") {
		t.Errorf("demo --uri: %v", err)
	}
	fs, a := c.flagSet()
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if err := a.check(nil); err != nil {
		t.Fatal(err)
	}
	// The default policy against the drivers' own choice, its window widened.
	if got := fs.Lookup("policies").Value.String(); !strings.Contains(got, "leastwait") || !strings.Contains(got, "nearest:1s") {
		t.Errorf("the demo's policies are %q: want leastwait and nearest:1s", got)
	}
}

// TestWarnUncapped: the warning that the demo's members run uncapped says why, that the
// comparison is not meaningful, and where to read how to cap them.
func TestWarnUncapped(t *testing.T) {
	var b strings.Builder
	warnUncapped(&b, errors.New("cpu cgroup unavailable: /sys/fs/cgroup/cpu.max: read-only file system"))
	out := b.String()
	for _, want := range []string{"WITHOUT CPU caps", "read-only file system", "NOT meaningful", "docs/troubleshooting.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("warning does not say %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n < 4 {
		t.Errorf("warning of %d lines:\n%s", n, out)
	}
}

// TestParseDoesNoIO: checking a command line runs nothing: no cluster, no connection, no file
// read (the paths do not exist and the URIs name a port nothing listens on).
func TestParseDoesNoIO(t *testing.T) {
	uri := "mongodb://127.0.0.1:1/?replicaSet=rs0"
	for _, line := range []string{
		"cluster up --dir /nonexistent/rs --cpu 0.35", "cluster down --dir /nonexistent/rs", "cluster kill --dir /nonexistent --member n2",
		"bench ycsb --uri " + uri, "tpcc check --uri " + uri, "tpcc acid --uri " + uri + " --cluster-dir /nonexistent",
		"consistency check", "consistency matrix", "consistency verify /nonexistent.jsonl", "report /nonexistent.json",
		"reproduce decongestant fig5 --quick", "reproduce list", "proxy --uri " + uri, "proxy-user --file /nonexistent --user app",
		"mongod --mongod /nonexistent", "demo", "version",
	} {
		args := strings.Fields(line)
		c, rest, _ := lookup(commands(), args)
		if c == nil {
			t.Fatalf("%q: no command", line)
		}
		if err := c.parse(rest); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
}
