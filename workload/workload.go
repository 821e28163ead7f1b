// Package workload defines how a benchmark workload declares itself to the
// bench runner, and keeps the registry of workloads by name.
//
// A workload never times its own operations: the runner calls Worker.Do in a
// closed loop and times every call, recording the returned Op under its class
// (read or write) and its name. Reads that should be routed by the balancer go
// through Env.Reads; writes go to Env.DB, which always targets the primary.
package workload

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/metrics"
)

// Class says whether an operation counts as a read or a write in the
// per-period throughput series.
type Class uint8

const (
	// Read is a read-only operation; it is routed by the balancer.
	Read Class = iota + 1
	// Write is any operation that modifies data; it goes to the primary.
	Write
)

// String returns "read" or "write".
func (c Class) String() string {
	switch c {
	case Read:
		return "read"
	case Write:
		return "write"
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Op describes one operation a Worker performed. Name is a constant string
// such as "READ" or "UPDATE" (YCSB's names) so returning an Op never allocates.
type Op struct {
	Name  string
	Class Class
	// Retries counts how often the operation was retried before its
	// outcome (e.g. a transaction retried on TransientTransactionError).
	Retries int
	// RolledBack marks an operation that completed by rolling back on
	// purpose (TPC-C New-Order's 1% with an unused item): a success that
	// is counted apart.
	RolledBack bool
}

// ReadCollection is the subset of a collection's read API that routed reads
// use. Both *mongo.Collection and the router's routed collection satisfy it,
// so workloads can be tested without a router.
type ReadCollection interface {
	FindOne(ctx context.Context, filter any, opts ...options.Lister[options.FindOneOptions]) *mongo.SingleResult
	Find(ctx context.Context, filter any, opts ...options.Lister[options.FindOptions]) (*mongo.Cursor, error)
	Aggregate(ctx context.Context, pipeline any, opts ...options.Lister[options.AggregateOptions]) (*mongo.Cursor, error)
	CountDocuments(ctx context.Context, filter any, opts ...options.Lister[options.CountOptions]) (int64, error)
	Distinct(ctx context.Context, fieldName string, filter any, opts ...options.Lister[options.DistinctOptions]) *mongo.DistinctResult
}

// Reads hands out routed read handles for collections of the workload's
// database.
type Reads interface {
	Collection(name string) ReadCollection
	// Begin starts a read of several queries routed as one unit: every
	// query run with the Unit's Ctx on its DB goes to the member or side
	// chosen here, and Done records the unit's latency (TPC-C Stock-Level).
	// A session for the unit must be in ctx (mongo.NewSessionContext)
	// before Begin: the router may carry it to a member's own pool, and
	// the Unit's Ctx then holds that pool's session.
	Begin(ctx context.Context) Unit
}

// Unit is one routed multi-query read; see Reads.Begin.
type Unit struct {
	Ctx context.Context
	// DB is the workload's database with the read preference chosen for
	// the unit.
	DB *mongo.Database
	// Secondary reports whether the unit was routed to the secondaries.
	Secondary bool
	// Done records the unit's outcome; call it exactly once.
	Done func(error)
}

// PlainReads adapts a *mongo.Database to Reads without any routing: every
// read uses the database's own read preference. Used in tests and for loading.
type PlainReads struct{ DB *mongo.Database }

// Collection returns the plain collection.
func (p PlainReads) Collection(name string) ReadCollection { return p.DB.Collection(name) }

// Begin returns a unit on the plain database.
func (p PlainReads) Begin(ctx context.Context) Unit {
	return Unit{Ctx: ctx, DB: p.DB, Done: func(error) {}}
}

// Env is what a workload gets to run against.
type Env struct {
	// DB is the workload's database on a client whose read preference is
	// primary; all writes and all unrouted reads use it.
	DB *mongo.Database
	// Reads hands out routed read handles on the same database.
	Reads Reads
}

// Progress receives loading progress: done out of total units (records,
// rows). It may be called from several goroutines.
type Progress func(done, total int64)

// Worker is one closed-loop client. Do performs exactly one operation and
// reports what it was. A Worker is used by a single goroutine.
type Worker interface {
	Do(ctx context.Context) (Op, error)
}

// Pacer is implemented by workers that pause between operations (TPC-C's
// keying and think times). The runner sleeps Delay before every Do, outside
// the operation's timing.
type Pacer interface {
	Delay() time.Duration
}

// Closer is implemented by workers that hold resources (a session); the
// runner calls Close when the worker stops.
type Closer interface {
	Close()
}

// Generator is a configured workload.
type Generator interface {
	// Name is the workload's registry name, e.g. "ycsb".
	Name() string
	// Mix is the current operation mix, e.g. "b" for YCSB-B; used in results.
	Mix() string
	// SetMix switches the operation mix (a phase change). Workers created
	// before the call keep their mix; the runner creates new workers.
	SetMix(mix string) error
	// Load creates the collections and indexes and loads the initial data
	// with the given parallelism, reporting progress.
	Load(ctx context.Context, env Env, parallel int, progress Progress) error
	// NewWorker returns a closed-loop client; id distinguishes workers so
	// their random streams differ deterministically.
	NewWorker(env Env, id int) (Worker, error)
}

// RunReporter is implemented by generators that add a section of their own
// to every run's results (TPC-C's tpmC report). The runner calls BeginRun
// before the run's clients start, StartMeasure when the measured interval
// starts (after the warm-up), and EndRun after the clients stopped; it
// stores EndRun's value under its key in the run's extra results.
type RunReporter interface {
	BeginRun(ctx context.Context, env Env) error
	StartMeasure(ctx context.Context, env Env)
	EndRun(ctx context.Context, env Env, st RunStats) (key string, value any, err error)
}

// RunStats are the runner's measurements of a run's operations over the
// measured interval (after warm-up).
type RunStats struct {
	MeasuredS float64
	// ClientCPUS is the CPU time the benchmark process used meanwhile.
	ClientCPUS float64
	Ops        map[string]OpStats
}

// OpStats are the measurements of one operation name.
type OpStats struct {
	// Count is the successful operations (including the rolled-back ones).
	Count      int64
	Retries    int64
	RolledBack int64
	Errors     int64
	// Latency holds the successful operations' latencies.
	Latency *metrics.Snapshot
}

// Flagser is a workload before it is configured: it declares its settings
// once, as flags bound to them (with their defaults), and turns them into a
// Generator. The CLI builds `bench <name>` from it; tests and programs set
// the same flags by name (CockroachDB's pkg/workload does the same).
type Flagser interface {
	// Flags returns the workload's own flag set, bound to its settings.
	Flags() *flag.FlagSet
	// Configure is the validation hook: it checks the settings, combined
	// with the runner's shared ones, and returns the configured generator.
	Configure(Shared) (Generator, error)
}

// Shared are the settings the runner owns that a workload also uses.
type Shared struct {
	// Seed makes the loaded data and the workers' random streams
	// reproducible.
	Seed int64
	// WriteConcern is the runs' write concern: "majority" or a member
	// count such as "1".
	WriteConcern string
}

// Sized is implemented by generators whose size is a record count (YCSB);
// the results record it.
type Sized interface {
	Records() int64
}

// ReadWindowed is implemented by generators whose reads draw from a window
// of the loaded keys that a phase can move (the read-hints paper's changed
// working set): SetReadOffset moves it to start at key n; workers created
// after it use the new window. CheckReadOffset says, before a run, whether
// n is a window of the loaded keys.
type ReadWindowed interface {
	CheckReadOffset(n int64) error
	SetReadOffset(n int64) error
}

// Described is implemented by generators with settings the results should
// record beside the mix and the size (YCSB's distribution, causal sessions).
type Described interface {
	Settings() map[string]string
}

// Meta describes a registered workload.
type Meta struct {
	Name string
	// Description is one line for help texts.
	Description string
	// Clients and WriteConcern are the workload's defaults of the run
	// settings that differ between workloads.
	Clients      int
	WriteConcern string
	// New returns the workload with its default settings.
	New func() Flagser
}

var (
	mu       sync.Mutex
	registry = map[string]Meta{}
)

// Register adds a workload; it panics on a duplicate or incomplete Meta,
// programming errors caught at init.
func Register(m Meta) {
	mu.Lock()
	defer mu.Unlock()
	if m.Name == "" || m.New == nil {
		panic("workload: Register needs a name and New")
	}
	if _, dup := registry[m.Name]; dup {
		panic("workload: duplicate registration of " + m.Name)
	}
	registry[m.Name] = m
}

// Lookup returns the named workload's Meta.
func Lookup(name string) (Meta, error) {
	mu.Lock()
	m, ok := registry[name]
	mu.Unlock()
	if !ok {
		return Meta{}, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return m, nil
}

// Names lists the registered workloads, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Configure looks the named workload up, sets its flags from args (e.g.
// "--workload", "a") and configures it: the programmatic twin of the CLI's
// `bench <name> [flags]`.
func Configure(name string, shared Shared, args ...string) (Generator, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	w := m.New()
	fs := w.Flags()
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return w.Configure(shared)
}
