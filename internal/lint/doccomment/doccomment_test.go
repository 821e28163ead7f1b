package doccomment_test

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/lint"
	"github.com/decongestant/decongestant/internal/lint/doccomment"
)

// TestNoDetachedDocComments runs the check over this module. It runs with -short.
func TestNoDetachedDocComments(t *testing.T) {
	root, err := lint.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	found, err := doccomment.Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s", f)
	}
}

// The planted file: each declaration named in want has a detached comment; the others must not
// be reported.
const planted = `package p

// splitSpecs splits a list.

func splitSpecs() {}

// attached is fine.
func attached() {}

// Section: helpers (a heading, not a doc comment).

func helper() {}

// T is a type.

type T int

// v is a var.

var v, w = 1, 2

// m is a method.

func (T) m() {}

// grouped names the block.

var (
	grouped = 1
)

// far is two blank lines away.


func far() {}
`

func TestFindsDetachedComments(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", planted, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range doccomment.File(fset, f) {
		got = append(got, d.Name)
	}
	if want := "splitSpecs T v m"; strings.Join(got, " ") != want {
		t.Fatalf("found %q, want %q", strings.Join(got, " "), want)
	}
}
