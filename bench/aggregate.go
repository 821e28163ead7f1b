package bench

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// runState is what a run keeps beyond its JSON periods, for the minutes and
// the summary. It folds each period in as the period ends (add), so that it
// does not grow with the run's length by more than a period's start (8
// bytes) and, after the warm-up, each probe's staleness (8 bytes): a
// period's read histogram is about 9.5 KB, which kept for every period was
// 3.4 MB an hour at 10 s periods, most of what a soak saw the heap grow by.
type runState struct {
	warmup time.Duration
	starts []time.Duration // period start offsets
	// read merges the read latencies of the periods after the warm-up;
	// staleness holds their probes' staleness and probes counts them.
	read      *metrics.Snapshot
	staleness []time.Duration
	probes    int64
	// minuteP80MS is the read P80 of each minute of minutes() already
	// closed; minuteRead merges the read latencies of the open one,
	// minute (-1 before the first period).
	minuteP80MS []float64
	minuteRead  *metrics.Snapshot
	minute      int
	violations  int64
	// recordBytes are the run's own results held so far, counted as
	// their JSON size, and records that figure at each period end (MiB),
	// for the soak verdict.
	recordBytes int64
	records     []float64
}

// newRunState returns the state of a run whose summary leaves out the
// periods that start before warmup.
func newRunState(warmup time.Duration) runState {
	return runState{warmup: warmup, read: &metrics.Snapshot{}, minuteRead: &metrics.Snapshot{}, minute: -1}
}

// add folds in a period that started at start (since the run's start),
// with its read latencies and its probes; recordBytes are the results the
// run added to what it keeps in the period (see addRecords).
func (st *runState) add(start time.Duration, read *metrics.Snapshot, probes []sprobe.Sample, recordBytes int64) {
	st.starts = append(st.starts, start)
	if k := int(start / time.Minute); k != st.minute {
		if st.minute >= 0 {
			st.minuteP80MS = append(st.minuteP80MS, p80MS(st.minuteRead))
		}
		st.minute, st.minuteRead = k, &metrics.Snapshot{}
	}
	st.minuteRead.Merge(read)
	if start >= st.warmup {
		st.read.Merge(read)
		for _, pr := range probes {
			st.staleness = append(st.staleness, pr.Staleness)
		}
		st.probes += int64(len(probes))
	}
	// What the state keeps for the results counts too: the period's start
	// and its figure here (16 bytes), the probes' staleness (8 bytes each).
	st.recordBytes += recordBytes + 16
	st.records = append(st.records, float64(st.recordBytes+8*int64(len(st.staleness)))/(1<<20))
}

// minuteP80 is the read P80 of the i-th minute of minutes().
func (st *runState) minuteP80(i int) float64 {
	if i < len(st.minuteP80MS) {
		return st.minuteP80MS[i]
	}
	return p80MS(st.minuteRead)
}

// jsonSize is v's size in JSON, the measure of the results a run holds
// (within about a quarter of what they take in the heap: 1.7 KB of JSON for
// a period of 3 members that takes 2.2 KB).
func jsonSize(v any) int64 {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return int64(len(b))
}

func p80MS(s *metrics.Snapshot) float64 { return quantileMS(s, 0.8) }

// quantileMS is s's q-quantile in ms, rounded to the microsecond.
func quantileMS(s *metrics.Snapshot, q float64) float64 {
	return metrics.Round3(metrics.MS(s.Quantile(q)))
}

// readLatencies sets a period's read latency quantiles from its reads.
func readLatencies(per *results.Period, rd *metrics.Snapshot) {
	per.ReadP50MS, per.ReadP80MS = quantileMS(rd, 0.5), quantileMS(rd, 0.8)
	per.ReadP99MS, per.ReadP999MS = quantileMS(rd, 0.99), quantileMS(rd, 0.999)
}

// servedShare accumulates the counted share of reads served by secondaries
// over periods, each weighted by the reads it counted.
type servedShare struct{ secondary, total float64 }

func (s *servedShare) add(p results.Period) {
	var n float64
	for _, c := range p.ServedBy {
		n += float64(c)
	}
	s.secondary += p.SecondaryPct * n
	s.total += n
}

// pct is the accumulated share in %, 0 when nothing was counted.
func (s servedShare) pct() float64 {
	if s.total == 0 {
		return 0
	}
	return metrics.Round3(s.secondary / s.total)
}

// minutes aggregates the periods by the wall-clock minute they start in.
func minutes(ps []results.Period, st *runState) []results.Minute {
	var out []results.Minute
	var share servedShare
	cur := -1
	flush := func() {
		if cur < 0 {
			return
		}
		m := &out[len(out)-1]
		if m.LengthS > 0 {
			m.ReadTput = metrics.Round3(float64(m.ReadOps) / m.LengthS)
			m.WriteTput = metrics.Round3(float64(m.WriteOps) / m.LengthS)
		}
		m.ReadP80MS = st.minuteP80(len(out) - 1)
		m.SecondaryPct = share.pct()
		m.LengthS = metrics.Round3(m.LengthS)
	}
	for i, p := range ps {
		if k := int(st.starts[i] / time.Minute); k != cur {
			flush()
			cur = k
			out = append(out, results.Minute{})
			share = servedShare{}
		}
		m := &out[len(out)-1]
		m.TS = p.TS
		m.LengthS += p.TS - st.starts[i].Seconds()
		m.ReadOps += p.ReadOps
		m.WriteOps += p.WriteOps
		for name, n := range p.Ops {
			if m.Ops == nil {
				m.Ops = map[string]int64{}
			}
			m.Ops[name] += n
		}
		share.add(p)
	}
	flush()
	return out
}

// violates reports whether a probe's second read, sent where the policy
// allowed a secondary, returned data staler than the bound.
func violates(s sprobe.Sample, b balancer.Bound) bool {
	return s.Secondary && !b.Unbounded && s.Staleness > b.Max
}

// summarise aggregates the periods that start at or after the warm-up.
func summarise(ps []results.Period, st *runState) results.Summary {
	var s results.Summary
	var share servedShare
	var heap, records, goroutines []float64
	for i, p := range ps {
		if st.starts[i] < st.warmup {
			continue
		}
		s.MeasuredS += p.TS - st.starts[i].Seconds()
		s.ReadOps += p.ReadOps
		s.WriteOps += p.WriteOps
		s.ReadErrors += p.ReadErrors
		s.WriteErrors += p.WriteErrors
		heap, goroutines = append(heap, p.HeapLiveMB), append(goroutines, float64(p.Goroutines))
		if i < len(st.records) {
			records = append(records, st.records[i])
		}
		s.MaxLagMS = max(s.MaxLagMS, p.MaxLagMS)
		share.add(p)
	}
	if s.MeasuredS > 0 {
		s.ReadTput = metrics.Round3(float64(s.ReadOps) / s.MeasuredS)
		s.WriteTput = metrics.Round3(float64(s.WriteOps) / s.MeasuredS)
	}
	s.SecondaryPct = share.pct()
	s.Probes = st.probes
	s.ReadP80MS = p80MS(st.read)
	s.ReadP99MS, s.ReadP999MS = quantileMS(st.read, 0.99), quantileMS(st.read, 0.999)
	s.StalenessP80MS = metrics.Round3(metrics.MS(metrics.Quantile(st.staleness, 0.8)))
	s.StalenessMaxMS = metrics.Round3(metrics.MS(metrics.Quantile(st.staleness, 1)))
	s.MeasuredS = metrics.Round3(s.MeasuredS)
	s.BoundViolations = st.violations
	s.Errors = s.ReadErrors + s.WriteErrors
	if slices.ContainsFunc(goroutines, func(n float64) bool { return n > 0 }) {
		soak := soakVerdict(heap, records, goroutines, s.MeasuredS)
		s.Soak = &soak
	}
	return s
}
