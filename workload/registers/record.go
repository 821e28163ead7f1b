package registers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/clock"
	"github.com/decongestant/decongestant/workload"
)

// Env is where a run's operations go.
type Env struct {
	// Client starts the clients' sessions (Config.Sessions); reads and
	// writes must be on it (or, for routed reads, bridged from it).
	Client *mongo.Client
	// Writes is the registers' collection with the run's write concern,
	// read preference primary.
	Writes *mongo.Collection
	// Reads is where the run's reads go: a collection with the run's read
	// concern and read preference, or a router's routed collection.
	Reads workload.ReadCollection
	// Header describes the run in the history (settings, keys, start).
	Header history.Header
	// Sink receives every operation as it completes (a history.Writer
	// streaming to a file), besides the returned history; may be nil.
	Sink interface{ Add(history.Op) error }
	// Tick is called once a second with the operations so far, for
	// progress; may be nil.
	Tick func(elapsed time.Duration, ops int)
}

// Keys returns the registers' keys, k1..kN.
func Keys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i+1)
	}
	return keys
}

// Run records a history: it resets the registers and runs the writers and
// the readers until Config.Writes or Config.Duration, or ctx, ends them.
// start is the history's time zero (fault schedules count from it too).
// The registers' final state is ReadFinal's, once faults are undone. The
// error is a setup failure; an interrupted run returns what it recorded
// with ctx's error.
func Run(ctx context.Context, cfg Config, env Env, start time.Time) (history.History, error) {
	if err := cfg.Validate(); err != nil {
		return history.History{}, err
	}
	keys := Keys(cfg.Keys)
	h := history.History{Header: env.Header}
	h.Header.Keys = keys
	if err := reset(ctx, env.Writes, keys, cfg.DocSize); err != nil {
		return h, err
	}
	rec := &recorder{cfg: cfg, env: env, keys: keys, start: start, pad: padding(cfg.DocSize)}
	runCtx, stop := context.WithCancel(ctx)
	if cfg.Writes == 0 {
		runCtx, stop = context.WithDeadline(ctx, start.Add(cfg.Duration))
	}
	defer stop()
	var wg sync.WaitGroup
	var writers sync.WaitGroup
	for i := range cfg.Writers + cfg.Readers {
		c := &client{rec: rec, id: i + 1, writer: i < cfg.Writers,
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i+1))), seen: map[string]int64{}}
		wg.Add(1)
		if c.writer {
			writers.Add(1)
		}
		go func() {
			defer wg.Done()
			if c.writer {
				defer writers.Done()
			}
			c.run(runCtx)
		}()
	}
	if cfg.Writes > 0 {
		go func() { writers.Wait(); stop() }() // readers run while writers write
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	rec.progress(done)
	h.Ops = rec.ops
	return h, ctx.Err()
}

// recorder collects the clients' operations.
type recorder struct {
	cfg   Config
	env   Env
	keys  []string
	start time.Time
	pad   []byte
	next  atomic.Int64 // the last value handed out: every write's is unique

	mu      sync.Mutex
	ops     []history.Op
	sinkErr error
}

func (r *recorder) add(op history.Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op)
	if r.env.Sink != nil && r.sinkErr == nil {
		r.sinkErr = r.env.Sink.Add(op)
	}
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ops)
}

// progress calls Tick every second until done.
func (r *recorder) progress(done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if r.env.Tick != nil {
				r.env.Tick(time.Since(r.start), r.count())
			}
		}
	}
}

// since is ns since the history's start.
func (r *recorder) since() int64 { return int64(time.Since(r.start)) }

// client is one history client: its operations are sequential, in its own
// session when the run uses sessions.
type client struct {
	rec    *recorder
	id     int
	writer bool
	rng    *rand.Rand
	seen   map[string]int64 // key -> the value this client last read or wrote
	n      int
}

func (c *client) run(ctx context.Context) {
	if c.rec.cfg.Sessions {
		sess, err := c.rec.env.Client.StartSession(mongoCausal())
		if err != nil {
			return
		}
		defer sess.EndSession(context.WithoutCancel(ctx))
		ctx = mongo.NewSessionContext(ctx, sess)
	}
	interval := c.rec.cfg.ReadInterval
	if c.writer {
		interval = c.rec.cfg.WriteInterval
	}
	for ctx.Err() == nil {
		if c.writer && c.rec.cfg.Writes > 0 && c.n >= c.rec.cfg.Writes {
			return
		}
		c.n++
		op := c.op(ctx)
		if op.Kind == history.KindRead && op.Outcome != history.OutcomeOK && ctx.Err() != nil {
			// Cut off by the run's end (or an interruption), not
			// failed by the set: a read takes no effect, so the
			// history loses nothing by leaving it out.
			return
		}
		c.rec.add(op)
		if !clock.Sleep(ctx, interval) {
			return
		}
	}
}

// op performs one operation: a reader reads; a writer reads ReadShare of
// the time, else writes or (CASShare of its writes) compares-and-sets.
func (c *client) op(ctx context.Context) history.Op {
	key := c.rec.keys[c.rng.IntN(len(c.rec.keys))]
	switch {
	case !c.writer || c.rng.Float64() < c.rec.cfg.ReadShare:
		return c.read(ctx, key)
	case c.rng.Float64() < c.rec.cfg.CASShare:
		return c.write(ctx, key, c.seen[key], true)
	}
	return c.write(ctx, key, 0, false)
}

func (c *client) read(ctx context.Context, key string) history.Op {
	op := history.Op{Client: c.id, Key: key, Kind: history.KindRead}
	octx, cancel := context.WithTimeout(ctx, c.rec.cfg.OpTimeout)
	defer cancel()
	octx, member := withMember(octx)
	op.Invoke = c.rec.since()
	v, val, err := readRegister(octx, c.rec.env.Reads, key, c.rec.cfg.WholeReads)
	op.Complete = c.rec.since()
	op.Member = member.get()
	if err != nil {
		// A read that failed constrains nothing; its outcome is "fail"
		// whatever the error, as reads take no effect.
		op.Outcome, op.Err = history.OutcomeFail, describe(err)
		return op
	}
	op.Outcome, op.Version, op.Value = history.OutcomeOK, v, val
	c.seen[key] = val
	return op
}

func (c *client) write(ctx context.Context, key string, expect int64, cas bool) history.Op {
	value := c.rec.next.Add(1)
	op := history.Op{Client: c.id, Key: key, Kind: history.KindWrite, Value: value}
	if cas {
		op.Kind, op.Expect = history.KindCAS, expect
	}
	octx, cancel := context.WithTimeout(ctx, c.rec.cfg.OpTimeout)
	defer cancel()
	octx, member := withMember(octx)
	op.Invoke = c.rec.since()
	v, matched, err := writeRegister(octx, c.rec.env.Writes, key, value, expect, cas, c.rec.pad)
	op.Complete = c.rec.since()
	op.Member = member.get()
	switch {
	case err != nil:
		// Anything but a reply may have been applied (a timeout, a
		// failover mid-write): unknown, which the checkers treat as
		// "took effect or not".
		op.Outcome, op.Err = history.OutcomeUnknown, describe(err)
	case !matched:
		op.Outcome = history.OutcomeFail
	default:
		op.Outcome, op.Version = history.OutcomeOK, v
		c.seen[key] = value
	}
	return op
}

// describe is an error for the history: its message, without the wrapped
// chain's repetitions.
func describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return err.Error()
}
