package proxysoak

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/results"
)

// The targets a soak is judged by.
const (
	// MaxRSSMB is the most the proxy process may hold resident.
	MaxRSSMB = 300.0
	// HeapSlackMB is growth of the live heap small enough to call flat
	// whatever its percentage: a proxy whose live heap is a few MiB swings
	// by more than results.SoakFlatPct between quarters.
	HeapSlackMB = 4.0
	// MaxP99Ratio is how much slower the authenticated operations' P99 may
	// be with hostile connections than without (the --baseline run).
	MaxP99Ratio = 2.0
)

// Judge fills r's verdicts and Pass from its figures. Targets not judged
// (no baseline, too few samples) do not fail the run.
func Judge(r *Result) {
	yes := func(b bool) *bool { return &b }
	r.Verdicts = []Verdict{
		{Target: "acknowledged w:majority writes lost", Want: "0",
			Got:  fmt.Sprintf("%d of %d", r.Writes.Lost+r.Transactions.CommitLost, r.Writes.Acked+r.Transactions.Committed),
			Pass: yes(r.Writes.Lost == 0 && r.Transactions.CommitLost == 0)},
		{Target: "transactions applied twice", Want: "0",
			Got: fmt.Sprintf("%d of %d committed", r.Transactions.Twice, r.Transactions.Committed), Pass: yes(r.Transactions.Twice == 0)},
		{Target: "reads beyond the staleness bound", Want: fmt.Sprintf("0 (bound %gms)", r.Reads.BoundMS),
			Got:  fmt.Sprintf("%d of %d probes (max %.0fms)", r.Reads.BeyondBound, r.Reads.Probes, r.Reads.MaxStaleMS),
			Pass: probes(r.Reads)},
		{Target: "change stream saw every acknowledged insert", Want: "0 missed",
			Got:  fmt.Sprintf("%d missed of %d (%d resumes by the soak)", r.ChangeStream.Missed, r.ChangeStream.Expected, r.ChangeStream.Resumes),
			Pass: yes(r.ChangeStream.Missed == 0)},
		rssVerdict(r.Proxy),
		heapVerdict(r.Proxy),
		p99Verdict(r.Overall.P99MS, r.BaselineP99MS),
		{Target: "proxy up to the end", Want: "no exit", Got: map[bool]string{true: "up", false: r.ProxyExited}[r.ProxyExited == ""],
			Pass: yes(r.ProxyExited == "")},
	}
	r.Pass = true
	for _, v := range r.Verdicts {
		if v.Pass != nil && !*v.Pass {
			r.Pass = false
		}
	}
}

// probes judges the reads: no probe beyond the bound, and at least one
// probe (a probe that never read judges nothing).
func probes(rd Reads) *bool {
	if rd.Probes == 0 {
		return nil
	}
	ok := rd.BeyondBound == 0
	return &ok
}

func rssVerdict(p ProxyUsage) Verdict {
	v := Verdict{Target: "proxy RSS", Want: fmt.Sprintf("<= %.0f MB", MaxRSSMB)}
	peak := max(p.PeakRSSMB, p.RSSMaxMB)
	if peak == 0 {
		v.Got = "not measured"
		return v
	}
	v.Got = fmt.Sprintf("peak %.1f MB", peak)
	ok := peak <= MaxRSSMB
	v.Pass = &ok
	return v
}

func heapVerdict(p ProxyUsage) Verdict {
	v := Verdict{Target: "proxy live heap flat", Want: fmt.Sprintf("floor of the last quarter < the first's +%.0f%% or +%.0f MB", results.SoakFlatPct, HeapSlackMB)}
	if p.HeapGrowthPct == nil {
		v.Got = "not measured"
		return v
	}
	v.Got = fmt.Sprintf("%.1f MB -> %.1f MB (%+.1f%%)", p.HeapQ1MB, p.HeapQ4MB, *p.HeapGrowthPct)
	ok := *p.HeapGrowthPct < results.SoakFlatPct || p.HeapQ4MB-p.HeapQ1MB < HeapSlackMB
	v.Pass = &ok
	return v
}

func p99Verdict(p99, baseline float64) Verdict {
	v := Verdict{Target: "authenticated P99 vs the --no-hostile run", Want: fmt.Sprintf("<= %.0fx", MaxP99Ratio)}
	if baseline <= 0 {
		v.Got = fmt.Sprintf("%.1fms; no --baseline", p99)
		return v
	}
	ratio := p99 / baseline
	v.Got = fmt.Sprintf("%.1fms vs %.1fms (%.2fx)", p99, baseline, ratio)
	ok := ratio <= MaxP99Ratio
	v.Pass = &ok
	return v
}

// heapGrowth returns the floor of the live heap over the first and the
// last quarter of the samples that read it (each quarter's least sample)
// and the growth between them in %; nil growth for fewer than 8 samples.
// The floor, not the mean: hostile 40 MB messages swing the live heap by
// tens of MB for seconds at a time, so a quarter's mean says when the
// samples fell in that cycle; what the proxy keeps once they are gone is
// what grows with a leak.
func heapGrowth(samples []Sample) (q1, q4 float64, pct *float64) {
	var xs []float64
	for _, s := range samples {
		if s.HeapMB > 0 {
			xs = append(xs, s.HeapMB)
		}
	}
	n := len(xs)
	if n < 8 {
		return 0, 0, nil
	}
	q1, q4 = slices.Min(xs[:n/4]), slices.Min(xs[n-n/4:])
	g := metrics.Round3(100 * (q4 - q1) / q1)
	return metrics.Round3(q1), metrics.Round3(q4), &g
}

// WriteTable prints the phases and the verdicts.
func (r *Result) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "phase\tfrom\tto\tops\terrors\tP50 ms\tP99 ms\tmax ms\n")
	for _, p := range append(append([]Phase(nil), r.Phases...), r.Overall) {
		fmt.Fprintf(tw, "%s\t%.0fs\t%.0fs\t%d\t%d\t%.1f\t%.1f\t%.0f\n", p.Name, p.FromS, p.ToS, p.Ops, p.Errors, p.P50MS, p.P99MS, p.MaxMS)
	}
	fmt.Fprintf(tw, "\ntarget\twant\tgot\tverdict\n")
	for _, v := range r.Verdicts {
		verdict := "not judged"
		if v.Pass != nil {
			verdict = map[bool]string{true: "PASS", false: "FAIL"}[*v.Pass]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Target, v.Want, v.Got, verdict)
	}
	overall := "PASS"
	if !r.Pass {
		overall = "FAIL"
	}
	fmt.Fprintf(tw, "\nsoak\t\t\t%s\n", overall)
	return tw.Flush()
}
