package bench

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/workload"
)

// recorder times every operation by class and by name.
type recorder struct {
	read, write       *metrics.Histogram
	readErr, writeErr atomic.Int64
	mu                sync.RWMutex
	byOp              map[string]*opRecorder
	lastErr           atomic.Value // string
}

// opRecorder holds one operation name's measurements.
type opRecorder struct {
	hist                        *metrics.Histogram
	retries, rolledBack, errors atomic.Int64
}

func newRecorder() *recorder {
	return &recorder{read: metrics.NewHistogram(), write: metrics.NewHistogram(), byOp: map[string]*opRecorder{}}
}

func (r *recorder) op(name string) *opRecorder {
	r.mu.RLock()
	o, ok := r.byOp[name]
	r.mu.RUnlock()
	if ok {
		return o
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok = r.byOp[name]; !ok {
		o = &opRecorder{hist: metrics.NewHistogram()}
		r.byOp[name] = o
	}
	return o
}

func (r *recorder) record(op workload.Op, d time.Duration, err error) {
	name := op.Name
	if name == "" {
		name = "UNKNOWN"
	}
	o := r.op(name)
	if op.Retries > 0 {
		o.retries.Add(int64(op.Retries))
	}
	if err != nil {
		if op.Class == workload.Read {
			r.readErr.Add(1)
		} else {
			r.writeErr.Add(1)
		}
		o.errors.Add(1)
		r.lastErr.Store(err.Error())
		return
	}
	if op.Class == workload.Read {
		r.read.Record(d)
	} else {
		r.write.Record(d)
	}
	if op.RolledBack {
		o.rolledBack.Add(1)
	}
	o.hist.Record(d)
}

// opsSnapshot returns the cumulative measurements of every operation name.
func (r *recorder) opsSnapshot() map[string]workload.OpStats {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]workload.OpStats, len(r.byOp))
	for name, o := range r.byOp {
		h := o.hist.Snapshot()
		out[name] = workload.OpStats{Count: int64(h.Count()), Retries: o.retries.Load(),
			RolledBack: o.rolledBack.Load(), Errors: o.errors.Load(), Latency: h}
	}
	return out
}

// subOps returns cur - prev per operation name.
func subOps(cur, prev map[string]workload.OpStats) map[string]workload.OpStats {
	out := make(map[string]workload.OpStats, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			out[name] = c
			continue
		}
		out[name] = workload.OpStats{Count: c.Count - p.Count, Retries: c.Retries - p.Retries,
			RolledBack: c.RolledBack - p.RolledBack, Errors: c.Errors - p.Errors, Latency: c.Latency.Sub(p.Latency)}
	}
	return out
}

type opStats struct {
	Count int64   `json:"count"`
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
}

func opSummary(ops map[string]workload.OpStats) map[string]opStats {
	out := map[string]opStats{}
	for name, o := range ops {
		out[name] = opStats{Count: o.Count, P50MS: metrics.Round3(metrics.MS(o.Latency.Quantile(0.5))), P99MS: metrics.Round3(metrics.MS(o.Latency.Quantile(0.99)))}
	}
	return out
}
