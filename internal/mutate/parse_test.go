package main

import (
	"os"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	ms, err := parse(strings.NewReader(`# a comment

name: one
file: a/b.go
from: x < y
to: x <= y

name: two lines
file: a/c.go
from: if a {\n\t\treturn
to: if !a {\n\t\treturn
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []mutation{
		{Line: 3, Name: "one", File: "a/b.go", From: "x < y", To: "x <= y"},
		{Line: 8, Name: "two lines", File: "a/c.go", From: "if a {\n\t\treturn", To: "if !a {\n\t\treturn"},
	}
	if len(ms) != len(want) {
		t.Fatalf("%d mutations, want %d", len(ms), len(want))
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("mutation %d: %+v, want %+v", i, ms[i], want[i])
		}
	}
	if ms[1].pkg() != "a" {
		t.Errorf("package %q, want a", ms[1].pkg())
	}
	for _, bad := range []string{
		"",                                       // none
		"name: n\nfile: f\nfrom: a\n",            // no to
		"file: f\nname: n\nfrom: a\nto: b\n",     // out of order
		"name: n\nfile: f\nfrom: a\nto: a\n",     // no change
		"name: n\nfile: f\nfrom a\nto: b\n",      // not key: value
		"name: n\nfile: f\nfrom: a\nto: b\nx: y", // a fifth line
	} {
		if _, err := parse(strings.NewReader(bad)); err == nil {
			t.Errorf("%q parsed, want an error", bad)
		}
	}
}

// TestMutationsStillApply: every mutation of the committed list names text
// that occurs exactly once in its file, so the pass keeps running as the
// code changes.
func TestMutationsStillApply(t *testing.T) {
	t.Chdir("../..")
	f, err := os.Open("internal/mutate/mutations.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ms, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	perPkg := map[string]int{}
	for _, m := range ms {
		if err := m.check(); err != nil {
			t.Error(err)
		}
		perPkg[m.pkg()]++
	}
	for _, p := range []string{"proxy", "proxy/wire", "router", "balancer"} {
		if perPkg[p] < 10 {
			t.Errorf("%s has %d mutations, want at least 10", p, perPkg[p])
		}
	}
}
