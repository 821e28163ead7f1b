package reproduce

import (
	"fmt"
	"strings"
	"time"

	"github.com/decongestant/decongestant/results"
)

// The TPC-C-on-MongoDB paper's experiments (§4.7): the standard mix with
// write concern majority and snapshot transactions, as `bench tpcc` runs
// it by default. Its M60 Atlas set with 100-1000 warehouses becomes three
// members capped at 0.35 CPU. Figs. 1-3 run at least as many warehouses
// as client threads, as the paper did (100 warehouses for up to 96
// threads): with more threads than warehouses the runs measure
// New-Order's and Payment's write conflicts on a few warehouse and
// district documents, not the effect the figure is about. Fig. 4 keeps 4
// warehouses on each of its three sets (one small warehouse quick).

// tpccStd is `bench tpcc` with the standard mix on the primary, on the
// given number of warehouses (one small warehouse quick).
func tpccStd(quick bool, out, warehouses string, extra ...string) Step {
	size := scale(quick, flags("scale", "small"), flags("warehouses", warehouses))
	return Step{Args: join([]string{"bench", "tpcc"},
		flags("uri", PhURI, "cluster-dir", PhDir, "mix", "standard", "period", "5s"),
		size, extra, flags("out", PhOut+"/"+out+".json")),
		Output: out, Report: true}
}

// tpccThreads is fig. 1's sweep of client threads. Its fewest threads
// should leave the primary room, as the paper's M60 had for 96 threads;
// on members capped at 0.35 CPU four threads kept the primary at its cap
// (full run of 2026-11-28), so the sweep starts at one, and one did too
// (the run after it): the claim's guard (moreThreads) then says not
// exercised. Measured: 60.5 min for five thread counts, 16 warehouses
// loaded first and about 2 min a run (20 s warm-up, 90 s measured).
var tpccThreads = &Experiment{Name: "tpcc-fig1", Cluster: members, Quick: 3 * time.Minute, Full: 60 * time.Minute,
	Steps: func(q bool) []Step {
		return []Step{tpccStd(q, "tpcc-fig1", "16", flags("clients", scale(q, "2,8", "1,2,4,8,16"), "repeat", scale(q, "1", "3"),
			"duration", scale(q, "40s", "90s"), "warmup", scale(q, "10s", "20s"), "policies", "primary,nearest")...)}
	}}

// tpccRounds alternate the two settings a figure compares.
func tpccRounds(quick bool) int { return scale(quick, 1, 3) }

var tpccSchema = &Experiment{Name: "tpcc-fig2", Cluster: members, Quick: 2 * time.Minute, Full: 35 * time.Minute, // measured: 34 min, two 8-warehouse loads of about 8 min each
	Steps: func(q bool) []Step {
		var steps []Step
		for i := 1; i <= tpccRounds(q); i++ {
			for _, schema := range []string{"denormalized", "normalized"} {
				extra := flags("clients", "8", "duration", scale(q, "40s", "90s"), "warmup", scale(q, "10s", "20s"),
					"policies", "primary", "schema", schema, "db", "tpcc_"+schema)
				if i > 1 {
					extra = append(extra, "--skip-load")
				}
				steps = append(steps, tpccStd(q, fmt.Sprintf("tpcc-fig2-%s-%d", schema, i), "8", extra...))
			}
		}
		return steps
	}}

var tpccFAM = &Experiment{Name: "tpcc-fig3", Cluster: members, Quick: 2 * time.Minute, Full: 25 * time.Minute,
	Steps: func(q bool) []Step {
		var steps []Step
		for i := 1; i <= tpccRounds(q); i++ {
			for _, on := range []bool{true, false} {
				extra := join(flags("clients", "8", "duration", scale(q, "40s", "90s"), "warmup", scale(q, "10s", "20s"),
					"policies", "primary"), []string{fmt.Sprintf("--find-and-modify=%v", on), fmt.Sprintf("--batch-writes=%v", on)})
				if len(steps) > 0 {
					extra = append(extra, "--skip-load")
				}
				steps = append(steps, tpccStd(q, fmt.Sprintf("tpcc-fig3-%s-%d", onOff(on), i), "8", extra...))
			}
		}
		return steps
	}}

// instanceSizes are fig. 4's M50, M60 and M80 as local sets, each double
// the one before in CPU, cache and memory, as the Atlas sizes are: the
// output name, the CPU cap, the WiredTiger cache (GB) and the memory cap.
var instanceSizes = [][4]string{
	{"tpcc-fig4-m50", "0.1", "0.25", "600M"},
	{"tpcc-fig4-m60", "0.2", "0.5", "1200M"},
	{"tpcc-fig4-m80", "0.4", "1", "2400M"},
}

// tpccSizes is fig. 4 scaled: the same standard TPC-C on three sets of
// 1:2:4 capacity, one after another.
var tpccSizes = &Experiment{Name: "tpcc-fig4", Quick: 8 * time.Minute, Full: 35 * time.Minute,
	Steps: func(q bool) []Step {
		var steps []Step
		for _, sz := range instanceSizes {
			s := tpccStd(q, sz[0], "4", flags("clients", scale(q, "8", "16"), "repeat", scale(q, "1", "3"),
				"duration", scale(q, "40s", "90s"), "warmup", scale(q, "10s", "20s"), "policies", "primary")...)
			s.Cluster = &Cluster{Args: flags("cpu", sz[1], "cache-gb", sz[2], "memory", sz[3])}
			steps = append(steps, s)
		}
		return steps
	}}

var tpccACID = &Experiment{Name: "tpcc-acid", Cluster: members, Quick: 4 * time.Minute, Full: 4 * time.Minute,
	Steps: func(bool) []Step {
		return []Step{{Args: join([]string{"tpcc", "acid"}, flags("uri", PhURI, "cluster-dir", PhDir, "out", PhOut+"/acid.json"), []string{"--load"}), Output: "acid"}}
	}}

// tpmCOf is the mean tpmC over the results named prefix-1, prefix-2, ….
func tpmCOf(prefix string) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		var vs []float64
		for i := 1; ; i++ {
			r, err := o.Results(fmt.Sprintf("%s-%d", prefix, i))
			if err != nil {
				if i == 1 {
					return Estimate{}, err
				}
				break
			}
			for j := range r.Runs {
				vs = append(vs, tpmC(r, &r.Runs[j]))
			}
		}
		return estimate(vs), nil
	}
}

// tpmCAt is the tpmC of every run in one results file.
func tpmCAt(name string) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) { return perRun(o, name, sel{}, tpmC) }
}

// acidFailed counts the ACID tests of a clause group (a prefix of their
// clause, "3.2", "3.4", "3.5") that failed, in `tpcc acid`'s JSON (an
// array of results); skipped tests are not measured.
func acidFailed(clause string) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		var tests []struct {
			Clause string `json:"clause"`
			Result string `json:"result"`
		}
		if err := o.JSON("acid", &tests); err != nil {
			return Estimate{}, err
		}
		n, failed := 0, 0
		for _, t := range tests {
			if !strings.HasPrefix(t.Clause, clause) || strings.EqualFold(t.Result, "skipped") {
				continue
			}
			n++
			if !strings.EqualFold(t.Result, "pass") {
				failed++
			}
		}
		if n == 0 {
			return Estimate{}, fmt.Errorf("no test of clause %s ran", clause)
		}
		return Estimate{V: float64(failed), N: n, Exact: true}, nil
	}
}

func tpccFigures() []*Figure {
	p := Papers[2]
	pri, near := sel{policy: "primary"}, sel{policy: "nearest"}
	tpmc := func(s sel, most bool) func(Outputs) (Estimate, error) {
		return sweepPerRun("tpcc-fig1", s, most, tpmC)
	}
	// moreThreads judges the claim that threads add throughput only when
	// the fewest threads left the primary room (withRoom): its CPU under
	// `primary` there below 90 % of that at the most threads. A primary
	// already at its cap cannot gain from threads, which is not the
	// paper's regime.
	moreThreads := func(m func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
		cpu := func(most bool) func(Outputs) (Estimate, error) {
			return sweepPerRun("tpcc-fig1", pri, most, func(_ *results.Results, r *results.Run) float64 { return window(r, 0, 0, primaryCPU) })
		}
		return withRoom(m, cpu(false), cpu(true),
			"tpcc-fig1: no primary CPU figures under `primary` (bench --member-stats) to tell whether the fewest threads left it room",
			func(light, busy float64) string {
				return fmt.Sprintf("the primary was already at its cap with the fewest threads: under `primary` it used %.1f %% of a CPU there, "+
					"against %.1f %% with the most; the paper's machine had room for more threads, this set's did not", light, busy)
			})
	}
	return []*Figure{
		{Paper: p, ID: "table1", Caption: "SQL and MQL operations", Source: Source{43, "Table 1: SQL and MQL operations"}, Status: Diagram,
			Note: "a table of query translations, nothing to measure; the transactions are in workload/tpcc"},
		{Paper: p, ID: "fig1", Caption: "tpmC by client threads, primary and nearest", Source: Source{234, "Figure 1: TPMC by number of threads on M60"}, Status: Scaled,
			Note: "16 warehouses, threads 1-16 (one small warehouse and 2 and 8 threads quick), on members capped at 0.35 CPU instead of an M60 with 100-1000 warehouses and up to 96 threads; never more threads than warehouses, as in the paper", Experiment: tpccThreads,
			Claims: []Claim{
				{Text: "tpmC at the most threads over the fewest (primary)", PaperText: "throughput increasing as we increased the number of threads", Source: Source{219, "throughput increasing as we increased the number of threads"}, Kind: Above, Ref: 1, Unit: "×", Measure: moreThreads(ratioOf(tpmc(pri, true), tpmc(pri, false)))},
				{Text: "tpmC at the most threads, nearest over primary", PaperText: "the difference is observed to be minimal", Source: Source{219, "the difference is observed to be minimal"}, Kind: Similar, Ref: 1, Tol: 0.1, Unit: "×", Measure: ratioOf(tpmc(near, true), tpmc(pri, true))},
			}},
		{Paper: p, ID: "fig2", Caption: "tpmC, normalized against denormalized schema", Source: Source{237, "Figure 2: Normalized vs denormalized schema"}, Status: Scaled,
			Note: "8 clients on 8 warehouses (on one small warehouse quick); the two schemas alternate, three rounds (one quick)", Experiment: tpccSchema,
			Claims: []Claim{
				{Text: "tpmC, denormalized over normalized", PaperText: "an obvious performance win", Source: Source{158, "obvious performance win"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(tpmCOf("tpcc-fig2-denormalized"), tpmCOf("tpcc-fig2-normalized"))},
			}},
		{Paper: p, ID: "fig3", Caption: "tpmC, findAndModify and batched writes against select + update", Source: Source{240, "Figure 3: findAndModify vs update+select"}, Status: Scaled,
			Note: "8 clients on 8 warehouses (on one small warehouse quick); findAndModify and batched writes on together, as in the paper's appendix A.2, alternating with both off, three rounds (one quick)", Experiment: tpccFAM,
			Claims: []Claim{
				{Text: "tpmC with findAndModify over without", PaperText: "made the overall benchmark run faster", Source: Source{171, "made the overall benchmark run faster"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(tpmCOf("tpcc-fig3-on"), tpmCOf("tpcc-fig3-off"))},
				{Text: "tpmC with both on over both off", PaperText: "31549 against 26959 tpmC at 64 threads (1.17×)", Source: Source{352, "true	true	64	31549"}, Kind: Approx, Paper: 31549.0 / 26959, Ref: 1, Tol: 0.1, Unit: "×", Measure: ratioOf(tpmCOf("tpcc-fig3-on"), tpmCOf("tpcc-fig3-off"))},
			}},
		{Paper: p, ID: "fig4", Caption: "tpmC by Atlas instance type (M50, M60, M80)", Source: Source{243, "Figure 4: Throughput by Instance Type"}, Status: Scaled,
			Note: "three local sets of 1:2:4 capacity (0.1, 0.2 and 0.4 CPU per member, 0.25, 0.5 and 1 GB caches, 600M, 1200M and 2400M of memory), as M50, M60 and M80 each double the one before; on one machine the disk and network do not grow with them. 16 clients, 4 warehouses (8 clients on one small warehouse quick); the costs are the paper's (M60 1.98x M50, M80 1.85x M60)", Experiment: tpccSizes,
			Claims: []Claim{
				{Text: "tpmC on the M60-sized set over the M50-sized one, against the cost ratio 1.98", PaperText: "the increase in throughput does not proportionally correspond to the increase in costs", Source: Source{223, "the increase in throughput does not proportionally correspond to the increase in costs"}, Kind: Below, Ref: 1.98, Unit: "×",
					Measure: ratioOf(tpmCAt("tpcc-fig4-m60"), tpmCAt("tpcc-fig4-m50"))},
				{Text: "tpmC on the M80-sized set over the M60-sized one, against the cost ratio 1.85", PaperText: "the increase in throughput does not proportionally correspond to the increase in costs", Source: Source{223, "the increase in throughput does not proportionally correspond to the increase in costs"}, Kind: Below, Ref: 1.85, Unit: "×",
					Measure: ratioOf(tpmCAt("tpcc-fig4-m80"), tpmCAt("tpcc-fig4-m60"))},
			}},
		{Paper: p, ID: "acid", Caption: "atomicity, isolation and durability tests (§4.6.3-4.6.5), automated", Source: Source{197, "We manually performed the atomicity tests"}, Status: Runs,
			Note: "the paper ran them by hand; `tpcc acid` runs TPC-C clauses 3.2.2, 3.4.2 and a primary kill", Experiment: tpccACID,
			Claims: []Claim{
				{Text: "atomicity tests (TPC-C 3.2.2) failed", PaperText: "performed, passed", Source: Source{197, "We manually performed the atomicity tests"}, Kind: AtMost, Paper: 0, Unit: "tests", Measure: acidFailed("3.2")},
				{Text: "isolation tests (TPC-C 3.4.2) failed", PaperText: "nine isolation tests", Source: Source{201, "We performed nine isolation tests"}, Kind: AtMost, Paper: 0, Unit: "tests", Measure: acidFailed("3.4")},
				{Text: "durability test (TPC-C 3.5.4: acknowledged New-Orders after a primary kill) failed", PaperText: "all acknowledged transactions in the server after the failover", Source: Source{205, "all of our acknowledged (successfully recorded) transactions would be in the server"}, Kind: AtMost, Paper: 0, Unit: "tests", Measure: acidFailed("3.5")},
			}},
	}
}
