package router_test

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
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
	// The short form: the example's run function alone (README.md).
	beginRun = "<!-- begin router.Example run -->"
	endRun   = "<!-- end router.Example run -->"
)

// exampleProgram returns service_example_test.go as the program a user
// pastes: package main, the same imports, Example renamed main (without its
// doc comment, which addresses the reader of the tests), and run as written.
func exampleProgram(t *testing.T) (program, runFunc string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, exampleFile, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	f.Name.Name = "main"
	found := false
	var run bytes.Buffer
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if ok && fd.Name.Name == "run" {
			// The function with the comments inside it, as gofmt prints it.
			cmap := ast.NewCommentMap(fset, fd, f.Comments)
			if err := format.Node(&run, fset, &printer.CommentedNode{Node: fd, Comments: cmap.Filter(fd).Comments()}); err != nil {
				t.Fatal(err)
			}
			run.WriteByte('\n')
		}
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
	if !found || run.Len() == 0 {
		t.Fatalf("%s has no func Example or no func run", exampleFile)
	}
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		t.Fatal(err)
	}
	return b.String(), run.String()
}

// goBlock returns the ```go block between the markers begin and end in md,
// and whether md has the markers.
func goBlock(t *testing.T, name, md, beginExample, endExample string) (string, bool) {
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
// example shows service_example_test.go, the Example that TestExample runs,
// as it is: the whole program between the router.Example markers (docs/), or
// its run function between the router.Example run markers (README.md, which
// must have one of the two).
func TestReadmeExample(t *testing.T) {
	program, runFunc := exampleProgram(t)
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
		shown := 0
		for _, form := range []struct{ begin, end, want string }{
			{beginExample, endExample, program},
			{beginRun, endRun, runFunc},
		} {
			got, ok := goBlock(t, page, string(md), form.begin, form.end)
			if !ok {
				continue
			}
			shown++
			if got != form.want {
				t.Errorf("%s: the library example differs from router/%s; put this between %s and %s:\n```go\n%s```",
					page, exampleFile, form.begin, form.end, form.want)
			}
		}
		if page == "../README.md" && shown == 0 {
			t.Errorf("%s: no %s ... %s block (or its run form)", page, beginExample, endExample)
		}
	}
}
