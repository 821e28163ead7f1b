package consistency

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
)

// The journal makes a long matrix resumable. The thesis' own shape (ten
// iterations of 100 writes a second apart) runs for hours per setup, longer
// than a working session, so every cell's iteration is appended to the
// journal as it finishes (one JSON line, synced), and a run given a journal
// that already holds some skips them: a rerun continues where the last one
// stopped, on a new set if need be, and the matrix is built from every
// line. A journal belongs to one plan: its first line records the settings
// that decide the cells and their order (everything but the URI), and a run
// with other settings is refused rather than mixed in. The iterations are
// the exception: they only extend the order (iteration by iteration), so a
// run asking for more continues the journal with the next iterations of
// every cell (a researcher growing n to decide a claim), and one asking for
// fewer uses the first ones and leaves the rest in the file.

// journalHeader is a journal's first line.
type journalHeader struct {
	Journal int                  `json:"matrix_journal"` // format version, 1
	Config  results.MatrixConfig `json:"config"`         // URI blanked: each session's set has its own
	Seed    uint64               `json:"seed"`
	Started string               `json:"started_at"`
}

// journalLine is one cell's iteration: measured, or failed with its error.
type journalLine struct {
	Iteration int                      `json:"iteration"`
	Setup     string                   `json:"setup"`
	DocSize   int                      `json:"doc_size"`
	W         string                   `json:"w"`
	RC        string                   `json:"rc"`
	Read      string                   `json:"read"`
	Result    *results.MatrixIteration `json:"result,omitempty"`
	Failed    string                   `json:"failed,omitempty"`
	At        string                   `json:"at"`
}

// journalKey names one cell's iteration.
type journalKey struct {
	iteration, size    int
	setup, w, rc, read string
}

func (l journalLine) key() journalKey {
	return journalKey{l.Iteration, l.DocSize, l.Setup, l.W, l.RC, l.Read}
}

// journal is an open journal: what earlier runs recorded and the file to
// append to.
type journal struct {
	f    *os.File
	done map[journalKey]bool
	// lines are the earlier runs' lines, in the order written.
	lines []journalLine
	// started is the first run's start.
	started string
	// beyond counts the lines of iterations past the plan's, kept in the
	// file but not used.
	beyond int
}

// ErrUnfinished is a journal left by a run that stopped before its end,
// found by a run not asked to resume it.
var ErrUnfinished = errors.New("an unfinished run's journal")

// openJournal opens the journal at path for the plan o. With resume it
// continues a journal there (a journal of another plan is an error; so is
// a line that does not parse, except a last line cut short by a crash,
// which is dropped and its cell's iteration runs again). Without, it
// starts a new one, over a finished journal but never over an unfinished
// one (ErrUnfinished) nor over one holding iterations past the plan's:
// hours of measurements are not thrown away by a forgotten flag.
func openJournal(path string, o *MatrixOptions, now time.Time, resume bool) (*journal, error) {
	j, err := readJournal(path, o, now)
	if err != nil {
		return nil, err
	}
	if !resume && (len(j.lines) > 0 || j.beyond > 0) {
		if j.beyond > 0 {
			j.close()
			return nil, fmt.Errorf("%s holds %d cell iterations past this plan's %d a cell: --resume uses the first %d; another --out, or removing it, starts over",
				path, j.beyond, o.Iterations, o.Iterations)
		}
		if total := o.total(); len(j.lines) < total {
			j.close()
			return nil, fmt.Errorf("%s holds %w (%d of %d cell iterations): --resume continues it; another --out, or removing it, starts over",
				path, ErrUnfinished, len(j.lines), total)
		}
		j.close()
		if err := os.Remove(path); err != nil {
			return nil, err
		}
		return readJournal(path, o, now)
	}
	return j, nil
}

// total is the number of cell iterations of the plan: its runnable cells
// (every size of every group) times the iterations.
func (o *MatrixOptions) total() int { return len(o.groups()) * len(o.Sizes) * o.Iterations }

// readJournal opens the journal at path, creating it with its header when
// absent, and reads what it holds.
func readJournal(path string, o *MatrixOptions, now time.Time) (*journal, error) {
	want := journalHeader{Journal: 1, Config: o.record(), Seed: o.Seed, Started: now.UTC().Format(time.RFC3339)}
	want.Config.URI = ""
	j := &journal{done: map[journalKey]bool{}, started: want.Started}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b = nil
	case err != nil:
		return nil, err
	}
	valid := 0 // bytes of b that are whole lines
	if len(b) > 0 {
		lines := bytes.SplitAfter(b, []byte("\n"))
		var h journalHeader
		if err := json.Unmarshal(lines[0], &h); err != nil || h.Journal != 1 {
			return nil, fmt.Errorf("%s: not a matrix journal (its first line: %v)", path, err)
		}
		if err := samePlan(h, want); err != nil {
			return nil, fmt.Errorf("%s was written by a run with other settings (%w): give another --out, or remove it to start over", path, err)
		}
		j.started, valid = h.Started, len(lines[0])
		for i, raw := range lines[1:] {
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
			var l journalLine
			if err := json.Unmarshal(raw, &l); err != nil || !bytes.HasSuffix(raw, []byte("\n")) {
				if i == len(lines)-2 { // the last line, cut short
					break
				}
				return nil, fmt.Errorf("%s: line %d: %v", path, i+2, err)
			}
			valid += len(raw)
			if l.Iteration >= o.Iterations {
				j.beyond++
				continue
			}
			j.lines = append(j.lines, l)
			j.done[l.key()] = true
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(int64(valid)); err != nil { // drop a line cut short
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(int64(valid), 0); err != nil {
		f.Close()
		return nil, err
	}
	j.f = f
	if valid == 0 {
		if err := j.append(want); err != nil {
			f.Close()
			return nil, err
		}
	}
	return j, nil
}

// samePlan compares the settings that decide a journal's cells and order,
// all but the iterations.
func samePlan(have, want journalHeader) error {
	have.Config.Iterations, want.Config.Iterations = 0, 0
	hb, _ := json.Marshal(have.Config)
	wb, _ := json.Marshal(want.Config)
	switch {
	case have.Seed != want.Seed:
		return fmt.Errorf("seed %d, now %d", have.Seed, want.Seed)
	case !bytes.Equal(hb, wb):
		return fmt.Errorf("settings %s, now %s", hb, wb)
	}
	return nil
}

// append writes v as one line and syncs it.
func (j *journal) append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(j.f)
	w.Write(b)
	w.WriteByte('\n')
	if err := w.Flush(); err != nil {
		return err
	}
	return j.f.Sync()
}

// record appends one cell's iteration.
func (j *journal) record(i int, c *results.MatrixCell, it *results.MatrixIteration, failed error) error {
	l := journalLine{Iteration: i, Setup: c.Setup, DocSize: c.DocSize, W: c.W, RC: c.RC, Read: c.Read,
		Result: it, At: time.Now().UTC().Format(time.RFC3339)}
	if failed != nil {
		l.Failed = failed.Error()
	}
	j.done[l.key()] = true
	return j.append(l)
}

// replay puts the earlier runs' iterations into m's cells, and their
// measured time into m.ResumedS.
func (j *journal) replay(m *results.Matrix) error {
	var took float64
	defer func() { m.ResumedS = metrics.Round3(took) }()
	for _, l := range j.lines {
		c := m.Find(l.Setup, l.DocSize, l.W, l.RC, l.Read)
		if c == nil {
			return fmt.Errorf("journal: a cell the plan does not have: %s %d %s/%s %s", l.Setup, l.DocSize, l.W, l.RC, l.Read)
		}
		if l.Result != nil {
			c.Iterations = append(c.Iterations, *l.Result)
			took += l.Result.DurationS
		} else {
			c.Failed = append(c.Failed, l.Failed)
		}
	}
	return nil
}

func (j *journal) close() error { return j.f.Close() }
