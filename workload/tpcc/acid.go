package tpcc

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/workload"
)

// The ACID tests of TPC-C clause 3: atomicity (3.2.2), the nine isolation
// tests (3.4.2) and durability (3.5.4). The TPC-C-on-MongoDB paper ("TPC-C
// adapted to MongoDB", PVLDB 2019) ran them by hand (§4.6.3–§4.6.5) and
// named automating them as future work; ACID runs them on a loaded
// database.
//
// Each test scripts its transactions step by step (stepTxn: a transaction
// held open between the steps, stopped "immediately prior to COMMIT" where
// the clause says so; bgTxn: a concurrent transaction that may conflict and
// be retried), records what they returned and what the database holds
// before and after, and hands those observations to a pure check that
// names every anomaly the clause forbids. The nine isolation tests are
// scripts on one harness for two such transactions, interleaving
// (acid_isolation.go). The checks are unit-tested on
// synthetic observations; every test also has a planted anomaly (tests
// only) under which it must fail.
//
// MongoDB runs transactions in snapshot isolation: a reader never waits,
// and a writer that meets another transaction's uncommitted write aborts at
// once with a WriteConflict labelled TransientTransactionError, which the
// transaction runner retries. The clauses allow both a transaction that
// waits (their case A) and one that does not; the checks accept exactly the
// outcomes equivalent to a serial order the clause lists, and the detail of
// a passing test says which case was seen.

// ACIDResult is the outcome of one ACID test.
type ACIDResult struct {
	// Test is the test's name, e.g. "isolation-3" (ACIDTests lists them).
	Test string `json:"test"`
	// Clause is the TPC-C clause it implements, e.g. "3.4.2.3".
	Clause string `json:"clause"`
	// Name says what it verifies.
	Name string `json:"name"`
	// Status is "pass", "fail" or "skipped" in JSON (key "result").
	Status CheckStatus `json:"result"`
	// Detail is, on Fail, every violation found (or the error that stopped
	// the test); on Pass, the case the transactions followed; on Skipped,
	// why.
	Detail   string        `json:"detail,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Failover kills and restores the primary for the durability test.
type Failover struct {
	// KillPrimary kills the current primary's process (SIGKILL) and
	// returns its member name.
	KillPrimary func(ctx context.Context) (member string, err error)
	// Restart starts the killed member again and returns once the
	// replica set is healthy.
	Restart func(ctx context.Context, member string) error
}

// DurabilityOptions shape the durability test; zero values take the
// defaults.
type DurabilityOptions struct {
	// Clients is the number of concurrent New-Order clients (default 4).
	Clients int
	// BeforeKill and AfterKill are the New-Orders acknowledged before the
	// primary is killed and after (by the new primary); default 20 each.
	BeforeKill, AfterKill int
	// Timeout bounds the whole test, the restart included (default 3m).
	Timeout time.Duration
}

// ACIDOptions select the ACID tests and what they need.
type ACIDOptions struct {
	// Schema and Scale are those of the load; zero takes the load metadata.
	Schema Schema
	Scale  Scale
	// Warehouse is the warehouse the tests use (default 1).
	Warehouse int
	// Only lists the tests to run by name or clause; empty means all.
	Only []string
	// Failover kills the primary for the durability test; without it the
	// test is skipped, with SkipDurability (or a default) as the reason.
	Failover       *Failover
	SkipDurability string
	Durability     DurabilityOptions
	// Progress, if set, gets a line as each test starts.
	Progress io.Writer

	// plant names the test whose anomaly is planted (tests only): the
	// test then runs the transaction the clause verifies without the
	// protection it verifies (acidTest.plant says how), and must fail.
	plant string
}

type acidTest struct {
	name, clause, title string
	// plant describes the anomaly planted in tests (ACIDOptions.plant).
	plant string
	run   func(ctx context.Context, e *acidEnv) acidFinding
}

var acidTests = [...]acidTest{
	{"atomicity-commit", "3.2.2.1", "a committed Payment changes W_YTD, D_YTD, the customer and adds its HISTORY row",
		"the Payment's transaction is aborted instead of committed, yet reported committed", testAtomicityCommit},
	{"atomicity-rollback", "3.2.2.2", "a Payment rolled back instead of committed changes nothing",
		"the Payment runs without a transaction, so its writes apply one by one and the rollback cannot undo them", testAtomicityRollback},
	{"isolation-1", "3.4.2.1", "Order-Status does not see a New-Order before it commits, and sees it after",
		"New-Order T1 runs without a transaction (its order is visible before its commit)", testIsolation1},
	{"isolation-2", "3.4.2.2", "Order-Status never sees a New-Order that rolls back",
		"New-Order T1 runs without a transaction (its order is visible and survives its rollback)", testIsolation2},
	{"isolation-3", "3.4.2.3", "two New-Orders of one district, the first committed: consecutive order numbers",
		"New-Order T2 runs without a transaction and reads D_NEXT_O_ID before updating it (lost update)", testIsolation3},
	{"isolation-4", "3.4.2.4", "two New-Orders of one district, the first rolled back: the second takes its number",
		"New-Order T1 runs without a transaction (its D_NEXT_O_ID increment survives its rollback)", testIsolation4},
	{"isolation-5", "3.4.2.5", "Delivery committed and Payment on its customer: C_BALANCE reflects both",
		"Payment T2 is dropped after its write conflict instead of retried (its update is lost)", testIsolation5},
	{"isolation-6", "3.4.2.6", "Delivery rolled back and Payment on its customer: C_BALANCE reflects the Payment only",
		"Delivery T1 runs without a transaction (its C_BALANCE update survives its rollback)", testIsolation6},
	{"isolation-7", "3.4.2.7", "New-Order reads item prices repeatably while another transaction changes them",
		"New-Order T2 re-reads the prices outside its transaction (non-repeatable read)", testIsolation7},
	{"isolation-8", "3.4.2.8", "Delivery does not see a New-Order inserted after it read NEW_ORDER (phantom)",
		"Delivery T1 continues outside its transaction (it sees and delivers T2's order)", testIsolation8},
	{"isolation-9", "3.4.2.9", "Order-Status re-reads a customer's last order unchanged by a concurrent New-Order (phantom)",
		"Order-Status T1 re-reads outside its transaction (it sees T2's order)", testIsolation9},
	{"durability", "3.5.4", "every New-Order acknowledged with write concern majority survives the primary's crash",
		"New-Orders commit with w:1 while the secondaries receive nothing, then the primary is killed", testDurability},
}

// testDurabilityName is the test ACID skips without a Failover.
const testDurabilityName = "durability"

// ACIDTests returns the names of the ACID tests in order:
// "atomicity-commit", "atomicity-rollback", "isolation-1" …
// "isolation-9", "durability".
func ACIDTests() []string {
	names := make([]string, len(acidTests))
	for i, t := range acidTests {
		names[i] = t.name
	}
	return names
}

func selectACIDTests(only []string) ([]acidTest, error) {
	if len(only) == 0 {
		return acidTests[:], nil
	}
	want := map[string]bool{}
	for _, id := range only {
		id = strings.TrimSpace(id)
		i := slices.IndexFunc(acidTests[:], func(t acidTest) bool { return t.name == id || t.clause == id })
		if i < 0 {
			return nil, fmt.Errorf("%w: unknown ACID test %q (valid: %s, or their clauses)", ErrConfig, id, strings.Join(ACIDTests(), ", "))
		}
		want[acidTests[i].name] = true
	}
	var sel []acidTest
	for _, t := range acidTests {
		if want[t.name] {
			sel = append(sel, t)
		}
	}
	return sel, nil
}

// Validate reports the first invalid option (wrapping ErrConfig): an
// unknown test, a negative warehouse, a negative durability setting. It
// does not read the database; ACID checks the warehouse against the load.
func (o ACIDOptions) Validate() error {
	if _, err := selectACIDTests(o.Only); err != nil {
		return err
	}
	if o.Warehouse < 0 {
		return fmt.Errorf("%w: warehouse %d must be at least 1", ErrConfig, o.Warehouse)
	}
	d := o.Durability
	if d.Clients < 0 || d.BeforeKill < 0 || d.AfterKill < 0 || d.Timeout < 0 {
		return fmt.Errorf("%w: durability clients %d, orders before the kill %d and after %d, timeout %v: none may be negative",
			ErrConfig, d.Clients, d.BeforeKill, d.AfterKill, d.Timeout)
	}
	return nil
}

// acidFinding is what one test found: violations of its clause (Fail),
// notes on the case it followed (Pass), or why it was skipped.
type acidFinding struct {
	violations []string
	notes      []string
	skip       string
}

func (f *acidFinding) violate(format string, a ...any) {
	f.violations = append(f.violations, fmt.Sprintf(format, a...))
}

func (f *acidFinding) note(format string, a ...any) {
	f.notes = append(f.notes, fmt.Sprintf(format, a...))
}

// failed records err as the violation that stopped the test.
func failed(f acidFinding, what string, err error) acidFinding {
	f.violate("%s: %v", what, err)
	return f
}

// testTimeout bounds one test other than durability.
const testTimeout = time.Minute

// ACID runs the ACID tests (or those in o.Only) on db, which must hold a
// complete TPC-C load (ErrEmpty otherwise). The tests run real TPC-C
// transactions on warehouse o.Warehouse and leave the database consistent
// (clause 3.3.2), as a run would; item prices isolation-7 changes are set
// back. Run them on a quiet database: a concurrent writer changes the
// values the checks compare. A test whose clause is violated is a result
// with Status Fail, not an error; ACID returns an error for invalid options
// and a database it cannot use. Results are in the order of ACIDTests.
func ACID(ctx context.Context, db *mongo.Database, o ACIDOptions) ([]ACIDResult, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	sel, _ := selectACIDTests(o.Only)
	info, ok, err := Loaded(ctx, db)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: database %q holds no TPC-C load", ErrEmpty, db.Name())
	}
	if !info.Complete {
		return nil, fmt.Errorf("%w: the TPC-C load of database %q is incomplete (run `decongestant tpcc load` to finish it)", ErrConfig, db.Name())
	}
	cfg := DefaultConfig()
	cfg.Warehouses, cfg.Scale, cfg.Schema, cfg.Seed = info.Warehouses, info.Scale, info.Schema, info.Seed
	if o.Schema != 0 {
		cfg.Schema = o.Schema
	}
	if o.Scale != (Scale{}) {
		cfg.Scale = o.Scale
	}
	// A conflicting transaction is retried after a short random pause, so
	// one waiting for another's commit does not spin.
	cfg.RetryBackoff = 5 * time.Millisecond
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	wID := o.Warehouse
	if wID == 0 {
		wID = 1
	}
	if wID < 1 || wID > cfg.Warehouses {
		return nil, fmt.Errorf("%w: warehouse %d is not in the load (1..%d)", ErrConfig, wID, cfg.Warehouses)
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	results := make([]ACIDResult, 0, len(sel))
	for _, t := range sel {
		r := ACIDResult{Test: t.name, Clause: t.clause, Name: t.title}
		start := time.Now()
		var f acidFinding
		if t.name == testDurabilityName && o.Failover == nil {
			f.skip = o.SkipDurability
			if f.skip == "" {
				f.skip = "no way to kill the primary was given"
			}
		} else {
			fmt.Fprintf(progress, "acid: %s (clause %s)…\n", t.name, t.clause)
			f = runACIDTest(ctx, db, cfg, wID, o, t)
		}
		r.Duration = time.Since(start)
		switch {
		case len(f.violations) > 0:
			r.Status, r.Detail = Fail, strings.Join(f.violations, "; ")
		case f.skip != "":
			r.Status, r.Detail = Skipped, f.skip
		default:
			r.Status, r.Detail = Pass, strings.Join(f.notes, "; ")
		}
		results = append(results, r)
	}
	return results, nil
}

func runACIDTest(ctx context.Context, db *mongo.Database, cfg Config, wID int, o ACIDOptions, t acidTest) acidFinding {
	timeout := testTimeout
	if t.name == testDurabilityName {
		timeout = o.Durability.Timeout
		if timeout <= 0 {
			timeout = 3 * time.Minute
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	e := &acidEnv{db: db, cfg: cfg, wID: wID, o: o, planted: o.plant == t.name}
	defer e.close()
	return t.run(ctx, e)
}

// acidEnv is what a test runs with: the database, the load's
// configuration, the warehouse and whether its anomaly is planted.
type acidEnv struct {
	db      *mongo.Database
	cfg     Config
	wID     int
	o       ACIDOptions
	planted bool

	workers []*worker
}

// worker returns a new terminal on e's warehouse, with its own session;
// mod, if set, changes its configuration.
func (e *acidEnv) worker(mod func(*Config)) (*worker, error) {
	cfg := e.cfg
	if mod != nil {
		mod(&cfg)
	}
	g, err := NewGenerator(cfg)
	if err != nil {
		return nil, err
	}
	w, err := g.newWorker(workload.Env{DB: e.db, Reads: workload.PlainReads{DB: e.db}}, len(e.workers))
	if err != nil {
		return nil, err
	}
	w.wID = e.wID
	e.workers = append(e.workers, w)
	return w, nil
}

// workers returns n workers (see worker).
func (e *acidEnv) workersN(n int, mod func(*Config)) ([]*worker, error) {
	ws := make([]*worker, n)
	for i := range ws {
		w, err := e.worker(mod)
		if err != nil {
			return nil, err
		}
		ws[i] = w
	}
	return ws, nil
}

func (e *acidEnv) close() {
	for _, w := range e.workers {
		w.Close()
	}
}

// district returns the district test i (1-based) uses, so that tests
// leave each other's rows alone.
func (e *acidEnv) district(i int) int { return (i-1)%e.cfg.Scale.Districts + 1 }
