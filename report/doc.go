// Package report turns bench results files into comparisons a performance
// engineer can read: a plain-text table, one self-contained HTML page with
// plots, and standalone SVG plots.
//
// Every writer takes a set of [Input]s — one per results file, possibly from
// different bench invocations — and writes to an io.Writer (WritePlots writes
// files, each atomically). Nothing is fetched from the network: the HTML page
// has inline CSS and inline SVG only and renders offline.
//
// The comparison has one row per (input, policy): the run summaries (which
// already exclude the warm-up) averaged over repetitions, ± the sample
// standard deviation when a policy was repeated, and the read throughput
// relative to the best policy of the same input.
//
// The plots follow the Decongestant paper (EDBT 2021): per-period read
// throughput, P80 read latency, share of reads served by secondaries (with the
// balancer's fraction), staleness (S-probe P80 and the monitor's lag estimate
// against the bound), write throughput, and the throughput versus staleness
// trade-off. Each policy has the same colour in every plot.
//
// A client-count sweep (bench --clients 20,60,100: runs that record their
// client count, two or more counts) is compared per count, and gets a sweep
// section drawn as the Decongestant paper's figures 5-7: read throughput, P80
// read latency and the share of reads on secondaries against clients (mean over
// repetitions, min-max bars), read throughput and P80 latency against the
// S-probe's staleness P80 (a point per policy and count, labelled with the
// count), and a table of the same numbers, also in the text report and as
// sweep_*.svg plots.
//
// A TPC-C input (workload "tpcc") also gets a TPC-C section, read from each
// run's Extra["tpcc"] report and tolerant of missing fields: per run tpmC,
// transactions, aborts, retries, errors and client CPU per transaction; the
// latency by transaction type; the consistency checks by clause; and, in the
// HTML page and as tpmc.svg, stock_level_tput.svg and stock_level_p80.svg,
// tpmC and the routed Stock-Level transactions' throughput and P80 per minute
// (per period for runs shorter than a minute).
//
// Runs that record their members (results.Period.Members, written since
// per-member routing) get a per-member section after their time series: per run
// the share of each period's routed reads every member served and, for policies
// that route per member, the weights in force, both stacked with a colour per
// member that is the same in every plot; and a table over the periods after
// warm-up (reads, share, mean per-period latencies, max lag, mean weight) that
// marks a secondary left without reads while the other secondaries served some.
// The text report has the same tables, and WritePlots member_share.svg and
// member_weight.svg. Older results files render without it. Runs with member
// stats (bench --member-stats: each member's own counters per period) also plot
// every member's WiredTiger cache miss rate and CPU over time, a line per
// member (the read-hints paper's figs 5, 8 and 14; member_cache_miss.svg and
// member_cpu.svg), and their tables add the miss rate, MB read into the cache
// per second, mean CPU and largest resident set.
//
// Every time-series plot marks the phases (fault actions named: the
// reconfigurations) and the reconfiguration times given to bench
// (--reconfig-at) with a dashed vertical line; the read throughput plot with
// them is the read-hints paper's figs 4, 7 and 13. Runs whose summaries measure
// reconfigurations get a table of them after the time series: the read
// throughput before, the dip after, the time to recover and the serving
// member's worst cache miss rate (package reconfig defines them).
//
// Runs that record the benchmark process's own heap and goroutines
// (results.Period.HeapMB, HeapLiveMB, Goroutines) get, after those, a plot
// of each over time with a line per run (client_heap.svg and
// client_goroutines.svg) and a table per run of the soak verdict, the reads
// check and the policy's punctuality (results.Summary.Soak, ReadsCheck,
// Decisions), also in the text report.
//
// Usage:
//
//	r, err := results.Read("results.json")
//	if err != nil {
//		return err
//	}
//	in := []report.Input{{Name: "results.json", Results: r}}
//	if err := report.WriteText(os.Stdout, in); err != nil {
//		return err
//	}
//	err = atomicfile.Write("report.html", func(w io.Writer) error {
//		return report.WriteHTML(w, in)
//	})
//	if err != nil {
//		return err
//	}
//	paths, err := report.WritePlots("plots", in) // read_tput.svg, ..., tradeoff.svg
package report
