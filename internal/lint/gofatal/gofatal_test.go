package gofatal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/lint"
	"github.com/decongestant/decongestant/internal/lint/gofatal"
)

// TestNoTestEndsFromAGoroutine runs the checker over this module: no test may call Fatal,
// FailNow or Skip from a goroutine it started, directly or through a helper. It runs with -short.
func TestNoTestEndsFromAGoroutine(t *testing.T) {
	root, err := lint.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	found, err := gofatal.Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s", f)
	}
	if len(found) > 0 {
		t.Log("a goroutine must hand its error back (a channel, errgroup) for the test's goroutine to report; t.Error and t.Log are fine anywhere")
	}
}

// The planted module: every line that must be reported carries `// want "text"`, text being part
// of the finding's message; no other line may be reported.
var planted = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.26\n",
	"util/util.go": `package util

import "testing"

// Wait ends the test when it gives up.
func Wait(tb testing.TB) { tb.FailNow() }

// Outer ends it through Wait, two calls away from the goroutine.
func Outer(tb testing.TB) { Wait(tb) }

// Soft only reports.
func Soft(tb testing.TB) { tb.Errorf("soft") }

// Subtests ends only its subtests, each on their own goroutine.
func Subtests(t *testing.T) { t.Run("x", func(t *testing.T) { t.Fatal("x") }) }

// Starts runs a goroutine of its own that ends the test.
func Starts(tb testing.TB) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		tb.Fatal("in a helper's goroutine") // want "tb.Fatal ends the test from a goroutine (on the goroutine started at line 20)"
	}()
	<-done
}
`,
	"p/p_test.go": `package p

import (
	"log"
	"sync"
	"testing"

	"example.com/m/util"
	u2 "example.com/m/util"
)

func must(tb testing.TB) { tb.Fatalf("must") }

type obj struct{}

func (obj) check(tb testing.TB) {}
func (obj) Fatal(args ...any)  {}

func TestDirect(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.Fatal("direct") // want "t.Fatal ends the test from a goroutine (on the goroutine started at line 21)"
	}()
	<-done
}

func TestHelpers(t *testing.T) {
	var wg sync.WaitGroup
	wg.Go(func() {
		must(t)       // want "must may end the test from a goroutine: tb.Fatalf at p/p_test.go:12"
		util.Outer(t) // want "util.Outer may end the test from a goroutine: Wait at util/util.go:9"
		u2.Wait(t)    // want "u2.Wait may end the test from a goroutine: tb.FailNow at util/util.go:6"
		util.Soft(t)
		util.Subtests(t)
		obj{}.check(t) // want "check is given a testing value in a goroutine and gofatal cannot see"
	})
	wg.Wait()
	go must(t) // want "must may end the test from a goroutine"
	util.Starts(t)
	must(t)
}

func TestLocalLiterals(t *testing.T) {
	check := func() { t.Skip("skip") } // want "t.Skip ends the test from a goroutine (on the goroutine started at line 46)"
	go check()
	fail := func(tb testing.TB) { tb.SkipNow() } // want "tb.SkipNow ends the test from a goroutine (on the goroutine started at line 48)"
	go func() { fail(t) }()
	check()
	fail(t)
}

func TestParamsAndAliases(t *testing.T) {
	go func(tb testing.TB) {
		tb.Skipf("param") // want "tb.Skipf ends the test"
	}(t)
	var tb testing.TB = t
	go func() {
		tb.Fatalf("alias") // want "tb.Fatalf ends the test"
	}()
	go func() {
		t := obj{}
		t.Fatal("not a testing value")
		log.Fatal("not a test's either")
	}()
	go func() {
		t.Errorf("fine anywhere")
		t.Log("fine")
	}()
}

func TestSubtests(t *testing.T) {
	t.Run("own t", func(t *testing.T) {
		t.Fatal("fine: the subtest's own goroutine")
		go func() {
			t.Fatal("the subtest's t from a goroutine") // want "t.Fatal ends the test from a goroutine (on the goroutine started at line 75)"
		}()
	})
	t.Run("parent's t", func(st *testing.T) {
		t.FailNow() // want "t.FailNow ends the test from a goroutine (on a subtest's goroutine)"
	})
	go func() {
		t.Run("started from a goroutine", func(t *testing.T) { t.Fatal("fine: its own") })
	}()
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			b.Fatal("parallel") // want "b.Fatal ends the test from a goroutine (on the goroutine started at line 88)"
		}
	})
}

type group struct{}

func (group) Go(f func() error) {}

func TestErrgroupStyle(t *testing.T) {
	var g group
	g.Go(func() error {
		t.Fatal("errgroup") // want "t.Fatal ends the test"
		return nil
	})
}
`,
}

func TestPlanted(t *testing.T) {
	root := t.TempDir()
	want := map[string]string{} // "file:line" -> part of the message
	re := regexp.MustCompile(`// want "([^"]*)"`)
	for name, src := range planted {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(src, "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				want[fmt.Sprintf("%s:%d", name, i+1)] = m[1]
			}
		}
	}
	found, err := gofatal.Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		at := fmt.Sprintf("%s:%d", f.Pos.Filename, f.Pos.Line)
		w, ok := want[at]
		switch {
		case !ok:
			t.Errorf("unexpected finding %s", f)
		case !strings.Contains(f.Msg, w):
			t.Errorf("finding %s, want one saying %q", f, w)
		}
		delete(want, at)
	}
	for at, w := range want {
		t.Errorf("%s: no finding, want one saying %q", at, w)
	}
}
