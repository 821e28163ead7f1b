package router_test

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	exampleFile  = "service_example_test.go"
	beginExample = "<!-- begin router.Example -->"
	endExample   = "<!-- end router.Example -->"
)

// exampleProgram returns service_example_test.go as the program a user
// pastes: package main, the same imports, Example renamed main (without its
// doc comment, which addresses the reader of the tests), and run as written.
func exampleProgram(t *testing.T) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, exampleFile, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	f.Name.Name = "main"
	found := false
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "Example" {
			continue
		}
		found = true
		fd.Name.Name = "main"
		if fd.Doc != nil {
			f.Comments = slices.DeleteFunc(f.Comments, func(c *ast.CommentGroup) bool { return c == fd.Doc })
			fd.Doc = nil
		}
	}
	if !found {
		t.Fatalf("%s has no func Example", exampleFile)
	}
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// goBlock returns the ```go block between the markers in md, and whether md
// has the markers.
func goBlock(t *testing.T, name, md string) (string, bool) {
	t.Helper()
	_, rest, ok := strings.Cut(md, beginExample)
	if !ok {
		if strings.Contains(md, endExample) {
			t.Errorf("%s: %q without %q", name, endExample, beginExample)
		}
		return "", false
	}
	between, _, ok := strings.Cut(rest, endExample)
	if !ok {
		t.Errorf("%s: %q without %q", name, beginExample, endExample)
		return "", false
	}
	body, ok := strings.CutPrefix(strings.TrimSpace(between), "```go\n")
	if !ok {
		t.Errorf("%s: the markers must hold one ```go block and nothing else", name)
		return "", false
	}
	body, ok = strings.CutSuffix(body, "```")
	if !ok || strings.Contains(body, "```") {
		t.Errorf("%s: the markers must hold one ```go block and nothing else", name)
		return "", false
	}
	return body, true
}

// TestReadmeExample checks that every markdown page that shows the library
// example (README.md, docs/*.md, between the router.Example markers) shows
// service_example_test.go, the Example that TestExample runs, as it is.
func TestReadmeExample(t *testing.T) {
	want := exampleProgram(t)
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"../README.md"}, pages...)
	for _, page := range pages {
		md, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := goBlock(t, page, string(md))
		if !ok {
			if page == "../README.md" {
				t.Errorf("%s: no %s ... %s block", page, beginExample, endExample)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: the library example differs from router/%s; put this between the markers:\n```go\n%s```",
				page, exampleFile, want)
		}
	}
}
