package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// printOps writes each target's mean ± standard deviation over the
// repetitions, per connection count.
func printOps(w io.Writer, ms []measurement) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "conns\ttarget\tops/s\tP50 µs\tP99 µs\tclient CPU µs/op\tproxy CPU µs/op\terrors\trouted reads by member %")
	type key struct {
		conns  int
		target string
	}
	var order []key
	groups := map[key][]measurement{}
	for _, m := range ms {
		k := key{m.Conns, m.Target}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], m)
	}
	for _, k := range order {
		g := groups[k]
		col := func(f func(measurement) float64) string {
			var vs []float64
			for _, m := range g {
				vs = append(vs, f(m))
			}
			mean, sd := meanSD(vs)
			return fmt.Sprintf("%.1f ± %.1f", mean, sd)
		}
		var errs int64
		for _, m := range g {
			errs += m.Errors
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", k.conns, k.target,
			col(func(m measurement) float64 { return m.OpsPerS }), col(func(m measurement) float64 { return m.P50us }),
			col(func(m measurement) float64 { return m.P99us }), col(func(m measurement) float64 { return m.ClientCPUus }),
			col(func(m measurement) float64 { return m.ProxyCPUus }), errs, servedShares(g))
	}
	tw.Flush()
}

// servedShares is each repetition's routed reads by member in percent,
// the primary first, then the others in address order ("34/33/33,
// 30/35/35"); "" when none was routed.
func servedShares(g []measurement) string {
	var reps []string
	for _, m := range g {
		var total int64
		members := slices.SortedFunc(maps.Keys(m.ServedBy), func(a, b string) int {
			switch {
			case a == m.Primary:
				return -1
			case b == m.Primary:
				return 1
			}
			return strings.Compare(a, b)
		})
		for _, member := range members {
			total += m.ServedBy[member]
		}
		if total == 0 {
			continue
		}
		var shares []string
		for _, member := range members {
			shares = append(shares, strconv.Itoa(int(math.Round(100*float64(m.ServedBy[member])/float64(total)))))
		}
		reps = append(reps, strings.Join(shares, "/"))
	}
	return strings.Join(reps, ", ")
}

func printConns(w io.Writer, rs []connsResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "conns\ttarget\tidle RSS B/conn\tidle Go B/conn\tops/s\terrors\tP50 µs\tP99 µs\tproxy CPU µs/op\tpeak RSS MB\tthreads")
	for _, r := range rs {
		switch {
		case r.Target == "direct" && r.Ops == 0:
			fmt.Fprintf(tw, "%d\t%s\t\t\t\t\t\t\t\t\t\n", r.Conns, r.Target)
		case r.Target == "direct": // no proxy: its memory, CPU and threads are not measured
			fmt.Fprintf(tw, "%d\t%s\t\t\t%.1f\t%d\t%.1f\t%.1f\t\t\t\n", r.Conns, r.Target, r.OpsPerS, r.Errors, r.P50us, r.P99us)
		default:
			fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.0f\t%.1f\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%d\n", r.Conns, r.Target, r.IdleBytesPerConn, r.IdleGoPerConn, r.OpsPerS, r.Errors,
				r.P50us, r.P99us, r.ProxyCPUus, r.PeakRSSMB, r.Threads)
		}
		if r.FirstError != "" {
			fmt.Fprintf(tw, "\tfirst error: %s\n", r.FirstError)
		}
	}
	tw.Flush()
}

func meanSD(vs []float64) (float64, float64) {
	if len(vs) == 0 {
		return 0, 0
	}
	var sum float64
	for _, v := range vs {
		sum += v
	}
	mean := sum / float64(len(vs))
	if len(vs) == 1 {
		return mean, 0
	}
	var ss float64
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(vs)-1))
}
