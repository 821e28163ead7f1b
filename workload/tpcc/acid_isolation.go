package tpcc

import "context"

// The nine isolation tests of TPC-C clause 3.4.2, which the
// TPC-C-on-MongoDB paper performed by hand (§4.6.4). Each runs the
// clause's transactions on its own district of the test warehouse,
// interleaved at the points the clause names, and hands what they returned
// to a pure check. Each is a script on one harness, interleaving (this
// file), for two transactions: one held open at the clause's pause and one
// run concurrently. Tests 1 to 6, whose held transaction stops before its
// COMMIT, are in acid_isolation_scripts.go; 7 to 9, whose held transaction
// reads again, in acid_isolation_rereads.go; the observations and their
// pure checks in acid_isolation_checks.go; the reads and writes around the
// transactions in acid_isolation_db.go.
//
// The clauses' alternatives, and what MongoDB's snapshot transactions do:
//
//   - A reader (Order-Status, or a transaction's repeated read) never waits
//     for a writer: it reads its snapshot, the clauses' case "T2 is not
//     blocked". A reader that waited would see the writer's outcome; the
//     checks accept that too when the reader finished only after the
//     writer ended.
//   - A writer that meets another transaction's uncommitted write fails at
//     once with WriteConflict (TransientTransactionError) and is retried by
//     the transaction runner until the other ends: equivalent to the
//     clauses' case "T2 waits for T1", and to the serial order T1, T2. The
//     detail of a passing test gives the number of conflicts.

// isolationCustomer is the customer (C_ID) the isolation tests order or pay
// for; a second customer, when one is needed, is the next.
const isolationCustomer = 1

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// endedAs says how a transaction ended: "committed" or "rolled back".
func endedAs(commit bool) string {
	if commit {
		return "committed"
	}
	return "rolled back"
}

// interleaving is the script of one isolation test: two transactions in
// the order the clause gives them. The held transaction (T1 of most
// clauses) begins and runs its first step, then stops, held open (before
// its COMMIT, or between two reads); the concurrent one (T2) starts then
// and runs until it finishes, conflicts or blocks; the held one runs its
// second step, if any, and commits or rolls back; the concurrent one is
// waited for; the database is observed; the clause's pure check judges
// the observations. Whatever the script reads before the held transaction
// begins it reads itself, before run.
//
// The script's functions share its observations (one of the ...Obs
// values of acid_isolation_checks.go) by closure. Every field is required
// but held.then.
type interleaving struct {
	held       heldTxn
	concurrent concurrentTxn
	// observe reads what the check needs once both transactions ended,
	// knowing how the concurrent one went. Its error (stepErr names the
	// read) stops the test.
	observe func(ctx context.Context, c concurrentOutcome) error
	// check is the clause's pure check of the observations.
	check func() []string
	// note adds the case the transactions followed to a passing test's
	// detail.
	note func(f *acidFinding, c concurrentOutcome)
}

// heldTxn is the transaction an interleaving holds open (a stepTxn).
type heldTxn struct {
	// name names it in a failed test's detail ("New-Order T1"), endName
	// its failed end ("New-Order T1's end").
	name, endName string
	w             *worker
	// plain runs it without a transaction (planted: its writes apply at
	// once and its rollback undoes nothing).
	plain bool
	// first runs before the pause; then, if set, once the concurrent
	// transaction settled.
	first, then func(ctx context.Context) error
	// commit ends it with a commit, otherwise a rollback.
	commit bool
}

// concurrentTxn is the transaction an interleaving runs, on its own
// goroutine (goTxn), while the held one is open.
type concurrentTxn struct {
	w    *worker
	mode bgMode
	body func(ctx context.Context) error
}

// concurrentOutcome is how the concurrent transaction went.
type concurrentOutcome struct {
	// first: it finished before the held transaction went on (settle).
	first bool
	// conflicts is how many of its attempts failed before its last.
	conflicts int
	// err is its error.
	err error
}

// run runs the script s and returns what the check found, the notes of
// the case followed, or the error that stopped it.
func (s interleaving) run(ctx context.Context) acidFinding {
	var f acidFinding
	h := beginTxn(ctx, s.held.w, s.held.plain)
	defer h.end(false) // a test stopped by an error rolls it back
	if err := h.do(s.held.first); err != nil {
		return failed(f, s.held.name, err)
	}
	c := goTxn(ctx, s.concurrent.w, s.concurrent.mode, s.concurrent.body)
	// The held transaction goes on only once the concurrent one has
	// finished, has met the held one's uncommitted write (a WriteConflict,
	// retried) or has shown no progress for blockedGrace (blocked in the
	// server: the clauses' case A). So the concurrent transaction has done
	// what it can before the held one continues or ends, and a check sees
	// which of the clause's cases it followed.
	var out concurrentOutcome
	out.first = c.settle(ctx)
	if s.held.then != nil {
		if err := h.do(s.held.then); err != nil {
			return failed(f, s.held.name, err)
		}
	}
	if err := h.end(s.held.commit); err != nil {
		return failed(f, s.held.endName, err)
	}
	out.err = c.wait(ctx)
	out.conflicts = c.conflicts()
	if err := s.observe(ctx, out); err != nil {
		f.violate("%v", err)
		return f
	}
	f.violations = s.check()
	s.note(&f, out)
	return f
}

// stepError is the error of a script's step, named as a failed test's
// detail names it: "what: err".
type stepError struct {
	what string
	err  error
}

func (e stepError) Error() string { return e.what + ": " + e.err.Error() }
func (e stepError) Unwrap() error { return e.err }

// stepErr is err, if any, as the error of step what.
func stepErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return stepError{what: what, err: err}
}
