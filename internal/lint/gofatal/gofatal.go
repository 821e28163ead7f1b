// Package gofatal finds calls that end a test (Fatal, Fatalf, FailNow, Skip, Skipf, SkipNow on a
// *testing.T, *testing.B, *testing.F or testing.TB) made from a goroutine the test started. The
// testing package allows them only on the test's own goroutine: elsewhere they stop the calling
// goroutine (runtime.Goexit) and not the test, which then waits for whatever that goroutine would
// have sent, up to go test's -timeout. Its test runs it over the whole module, so `go test -short
// ./...` keeps the rule.
//
// `go vet`'s testinggoroutine pass, which go test does not run, sees direct calls and `go f(t)`;
// not a helper called inside a goroutine's function literal, which is how the failover test in
// bench hung (testutil.Eventually(t, ...)). This one follows helpers, across the module's packages.
// It reads syntax only (no type checking, so it needs nothing but the standard library), which
// bounds what it sees:
//
//   - A testing value is an identifier declared with one of those four types (a parameter, a var,
//     or := from another testing value), by name within the function that declares it; shadowing
//     inside a block is not tracked.
//   - A goroutine is the function literal of a go statement; a function literal passed to a method
//     named Go (sync.WaitGroup.Go, errgroup.Group.Go) or to RunParallel; a local variable bound to a
//     function literal and started either way; or a named function started with `go f(t)`.
//   - A helper is a top-level function of the module that takes a testing value and may end the
//     test: it calls one of those methods on a testing value, or passes one to such a helper.
//     Function literals inside it count as if called, except a t.Run subtest's body (its own t).
//   - Inside a goroutine, a call that passes a testing value to a function it cannot follow (a
//     method, a function value, another module's function) is reported too, as unverifiable.
//
// It cannot see: callbacks the test hands to library code that calls them on another goroutine
// (an event handler, say), a closure a helper returns (testutil.PauseSecondaries's resume), a
// testing value held in a struct field, or goroutines started outside the test's own source.
package gofatal

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/decongestant/decongestant/internal/lint"
)

// ends are the methods of a testing value that end the test on the calling goroutine.
var ends = map[string]bool{"Fatal": true, "Fatalf": true, "FailNow": true, "Skip": true, "Skipf": true, "SkipNow": true}

// Finding is one call that may end a test from a goroutine.
type Finding struct {
	Pos token.Position // Filename relative to the checked root
	Msg string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Msg) }

// Dir checks every Go file of the module rooted at root (which holds go.mod), skipping testdata,
// vendor and directories whose name starts with "." or "_". Findings are sorted by position.
func Dir(root string) ([]Finding, error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	c := &checker{fset: token.NewFileSet(), root: root, module: module,
		decls: map[funcKey]*decl{}, pkgNames: map[string]string{}}
	err = lint.WalkGo(root, func(path string) error {
		f, err := parser.ParseFile(c.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("gofatal: %w", err)
		}
		c.add(filepath.Dir(path), f, strings.HasSuffix(path, "_test.go"))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c.run(), nil
}

func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", fmt.Errorf("gofatal: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", fmt.Errorf("gofatal: read %s: %w", gomod, err)
	}
	return "", fmt.Errorf("gofatal: %s has no module line", gomod)
}

type funcKey struct{ dir, pkg, name string }

// decl is a top-level function and what the first pass learnt about it.
type decl struct {
	fn      *ast.FuncDecl
	file    *file
	takesTB bool
	why     string     // how it may end the test; "" = not known to
	calls   []tbCall   // calls passing a testing value to another top-level function
	reasons []position // where it ends the test directly
}

type tbCall struct {
	callee funcKey
	pos    token.Pos
}

type position struct {
	pos  token.Pos
	what string
}

type file struct {
	f       *ast.File
	dir     string
	pkg     string
	testing string            // local name of the testing import; "" = not imported
	imports map[string]string // local name -> directory of a package of this module
}

type checker struct {
	fset     *token.FileSet
	root     string
	module   string
	files    []*file
	decls    map[funcKey]*decl
	pkgNames map[string]string // dir -> name of its non-test package
	found    map[token.Pos]Finding
}

func (c *checker) add(dir string, f *ast.File, test bool) {
	fi := &file{f: f, dir: dir, pkg: f.Name.Name, imports: map[string]string{}}
	if !test && !strings.HasSuffix(f.Name.Name, "_test") {
		c.pkgNames[dir] = f.Name.Name
	}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		local := ""
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if path == "testing" {
			fi.testing = "testing"
			if local != "" {
				fi.testing = local
			}
			continue
		}
		rel, ok := strings.CutPrefix(path, c.module)
		if !ok || (rel != "" && rel[0] != '/') {
			continue
		}
		pdir := filepath.Join(c.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
		// The local name of an import without one is its package's name, known once every file
		// is read; "" marks it for run to fill in.
		fi.imports[local+"\x00"+pdir] = pdir
	}
	c.files = append(c.files, fi)
}

// run resolves the import names, learns which helpers may end a test, and reports the goroutines
// that may.
func (c *checker) run() []Finding {
	for _, fi := range c.files {
		named := map[string]string{}
		for k, dir := range fi.imports {
			local, _, _ := strings.Cut(k, "\x00")
			if local == "" {
				local = c.pkgNames[dir]
			}
			if local != "" && local != "_" && local != "." {
				named[local] = dir
			}
		}
		fi.imports = named
		for _, d := range fi.f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Body != nil {
				c.decls[funcKey{fi.dir, fi.pkg, fn.Name.Name}] = &decl{fn: fn, file: fi}
			}
		}
	}
	// Pass 1: what each top-level function does with the testing values it is given.
	for _, d := range c.decls {
		root := newGor(d.fn.Pos(), false)
		w := &walker{c: c, file: d.file, root: root, summary: d}
		s := w.funcScope(nil, d.fn.Type, root)
		for _, o := range s.tb {
			d.takesTB = d.takesTB || o != nil
		}
		w.block(d.fn.Body, s, root)
		if len(d.reasons) > 0 {
			r := d.reasons[0]
			d.why = fmt.Sprintf("%s at %s", r.what, c.pos(r.pos))
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range c.decls {
			if d.why != "" || !d.takesTB {
				continue
			}
			for _, call := range d.calls {
				if callee := c.decls[call.callee]; callee != nil && callee.why != "" {
					d.why = fmt.Sprintf("%s at %s, which may: %s", call.callee.name, c.pos(call.pos), callee.why)
					changed = true
					break
				}
			}
		}
	}
	// Pass 2: the goroutines.
	c.found = map[token.Pos]Finding{}
	for _, fi := range c.files {
		for _, d := range fi.f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			root := newGor(fn.Pos(), false)
			w := &walker{c: c, file: fi, root: root}
			w.block(fn.Body, w.funcScope(nil, fn.Type, root), root)
		}
	}
	out := make([]Finding, 0, len(c.found))
	for _, f := range c.found {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return out
}

func (c *checker) pos(p token.Pos) token.Position {
	pos := c.fset.Position(p)
	if rel, err := filepath.Rel(c.root, pos.Filename); err == nil {
		pos.Filename = filepath.ToSlash(rel)
	}
	return pos
}

// gor is a goroutine: the test's (or a subtest's), or one the code started.
type gor struct {
	at      token.Pos             // where it was started; for started ones
	started bool                  // started by the code, not by the testing package
	seen    map[*ast.FuncLit]bool // local function literals followed into, against recursion
}

func newGor(at token.Pos, started bool) *gor {
	return &gor{at: at, started: started, seen: map[*ast.FuncLit]bool{}}
}

// anyGor owns the testing parameters of a function literal that is not a subtest's body: it may
// be called anywhere, with any testing value.
var anyGor = &gor{}

// scope is a function's names: its testing values (with the goroutine each belongs to) and the
// local variables bound to a function literal. Block scopes are not tracked.
type scope struct {
	parent *scope
	tb     map[string]*gor // nil: not a testing value (it shadows one of an outer scope)
	lits   map[string]*lit
}

type lit struct {
	fn    *ast.FuncLit
	scope *scope // where it was written
}

// owner is the goroutine the testing value name belongs to; nil if name is not one.
func (s *scope) owner(name string) *gor {
	for ; s != nil; s = s.parent {
		if g, ok := s.tb[name]; ok {
			return g
		}
		if _, ok := s.lits[name]; ok {
			return nil
		}
	}
	return nil
}

func (s *scope) lit(name string) *lit {
	for ; s != nil; s = s.parent {
		if l, ok := s.lits[name]; ok {
			return l
		}
		if _, ok := s.tb[name]; ok {
			return nil
		}
	}
	return nil
}

type walker struct {
	c       *checker
	file    *file
	root    *gor  // the goroutine of the function walked: its testing parameters belong to it
	summary *decl // pass 1: the function whose calls are recorded; nil in pass 2
}

// funcScope is the scope of a function with type ft inside parent; its testing parameters belong
// to owner.
func (w *walker) funcScope(parent *scope, ft *ast.FuncType, owner *gor) *scope {
	s := &scope{parent: parent, tb: map[string]*gor{}, lits: map[string]*lit{}}
	if ft.Params == nil {
		return s
	}
	for _, field := range ft.Params.List {
		var g *gor
		if w.isTBType(field.Type) {
			g = owner
		}
		for _, n := range field.Names {
			s.tb[n.Name] = g
		}
	}
	return s
}

func (w *walker) isTBType(e ast.Expr) bool {
	if w.file.testing == "" {
		return false
	}
	if star, ok := e.(*ast.StarExpr); ok {
		sel, ok := star.X.(*ast.SelectorExpr)
		return ok && w.isTesting(sel.X) && (sel.Sel.Name == "T" || sel.Sel.Name == "B" || sel.Sel.Name == "F")
	}
	sel, ok := e.(*ast.SelectorExpr)
	return ok && w.isTesting(sel.X) && sel.Sel.Name == "TB"
}

func (w *walker) isTesting(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == w.file.testing
}

// ownerOf is the goroutine of the testing value e, nil if e is not one.
func ownerOf(e ast.Expr, s *scope) *gor {
	if id, ok := e.(*ast.Ident); ok {
		return s.owner(id.Name)
	}
	return nil
}

// foreign reports whether ending the test through a value of goroutine owner is wrong on g.
func foreign(owner, g *gor) bool {
	if owner == nil || owner == g {
		return false
	}
	return g.started || owner != anyGor
}

// block walks n with scope s, on goroutine g.
func (w *walker) block(n ast.Node, s *scope, g *gor) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			// Not started here: as if called where it is written.
			w.block(n.Body, w.funcScope(s, n.Type, anyGor), g)
			return false
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						w.bind(id.Name, n.Rhs[i], s)
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				switch {
				case n.Type != nil && w.isTBType(n.Type):
					s.tb[name.Name] = g
					delete(s.lits, name.Name)
					if i < len(n.Values) {
						if o := ownerOf(n.Values[i], s); o != nil {
							s.tb[name.Name] = o
						}
					}
				case i < len(n.Values):
					w.bind(name.Name, n.Values[i], s)
				}
			}
		case *ast.GoStmt:
			w.goStmt(n, s, g)
			return false
		case *ast.CallExpr:
			return w.call(n, s, g)
		}
		return true
	})
}

// bind records what name now holds: a testing value, a function literal, or neither.
func (w *walker) bind(name string, v ast.Expr, s *scope) {
	delete(s.lits, name)
	if fl, ok := v.(*ast.FuncLit); ok {
		s.lits[name] = &lit{fn: fl, scope: s}
		delete(s.tb, name)
		return
	}
	if o := ownerOf(v, s); o != nil {
		s.tb[name] = o
		return
	}
	if s.owner(name) != nil {
		s.tb[name] = nil
	}
}

func (w *walker) goStmt(st *ast.GoStmt, s *scope, g *gor) {
	for _, a := range st.Call.Args {
		w.block(a, s, g)
	}
	started := newGor(st.Go, true)
	switch fn := st.Call.Fun.(type) {
	case *ast.FuncLit:
		// Its testing parameters are the starter's testing values.
		w.block(fn.Body, w.funcScope(s, fn.Type, g), started)
		return
	case *ast.Ident:
		if l := s.lit(fn.Name); l != nil {
			w.enter(l, started)
			return
		}
	}
	w.callOn(st.Call, s, started)
}

// enter walks the body of the local function literal l on goroutine g, once per goroutine.
func (w *walker) enter(l *lit, g *gor) {
	if g.seen[l.fn] {
		return
	}
	g.seen[l.fn] = true
	w.block(l.fn.Body, w.funcScope(l.scope, l.fn.Type, anyGor), g)
}

// call handles a call made on goroutine g and says whether to walk into it.
func (w *walker) call(call *ast.CallExpr, s *scope, g *gor) bool {
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && len(call.Args) > 0 {
		last := call.Args[len(call.Args)-1]
		switch {
		case sel.Sel.Name == "Run" && ownerOf(sel.X, s) != nil:
			// A subtest: its body runs on a goroutine of its own, where its own t may end it.
			if fl, ok := last.(*ast.FuncLit); ok {
				w.callOn(call, s, g)
				for _, a := range call.Args[:len(call.Args)-1] {
					w.block(a, s, g)
				}
				sub := newGor(call.Pos(), false)
				w.block(fl.Body, w.funcScope(s, fl.Type, sub), sub)
				return false
			}
		case sel.Sel.Name == "Go" && len(call.Args) == 1, sel.Sel.Name == "RunParallel" && ownerOf(sel.X, s) != nil:
			w.block(sel.X, s, g)
			started := newGor(call.Pos(), true)
			switch fn := last.(type) {
			case *ast.FuncLit:
				w.block(fn.Body, w.funcScope(s, fn.Type, anyGor), started)
				return false
			case *ast.Ident:
				if l := s.lit(fn.Name); l != nil {
					w.enter(l, started)
					return false
				}
			}
		}
	}
	w.callOn(call, s, g)
	return true
}

// callOn records (pass 1) or reports (pass 2) what call does with testing values on goroutine g.
func (w *walker) callOn(call *ast.CallExpr, s *scope, g *gor) {
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && ends[sel.Sel.Name] {
		if o := ownerOf(sel.X, s); o != nil {
			w.ends(call.Pos(), o, g, selName(sel))
			return
		}
	}
	if id, ok := call.Fun.(*ast.Ident); ok {
		if l := s.lit(id.Name); l != nil {
			// A local function literal called on a started goroutine runs there too.
			if g.started {
				w.enter(l, g)
			}
			return
		}
	}
	var passed []*gor
	for _, a := range call.Args {
		if o := ownerOf(a, s); o != nil {
			passed = append(passed, o)
		}
	}
	if len(passed) == 0 {
		return
	}
	key, name, ok := w.resolve(call.Fun, s)
	if w.summary != nil {
		for _, o := range passed {
			if ok && !g.started && (o == w.root || o == anyGor) {
				w.summary.calls = append(w.summary.calls, tbCall{key, call.Pos()})
				break
			}
		}
		return
	}
	bad := false
	for _, o := range passed {
		bad = bad || foreign(o, g)
	}
	switch {
	case !bad:
	case !ok:
		if g.started {
			w.report(call.Pos(), g, fmt.Sprintf("%s is given a testing value in a goroutine and gofatal cannot see whether it ends the test; end the test on the test's goroutine", name))
		}
	case w.c.decls[key].why != "":
		w.report(call.Pos(), g, fmt.Sprintf("%s may end the test from a goroutine: %s", name, w.c.decls[key].why))
	}
}

// ends handles a call of one of the ending methods, on goroutine g, of a testing value of owner.
func (w *walker) ends(at token.Pos, owner, g *gor, what string) {
	if w.summary != nil {
		if !g.started && (owner == w.root || owner == anyGor) {
			w.summary.reasons = append(w.summary.reasons, position{at, what})
		}
		return
	}
	if foreign(owner, g) {
		w.report(at, g, what+" ends the test from a goroutine")
	}
}

// resolve names the top-level function of the module that fun calls, if it is one.
func (w *walker) resolve(fun ast.Expr, s *scope) (funcKey, string, bool) {
	switch fun := fun.(type) {
	case *ast.Ident:
		k := funcKey{w.file.dir, w.file.pkg, fun.Name}
		_, ok := w.c.decls[k]
		return k, fun.Name, ok && s.owner(fun.Name) == nil
	case *ast.SelectorExpr:
		name := selName(fun)
		if x, ok := fun.X.(*ast.Ident); ok && s.owner(x.Name) == nil && s.lit(x.Name) == nil {
			if dir, ok := w.file.imports[x.Name]; ok {
				k := funcKey{dir, w.c.pkgNames[dir], fun.Sel.Name}
				_, found := w.c.decls[k]
				return k, name, found
			}
		}
		return funcKey{}, name, false
	case *ast.IndexExpr: // a generic function instantiated explicitly
		return w.resolve(fun.X, s)
	}
	return funcKey{}, "a function value", false
}

func (w *walker) report(at token.Pos, g *gor, msg string) {
	where := "a subtest's goroutine"
	if g.started {
		where = fmt.Sprintf("the goroutine started at line %d", w.c.pos(g.at).Line)
	}
	w.c.found[at] = Finding{Pos: w.c.pos(at), Msg: fmt.Sprintf("%s (on %s)", msg, where)}
}

// selName renders a selector such as t.Fatalf or testutil.Eventually.
func selName(sel *ast.SelectorExpr) string {
	if x, ok := sel.X.(*ast.Ident); ok {
		return x.Name + "." + sel.Sel.Name
	}
	return sel.Sel.Name
}
