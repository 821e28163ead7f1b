package consistency

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/decongestant/decongestant/faults"
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
