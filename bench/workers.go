package bench

import (
	"context"
	"time"

	"github.com/decongestant/decongestant/internal/clock"
	"github.com/decongestant/decongestant/workload"
)

// workers runs closed-loop clients, one goroutine each, timing every
// operation into the recorder (workloads never time themselves).
type workers struct {
	ctx context.Context
	gen workload.Generator
	env workload.Env
	rec *recorder
	// limit holds the clients together to Options.Rate (a phase's rate=);
	// nil: closed loops, each as fast as its replies come.
	limit   *rateLimit
	running []worker
	nextID  int
}

// stopGrace is how long a stopped client may take to finish its operation
// in flight before it is cut off.
const stopGrace = 5 * time.Second

// worker is one running client: stop asks it to stop after its operation in
// flight, cancel cuts that operation off, done closes when it has returned.
type worker struct {
	stop, cancel context.CancelFunc
	done         chan struct{}
}

// resize starts or stops clients until n run. Stopping waits for the
// stopped clients to return, so nothing they do is counted after resize
// returns (a phase that switches the mix measures only the new mix); each
// finishes its operation in flight first, for up to stopGrace, so that no
// read is cut off between the member that served it and the runner (the
// reads check, results.ReadsCheck).
func (ws *workers) resize(n int) error {
	for len(ws.running) < n {
		w, err := ws.gen.NewWorker(ws.env, ws.nextID)
		if err != nil {
			return err
		}
		ws.nextID++
		ctx, cancel := context.WithCancel(ws.ctx)
		stopCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		ws.running = append(ws.running, worker{stop: stop, cancel: cancel, done: done})
		go func() {
			defer close(done)
			ws.loop(ctx, stopCtx, w)
		}()
	}
	halt(ws.running[min(n, len(ws.running)):], stopGrace)
	ws.running = ws.running[:min(n, len(ws.running))]
	return nil
}

// halt stops the clients ws and waits for them to return: each after its
// operation in flight, those still in one after grace cut off.
func halt(ws []worker, grace time.Duration) {
	for _, w := range ws {
		w.stop()
	}
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	cut := false
	for _, w := range ws {
		if !cut {
			select {
			case <-w.done:
				continue
			case <-deadline.C:
				cut = true
				for _, w := range ws {
					w.cancel()
				}
			}
		}
		<-w.done
	}
	for _, w := range ws {
		w.cancel()
	}
}

// restart replaces every client with a new one (a mix switch).
func (ws *workers) restart() error {
	n := len(ws.running)
	if err := ws.resize(0); err != nil {
		return err
	}
	return ws.resize(n)
}

// stop stops every client and waits for them.
func (ws *workers) stop() { _ = ws.resize(0) }

// loop runs client w until stop is done: operations run with ctx, which
// cuts one off when it is done (its caller's is, or the grace ran out).
func (ws *workers) loop(ctx, stop context.Context, w workload.Worker) {
	if c, ok := w.(workload.Closer); ok {
		defer c.Close()
	}
	pacer, _ := w.(workload.Pacer)
	for stop.Err() == nil {
		if pacer != nil {
			if d := pacer.Delay(); d > 0 && !clock.Sleep(stop, d) {
				return
			}
		}
		if d := ws.limit.delay(time.Now()); d > 0 && !clock.Sleep(stop, d) {
			return
		}
		start := time.Now()
		op, err := w.Do(ctx)
		d := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return // cut off mid-operation: not a sample
		}
		ws.rec.record(op, d, err)
		if err != nil {
			// Back off briefly so a failing server (an election) is not
			// hammered by a tight error loop.
			clock.Sleep(stop, 10*time.Millisecond)
		}
	}
}
