package consistency

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/registers"
)

// Setup is one of the consistency thesis' three setups (section 4.2.3). The
// zero value is invalid.
type Setup int

// The setups.
const (
	// SetupOperation: 1 writer and 1 reader, the concerns given per
	// operation (on the collection handles).
	SetupOperation Setup = iota + 1
	// SetupSession: 1 writer and 1 reader, the concerns given in the
	// connection string (w=...&readConcernLevel=...), plain handles.
	SetupSession
	// SetupMulti: 2 writers and 10 readers, concerns per operation.
	SetupMulti
)

var setupNames = []string{SetupOperation: "operation", SetupSession: "session", SetupMulti: "multi"}

// String is the setup's name: operation, session or multi.
func (s Setup) String() string {
	if s < SetupOperation || s > SetupMulti {
		return "Setup(" + strconv.Itoa(int(s)) + ")"
	}
	return setupNames[s]
}

// ParseSetup parses operation, session or multi.
func ParseSetup(s string) (Setup, error) {
	if i := slices.Index(setupNames, strings.ToLower(strings.TrimSpace(s))); i > 0 {
		return Setup(i), nil
	}
	return 0, fmt.Errorf("%w: setup %q: want operation, session or multi", ErrBadOptions, s)
}

// Writers is the setup's number of writers.
func (s Setup) Writers() int {
	if s == SetupMulti {
		return 2
	}
	return 1
}

// Readers is the setup's number of readers.
func (s Setup) Readers() int {
	if s == SetupMulti {
		return 10
	}
	return 1
}

// InURI reports whether the setup gives its concerns in the connection
// string rather than on the handles.
func (s Setup) InURI() bool { return s == SetupSession }

// Record is the setup as the results record it.
func (s Setup) Record() results.MatrixSetup {
	where := "operation"
	if s.InURI() {
		where = "connection string"
	}
	return results.MatrixSetup{Name: s.String(), Writers: s.Writers(), Readers: s.Readers(), Concerns: where}
}

// KiB and MiB are the size units of ParseSize.
const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// ParseSize parses a document size: bytes ("4096"), or K, KB, KiB, M, MB,
// MiB (binary units: 1K = 1024 bytes). It refuses sizes over MongoDB's
// 16 MiB document limit; MatrixOptions.Validate refuses the ones a
// register cannot hold.
func ParseSize(s string) (int, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	unit := 1
	for _, u := range []struct {
		suffix string
		n      int
	}{{"KIB", KiB}, {"KB", KiB}, {"K", KiB}, {"MIB", MiB}, {"MB", MiB}, {"M", MiB}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, unit = strings.TrimSuffix(t, u.suffix), u.n
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 || t == "" {
		return 0, fmt.Errorf("%w: size %q: want a number of bytes or one with K or M (1K, 50K, 1M)", ErrBadOptions, s)
	}
	size := n * float64(unit)
	if size > registers.MaxDocSize {
		return 0, fmt.Errorf("%w: size %q is over MongoDB's 16 MiB document limit", ErrBadOptions, s)
	}
	return int(size), nil
}

// MatrixOptions is one consistency matrix: every setup × size × (w, rc)
// × read, Iterations times.
type MatrixOptions struct {
	// URI is the replica set.
	URI string
	// Setups are the consistency thesis' setups to run (all three).
	Setups []Setup
	// Sizes are the document sizes in bytes (1K, 50K, 100K, 1M).
	Sizes []int
	// W and RC are the write and read concerns; every pair runs (1 and
	// majority; local, majority and linearizable: the thesis' six pairs).
	W, RC []string
	// Reads are where reads go: driver read preferences or policies
	// (DefaultReads). A cell with rc linearizable off the primary is
	// skipped, as MongoDB rejects it.
	Reads []string
	// Iterations is how many times each cell runs (3; the thesis: 10).
	Iterations int
	// Writes is each writer's writes per iteration (20; the thesis: 100).
	Writes int
	// WriteInterval and ReadInterval are the pauses between a writer's
	// and a reader's operations (20 ms and 1 ms; the thesis: 1 s and 1 ms).
	WriteInterval, ReadInterval time.Duration
	// OpTimeout bounds one operation (10 s).
	OpTimeout time.Duration
	// WholeReads makes reads fetch the whole document rather than its
	// version and value (false: the thesis found read latency nearly
	// independent of the document size, +2.98 % up to 1 MB, which whole
	// reads of 1 MB could not show; and 10 readers fetching 1 MB every
	// millisecond saturate a 2-core machine).
	WholeReads bool
	// Settings hold the policies' constants and their staleness bound.
	Settings balancer.Settings
	// Database holds the register ("decongestant_matrix").
	Database string
	// Seed makes the clients' choices reproducible (1).
	Seed uint64
	// Progress receives one line per cell (io.Discard if nil).
	Progress io.Writer
	// Journal, when set, is the file every cell's iteration is appended
	// to as it finishes; Resume continues the journal an earlier run left
	// there, skipping what it holds (matrix_journal.go).
	Journal string
	Resume  bool
}

// DefaultReads are the matrix's default read targets: the thesis'
// primary, the driver's secondary, and decongestant's bounded policy.
// nearest is left to --reads: on one machine every member is within the
// driver's latency window, so it is a random mix of the other two.
const DefaultReads = "primary,secondary,decongestant"

// MatrixDefaults returns a matrix that finishes within a quarter of an
// hour on a shared 2-core machine (10 to 13 minutes measured): the thesis'
// sizes and concern pairs, 3 iterations of 20 writes 20 ms apart per
// writer.
func MatrixDefaults() MatrixOptions {
	return MatrixOptions{
		Setups: []Setup{SetupOperation, SetupSession, SetupMulti},
		Sizes:  []int{KiB, 50 * KiB, 100 * KiB, MiB},
		W:      []string{"1", "majority"}, RC: []string{"local", "majority", "linearizable"},
		Reads:      balancer.SplitSpecs(DefaultReads),
		Iterations: 3, Writes: 20, WriteInterval: 20 * time.Millisecond, ReadInterval: time.Millisecond,
		OpTimeout: 10 * time.Second, Settings: balancer.DefaultSettings(),
		Database: "decongestant_matrix", Seed: 1,
	}
}

// Thesis sets the thesis' run size (section 4.2.3): 10 iterations of 100
// writes 1 s apart, reads 1 ms apart.
func (o *MatrixOptions) Thesis() {
	o.Iterations, o.Writes, o.WriteInterval, o.ReadInterval = 10, 100, time.Second, time.Millisecond
}

// pairs are the (w, rc) combinations in the thesis' order: w outer.
func (o *MatrixOptions) pairs() []Concerns {
	var out []Concerns
	for _, w := range o.W {
		for _, rc := range o.RC {
			out = append(out, Concerns{W: w, RC: rc})
		}
	}
	return out
}

// registers is the workload of one cell: 1 register, the setup's pure
// writers and pure readers, as the thesis ran them.
func (o *MatrixOptions) registers(s Setup, size int) registers.Config {
	return registers.Config{Keys: 1, Writers: s.Writers(), Readers: s.Readers(),
		WriteInterval: o.WriteInterval, ReadInterval: o.ReadInterval, Writes: o.Writes,
		OpTimeout: o.OpTimeout, DocSize: size, WholeReads: o.WholeReads,
		Database: o.Database, Collection: "registers", Seed: o.Seed}
}

// Validate checks everything that can be checked before a cluster starts,
// naming the offending setting; every error wraps ErrBadOptions.
func (o *MatrixOptions) Validate() error {
	switch {
	case len(o.Setups) == 0:
		return fmt.Errorf("%w: no setups (want operation, session or multi)", ErrBadOptions)
	case len(o.Sizes) == 0:
		return fmt.Errorf("%w: no document sizes", ErrBadOptions)
	case len(o.W) == 0 || len(o.RC) == 0:
		return fmt.Errorf("%w: give at least one write concern and one read concern", ErrBadOptions)
	case len(o.Reads) == 0:
		return fmt.Errorf("%w: no read targets (want primary, secondary, nearest or a policy)", ErrBadOptions)
	case o.Iterations < 1:
		return fmt.Errorf("%w: iterations %d must be at least 1", ErrBadOptions, o.Iterations)
	case o.Writes < 1:
		return fmt.Errorf("%w: writes %d must be at least 1 (an iteration ends when every writer made them)", ErrBadOptions, o.Writes)
	case o.WriteInterval < 0 || o.ReadInterval < 0:
		return fmt.Errorf("%w: intervals must not be negative (write %v, read %v)", ErrBadOptions, o.WriteInterval, o.ReadInterval)
	case o.OpTimeout <= 0:
		return fmt.Errorf("%w: operation timeout %v must be positive", ErrBadOptions, o.OpTimeout)
	}
	for _, dup := range []struct {
		what string
		list []string
	}{{"setup", setupStrings(o.Setups)}, {"write concern", o.W}, {"read concern", o.RC}, {"read", o.Reads}} {
		if d, ok := duplicate(dup.list); ok {
			return fmt.Errorf("%w: %s %q given twice", ErrBadOptions, dup.what, d)
		}
	}
	if d, ok := duplicate(sizeStrings(o.Sizes)); ok {
		return fmt.Errorf("%w: size %s given twice", ErrBadOptions, d)
	}
	for _, s := range o.Setups {
		if s < SetupOperation || s > SetupMulti {
			return fmt.Errorf("%w: setup %v: want operation, session or multi", ErrBadOptions, s)
		}
	}
	for _, size := range o.Sizes {
		if size < registers.MinDocSize {
			return fmt.Errorf("%w: document size %d bytes is below the register's own fields (%d bytes: _id, version, value and BSON framing)",
				ErrBadOptions, size, registers.MinDocSize)
		}
		for _, s := range o.Setups {
			if err := o.registers(s, size).Validate(); err != nil {
				return fmt.Errorf("%w: %w", ErrBadOptions, err)
			}
		}
	}
	for _, w := range o.W {
		if w == "0" {
			return fmt.Errorf("%w: write concern 0: unacknowledged writes leave staleness (against acknowledged writes) undefined", ErrBadOptions)
		}
	}
	var firstInvalid error
	runnable := 0
	for _, c := range o.pairs() {
		for _, read := range o.Reads {
			c.Read = read
			err := c.Validate(o.Settings)
			switch {
			case err == nil:
				runnable++
			case linearizableOffPrimary(c):
				firstInvalid = cmp.Or(firstInvalid, err)
			default:
				return err
			}
		}
	}
	if runnable == 0 {
		return fmt.Errorf("%w (and every combination asked for is such)", firstInvalid)
	}
	return nil
}

// linearizableOffPrimary reports whether c asks for linearizable reads off
// the primary, which MongoDB rejects: such a cell is skipped.
func linearizableOffPrimary(c Concerns) bool {
	return c.RC == "linearizable" && !strings.EqualFold(c.Read, "primary")
}

// SkipLinearizable is why a cell with linearizable reads off the primary
// does not run.
const SkipLinearizable = "MongoDB serves linearizable reads only on the primary (it rejects them with any other read preference)"

// Plan returns the matrix's cells in order, setup × size × w × rc × read,
// without measurements; cells MongoDB would reject are marked skipped.
func (o *MatrixOptions) Plan() []results.MatrixCell {
	var cells []results.MatrixCell
	for _, s := range o.Setups {
		for _, size := range o.Sizes {
			for _, c := range o.pairs() {
				for _, read := range o.Reads {
					cell := results.MatrixCell{Setup: s.String(), DocSize: size, W: c.W, RC: c.RC, Read: read}
					if linearizableOffPrimary(Concerns{W: c.W, RC: c.RC, Read: read}) {
						cell.Skipped = SkipLinearizable
					}
					cells = append(cells, cell)
				}
			}
		}
	}
	return cells
}

func setupStrings(ss []Setup) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	return out
}

func sizeStrings(sizes []int) []string {
	out := make([]string, len(sizes))
	for i, s := range sizes {
		out[i] = results.SizeLabel(s)
	}
	return out
}

// duplicate returns the first item of list given twice (case-insensitive).
func duplicate(list []string) (string, bool) {
	seen := map[string]bool{}
	for _, s := range list {
		k := strings.ToLower(s)
		if seen[k] {
			return s, true
		}
		seen[k] = true
	}
	return "", false
}
