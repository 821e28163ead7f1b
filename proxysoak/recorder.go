package proxysoak

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/metrics"
)

// recorder collects every authenticated operation of both drivers: its
// latency in the phase it started in, its error kind, and the ids that
// acknowledged inserts and commits wrote.
type recorder struct {
	start  time.Time
	bounds []time.Duration // phase i starts at bounds[i]

	mu        sync.Mutex
	lat       [][]float32 // ms, by phase
	errs      []int64     // by phase
	kinds     map[string]int64
	acked     map[string]bool // inserts acknowledged
	committed map[string]bool // transactions acknowledged
	attempts  map[string]int64
}

func newRecorder(start time.Time, bounds []time.Duration) *recorder {
	return &recorder{start: start, bounds: bounds, lat: make([][]float32, len(bounds)), errs: make([]int64, len(bounds)),
		kinds: map[string]int64{}, acked: map[string]bool{}, committed: map[string]bool{}, attempts: map[string]int64{}}
}

// phase returns the phase an operation that started at offset belongs to.
func (r *recorder) phase(offset time.Duration) int {
	i, _ := slices.BinarySearch(r.bounds, offset+1)
	return max(i-1, 0)
}

// add records one operation: op is insert, read or txn; kind its error
// kind ("" for none); id what an acknowledged insert or commit wrote.
func (r *recorder) add(began time.Time, took time.Duration, op, kind, id string) {
	p := r.phase(began.Sub(r.start))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lat[p] = append(r.lat[p], float32(metrics.MS(took)))
	r.attempts[op]++
	if kind != "" {
		r.errs[p]++
		r.kinds[op+": "+kind]++
		return
	}
	switch {
	case id == "":
	case op == "insert":
		r.acked[id] = true
	case op == "txn":
		r.committed[id] = true
	}
}

// phases summarises the latencies by phase (named by names) and overall.
func (r *recorder) phases(names []string, end time.Duration) ([]Phase, Phase) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Phase
	var all []float32
	var allErrs int64
	for i, xs := range r.lat {
		to := end
		if i+1 < len(r.bounds) {
			to = r.bounds[i+1]
		}
		out = append(out, summary(names[i], r.bounds[i], to, xs, r.errs[i]))
		all = append(all, xs...)
		allErrs += r.errs[i]
	}
	return out, summary("overall", 0, end, all, allErrs)
}

func summary(name string, from, to time.Duration, xs []float32, errs int64) Phase {
	p := Phase{Name: name, FromS: metrics.Round3(from.Seconds()), ToS: metrics.Round3(to.Seconds()), Ops: int64(len(xs)), Errors: errs}
	if len(xs) == 0 {
		return p
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	p.P50MS = metrics.Round3(float64(metrics.Quantile(s, 0.5)))
	p.P99MS = metrics.Round3(float64(metrics.Quantile(s, 0.99)))
	p.MaxMS = metrics.Round3(float64(s[len(s)-1]))
	return p
}

// errKind names a Go driver error for the errors-by-kind table.
func errKind(err error) string {
	var ce mongo.CommandError
	var we mongo.WriteException
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case mongo.IsNetworkError(err):
		return "network"
	case errors.As(err, &ce):
		return "command " + ce.Name
	case errors.As(err, &we) && we.WriteConcernError != nil:
		return "write concern " + we.WriteConcernError.Name
	case errors.As(err, &we) && len(we.WriteErrors) > 0:
		return "write error " + codeName(we.WriteErrors[0].Code)
	case mongo.IsTimeout(err):
		return "timeout"
	}
	return "other"
}

func codeName(code int) string {
	if code == 11000 {
		return "duplicate key"
	}
	return "code " + strconv.Itoa(code)
}
