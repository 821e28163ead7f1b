package consistency

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/results"
)

// smallPlan is one setup, two sizes, one concern pair, primary reads, two
// iterations: 4 cell iterations.
func smallPlan() MatrixOptions {
	o := MatrixDefaults()
	o.URI = "mongodb://127.0.0.1:1/?replicaSet=rs"
	o.Setups = []Setup{SetupOperation}
	o.Sizes = []int{KiB, 50 * KiB}
	o.W, o.RC, o.Reads = []string{"1"}, []string{"local"}, []string{"primary"}
	o.Iterations = 2
	return o
}

func TestJournalResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "matrix.journal.jsonl")
	o := smallPlan()
	if got := o.total(); got != 4 {
		t.Fatalf("plan of %d cell iterations, want 4", got)
	}
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	j, err := openJournal(path, &o, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	m := &results.Matrix{Cells: o.Plan()}
	c := m.Find("operation", KiB, "1", "local", "primary")
	if err := j.record(0, c, &results.MatrixIteration{DurationS: 100.5, Writes: 20, Reads: 7}, nil); err != nil {
		t.Fatal(err)
	}
	c2 := m.Find("operation", 50*KiB, "1", "local", "primary")
	if err := j.record(0, c2, nil, errors.New("connection refused")); err != nil {
		t.Fatal(err)
	}
	j.close()

	// a crash mid-line: the cut line is dropped, the rest kept
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"iteration":1,"setup":"operation","doc_size":1024,"w":"1","rc":"local","read":"primary","result":{"duration_s":` + strings.Repeat("9", 300))
	f.Close()

	// another run, without --resume, refuses to throw the unfinished run away
	if _, err := openJournal(path, &o, t0.Add(time.Hour), false); !errors.Is(err, ErrUnfinished) || !strings.Contains(err.Error(), "2 of 4") {
		t.Fatalf("an unfinished journal opened without resume: %v", err)
	}
	// another plan is refused
	other := o
	other.Writes = 100
	if _, err := openJournal(path, &other, t0, true); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("a journal of another plan was continued: %v", err)
	}
	// a new set (another URI) continues it
	o.URI = "mongodb://127.0.0.1:9/?replicaSet=rs"
	j, err = openJournal(path, &o, t0.Add(time.Hour), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.lines) != 2 || !j.done[journalKey{0, KiB, "operation", "1", "local", "primary"}] || j.done[journalKey{1, KiB, "operation", "1", "local", "primary"}] {
		t.Fatalf("resumed %d lines, done %v", len(j.lines), j.done)
	}
	if j.started != t0.Format(time.RFC3339) {
		t.Errorf("started %s, want the first run's %s", j.started, t0.Format(time.RFC3339))
	}
	m = &results.Matrix{Cells: o.Plan()}
	if err := j.replay(m); err != nil {
		t.Fatal(err)
	}
	c, c2 = m.Find("operation", KiB, "1", "local", "primary"), m.Find("operation", 50*KiB, "1", "local", "primary")
	if len(c.Iterations) != 1 || c.Iterations[0].Reads != 7 || len(c2.Failed) != 1 || c2.Failed[0] != "connection refused" {
		t.Errorf("replayed %+v and %+v", c, c2)
	}
	if m.ResumedS != 100.5 { // the failed iteration measured nothing
		t.Errorf("resumed iterations measured over %v s, want 100.5", m.ResumedS)
	}
	// what comes next is appended after the kept lines, not after the cut one
	if err := j.record(1, c, &results.MatrixIteration{Writes: 20}, nil); err != nil {
		t.Fatal(err)
	}
	j.close()
	b, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 4 || strings.Contains(string(b), "999") {
		t.Errorf("journal after resuming:\n%s", b)
	}
	if strings.Contains(string(b), "127.0.0.1") {
		t.Errorf("the journal records a URI:\n%s", b)
	}
}

// finishedJournal writes the journal of smallPlan run to its end, iteration
// i of every cell with 10i+1 reads, and returns its path.
func finishedJournal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	o := smallPlan()
	j, err := openJournal(path, &o, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	m := &results.Matrix{Cells: o.Plan()}
	for i := range o.Iterations {
		for _, size := range o.Sizes {
			if err := j.record(i, m.Find("operation", size, "1", "local", "primary"), &results.MatrixIteration{Reads: 10*i + 1}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

func TestJournalFinishedIsReplaced(t *testing.T) {
	path, o := finishedJournal(t), smallPlan()
	j, err := openJournal(path, &o, time.Now(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	if len(j.lines) != 0 {
		t.Errorf("a finished journal was continued by a run not asked to resume: %d lines", len(j.lines))
	}
}

// TestJournalIterationsGrow: the iterations are the one setting a journal
// may be continued with another value of. More continues every cell with
// the next iterations; fewer uses the first ones, keeps the rest in the
// file, and is never taken as a finished journal to start over.
func TestJournalIterationsGrow(t *testing.T) {
	path, o := finishedJournal(t), smallPlan() // 2 iterations of 2 cells
	more := o
	more.Iterations = 3
	j, err := openJournal(path, &more, time.Now(), true)
	if err != nil {
		t.Fatalf("a journal continued with more iterations: %v", err)
	}
	if len(j.lines) != 4 || !j.done[journalKey{1, KiB, "operation", "1", "local", "primary"}] || j.done[journalKey{2, KiB, "operation", "1", "local", "primary"}] {
		t.Fatalf("continued %d lines, done %v: want the 4 earlier ones and iteration 2 to run", len(j.lines), j.done)
	}
	m := &results.Matrix{Cells: more.Plan()}
	if err := j.record(2, m.Find("operation", KiB, "1", "local", "primary"), &results.MatrixIteration{Reads: 21}, nil); err != nil {
		t.Fatal(err)
	}
	j.close()
	if _, err := openJournal(path, &more, time.Now(), false); !errors.Is(err, ErrUnfinished) || !strings.Contains(err.Error(), "5 of 6") {
		t.Fatalf("the grown journal, unfinished, opened without resume: %v", err)
	}

	fewer := o
	fewer.Iterations = 1
	if _, err := openJournal(path, &fewer, time.Now(), false); err == nil || !strings.Contains(err.Error(), "3 cell iterations past this plan's 1") {
		t.Fatalf("a journal with iterations past the plan's was not refused without resume: %v", err)
	}
	if b, _ := os.ReadFile(path); strings.Count(string(b), "\n") != 6 {
		t.Fatalf("the journal was changed by a refused run:\n%s", b)
	}
	j, err = openJournal(path, &fewer, time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	m = &results.Matrix{Cells: fewer.Plan()}
	if err := j.replay(m); err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Cells {
		if len(c.Iterations) != 1 || c.Iterations[0].Reads != 1 {
			t.Errorf("%d KiB: replayed %+v, want iteration 0 only", c.DocSize/KiB, c.Iterations)
		}
	}
}

func TestJournalNotAJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	os.WriteFile(path, []byte("{\"cells\":[]}\n"), 0o644)
	o := smallPlan()
	if _, err := openJournal(path, &o, time.Now(), true); err == nil || !strings.Contains(err.Error(), "not a matrix journal") {
		t.Errorf("opened a file that is not a journal: %v", err)
	}
}
