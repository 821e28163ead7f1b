package consistency_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/consistency"
	"github.com/decongestant/decongestant/internal/testutil"
)

// TestRunMatrixTiny runs a tiny matrix on the shared set: the operation
// setup, 1K documents, w majority with rc majority and linearizable, reads
// on the primary and on secondaries, 1 iteration of 5 writes. Every
// runnable cell is measured once with its 5 writes and some reads (none
// failed: the reads the writers' end cuts off are not the set's failures),
// the linearizable cell off the primary is skipped, and linearizable reads on
// the primary are never stale.
func TestRunMatrixTiny(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := consistency.MatrixDefaults()
	o.URI = rs.URI()
	o.Setups = []consistency.Setup{consistency.SetupOperation}
	o.Sizes = []int{consistency.KiB}
	o.W, o.RC, o.Reads = []string{"majority"}, []string{"majority", "linearizable"}, []string{"primary", "secondary"}
	o.Iterations, o.Writes = 1, 5
	o.Database = "matrix_test"
	var progress strings.Builder
	o.Progress = &progress
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := consistency.RunMatrix(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 4 || m.Interrupted || m.WallS <= 0 || m.MongodVersion == "" {
		t.Fatalf("%d cells (interrupted %v, wall %v s, mongod %q), want 4", len(m.Cells), m.Interrupted, m.WallS, m.MongodVersion)
	}
	for _, c := range m.Cells {
		if c.RC == "linearizable" && c.Read == "secondary" {
			if c.Skipped == "" || len(c.Iterations) != 0 {
				t.Errorf("linearizable off the primary ran: %+v", c)
			}
			continue
		}
		if len(c.Failed) > 0 || len(c.Iterations) != 1 || c.Summary.Iterations != 1 {
			t.Fatalf("%s %s %s: %d iterations, failed %v", c.W, c.RC, c.Read, len(c.Iterations), c.Failed)
		}
		it := c.Iterations[0]
		if it.Writes != 5 || it.WritesFailed != 0 || it.Reads < 1 || it.ReadsFailed != 0 || it.WriteMs.Mean <= 0 || it.ReadMs.P99 < it.ReadMs.P50 {
			t.Errorf("%s %s %s: %+v", c.W, c.RC, c.Read, it)
		}
		if c.RC == "linearizable" && (it.Stale != 0 || c.Summary.StalePct.Max != 0) {
			t.Errorf("linearizable reads on the primary were stale: %+v", it)
		}
		if it.Phantom != 0 {
			t.Errorf("%s %s %s: %d phantom reads", c.W, c.RC, c.Read, it.Phantom)
		}
	}
	if lines := strings.Count(progress.String(), "\n"); lines != 4 || !strings.Contains(progress.String(), "skipped: MongoDB serves linearizable reads only on the primary") {
		t.Errorf("progress (%d lines, want one per cell):\n%s", lines, progress.String())
	}
}

// TestRunMatrixResume: a run stopped after some cells' iterations, then
// continued with Resume on the journal, measures only the rest; the matrix
// holds every iteration once, the earlier ones as they were recorded.
func TestRunMatrixResume(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := consistency.MatrixDefaults()
	o.URI = rs.URI()
	o.Setups = []consistency.Setup{consistency.SetupOperation}
	o.Sizes = []int{consistency.KiB, 2 * consistency.KiB}
	o.W, o.RC, o.Reads = []string{"1"}, []string{"local"}, []string{"primary"}
	o.Iterations, o.Writes = 2, 3
	o.Database = "matrix_resume_test"
	o.Journal = filepath.Join(t.TempDir(), "matrix.journal.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first, err := consistency.RunMatrix(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	// keep the header and the first iteration of both sizes: a run stopped there
	b, err := os.ReadFile(o.Journal)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) != 6 { // header, 4 cell iterations, "" after the last newline
		t.Fatalf("journal of %d lines, want a header and 4:\n%s", len(lines)-1, b)
	}
	if err := os.WriteFile(o.Journal, []byte(strings.Join(lines[:3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := consistency.RunMatrix(ctx, o); err == nil || !errors.Is(err, consistency.ErrUnfinished) {
		t.Fatalf("a run without Resume started over an unfinished journal: %v", err)
	}
	o.Resume = true
	var progress strings.Builder
	o.Progress = &progress
	m, err := consistency.RunMatrix(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if m.Resumed != 2 || !strings.Contains(progress.String(), "2 of 4 cell iterations from earlier runs") {
		t.Errorf("resumed %d, progress:\n%s", m.Resumed, progress.String())
	}
	for _, c := range m.Cells {
		if len(c.Iterations) != 2 || c.Summary.Iterations != 2 {
			t.Fatalf("%d B: %d iterations after resuming, want 2", c.DocSize, len(c.Iterations))
		}
		was := first.Find(c.Setup, c.DocSize, c.W, c.RC, c.Read)
		if c.Iterations[0] != was.Iterations[0] {
			t.Errorf("%d B: the first iteration changed on resuming: %+v, was %+v", c.DocSize, c.Iterations[0], was.Iterations[0])
		}
		if c.Iterations[1].Writes != 3 {
			t.Errorf("%d B: the second iteration wrote %d, want 3", c.DocSize, c.Iterations[1].Writes)
		}
	}
	if b, _ := os.ReadFile(o.Journal); strings.Count(string(b), "\n") != 5 {
		t.Errorf("journal after resuming:\n%s", b)
	}
}
