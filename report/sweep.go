package report

// The client-count sweep part of the reports: the Decongestant paper's figures
// 5 (read throughput, P80 read latency and the share of reads on secondaries
// against the number of clients) and 6/7 (read throughput and P80 read latency
// against the P80 staleness of reads, one point per policy and client count).
// This file gathers the numbers; sweep_plots.go, sweep_html.go and
// sweep_text.go draw and print them.

import (
	"math"
	"sort"

	"github.com/decongestant/decongestant/results"
)

// spread is one metric over the repetitions of a (policy, clients): the
// mean, and the lowest and highest value (the spread the sweep shows: with
// two or three repetitions a standard deviation says little).
type spread struct {
	mean, lo, hi float64
	n            int
}

func newSpread(vs []float64) spread {
	s := spread{mean: math.NaN(), lo: math.NaN(), hi: math.NaN()}
	for _, v := range vs {
		if !finite(v) {
			continue
		}
		if s.n == 0 {
			s.mean, s.lo, s.hi = 0, v, v
		}
		s.n++
		s.mean += v
		s.lo, s.hi = math.Min(s.lo, v), math.Max(s.hi, v)
	}
	if s.n > 0 {
		s.mean /= float64(s.n)
	}
	return s
}

// sweepMetric is one metric the sweep plots and tabulates.
type sweepMetric struct {
	header string
	get    func(results.Summary) float64
}

// Indices into sweepMetrics.
const (
	swTput = iota
	swP80
	swSecondary
	swStale
)

// sweepMetrics are the sweep's metrics, in table order.
var sweepMetrics = []sweepMetric{
	swTput:      {"read ops/s", func(s results.Summary) float64 { return s.ReadTput }},
	swP80:       {"read P80 ms", func(s results.Summary) float64 { return s.ReadP80MS }},
	swSecondary: {"secondary %", func(s results.Summary) float64 { return s.SecondaryPct }},
	swStale:     {"stale P80 ms", func(s results.Summary) float64 { return s.StalenessP80MS }},
}

// sweepPoint is one (policy, clients) of a sweep: its metrics over the
// repetitions, parallel to sweepMetrics.
type sweepPoint struct {
	policy  string
	clients int
	runs    int
	values  []spread
}

// sweep is the client-count sweep of one input: its counts in increasing
// order, its policies in order of first appearance, and a point per policy
// and count that ran (by policy, then count).
type sweep struct {
	x        Input
	counts   []int
	policies []string
	points   []sweepPoint
	// sprobe says whether the runs measured staleness (bench --sprobe);
	// without it the staleness plots have nothing to show.
	sprobe bool
	reps   bool // some point has more than one repetition
}

// findSweep returns the sweep of x, or nil when x is not one: it needs runs
// that record their client count (Run.Clients > 0), with two or more
// distinct counts. Runs without a count are left out of it.
func findSweep(x Input) *sweep {
	byPolicy := map[string]map[int][]*results.Run{}
	sw := &sweep{x: x, sprobe: x.Results.Config.SProbe}
	seen := map[int]bool{}
	for i := range x.Results.Runs {
		run := &x.Results.Runs[i]
		if run.Clients <= 0 {
			continue
		}
		if byPolicy[run.Policy] == nil {
			byPolicy[run.Policy] = map[int][]*results.Run{}
			sw.policies = append(sw.policies, run.Policy)
		}
		byPolicy[run.Policy][run.Clients] = append(byPolicy[run.Policy][run.Clients], run)
		if !seen[run.Clients] {
			seen[run.Clients] = true
			sw.counts = append(sw.counts, run.Clients)
		}
	}
	if len(sw.counts) < 2 {
		return nil
	}
	sort.Ints(sw.counts)
	for _, pol := range sw.policies {
		for _, c := range sw.counts {
			if runs := byPolicy[pol][c]; len(runs) > 0 {
				sw.points = append(sw.points, newSweepPoint(pol, c, runs))
				sw.reps = sw.reps || len(runs) > 1
			}
		}
	}
	return sw
}

func newSweepPoint(policy string, clients int, runs []*results.Run) sweepPoint {
	p := sweepPoint{policy: policy, clients: clients, runs: len(runs), values: make([]spread, len(sweepMetrics))}
	vs := make([]float64, len(runs))
	for i, m := range sweepMetrics {
		for k, run := range runs {
			vs[k] = m.get(run.Summary)
		}
		p.values[i] = newSpread(vs)
	}
	return p
}

// policyPoints returns the points of policy, by increasing count.
func (sw *sweep) policyPoints(policy string) []sweepPoint {
	var out []sweepPoint
	for _, p := range sw.points {
		if p.policy == policy {
			out = append(out, p)
		}
	}
	return out
}

// readWord names the read series: TPC-C's routed reads are Stock-Level
// transactions (the Decongestant paper, fig. 7), YCSB's are reads (fig. 6).
func (sw *sweep) readWord() string {
	if isTPCC(sw.x.Results) {
		return "Stock-Level"
	}
	return "read"
}

// tradeoffFig is the Decongestant paper's figure the staleness trade-off plots
// match: 7 for TPC-C, 6 otherwise (the Decongestant paper ran YCSB-A for it).
func (sw *sweep) tradeoffFig() string {
	if isTPCC(sw.x.Results) {
		return "7"
	}
	return "6"
}
