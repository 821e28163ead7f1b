package consistency

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
)

// measureIteration summarises one recorded iteration of a cell, d long:
// the latencies of the writes and reads that returned ok, and staleness in
// real time (history.CheckStaleness with bound 0): a read is stale when it
// returned a version older than the newest one whose write was
// acknowledged before the read was sent.
func measureIteration(h history.History, d time.Duration) results.MatrixIteration {
	it := results.MatrixIteration{DurationS: metrics.Round3(d.Seconds())}
	var writes, reads []time.Duration
	for _, op := range h.Ops {
		lat := time.Duration(op.Complete - op.Invoke)
		switch {
		case op.Kind == history.KindRead && op.Outcome == history.OutcomeOK:
			reads = append(reads, lat)
		case op.Kind == history.KindRead:
			it.ReadsFailed++
		case op.Outcome == history.OutcomeOK:
			writes = append(writes, lat)
		default:
			it.WritesFailed++
		}
	}
	it.Writes, it.Reads = len(writes), len(reads)
	it.WriteMs, it.ReadMs = latency(writes), latency(reads)
	rep := history.CheckStaleness(h, history.RealTime)
	it.Stale, it.Unacknowledged, it.Phantom = rep.Stale, rep.Unacknowledged, rep.Phantom
	if rep.Reads > 0 {
		it.StalePct = metrics.Round3(100 * float64(rep.Stale) / float64(rep.Reads))
	}
	it.StaleVersions = results.StaleAge{Max: float64(rep.AgeVersions.Max), P50: float64(rep.AgeVersions.P50)}
	it.StaleMs = results.StaleAge{Max: rep.AgeMs.Max, P50: rep.AgeMs.P50}
	return it
}

// latency is the mean, P50 and P99 (nearest rank) of ds in ms; zero for
// none.
func latency(ds []time.Duration) results.Latency {
	if len(ds) == 0 {
		return results.Latency{}
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	ms := func(d time.Duration) float64 { return metrics.Round3(metrics.MS(d)) }
	return results.Latency{Mean: ms(sum / time.Duration(len(ds))),
		P50: ms(metrics.Quantile(ds, 0.5)), P99: ms(metrics.Quantile(ds, 0.99))}
}

// summarize aggregates a cell's iterations metric by metric.
func summarize(its []results.MatrixIteration) results.MatrixSummary {
	over := func(f func(results.MatrixIteration) float64) results.Spread {
		vs := make([]float64, len(its))
		for i, it := range its {
			vs[i] = f(it)
		}
		return spread(vs)
	}
	unackPct := func(it results.MatrixIteration) float64 {
		if it.Reads == 0 {
			return 0
		}
		return 100 * float64(it.Unacknowledged) / float64(it.Reads)
	}
	return results.MatrixSummary{
		Iterations:        len(its),
		WriteMean:         over(func(it results.MatrixIteration) float64 { return it.WriteMs.Mean }),
		WriteP50:          over(func(it results.MatrixIteration) float64 { return it.WriteMs.P50 }),
		WriteP99:          over(func(it results.MatrixIteration) float64 { return it.WriteMs.P99 }),
		ReadMean:          over(func(it results.MatrixIteration) float64 { return it.ReadMs.Mean }),
		ReadP50:           over(func(it results.MatrixIteration) float64 { return it.ReadMs.P50 }),
		ReadP99:           over(func(it results.MatrixIteration) float64 { return it.ReadMs.P99 }),
		StalePct:          over(func(it results.MatrixIteration) float64 { return it.StalePct }),
		StaleVersionsMax:  over(func(it results.MatrixIteration) float64 { return it.StaleVersions.Max }),
		StaleVersionsP50:  over(func(it results.MatrixIteration) float64 { return it.StaleVersions.P50 }),
		StaleMsMax:        over(func(it results.MatrixIteration) float64 { return it.StaleMs.Max }),
		StaleMsP50:        over(func(it results.MatrixIteration) float64 { return it.StaleMs.P50 }),
		Unacknowledged:    over(func(it results.MatrixIteration) float64 { return float64(it.Unacknowledged) }),
		UnacknowledgedPct: over(unackPct),
		NotLastAckedPct:   over(func(it results.MatrixIteration) float64 { return it.StalePct + unackPct(it) }),
		Reads:             over(func(it results.MatrixIteration) float64 { return float64(it.Reads) }),
		Writes:            over(func(it results.MatrixIteration) float64 { return float64(it.Writes) }),
	}
}

// spread is the mean, min, max and sample standard deviation of vs (zero
// for none; stdev 0 for one), rounded to three decimals.
func spread(vs []float64) results.Spread {
	if len(vs) == 0 {
		return results.Spread{}
	}
	s := results.Spread{N: len(vs), Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, v := range vs {
		sum += v
		s.Min, s.Max = min(s.Min, v), max(s.Max, v)
	}
	mean := sum / float64(len(vs))
	if len(vs) > 1 {
		var ss float64
		for _, v := range vs {
			ss += (v - mean) * (v - mean)
		}
		s.Stdev = metrics.Round3(math.Sqrt(ss / float64(len(vs)-1)))
	}
	s.Mean, s.Min, s.Max = metrics.Round3(mean), metrics.Round3(s.Min), metrics.Round3(s.Max)
	return s
}

// cellLine is a cell's progress line: its numbers over the iterations
// (means), or why it was skipped or failed.
func cellLine(c results.MatrixCell) string {
	name := fmt.Sprintf("%-9s %4s w:%-8s rc:%-12s read:%-12s", c.Setup, results.SizeLabel(c.DocSize), c.W, c.RC, c.Read)
	if c.Skipped != "" {
		return name + " skipped: " + c.Skipped
	}
	s := c.Summary
	if s.Iterations == 0 {
		return name + " failed: " + strings.Join(c.Failed, "; ")
	}
	line := fmt.Sprintf("%s write %.2f ms (P99 %.2f)  read %.2f ms (P99 %.2f)  stale %.2f%%",
		name, s.WriteMean.Mean, s.WriteP99.Mean, s.ReadMean.Mean, s.ReadP99.Mean, s.StalePct.Mean)
	if s.StalePct.Max > 0 {
		line += fmt.Sprintf(" (up to %.0f versions, %.1f ms)", s.StaleVersionsMax.Max, s.StaleMsMax.Max)
	}
	line += fmt.Sprintf("  unacked %.0f  [%d it., %.0f reads]", s.Unacknowledged.Mean, s.Iterations, s.Reads.Mean)
	if len(c.Failed) > 0 {
		line += fmt.Sprintf(" (%d failed: %s)", len(c.Failed), c.Failed[0])
	}
	return line
}
