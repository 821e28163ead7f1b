package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md from the command table")

// referencePath is docs/cli.md, from this package's directory.
var referencePath = filepath.Join("..", "..", "docs", "cli.md")

const regenerate = "go test ./cmd/decongestant -run TestCLIReference -update"

// writeReference writes docs/cli.md: every command of the table with its synopsis, summary and
// flags. Defaults that depend on the machine are written as what they stand for.
func writeReference(w io.Writer, cmds []*command) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Command reference\n\n")
	fmt.Fprintf(&b, "<!-- Generated from the command table in cmd/decongestant/commands.go by\n     %s\n     Do not edit: change the table or a flag's help, then regenerate. -->\n\n", regenerate)
	fmt.Fprintf(&b, "Every command of `decongestant` with its flags, as `decongestant COMMAND -h` prints them.\n")
	fmt.Fprintf(&b, "A flag takes one dash or two (`-dir` is `--dir`), its value after a space or `=`; a boolean\n")
	fmt.Fprintf(&b, "flag is turned on by its name alone and off by `--flag=false`. `-h` or `--help` after any\n")
	fmt.Fprintf(&b, "command prints its help. Exit status: 0 success, 1 failure, 2 a usage error (unknown command,\n")
	fmt.Fprintf(&b, "flag or argument), 130 interrupted.\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "- [%s](#%s): %s\n", c.name, anchor(c), mdText(c.summary))
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n## decongestant %s\n\n```text\n%s\n```\n\n%s\n", c.name, c.synopsis(), mdText(sentence(c.summary)))
		if c.long != "" {
			if strings.Contains(c.long, "\n  ") || strings.HasPrefix(c.long, "  ") {
				fmt.Fprintf(&b, "\n```text\n%s```\n", c.long)
			} else {
				fmt.Fprintf(&b, "\n%s", mdText(c.long))
			}
		}
		fs, _ := c.flagSet()
		var rows []string
		fs.VisitAll(func(f *flag.Flag) {
			arg, usage := flag.UnquoteUsage(f)
			def := ""
			if v := stableDefault(f.DefValue); v != "" {
				def = "`" + v + "`"
			}
			rows = append(rows, fmt.Sprintf("| `--%s` | %s | %s | %s |", f.Name, arg, def, mdCell(usage)))
		})
		if len(rows) > 0 {
			fmt.Fprintf(&b, "\n| flag | argument | default | meaning |\n|---|---|---|---|\n%s\n", strings.Join(rows, "\n"))
		}
	}
	_, err := b.WriteTo(w)
	return err
}

// anchor is the heading's GitHub anchor.
func anchor(c *command) string {
	return "decongestant-" + strings.ReplaceAll(c.name, " ", "-")
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// stableDefault writes a default that depends on the machine as what it stands for.
func stableDefault(v string) string {
	if tmp := os.TempDir(); strings.HasPrefix(v, tmp+string(filepath.Separator)) {
		return "$TMPDIR" + strings.TrimPrefix(v, tmp)
	}
	return v
}

var mdEscaper = strings.NewReplacer("<", "&lt;", ">", "&gt;", "*", "\\*")

func mdText(s string) string { return mdEscaper.Replace(s) }

func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(mdText(s), "|", "\\|"), "\n", " ")
}

func reference(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := writeReference(&b, commands()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCLIReference: docs/cli.md is what the command table generates; -update rewrites it.
func TestCLIReference(t *testing.T) {
	got := reference(t)
	if *update {
		if err := os.MkdirAll(filepath.Dir(referencePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(referencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v: generate docs/cli.md with: %s", err, regenerate)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of file)"
		}
		t.Fatalf("docs/cli.md differs from the command table at line %d:\n  file:  %s\n  table: %s\nregenerate it with: %s",
			i+1, line(wl), line(gl), regenerate)
	}
}

// TestCLIReferenceIsStable: docs/cli.md comes out the same on any machine: nothing in it depends
// on the temporary or home directory, the caches, the CPUs or the host.
func TestCLIReferenceIsStable(t *testing.T) {
	first := reference(t)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("DECONGESTANT_CACHE", t.TempDir())
	t.Setenv("MONGOD", "/elsewhere/mongod")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 3))
	if second := reference(t); !bytes.Equal(first, second) {
		t.Fatalf("docs/cli.md depends on the environment:\n%s\n----\n%s", first, second)
	}
	host, _ := os.Hostname()
	for _, s := range []string{host, os.Getenv("USER")} {
		if len(s) > 3 && bytes.Contains(first, []byte(s)) {
			t.Errorf("docs/cli.md holds %q", s)
		}
	}
}
