package main

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// tally counts a load's operations and keeps their latencies while it is
// measuring (between the warm-up and the end).
type tally struct {
	measuring atomic.Bool
	ops, errs atomic.Int64
	firstErr  atomic.Value // string: the first error seen, measuring or not

	mu   sync.Mutex
	lats []time.Duration
}

// worker is one client's part of a tally: its latencies, merged when it
// is done.
type worker struct {
	t    *tally
	lats []time.Duration
}

// record counts one operation that took lat and failed with err (nil: it
// succeeded); stopping says the load was being stopped, when an error is
// the stop's, not the target's.
func (w *worker) record(lat time.Duration, err error, stopping bool) {
	if err != nil && !stopping {
		w.t.firstErr.CompareAndSwap(nil, err.Error())
	}
	if !w.t.measuring.Load() {
		return
	}
	if err != nil {
		if !stopping {
			w.t.errs.Add(1)
		}
		return
	}
	w.t.ops.Add(1)
	w.lats = append(w.lats, lat)
}

func (w *worker) done() {
	w.t.mu.Lock()
	w.t.lats = append(w.t.lats, w.lats...)
	w.t.mu.Unlock()
}

// quantilesUS are the P50 and P99 of the measured latencies, in µs; call
// it once the workers are done.
func (t *tally) quantilesUS() (p50, p99 float64) {
	slices.Sort(t.lats)
	return quantileUS(t.lats, 0.5), quantileUS(t.lats, 0.99)
}

func (t *tally) firstError() string {
	s, _ := t.firstErr.Load().(string)
	return s
}
