package tpcc

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// stepTxn is a transaction the ACID tests drive step by step: each do runs
// a step in it and returns, leaving it open, so another transaction can run
// between two steps; end commits it or rolls it back. It is how a test
// stops T1 "immediately prior to COMMIT" (TPC-C clause 3.4.2) or between
// two reads. It makes one attempt: a step that fails aborts it.
//
// A plain stepTxn has no transaction: every step's writes apply at once
// and end does nothing. The planted anomalies use it.
type stepTxn struct {
	ctx    context.Context
	plain  bool
	cmds   chan stepCmd
	res    chan error
	failed error // the error that aborted it
	ended  bool
}

type stepCmd struct {
	fn     func(ctx context.Context) error // nil: end
	commit bool
}

// beginTxn starts a transaction in w's session (plain: none). ctx must end
// when the test does: a transaction never ended is aborted then.
func beginTxn(ctx context.Context, w *worker, plain bool) *stepTxn {
	t := &stepTxn{ctx: ctx, plain: plain, cmds: make(chan stepCmd), res: make(chan error, 1)}
	if plain {
		return t
	}
	go func() {
		var retries int
		err := w.txn.attempt(ctx, func(sctx context.Context) error {
			for {
				select {
				case c := <-t.cmds:
					if c.fn == nil {
						if !c.commit {
							return errRollback
						}
						return nil
					}
					err := c.fn(sctx)
					t.res <- err
					if err != nil {
						return err
					}
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}, &retries)
		if errors.Is(err, errRollback) {
			err = nil
		}
		t.res <- err
	}()
	return t
}

// do runs fn as the transaction's next step (plain: directly, with the
// stepTxn's context) and returns its error. After an error the transaction
// is aborted and every later do and end return that error.
func (t *stepTxn) do(fn func(ctx context.Context) error) error {
	if t.plain {
		return fn(t.ctx)
	}
	if t.failed != nil {
		return t.failed
	}
	select {
	case t.cmds <- stepCmd{fn: fn}:
	case <-t.ctx.Done():
		t.failed = t.ctx.Err()
		return t.failed
	}
	if err := <-t.res; err != nil {
		t.failed = err
		<-t.res // the attempt's own outcome, once aborted
		return err
	}
	return nil
}

// end commits the transaction (commit) or rolls it back, and returns the
// commit's error.
func (t *stepTxn) end(commit bool) error {
	if t.plain || t.ended {
		return nil
	}
	if t.failed != nil {
		return t.failed
	}
	t.ended = true
	select {
	case t.cmds <- stepCmd{commit: commit}:
	case <-t.ctx.Done():
		return t.ctx.Err()
	}
	return <-t.res
}

// bgMode is how a concurrent transaction (bgTxn) runs.
type bgMode uint8

const (
	bgRetry bgMode = iota + 1 // in a transaction, retried whole on TransientTransactionError (the runner's way)
	bgOnce                    // in a transaction, one attempt (planted: a conflict loses its update)
	bgPlain                   // no transaction at all (planted)
)

// bgTxn is a transaction running concurrently with a stepTxn: T2 of the
// isolation tests. attempts counts its attempts, so a test sees it conflict.
type bgTxn struct {
	attempts atomic.Int32
	done     chan struct{}
	err      error
}

func goTxn(ctx context.Context, w *worker, mode bgMode, body func(ctx context.Context) error) *bgTxn {
	b := &bgTxn{done: make(chan struct{})}
	counted := func(ctx context.Context) error {
		b.attempts.Add(1)
		return body(ctx)
	}
	go func() {
		defer close(b.done)
		switch mode {
		case bgRetry:
			_, _, b.err = w.txn.run(ctx, counted)
		case bgOnce:
			var retries int
			b.err = w.txn.attempt(ctx, counted, &retries)
		case bgPlain:
			b.err = counted(ctx)
		}
	}()
	return b
}

// blockedGrace is how long settle waits for a transaction that neither
// finishes nor conflicts: one blocked inside the server (a write that waits
// for another transaction's commit) gives no other sign.
const blockedGrace = 2 * time.Second

// settle waits until b has finished (true), has conflicted and is being
// retried, or has made no visible progress for blockedGrace (false: it
// waits for the transaction it conflicts with, the clauses' case A).
func (b *bgTxn) settle(ctx context.Context) bool {
	deadline := time.Now().Add(blockedGrace)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-b.done:
			return true
		case <-ctx.Done():
			return false
		case <-tick.C:
			if b.attempts.Load() >= 2 || time.Now().After(deadline) {
				return false
			}
		}
	}
}

// wait waits until b has finished and returns its error. A b already
// finished returns its own error even if ctx has ended (a single select
// would pick either at random).
func (b *bgTxn) wait(ctx context.Context) error {
	select {
	case <-b.done:
		return b.err
	default:
	}
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// conflicts is how many times b's attempts failed before its last.
func (b *bgTxn) conflicts() int { return max(int(b.attempts.Load())-1, 0) }
