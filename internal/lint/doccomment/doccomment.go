// Package doccomment finds detached doc comments: a comment that names a top-level declaration
// ("// splitSpecs splits ...") but is separated from it by a blank line, so go doc, gopls and
// readers of the package documentation never see it. gofmt keeps such a comment where it is, and
// `go vet` does not look, so this check runs from its own test over the whole module.
package doccomment

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/decongestant/decongestant/internal/lint"
)

// Finding is one detached doc comment.
type Finding struct {
	Pos  token.Position // of the comment; Filename relative to the checked root
	Name string         // the declaration it names
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: the comment on %s is detached from it by a blank line", f.Pos, f.Name)
}

// Dir checks every Go file under root (see lint.WalkGo).
func Dir(root string) ([]Finding, error) {
	fset := token.NewFileSet()
	var found []Finding
	err := lint.WalkGo(root, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("doccomment: %w", err)
		}
		for _, d := range File(fset, f) {
			if rel, err := filepath.Rel(root, d.Pos.Filename); err == nil {
				d.Pos.Filename = rel
			}
			found = append(found, d)
		}
		return nil
	})
	return found, err
}

// File returns the detached doc comments of f: a top-level declaration without a doc comment
// whose name is the first word of the comment group that ends two lines above it (one blank line
// between). A comment of another first word (a section heading, a note on the block) is not one.
func File(fset *token.FileSet, f *ast.File) []Finding {
	ends := map[int]*ast.CommentGroup{} // last line -> comment group
	for _, g := range f.Comments {
		ends[fset.Position(g.End()).Line] = g
	}
	var found []Finding
	for _, d := range f.Decls {
		for _, name := range docless(d) {
			g := ends[fset.Position(d.Pos()).Line-2]
			if g == nil {
				continue
			}
			if first, _, _ := strings.Cut(strings.TrimSpace(g.Text()), " "); first == name {
				found = append(found, Finding{Pos: fset.Position(g.Pos()), Name: name})
			}
		}
	}
	return found
}

// docless returns the names d declares when it has no doc comment: a function's or method's
// name, or the names of a single-spec type, var or const declaration.
func docless(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Doc == nil {
			return []string{d.Name.Name}
		}
	case *ast.GenDecl:
		if d.Doc != nil || d.Lparen.IsValid() || len(d.Specs) != 1 {
			return nil
		}
		switch s := d.Specs[0].(type) {
		case *ast.TypeSpec:
			return []string{s.Name.Name}
		case *ast.ValueSpec:
			var names []string
			for _, n := range s.Names {
				names = append(names, n.Name)
			}
			return names
		}
	}
	return nil
}
