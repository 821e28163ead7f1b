package consistency

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/registers"
)

// Files a check writes into CheckOptions.Out.
const (
	HistoryFile       = "history.jsonl"
	VerdictFile       = "verdict.json"
	VisualizationFile = "linearizability.html"
)

// finalTimeout bounds the final read, majority write included.
const finalTimeout = 2 * time.Minute

// Event is a fault action's start or outcome during a run.
type Event struct {
	TS     float64 `json:"t_s"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail"`
}

// Check records a history under o's concerns and faults, writes it, checks
// it and writes the verdict (and, on a linearizability violation, the
// visualisation). The error is a failure to run or to write, not a
// violation: violations are in the verdict.
func Check(ctx context.Context, o CheckOptions) (*Verdict, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	env, closeEnv, err := connect(ctx, &o)
	if err != nil {
		return nil, err
	}
	defer closeEnv()
	final := registers.FinalCollection(env.Client, o.Registers.Database, o.Registers.Collection)

	histPath := filepath.Join(o.Out, HistoryFile)
	sink, err := newHistoryFile(histPath, env.Header)
	if err != nil {
		return nil, err
	}
	defer sink.abort()
	env.Sink = sink.w
	env.Tick = func(elapsed time.Duration, ops int) {
		fmt.Fprintf(o.Progress, "  t=%4.0fs %7d operations\n", elapsed.Seconds(), ops)
	}

	start := time.Now()
	var events []Event
	record := func(ts float64, kind, detail string) {
		events = append(events, Event{TS: ts, Kind: kind, Detail: detail})
	}
	fr := faults.Start(ctx, o.Cluster, len(o.Faults), start, record, o.Progress, "check")
	schedCtx, stopSched := context.WithCancel(ctx)
	schedDone := schedule(schedCtx, fr, o.Faults, start)
	h, runErr := registers.Run(ctx, o.Registers, env, start)
	stopSched()
	<-schedDone
	if err := fr.Finish(ctx); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil {
		// Faults undone and the set healthy: the registers' final state.
		fctx, cancel := context.WithTimeout(ctx, finalTimeout)
		h.Final, runErr = registers.ReadFinal(fctx, final, h.Header.Keys)
		cancel()
	}
	if runErr != nil && ctx.Err() == nil {
		// Keep the history, unchecked for lost writes.
		fmt.Fprintf(o.Progress, "check: %v\n", runErr)
	}
	if err := sink.finish(h.Final); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted after %d operations (history in %s): %w", len(h.Ops), histPath, ctx.Err())
	}
	fmt.Fprintf(o.Progress, "check: %d operations recorded in %s; checking\n", len(h.Ops), histPath)
	bound, bounded := o.Bound()
	v := Verify(h, VerifyOptions{Bound: bound, Bounded: bounded, Timeout: o.CheckTimeout})
	v.Events = events
	if err := v.WriteFiles(o.Out); err != nil {
		return v, err
	}
	return v, runErr
}

// schedule enqueues each step's actions on fr at its time; the returned
// channel is closed when it stops (ctx done or every step enqueued).
func schedule(ctx context.Context, fr *faults.Runner, steps []faults.Step, start time.Time) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, st := range steps {
			t := time.NewTimer(time.Until(start.Add(st.At)))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			fr.Enqueue(st.Actions)
		}
	}()
	return done
}

// connect opens the clients the run uses: one client for driver read
// preferences; a router for a policy (its routed client takes the writes
// and the sessions, so causal sessions are bridged to its member pools).
func connect(ctx context.Context, o *CheckOptions) (registers.Env, func(), error) {
	c := o.Concerns
	wc, _ := c.writeConcern()
	db, coll := o.Registers.Database, o.Registers.Collection
	base := options.Client().ApplyURI(o.URI).SetReadConcern(c.readConcern()).
		SetMonitor(registers.MemberMonitor()).SetServerSelectionTimeout(10 * time.Second).SetAppName("decongestant-consistency")
	header := history.Header{Version: history.FormatVersion, Started: time.Now().UTC(), Settings: map[string]string{
		"w": c.W, "rc": c.RC, "read": c.Read, "uri": redact.URI(o.URI),
		"writers": fmt.Sprint(o.Registers.Writers), "readers": fmt.Sprint(o.Registers.Readers),
		"doc_size": fmt.Sprint(o.Registers.DocSize), "sessions": fmt.Sprint(o.Registers.Sessions)}}
	if b, ok := o.Bound(); ok {
		header.Settings["bound"] = b.String()
	}
	if c.IsPolicy() {
		sp, err := balancer.ParseSpec(c.Read, o.Settings)
		if err != nil {
			return registers.Env{}, nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
		}
		rt, err := router.Connect(ctx, o.URI, router.WithPolicy(sp.New()),
			router.WithClientOptions(options.Client().SetReadConcern(c.readConcern()).SetMonitor(registers.MemberMonitor())))
		if err != nil {
			return registers.Env{}, nil, fmt.Errorf("connect to %s: %w", redact.URI(o.URI), err)
		}
		client := rt.Client()
		env := registers.Env{Client: client, Header: header,
			Writes: client.Database(db, options.Database().SetWriteConcern(wc)).Collection(coll),
			Reads:  rt.Database(db).Collection(coll)}
		return env, func() { _ = rt.Close(context.Background()) }, nil
	}
	rp, err := c.readPref()
	if err != nil {
		return registers.Env{}, nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
	client, err := mongo.Connect(base)
	if err != nil {
		return registers.Env{}, nil, fmt.Errorf("connect to %s: %w", redact.URI(o.URI), err)
	}
	if err := client.Ping(ctx, nil); err != nil {
		_ = client.Disconnect(context.Background())
		return registers.Env{}, nil, fmt.Errorf("connect to %s: %w", redact.URI(o.URI), err)
	}
	var reads workload.ReadCollection = client.Database(db, options.Database().SetReadPreference(rp)).Collection(coll)
	env := registers.Env{Client: client, Header: header, Reads: reads,
		Writes: client.Database(db, options.Database().SetWriteConcern(wc)).Collection(coll)}
	return env, func() { _ = client.Disconnect(context.Background()) }, nil
}

// historyFile streams a history to a temporary file renamed into place when
// finished, so a history file on disk is always complete.
type historyFile struct {
	f    *os.File
	path string
	w    *history.Writer
	done bool
}

func newHistoryFile(path string, h history.Header) (*historyFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".history-*.jsonl")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return &historyFile{f: f, path: path, w: history.NewWriter(f, h)}, nil
}

func (hf *historyFile) finish(finals []history.Final) error {
	err := errors.Join(hf.w.Finish(finals), hf.f.Sync(), hf.f.Close())
	if err == nil {
		err = os.Rename(hf.f.Name(), hf.path)
	}
	hf.done = err == nil
	return err
}

// abort removes the temporary file unless finish renamed it.
func (hf *historyFile) abort() {
	if !hf.done {
		_ = hf.f.Close()
		_ = os.Remove(hf.f.Name())
	}
}
