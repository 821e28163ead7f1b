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
	ctx     context.Context
	gen     workload.Generator
	env     workload.Env
	rec     *recorder
	running []worker
	nextID  int
}

// worker is one running client: cancel stops it, done closes when it has.
type worker struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// resize starts or stops clients until n run. Stopping waits for the
// stopped clients to return, so nothing they do is counted after resize
// returns (a phase that switches the mix measures only the new mix).
func (ws *workers) resize(n int) error {
	for len(ws.running) < n {
		w, err := ws.gen.NewWorker(ws.env, ws.nextID)
		if err != nil {
			return err
		}
		ws.nextID++
		ctx, cancel := context.WithCancel(ws.ctx)
		done := make(chan struct{})
		ws.running = append(ws.running, worker{cancel: cancel, done: done})
		go func() {
			defer close(done)
			ws.loop(ctx, w)
		}()
	}
	stopped := ws.running[min(n, len(ws.running)):]
	for _, w := range stopped {
		w.cancel()
	}
	for _, w := range stopped {
		<-w.done
	}
	ws.running = ws.running[:min(n, len(ws.running))]
	return nil
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

func (ws *workers) loop(ctx context.Context, w workload.Worker) {
	if c, ok := w.(workload.Closer); ok {
		defer c.Close()
	}
	pacer, _ := w.(workload.Pacer)
	for ctx.Err() == nil {
		if pacer != nil {
			if d := pacer.Delay(); d > 0 && !clock.Sleep(ctx, d) {
				return
			}
		}
		start := time.Now()
		op, err := w.Do(ctx)
		d := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return // cancelled mid-operation: not a sample
		}
		ws.rec.record(op, d, err)
		if err != nil {
			// Back off briefly so a failing server (an election) is not
			// hammered by a tight error loop.
			clock.Sleep(ctx, 10*time.Millisecond)
		}
	}
}
