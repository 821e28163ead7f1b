package reproduce

import (
	"fmt"
	"math"
	"time"

	"github.com/decongestant/decongestant/results"
)

// The Read Preference Manager poster's experiment (§III): TPC-C with half
// of the transactions Stock-Level, clients swept, primary, secondary and
// RPM (10 % exploration, threshold 50 %: the defaults of `rpm`). Its
// M60 Atlas instance becomes three members capped at 0.35 CPU; its five
// 10-minute runs per point, two of 100 s (one of 40 s quick).

// rpmSaturation is the poster's saturation point: with 10 to 30 clients
// RPM always recommended the primary (§III, fig. 5). Its sweep runs the
// poster's client counts scaled by this set's point over 30, found by a
// primary-only sweep of the same TPC-C mix on the database the sweep
// then uses (loaded once, by the probe).
var rpmSaturation = &Saturation{Paper: 30,
	Source: Source{84, "with a load of between 10 to 30 clients, the recommendation made by the Read Preference Manager is always Primary"},
	Probe: func(q bool) Step {
		return tpccRun(q, ProbeOutput, "20", join(flags("clients", scale(q, "1,2,4,8,16,32", "1,2,4,6,8,12,16,24,32,48,64"),
			"duration", scale(q, "8s", "15s"), "warmup", scale(q, "4s", "5s"), "policies", "primary"), []string{"--sprobe=false", "--check=false"})...)
	}}

// rpmSweep's full shape: the probe's 11 runs of 15 s (no checks) on the 20
// warehouses it loads, then 45 runs of 100 s (the first 30 s of each its
// warm-up), and TPC-C's consistency checks once, after the last run
// (checkedOnce). 45, not 54: on a set whose primary stops gaining at 1
// client the poster's 10 and 30 clients scale to one count. Its full run
// of 2026-11-27 took 83 min (the load and the probe 7.4 min, the 45 runs
// 75 min, the checks 45 s); the estimate keeps the slower load measured
// before (load20).
var rpmSweep = &Experiment{Name: "rpm-fig2-5", Cluster: members, Quick: 6 * time.Minute,
	Full: load20 + 45*(100*time.Second+runGap20) + check20 + 11*20*time.Second, Saturate: rpmSaturation,
	Steps: func(q bool) []Step {
		return checkedOnce("rpm", tpccRun(q, "rpm", "20", join(flags("clients", scale(q, Clients(10, 120), Clients(10, 30, 60, 120, 150, 200)),
			"repeat", scale(q, "1", "3"), "duration", scale(q, "40s", "100s"), "warmup", scale(q, "10s", "30s"),
			"rpm-period", scale(q, "4s", "10s"), "policies", "primary,secondary,rpm", "sprobe-write-interval", lightProbe), []string{"--skip-load"})...))
	}}

// secondaryDecisions is the percentage of measured periods in which RPM
// recommended secondary (its fraction is 1 - exploration then).
func secondaryDecisions(res *results.Results, r *results.Run) float64 {
	n, sec := 0, 0
	for _, p := range r.Periods {
		if p.TS <= res.Config.WarmupS {
			continue
		}
		n++
		if p.BalanceFraction > 0.5 {
			sec++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(sec) / float64(n)
}

// rpmDecided marks a measure of RPM's runs not exercised when RPM made no
// decision in the measured part of some run: a claim about RPM then
// describes its starting state, not RPM.
func rpmDecided(m func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		e, err := m(o)
		if err != nil || !e.Measured() {
			return e, err
		}
		r, err := o.Results("rpm")
		if err != nil {
			return e, err
		}
		for _, run := range r.Runs {
			if !(sel{policy: "rpm"}).match(&run) {
				continue
			}
			if d := run.Summary.Decisions; d == nil || d.Count == 0 {
				e.NotExercised = fmt.Sprintf("RPM made no decision in the measured part of its run with %d clients", run.Clients)
				if d == nil {
					e.NotExercised = "the results do not record RPM's decisions, so the runs may describe its starting state"
				}
				break
			}
		}
		return e, nil
	}
}

func rpmFigures() []*Figure {
	p := Papers[1]
	rpm, pri, sec := sel{policy: "rpm"}, sel{policy: "primary"}, sel{policy: "secondary"}
	at120 := func(s sel) sel { s.paperClients = 120; return s }
	decisions := func(most bool) func(Outputs) (Estimate, error) {
		return sweepPerRun("rpm", rpm, most, secondaryDecisions)
	}
	const note = "clients 10-200 (10 and 120 quick), three 100 s runs per point (one of 40 s quick) instead of five of 10 min; RPM decides every 10 s (4 s quick) instead of every minute, a tenth of a run as the paper's minute is of its 10-minute runs; 20 warehouses, at most 10 clients each as TPC-C's terminals (a small database quick); the poster's clients scaled to this set: times the client count where its primary stops gaining Stock-Level and New-Order throughput (a primary-only sweep first), over the poster's 30; the S probe's writer every 50 ms, not 5, as at 200 writes a second it took most of a 0.35-CPU primary; TPC-C's consistency checks once, after the last run, not after each"
	return []*Figure{
		{Paper: p, ID: "fig1", Caption: "architecture of the Read Preference Manager", Source: Source{50, "Fig. 1. A simplified"}, Status: Diagram},
		{Paper: p, ID: "fig2", Caption: "Stock-Level throughput against clients", Source: Source{63, "Fig. 2. Throughput of the Stock Level"}, Status: Scaled, Note: note, Experiment: rpmSweep, Plots: plots("rpm", "sweep_tput"),
			Claims: []Claim{
				{Text: "Stock-Level throughput at the fewest clients, RPM over primary", PaperText: "a bit lower than Primary", Source: Source{58, "a bit lower than the one when Primary is a hard-coded preference"}, Kind: Similar, Ref: 1, Tol: 0.1, Unit: "×", Measure: unsaturated("rpm", rpmDecided(ratioOf(sweepMin("rpm", rpm, sumTput), sweepMin("rpm", pri, sumTput))))},
				{Text: "Stock-Level throughput at the most clients, RPM over secondary", PaperText: "approaches Secondary, never surpasses or equals it", Source: Source{68, "But it never surpasses or equals to it"}, Kind: Below, Ref: 1, Unit: "×", Measure: rpmDecided(ratioOf(sweepMax("rpm", rpm, sumTput), sweepMax("rpm", sec, sumTput)))},
			}},
		{Paper: p, ID: "fig3", Caption: "Stock-Level P80 against clients", Source: Source{66, "Fig. 3. 80-percentile latency"}, Status: Scaled, Note: note, Experiment: rpmSweep, Plots: plots("rpm", "sweep_p80"),
			Claims: []Claim{
				{Text: "Stock-Level P80 at the most clients, RPM over primary", PaperText: "stable, not increasing as with Primary", Source: Source{70, "generally stable - it does not keep increasing"}, Kind: Below, Ref: 1, Unit: "×", Measure: rpmDecided(ratioOf(sweepMax("rpm", rpm, sumP80), sweepMax("rpm", pri, sumP80)))},
			}},
		{Paper: p, ID: "fig4", Caption: "Stock-Level throughput against P80 staleness", Source: Source{77, "Fig. 4. The trade-off"}, Status: Scaled,
			Note: note + "; staleness is the S probe's, not the replication lag of MongoDB's diagnostic data", Experiment: rpmSweep, Plots: plots("rpm", "sweep_tput_staleness"),
			Claims: []Claim{
				{Text: "Stock-Level throughput at 120 clients, RPM over primary", PaperText: "around 30% higher", Source: Source{82, "around 30% higher than when they are all directed to the primary"}, Kind: Approx, Paper: 1.3, Ref: 1, Tol: 0.1, Unit: "×", Measure: rpmDecided(ratioOf(summary("rpm", at120(rpm), sumTput), summary("rpm", at120(pri), sumTput)))},
				{Text: "P80 staleness at 120 clients, RPM over secondary", PaperText: "around 50% less", Source: Source{82, "around 50% less than when all of them are directed to the Secondaries"}, Kind: Approx, Paper: 0.5, Ref: 1, Tol: 0.3, Unit: "×", Measure: rpmDecided(ratioOf(summary("rpm", at120(rpm), sumStale), summary("rpm", at120(sec), sumStale)))},
			}},
		{Paper: p, ID: "fig5", Caption: "share of periods RPM recommends secondary, against clients", Source: Source{80, "Fig. 5. Percentage of times"}, Status: Scaled, Note: note, Experiment: rpmSweep, Plots: plots("rpm", "sweep_secondary"),
			Claims: []Claim{
				{Text: "periods recommending secondary at the fewest clients", PaperText: "always Primary", Source: Source{84, "the recommendation made by the Read Preference Manager is always Primary"}, Kind: Approx, Paper: 0, Ref: 50, Tol: 10, Abs: true, Unit: "%", Measure: unsaturated("rpm", rpmDecided(decisions(false)))},
				{Text: "periods recommending secondary at the most clients", PaperText: "Secondary is suggested most of the time", Source: Source{84, "At 200 clients, Secondary is suggested most of the time"}, Kind: Above, Ref: 50, Unit: "%", Measure: rpmDecided(decisions(true))},
			}},
	}
}
