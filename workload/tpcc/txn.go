package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// errRollback is returned by a transaction body that must roll back on
// purpose (New-Order with an unused item, clause 2.4.2.3).
var errRollback = errors.New("tpcc: rollback requested")

// ErrNotFound reports a row a transaction requires and did not find: the
// database is not a consistent TPC-C database (py-tpcc asserts the same).
var ErrNotFound = errors.New("tpcc: row not found")

func notFound(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrNotFound, fmt.Sprintf(format, a...))
}

// Error labels of the transactions specification.
const (
	labelTransient     = "TransientTransactionError"
	labelUnknownCommit = "UnknownTransactionCommitResult"
)

func hasLabel(err error, label string) bool {
	var le mongo.LabeledError
	return errors.As(err, &le) && le.HasErrorLabel(label)
}

// txnRunner runs transaction bodies in one session with the TPC-C-on-MongoDB
// paper's retry loop: the whole body again on TransientTransactionError, the
// commit again on UnknownTransactionCommitResult; every retry is counted.
type txnRunner struct {
	sess    *mongo.Session
	opts    *options.TransactionOptionsBuilder
	max     int           // retries allowed; 0 = unbounded
	backoff time.Duration // cap of the jittered pause before a retry; 0 = none
	rnd     *rand.Rand
}

func newTxnRunner(sess *mongo.Session, wc *writeconcern.WriteConcern, max int, backoff time.Duration, seed uint64) *txnRunner {
	return &txnRunner{sess: sess, max: max, backoff: backoff, rnd: rand.New(rand.NewPCG(seed, 0xbac0ff)),
		opts: options.Transaction().SetReadConcern(readconcern.Snapshot()).SetWriteConcern(wc)}
}

// pause sleeps before retry n (1-based): uniform in [0, min(cap, 1ms*2^n)].
func (t *txnRunner) pause(ctx context.Context, n int) {
	if t.backoff <= 0 {
		return
	}
	limit := min(t.backoff, time.Millisecond<<min(n, 20))
	d := time.Duration(t.rnd.Int64N(int64(limit) + 1))
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
	case <-tm.C:
	}
}

// run executes body in a transaction until it commits, rolls back on
// purpose (rolledBack true, err nil), fails with a non-transient error or
// exhausts the retries.
func (t *txnRunner) run(ctx context.Context, body func(ctx context.Context) error) (retries int, rolledBack bool, err error) {
	for {
		err = t.attempt(ctx, body, &retries)
		switch {
		case err == nil:
			return retries, false, nil
		case errors.Is(err, errRollback):
			return retries, true, nil
		case ctx.Err() != nil:
			return retries, false, ctx.Err()
		case hasLabel(err, labelTransient) && (t.max == 0 || retries < t.max):
			retries++
			t.pause(ctx, retries)
			continue
		}
		return retries, false, err
	}
}

func (t *txnRunner) attempt(ctx context.Context, body func(ctx context.Context) error, retries *int) error {
	if err := t.sess.StartTransaction(t.opts); err != nil {
		return err
	}
	sctx := mongo.NewSessionContext(ctx, t.sess)
	if err := body(sctx); err != nil {
		// Abort with a context that outlives a cancelled run so the server
		// does not keep the transaction's locks until it times out.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
		_ = t.sess.AbortTransaction(mongo.NewSessionContext(actx, t.sess))
		cancel()
		return err
	}
	// Once the body is done the commit is not cancelled with the run: a
	// commit cut short may never reach the server, whose transaction would
	// then stay open, holding its documents, until the session is reaped
	// or transactionLifetimeLimitSeconds ends it, and stall the next run.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	cctx = mongo.NewSessionContext(cctx, t.sess)
	for {
		err := t.sess.CommitTransaction(cctx)
		if err != nil && hasLabel(err, labelUnknownCommit) && ctx.Err() == nil && (t.max == 0 || *retries < t.max) {
			*retries++
			continue
		}
		return err
	}
}

// commitTimeout bounds a commit (with its retries on
// UnknownTransactionCommitResult) once the run is cancelled.
const commitTimeout = 30 * time.Second
