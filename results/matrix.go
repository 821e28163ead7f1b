package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// Matrix is one `decongestant consistency matrix` invocation: the consistency
// thesis' experiment (section 4.2.3) with where reads go as one more dimension.
// It has one Cell per (setup, document size, write concern, read concern, read
// target), in that order, each measured Config.Iterations times.
//
// It lives here rather than in package consistency, which runs it, so that
// the report reads it without linking the MongoDB driver; the JSON field
// names are a contract like Results'.
type Matrix struct {
	Config MatrixConfig `json:"config"`
	// MongodVersion is the version of the set's mongod, when it answered.
	MongodVersion string `json:"mongod_version,omitempty"`
	StartedAt     string `json:"started_at"`
	// WallS is the invocation's wall time, connections included.
	WallS float64      `json:"wall_s"`
	Cells []MatrixCell `json:"cells"`
	// Interrupted is true when the run was cut short: the cells measured
	// before are complete, the rest absent.
	Interrupted bool `json:"interrupted,omitempty"`
	// Resumed counts the cell iterations taken from the journal of
	// earlier, interrupted runs (StartedAt is then the first run's start
	// and WallS this run's alone).
	Resumed int `json:"resumed_iterations,omitempty"`
	// ResumedS is the time those iterations were measured over (their
	// duration_s summed): what the earlier runs spent measuring, so that a
	// matrix gathered over several sittings can say what it took.
	ResumedS float64 `json:"resumed_s,omitempty"`
}

// MatrixConfig records the invocation's settings. The URI is redacted.
type MatrixConfig struct {
	URI    string        `json:"uri"`
	Setups []MatrixSetup `json:"setups"`
	// Sizes are the document sizes in bytes.
	Sizes []int `json:"sizes"`
	// W and RC are the write and read concerns; every (w, rc) pair is
	// measured.
	W          []string `json:"w"`
	RC         []string `json:"rc"`
	Reads      []string `json:"reads"`
	Iterations int      `json:"iterations"`
	// Writes is the number of writes of each writer in one iteration.
	Writes          int     `json:"writes_per_writer"`
	WriteIntervalMs float64 `json:"write_interval_ms"`
	ReadIntervalMs  float64 `json:"read_interval_ms"`
	// MaxStaleness is the bounded policies' staleness bound ("10s",
	// "none").
	MaxStaleness string `json:"max_staleness"`
	// WholeReads is true when reads fetch the whole document (but the
	// register's log), false when they fetch its version and value.
	WholeReads bool `json:"whole_reads"`
}

// MatrixSetup is one of the consistency thesis' setups as it ran.
type MatrixSetup struct {
	Name    string `json:"name"` // operation, session or multi
	Writers int    `json:"writers"`
	Readers int    `json:"readers"`
	// Concerns says where the concerns were given: "operation" (the
	// collection handles) or "connection string".
	Concerns string `json:"concerns"`
}

// MatrixCell is one (setup, size, w, rc, read) combination.
type MatrixCell struct {
	Setup   string `json:"setup"`
	DocSize int    `json:"doc_size"`
	W       string `json:"w"`
	RC      string `json:"rc"`
	Read    string `json:"read"`
	// Skipped, when set, is why the cell did not run (MongoDB rejects
	// linearizable reads off the primary); the cell has no iterations.
	Skipped string `json:"skipped,omitempty"`
	// Iterations are the measured iterations; Failed the ones that could
	// not run (their errors), left out of Summary.
	Iterations []MatrixIteration `json:"iterations,omitempty"`
	Failed     []string          `json:"failed,omitempty"`
	// Summary aggregates the iterations.
	Summary MatrixSummary `json:"summary"`
}

// MatrixIteration is one recorded run of a cell. Latencies are of the
// operations that returned ok, from invocation to completion.
type MatrixIteration struct {
	DurationS    float64 `json:"duration_s"`
	Writes       int     `json:"writes"`        // acknowledged
	WritesFailed int     `json:"writes_failed"` // failed or unknown outcome
	Reads        int     `json:"reads"`         // returned, all checked for staleness
	ReadsFailed  int     `json:"reads_failed"`
	WriteMs      Latency `json:"write_ms"`
	ReadMs       Latency `json:"read_ms"`
	// Stale reads returned a version older than the newest one whose
	// write was acknowledged before the read was sent.
	Stale    int     `json:"stale"`
	StalePct float64 `json:"stale_pct"`
	// StaleVersions and StaleMs are how old the stale reads were: versions
	// missed, and time since a newer version was first acknowledged (zero
	// without stale reads).
	StaleVersions StaleAge `json:"stale_versions"`
	StaleMs       StaleAge `json:"stale_ms"`
	// Unacknowledged reads returned a write not yet acknowledged when they
	// were sent.
	Unacknowledged int `json:"unacknowledged"`
	// Phantom reads returned a value no write produced (a bug if any).
	Phantom int `json:"phantom,omitempty"`
}

// Latency is a latency distribution's summary, in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
}

// StaleAge summarises the age of stale reads.
type StaleAge struct {
	Max float64 `json:"max"`
	P50 float64 `json:"p50"`
}

// Spread is one metric over a cell's iterations: the mean, the extremes
// and the sample standard deviation (0 for one iteration).
type Spread struct {
	N     int     `json:"n"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Stdev float64 `json:"stdev"`
}

// MatrixSummary is every metric of a cell over its iterations.
type MatrixSummary struct {
	Iterations        int    `json:"iterations"`
	WriteMean         Spread `json:"write_mean_ms"`
	WriteP50          Spread `json:"write_p50_ms"`
	WriteP99          Spread `json:"write_p99_ms"`
	ReadMean          Spread `json:"read_mean_ms"`
	ReadP50           Spread `json:"read_p50_ms"`
	ReadP99           Spread `json:"read_p99_ms"`
	StalePct          Spread `json:"stale_pct"`
	StaleVersionsMax  Spread `json:"stale_versions_max"`
	StaleVersionsP50  Spread `json:"stale_versions_p50"`
	StaleMsMax        Spread `json:"stale_ms_max"`
	StaleMsP50        Spread `json:"stale_ms_p50"`
	Unacknowledged    Spread `json:"unacknowledged"`
	UnacknowledgedPct Spread `json:"unacknowledged_pct"`
	// NotLastAckedPct is the share of reads whose version was not the last
	// acknowledged one when they were sent: the stale reads plus the
	// unacknowledged ones, the consistency thesis' "stale read" as its
	// figures can be read (DESIGN.md).
	NotLastAckedPct Spread `json:"not_last_acked_pct"`
	Reads           Spread `json:"reads"`
	Writes          Spread `json:"writes"`
}

// Find returns the cell of (setup, size, w, rc, read), or nil.
func (m *Matrix) Find(setup string, size int, w, rc, read string) *MatrixCell {
	for i := range m.Cells {
		c := &m.Cells[i]
		if c.Setup == setup && c.DocSize == size && c.W == w && c.RC == rc && c.Read == read {
			return c
		}
	}
	return nil
}

// Measured reports whether the cell has at least one measured iteration.
func (c *MatrixCell) Measured() bool { return c.Skipped == "" && c.Summary.Iterations > 0 }

// SizeLabel names a document size as the thesis does: 1K, 50K, 1M (binary
// units), else bytes ("700B").
func SizeLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n) + "B"
}

// WriteJSON writes the matrix as indented JSON.
func (m *Matrix) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// WriteJSONPath writes the matrix atomically.
func (m *Matrix) WriteJSONPath(path string) error {
	return atomicfile.Write(path, m.WriteJSON)
}

// ReadMatrix decodes a matrix file (gzipped when its name ends in .gz).
func ReadMatrix(path string) (*Matrix, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m Matrix
	if err := json.NewDecoder(f).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a matrix file: %w", path, err)
	}
	if len(m.Config.Setups) == 0 {
		return nil, fmt.Errorf("%s: not a matrix file: no setups", path)
	}
	return &m, nil
}
