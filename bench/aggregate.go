package bench

import (
	"slices"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// runState is what a run keeps per period beyond its JSON periods, for the
// minutes and the summary.
type runState struct {
	readSnaps  []*metrics.Snapshot // per period
	probes     [][]sprobe.Sample   // per period
	starts     []time.Duration     // period start offsets
	violations int64
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
	var read *metrics.Snapshot
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
		m.ReadP80MS = metrics.Round3(metrics.MS(read.Quantile(0.8)))
		m.SecondaryPct = share.pct()
		m.LengthS = metrics.Round3(m.LengthS)
	}
	for i, p := range ps {
		if k := int(st.starts[i] / time.Minute); k != cur {
			flush()
			cur = k
			out = append(out, results.Minute{})
			read, share = &metrics.Snapshot{}, servedShare{}
		}
		m := &out[len(out)-1]
		m.TS = p.TS
		m.LengthS += p.TS - st.starts[i].Seconds()
		m.ReadOps += p.ReadOps
		m.WriteOps += p.WriteOps
		read.Merge(st.readSnaps[i])
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
func summarise(ps []results.Period, st *runState, warmup time.Duration) results.Summary {
	var s results.Summary
	read := &metrics.Snapshot{}
	var stal []time.Duration
	var share servedShare
	var heap, goroutines []float64
	for i, p := range ps {
		if st.starts[i] < warmup {
			continue
		}
		s.MeasuredS += p.TS - st.starts[i].Seconds()
		s.ReadOps += p.ReadOps
		s.WriteOps += p.WriteOps
		s.ReadErrors += p.ReadErrors
		s.WriteErrors += p.WriteErrors
		heap, goroutines = append(heap, p.HeapLiveMB), append(goroutines, float64(p.Goroutines))
		read.Merge(st.readSnaps[i])
		for _, pr := range st.probes[i] {
			stal = append(stal, pr.Staleness)
		}
		s.Probes += int64(len(st.probes[i]))
		s.MaxLagMS = max(s.MaxLagMS, p.MaxLagMS)
		share.add(p)
	}
	if s.MeasuredS > 0 {
		s.ReadTput = metrics.Round3(float64(s.ReadOps) / s.MeasuredS)
		s.WriteTput = metrics.Round3(float64(s.WriteOps) / s.MeasuredS)
	}
	s.SecondaryPct = share.pct()
	s.ReadP80MS = metrics.Round3(metrics.MS(read.Quantile(0.8)))
	s.ReadP99MS = metrics.Round3(metrics.MS(read.Quantile(0.99)))
	s.StalenessP80MS = metrics.Round3(metrics.MS(metrics.Quantile(stal, 0.8)))
	s.StalenessMaxMS = metrics.Round3(metrics.MS(metrics.Quantile(stal, 1)))
	s.MeasuredS = metrics.Round3(s.MeasuredS)
	s.BoundViolations = st.violations
	s.Errors = s.ReadErrors + s.WriteErrors
	if slices.ContainsFunc(goroutines, func(n float64) bool { return n > 0 }) {
		soak := soakVerdict(heap, goroutines)
		s.Soak = &soak
	}
	return s
}
