package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/reproduce"
)

// TestReproduceStepsParse parses every command every figure runs, quick
// and full, against the real flag sets, so that no reproduction can
// name a flag that does not exist or a value a flag refuses.
func TestReproduceStepsParse(t *testing.T) {
	const uri = "mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs&localThresholdMS=1000"
	dir, out := t.TempDir(), t.TempDir()
	n := 0
	for _, e := range reproduce.Experiments(reproduce.Figures()) {
		for _, quick := range []bool{true, false} {
			for _, s := range e.Steps(quick) {
				args := reproduce.Fill(s.Args, uri, dir, out)
				var err error
				switch {
				case args[0] == "bench":
					_, _, err = benchOptions(args[1:], io.Discard)
				case args[0] == "consistency" && args[1] == "matrix":
					var f *matrixFlags
					if f, _, err = parseMatrixFlags(args[2:], io.Discard); err == nil {
						err = f.resolve()
					}
				case args[0] == "tpcc" && args[1] == "acid":
					continue // parsed by its own tests
				default:
					t.Errorf("%s: no parser for %q in this test", e.Name, s.Command())
					continue
				}
				n++
				if err != nil {
					t.Errorf("%s (quick %v): %s: %v", e.Name, quick, s.Command(), err)
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d commands parsed", n)
	}
}

func TestReproduceList(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"reproduce", "list"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, p := range reproduce.Papers {
		if !strings.Contains(s, p.Title) || !strings.Contains(s, p.Venue) {
			t.Errorf("list does not name %q (%s)", p.Title, p.Venue)
		}
	}
	for _, want := range []string{"cannot run here", "runs scaled down", "mongos", "HDD", "M50"} {
		if !strings.Contains(s, want) {
			t.Errorf("list does not say %q", want)
		}
	}
	for _, f := range reproduce.Figures() {
		if !strings.Contains(s, "  "+f.ID+" ") {
			t.Errorf("list lacks %s", f.Name())
		}
	}
	if strings.Contains(strings.ToLower(s), "seed 0") {
		t.Error("list names a paper by its file number")
	}
}

func TestReproduceBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce", "seed000", "fig5"}, "the papers are decongestant, rpm, tpcc, consistency, read-hints"},
		{[]string{"reproduce", "decongestant", "fig99"}, "its figures are fig1, table1, fig2"},
		{[]string{"reproduce", "read-hints", "fig9"}, "cannot run here: needs a sharded cluster"},
		{[]string{"reproduce", "decongestant", "fig1"}, "diagram: nothing to run"},
		{[]string{"reproduce", "seed000"}, "unknown paper \"seed000\""},
		{[]string{"reproduce", "decongestant"}, "which figure?"},
		{[]string{"reproduce", "all"}, "with --quick"},
		{[]string{"reproduce", "decongestant", "fig5", "--bogus"}, "flag provided but not defined"},
	} {
		err := run(context.Background(), tt.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one containing %q", tt.args, err, tt.want)
		}
		if errors.Is(err, errHelp) {
			t.Errorf("%v: usage error without a reason", tt.args)
		}
	}
}

func TestReproduceDryRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"reproduce", "all", "--quick", "--dry-run"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, e := range reproduce.Experiments(reproduce.Figures()) {
		if !strings.Contains(s, "# "+e.Name+" ") {
			t.Errorf("dry run lacks %s", e.Name)
		}
	}
	if !strings.Contains(s, "decongestant bench ycsb --uri {uri}") || !strings.Contains(s, "decongestant cluster up --dir {dir} --cpu 0.35") {
		t.Errorf("dry run does not show the commands:\n%s", s)
	}
}
