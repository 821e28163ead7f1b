package reproduce

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/decongestant/decongestant/results"
)

// The Decongestant paper's experiments (§4), scaled to three members
// capped at 0.35 CPU on one machine: its three r4.2xlarge members become
// CPU-capped processes, its 10 s periods 5 s (2 s quick), its phases a
// third as long, its three runs per point two (one quick).

// members is the local set every experiment of the paper runs on.
func members(bool) *Cluster { return &Cluster{Args: flags("cpu", "0.35")} }

// ycsbRun is `bench ycsb` with the paper's settings: the S probe on, a
// 10 s staleness bound (§4.1.2), balancing every period.
func ycsbRun(quick bool, out string, extra ...string) Step {
	period := scale(quick, "2s", "5s")
	return Step{Args: join([]string{"bench", "ycsb"},
		flags("uri", PhURI, "cluster-dir", PhDir, "records", scale(quick, "20000", "50000"),
			"period", period, "balancer-period", period, "max-staleness", "10s"),
		[]string{"--sprobe"}, extra, flags("out", PhOut+"/"+out+".json")),
		Output: out, Report: true}
}

// tpccRun is `bench tpcc` with the paper's read-write mix (Table 1), on
// the given number of warehouses (one small warehouse quick). The full
// shapes keep at most 10 clients per warehouse, TPC-C's terminals: with
// more, Payment's updates of the warehouse document conflict so often
// that every client waits on retries (100 clients on 4 warehouses: 5 000-
// 8 400 retries a 100 s run, Payment's median 13-53 s) and Stock-Level
// throughput measures the conflicts, not where the reads went; the paper
// does not say how many warehouses it loaded.
func tpccRun(quick bool, out, warehouses string, extra ...string) Step {
	period := scale(quick, "2s", "5s")
	size := scale(quick, flags("scale", "small"), flags("warehouses", warehouses))
	probe := []string{"--sprobe"} // the paper ran the S probe beside every run but fig. 11's
	for _, a := range extra {
		if strings.HasPrefix(a, "--sprobe=") {
			probe = nil
		}
	}
	return Step{Args: join([]string{"bench", "tpcc"},
		flags("uri", PhURI, "cluster-dir", PhDir, "mix", "readwrite", "period", period, "balancer-period", period),
		size, probe, extra, flags("out", PhOut+"/"+out+".json")),
		Output: out, Report: true}
}

// checkedOnce turns TPC-C's consistency checks after every run of step (a
// `bench tpcc`) into one `tpcc check` after its last run, its results kept
// as out-check.json: the twelve conditions are invariants of the database,
// which every run's transactions must keep, so a run that broke one leaves
// it broken for the last check to find (the check no longer says which
// run). On 20 warehouses a check takes 104 s, as long as a run: checked
// once, the poster's 54-run sweep fits a working session. A failed
// condition fails the step, and with it the experiment.
func checkedOnce(out string, step Step) []Step {
	step.Args = append(step.Args[:len(step.Args):len(step.Args)], "--check=false")
	check := Step{Args: join([]string{"tpcc", "check"}, flags("uri", PhURI, "json", PhOut+"/"+out+"-check.json")), Output: out + "-check"}
	return []Step{step, check}
}

const threePolicies = "primary,secondary,decongestant"

// What a full shape's 20-warehouse TPC-C costs besides its runs, measured in
// the Decongestant paper's fig. 7 full run on this project's 2-core machine
// (members capped at 0.35 CPU, 2026-11-27): loading 20 warehouses took
// 684 s, and every run was followed by 104 s of TPC-C's twelve consistency
// checks (`bench tpcc --check`, on by default) and its teardown.
const (
	load20  = 684 * time.Second
	check20 = 104 * time.Second
	// runGap20 is what a run costs besides its warm-up and measured time
	// when no checks follow it (a fresh S probe, the monitors, connecting),
	// as the saturation probes' unchecked 20 s runs take about 30 s.
	runGap20 = 10 * time.Second
)

// tpcc20 is the rough length of a full shape of runs TPC-C runs of each on
// 20 warehouses it loads: the estimate `reproduce list` shows.
func tpcc20(runs int, each time.Duration) time.Duration {
	return load20 + time.Duration(runs)*(each+check20)
}

// shiftAt is the time of fig. 2's and 3's workload switch.
func shiftAt(quick bool) int { return scale(quick, 40, 200) }

// dcSaturation is the Decongestant paper's saturation point: its primary
// served YCSB-B alone up to 50 clients (§4.2, fig. 5), where Algorithm 1
// begins to move reads. The YCSB figures run its client counts scaled by
// this set's point over 50, found by a primary-only YCSB-B sweep.
var dcSaturation = &Saturation{Paper: 50,
	Source: Source{288, "with a low load of between 10 to 50 clients, Decongestant sends most read requests to the primary node"},
	Probe: func(q bool) Step {
		return Step{Args: join([]string{"bench", "ycsb"},
			flags("uri", PhURI, "cluster-dir", PhDir, "records", scale(q, "20000", "50000"), "workload", "b",
				"policies", "primary", "clients", scale(q, "1,2,4,8,16,32", "1,2,3,4,6,8,12,16,24,32,48"),
				"duration", scale(q, "8s", "15s"), "warmup", scale(q, "4s", "5s"), "period", scale(q, "2s", "5s"),
				"out", PhOut+"/"+ProbeOutput+".json")),
			Output: ProbeOutput}
	}}

// probeWriterCause is why fig. 2's full run of 2026-11-27 kept 88 % of
// YCSB-B's reads on the secondaries, not the paper's 70 %.
const probeWriterCause = "a harness choice, since changed (full run of fig. 2, 2026-11-27, " +
	"reproduce-decongestant-fig2-2026-11-27): the S probe's writer, then every 5 ms in a closed loop, filled whatever " +
	"room the balancer freed on the 0.35-CPU primary (its CPU at the cap under every policy; the probe's connections " +
	"9.7 % of a CPU and the oplog fetchers 9.9 % under decongestant, sprobe-cost-2026-11-27), so its reads' P80 " +
	"stayed 8-14 ms and Algorithm 1 kept 90 %. With the writer every 50 ms, as the scaled figures now run it, the " +
	"same load put 67.4 % on the secondaries (one run, sprobe-cost-2026-11-27)"

// lightProbe is the S probe's writer in the figures whose load is scaled
// to the primary's capacity (the Decongestant paper's YCSB figs. 2, 3, 5,
// 6; the RPM poster's sweep): a write every 50 ms, not
// every 5 ms. At 200 writes a second the writer and the replication of
// its writes took about 20 % of a CPU on the primary (its connections
// 12 %, the secondaries' oplog fetchers 11 %, measured per thread during
// fig. 2's full run), most of a 0.35-CPU member's cap, where the paper
// found its S workload of "low impact" (§4.6); 20 a second cost a tenth
// of that. The reader still sees at least one write between two probes.
// Fig. 8 keeps 5 ms: its claims compare staleness at that precision.
const lightProbe = "50ms"

// Figs. 2 and 3 have the same shape: fig. 3's full run took 63 min here
// (the saturation probe, then nine runs of 400 s); fig. 3 now measures
// the primary's YCSB-A capacity first (about 3 min).
var dcFig2 = &Experiment{Name: "decongestant-fig2", Cluster: members, Quick: 6 * time.Minute, Full: 65 * time.Minute, Saturate: dcSaturation,
	Steps: func(q bool) []Step {
		t := shiftAt(q)
		return []Step{ycsbRun(q, "fig2", flags("workload", "a", "clients", Clients(180), "phases", secs(t)+":workload=b",
			"duration", secs(2*t), "repeat", scale(q, "1", "3"), "warmup", "0s", "policies", threePolicies, "sprobe-write-interval", lightProbe)...)}
	}}

// Fig. 3's second phase: the paper's 20 YCSB-A clients, 40 % of the 50
// its primary served without falling behind, left that primary room, so
// its balancer brought the reads back. Here one YCSB-A client (20 scaled)
// fills a 0.35-CPU primary, so the phase runs at the same 40 % of this
// primary's YCSB-A capacity, measured first (capacityA), held by --rate,
// with the clients of this set's saturation point (50 scaled) so that the
// rate, not one client's round trips, sets the load: in the quick shape
// one client made 158-184 of the 228 operations a second asked.
const (
	capacityA = "capacity-a"
	fig3Light = 20.0 / 50
)

var dcFig3 = &Experiment{Name: "decongestant-fig3", Cluster: members, Quick: 7 * time.Minute, Full: 68 * time.Minute, Saturate: dcSaturation,
	Steps: func(q bool) []Step {
		t := shiftAt(q)
		return []Step{ycsbCapacity(q, "a", Clients(20, 50, 180), capacityA),
			ycsbRun(q, "fig3", flags("workload", "b", "clients", Clients(180), "phases", secs(t)+":workload=a,clients="+Clients(50)+",rate="+Rate(fig3Light, capacityA),
				"duration", secs(2*t), "repeat", scale(q, "1", "3"), "warmup", "0s", "policies", threePolicies, "sprobe-write-interval", lightProbe)...)}
	}}

// ycsbCapacity is a primary-only run of a YCSB workload at the given
// client counts (a Clients placeholder): what this set's primary serves of
// it, for a Rate placeholder of a later step.
func ycsbCapacity(quick bool, workload, clients, out string) Step {
	return Step{Args: join([]string{"bench", "ycsb"},
		flags("uri", PhURI, "cluster-dir", PhDir, "records", scale(quick, "20000", "50000"), "workload", workload,
			"policies", "primary", "clients", clients, "duration", scale(quick, "15s", "40s"), "warmup", scale(quick, "5s", "10s"),
			"period", scale(quick, "2s", "5s"), "out", PhOut+"/"+out+".json")),
		Output: out}
}

// burstAt is when fig. 4's burst starts (it ends at twice that).
func burstAt(quick bool) int { return scale(quick, 40, 120) }

// Fig. 4's light phases: the paper's 20 clients left its primary room
// (Algorithm 1 stayed at its 10 % minimum until the burst, §4.2). Here 20
// closed-loop clients of read-write TPC-C kept a 0.35-CPU primary at its
// cap (its full run of 2026-11-27: `decongestant` at its 90 % maximum
// within a minute, before the burst), so the phases before and after the
// burst run at 40 % of this primary's throughput of the same mix,
// measured first (capacityTPCC, primary alone, no S probe), held by
// --rate; the burst is the paper's 200 clients in closed loops. 40 % as in
// fig. 3: the paper gives no capacity for its TPC-C primary.
const (
	capacityTPCC = "capacity-tpcc"
	fig4Light    = 0.4
)

// Fig. 4's full run in its first shape (20 closed-loop clients throughout)
// took 64 min here (2026-11-27: the load, nine runs of 360 s, each
// checked); the capacity step adds three runs of 50 s.
var dcFig4 = &Experiment{Name: "decongestant-fig4", Cluster: members, Quick: 8 * time.Minute, Full: 67 * time.Minute,
	Steps: func(q bool) []Step {
		t := burstAt(q)
		light := Rate(fig4Light, capacityTPCC)
		return []Step{tpccCapacity(q, scale(q, "4,10", "5,10,20"), capacityTPCC),
			tpccRun(q, "fig4", "20", join(flags("clients", "20", "rate", light, "max-staleness", "10s",
				"phases", fmt.Sprintf("%s:clients=200,rate=0;%s:clients=20,rate=%s", secs(t), secs(2*t), light),
				"duration", secs(3*t), "repeat", scale(q, "1", "3"), "warmup", "0s", "policies", threePolicies,
				"sprobe-write-interval", lightProbe), []string{"--skip-load"})...)}
	}}

// tpccCapacity is a primary-only run of the read-write TPC-C mix at the
// given client counts, without the S probe or the consistency checks, on
// the database it loads: what this set's primary serves of it, for a Rate
// placeholder of a later step.
func tpccCapacity(quick bool, clients, out string) Step {
	s := tpccRun(quick, out, "20", join(flags("clients", clients, "policies", "primary",
		"duration", scale(quick, "15s", "40s"), "warmup", scale(quick, "5s", "10s")), []string{"--sprobe=false", "--check=false"})...)
	s.Report = false // the figure's report is its runs', not the capacity's
	return s
}

var dcFig5 = &Experiment{Name: "decongestant-fig5", Cluster: members, Quick: 8 * time.Minute, Full: 95 * time.Minute, Saturate: dcSaturation,
	Steps: func(q bool) []Step {
		return []Step{ycsbRun(q, "fig5", flags("workload", "b", "clients", scale(q, Clients(20, 100, 180), Clients(20, 60, 100, 140, 180)),
			"repeat", scale(q, "1", "3"), "duration", scale(q, "40s", "100s"), "warmup", scale(q, "10s", "30s"),
			"policies", threePolicies, "sprobe-write-interval", lightProbe)...)}
	}}

// Fig. 6's full run took 48 min here (2026-11-27: the saturation probe and
// nine runs of 100 s).
var dcFig6 = &Experiment{Name: "decongestant-fig6", Cluster: members, Quick: 6 * time.Minute, Full: 50 * time.Minute, Saturate: dcSaturation,
	Steps: func(q bool) []Step {
		return []Step{ycsbRun(q, "fig6", flags("workload", "a", "clients", scale(q, Clients(20, 180), Clients(20, 100, 180)),
			"repeat", scale(q, "1", "3"), "duration", scale(q, "40s", "100s"), "warmup", scale(q, "10s", "30s"),
			"policies", threePolicies, "sprobe-write-interval", lightProbe)...)}
	}}

var dcFig7 = &Experiment{Name: "decongestant-fig7", Cluster: members, Quick: 5 * time.Minute, Full: tpcc20(36, 100*time.Second),
	Steps: func(q bool) []Step {
		return []Step{tpccRun(q, "fig7", "20", flags("clients", scale(q, "20,100", "20,60,100,200"),
			"max-staleness", "10s", "repeat", scale(q, "1", "3"), "duration", scale(q, "40s", "100s"),
			"warmup", scale(q, "10s", "30s"), "policies", threePolicies)...)}
	}}

var dcFig8 = &Experiment{Name: "decongestant-fig8", Cluster: members, Quick: 2 * time.Minute, Full: 24 * time.Minute,
	Steps: func(q bool) []Step {
		return []Step{ycsbRun(q, "fig8", flags("workload", "a", "clients", "100", "duration", scale(q, "60s", "300s"),
			"repeat", scale(q, "1", "3"), "warmup", "0s", "policies", "decongestant")...)}
	}}

var dcFig9 = &Experiment{Name: "decongestant-fig9-10", Cluster: members, Quick: 3 * time.Minute, Full: tpcc20(6, 300*time.Second),
	Steps: func(q bool) []Step {
		d, rep := scale(q, "60s", "300s"), scale(q, "1", "3")
		return []Step{
			tpccRun(q, "fig9", "20", flags("clients", "60", "max-staleness", "10s", "duration", d, "repeat", rep,
				"phases", pauseNear(q, 10), "warmup", "0s", "policies", "decongestant")...),
			tpccRun(q, "fig10", "20", join(flags("clients", "200", "max-staleness", "3s", "duration", d, "repeat", rep,
				"phases", pauseNear(q, 3), "warmup", "0s", "policies", "decongestant"), []string{"--skip-load"})...),
		}
	}}

// pauseNear is figs. 9's and 10's fault: n3's replication paused for the
// bound (s) plus 5 s, a third into the run. On capped members under this
// load the lag stays far under the bound otherwise (591 ms at worst in a
// run without it), so "no read past the bound" could not fail; with it n3
// goes past the bound and the balancer must stop reading there in time.
func pauseNear(quick bool, bound int) string {
	at := scale(quick, 20, 100)
	return fmt.Sprintf("%ds:pause=n3;%ds:resume=n3", at, at+bound+5)
}

// sprobeRounds are fig. 11's alternations of a run without and one with
// the S probe.
func sprobeRounds(quick bool) int { return scale(quick, 1, 3) }

var dcFig11 = &Experiment{Name: "decongestant-fig11", Cluster: members, Quick: 2 * time.Minute, Full: 25 * time.Minute,
	Steps: func(q bool) []Step {
		var steps []Step
		for i := 1; i <= sprobeRounds(q); i++ {
			for _, on := range []bool{false, true} {
				name := fmt.Sprintf("fig11-%s-%d", onOff(on), i)
				extra := flags("clients", scale(q, "40", "100"), "duration", scale(q, "40s", "120s"), "warmup", scale(q, "10s", "30s"), "policies", "primary")
				extra = append(extra, "--sprobe="+strconv.FormatBool(on))
				if len(steps) > 0 {
					extra = append(extra, "--skip-load")
				}
				steps = append(steps, tpccRun(q, name, "10", extra...))
			}
		}
		return steps
	}}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// fig11Tput is the mean Stock-Level throughput of fig. 11's runs with or
// without the S probe, over the rounds.
func fig11Tput(on bool) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		var vs []float64
		for i := 1; ; i++ {
			r, err := o.Results(fmt.Sprintf("fig11-%s-%d", onOff(on), i))
			if err != nil {
				if i == 1 {
					return Estimate{}, err
				}
				break
			}
			for _, run := range r.Runs {
				vs = append(vs, run.Summary.ReadTput)
			}
		}
		return estimate(vs), nil
	}
}

// fig11Share is an operation's share of fig. 11's runs without the probe
// (Table 1's mix as run), over their measured periods, one value per run.
// It is never a test of the paper: the generator was told the mix, so the
// count checks the generator; the estimate says so (NotExercised).
func fig11Share(op string) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		r, err := o.Results("fig11-off-1")
		if err != nil {
			return Estimate{}, err
		}
		var shares []float64
		for _, run := range r.Runs {
			var n, all int64
			for _, p := range run.Periods {
				if p.TS <= r.Config.WarmupS {
					continue
				}
				for k, v := range p.Ops {
					all += v
					if k == op {
						n += v
					}
				}
			}
			if all > 0 {
				shares = append(shares, 100*float64(n)/float64(all))
			}
		}
		if len(shares) == 0 {
			return Estimate{}, fmt.Errorf("fig11-off-1: no operations counted")
		}
		e := estimate(shares)
		e.NotExercised = "the mix is an input: the generator was told these shares, so counting them checks the generator, not the paper"
		return e, nil
	}
}

// lagCovers is the percentage of periods with S probes to secondaries in
// which the router's lag estimate was at least the staleness the probe saw
// (fig. 8). Our estimate is to the millisecond: adding the paper's
// one-second granularity of serverStatus would make the claim hold
// whenever staleness stays under a second, so it is not added.
func lagCovers(_ *results.Results, r *results.Run) float64 {
	n, ok := 0, 0
	for _, p := range r.Periods {
		if p.SProbeSecondaryProbes == 0 {
			continue
		}
		n++
		if p.MaxLagMS >= p.SProbeStalenessMaxMS {
			ok++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return 100 * float64(ok) / float64(n)
}

// nearBound marks a bounded-staleness measure not exercised when, in every
// run it was taken from, both the worst replication lag polled and the
// worst staleness the S probe saw stayed under half the run's bound: no
// read could have come near a violation, so "0 violations" could not fail.
func nearBound(name string, m func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		e, err := m(o)
		if err != nil || !e.Measured() {
			return e, err
		}
		r, err := o.Results(name)
		if err != nil {
			return e, err
		}
		if r.Config.MaxStalenessMS == nil {
			e.NotExercised = name + ": the runs had no staleness bound"
			return e, nil
		}
		bound := *r.Config.MaxStalenessMS
		var worst float64
		for _, run := range r.Runs {
			worst = max(worst, run.Summary.MaxLagMS, run.Summary.StalenessMaxMS)
		}
		if worst < bound/2 {
			e.NotExercised = fmt.Sprintf("the worst lag or staleness, %.0f ms, never reached half the %.0f ms bound", worst, bound)
		}
		return e, nil
	}
}

func decongestantFigures() []*Figure {
	p := Papers[0]
	const scaled = "the paper's clients scaled to this set: times the client count where its primary stops gaining throughput (a primary-only YCSB-B sweep first), over the paper's 50; the S probe's writer every 50 ms, not 5, as at 200 writes a second it took most of a 0.35-CPU primary"
	const shift = "phases a third as long (switch at 200 s, 40 s quick) and 5 s periods; members capped at 0.35 CPU; " + scaled
	// Windows of fig. 2 and 3: the second half of each phase, after the
	// balancer settled.
	t2 := float64(shiftAt(false))
	tq := func(o Outputs) float64 { // the switch time of the run in o
		for _, n := range []string{"fig2", "fig3"} {
			if r, err := o.Results(n); err == nil {
				for _, ph := range r.Config.Phases {
					if ph.AtS > 0 {
						return ph.AtS
					}
				}
			}
		}
		return t2
	}
	phase := func(name string, s sel, second bool, f func(results.Period) float64) func(Outputs) (Estimate, error) {
		return func(o Outputs) (Estimate, error) {
			t := tq(o)
			from, to := t/2, t
			if second {
				from, to = t+t/2, 2*t
			}
			return inWindow(name, s, from, to, f)(o)
		}
	}
	dec, pri, sec := sel{policy: "decongestant"}, sel{policy: "primary"}, sel{policy: "secondary"}
	// lighter judges a claim about the second phase only when that phase
	// left the primary room (withRoom). Fig. 3's paper runs from 180
	// clients down to 20, a sudden decrease; on a member capped at a
	// fraction of a CPU a single YCSB-A client's updates can keep the
	// primary at its cap, and then the balancer rightly keeps the reads
	// away: not the paper's regime.
	lighter := func(name string, m func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
		return withRoom(m, phase(name, pri, true, primaryCPU), phase(name, pri, false, primaryCPU),
			name+": no primary CPU figures under `primary` in both phases (bench --member-stats) to tell whether the load on it decreased",
			func(light, busy float64) string {
				return fmt.Sprintf("the second phase did not lighten the primary: under `primary` it used %.1f %% of a CPU, against %.1f %% in the first "+
					"phase; the paper's sudden decrease of load did not happen on this set", light, busy)
			})
	}
	burst := func(s sel, which int, f func(results.Period) float64) func(Outputs) (Estimate, error) {
		return func(o Outputs) (Estimate, error) {
			r, err := o.Results("fig4")
			if err != nil {
				return Estimate{}, err
			}
			t := float64(burstAt(false))
			for _, ph := range r.Config.Phases {
				if ph.AtS > 0 {
					t = ph.AtS
					break
				}
			}
			from, to := float64(which)*t+t/3, float64(which+1)*t
			return inWindow("fig4", s, from, to, f)(o)
		}
	}
	// eased judges a claim that needs fig. 4's primary uncongested in its
	// phase which (0 before the burst, 2 after) only when that phase left
	// it room against the burst (withRoom): on a primary kept at its cap
	// by the light phase too, the balancer rightly keeps the reads on the
	// secondaries, which is not the paper's regime.
	eased := func(which int, m func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
		return withRoom(m, burst(pri, which, primaryCPU), burst(pri, 1, primaryCPU),
			"fig4: no primary CPU figures under `primary` in and outside the burst (bench --member-stats) to tell whether the burst congested it",
			func(light, busy float64) string {
				return fmt.Sprintf("the primary was as busy %s the burst as in it: under `primary` %.1f %% of a CPU against %.1f %%; "+
					"the paper's uncongested primary at 20 clients did not happen on this set", map[int]string{0: "before", 2: "after"}[which], light, busy)
			})
	}
	tput, p80, share, stale := sumTput, sumP80, sumShare, sumStale

	return []*Figure{
		{Paper: p, ID: "fig1", Caption: "architecture of Decongestant", Source: Source{96, "Figure 1: A simplified architecture of Decongestant"}, Status: Diagram},
		{Paper: p, ID: "table1", Caption: "read-write TPC-C mix", Source: Source{233, "Table 1: Percentage of transactions"}, Status: Runs,
			Note: "the mix as run, counted in fig. 11's run without the S probe", Experiment: dcFig11,
			Claims: []Claim{
				{Text: "Stock-Level share of transactions", PaperText: "50%", Source: Source{236, "Stock Level	4%	50%"}, Kind: Approx, Paper: 50, Tol: 3, Abs: true, Unit: "%", Measure: fig11Share("STOCK_LEVEL")},
				{Text: "New-Order share", PaperText: "22%", Source: Source{240, "New Order	45%	22%"}, Kind: Approx, Paper: 22, Tol: 3, Abs: true, Unit: "%", Measure: fig11Share("NEW_ORDER")},
				{Text: "Payment share", PaperText: "20%", Source: Source{239, "Payment	43%	20%"}, Kind: Approx, Paper: 20, Tol: 3, Abs: true, Unit: "%", Measure: fig11Share("PAYMENT")},
				{Text: "Order-Status share", PaperText: "4%", Source: Source{238, "Order Status	4%	4%"}, Kind: Approx, Paper: 4, Tol: 2, Abs: true, Unit: "%", Measure: fig11Share("ORDER_STATUS")},
				{Text: "Delivery share", PaperText: "4%", Source: Source{237, "Delivery	4%	4%"}, Kind: Approx, Paper: 4, Tol: 2, Abs: true, Unit: "%", Measure: fig11Share("DELIVERY")},
			}},
		{Paper: p, ID: "fig2", Caption: "YCSB-A to B at 180 clients: read throughput, P80, share on secondaries", Source: Source{296, "Figure 2: Decongestant's ability to respond to sudden increase"},
			Status: Scaled, Note: shift, Experiment: dcFig2, Plots: plots("fig2", "read_tput", "read_p80", "secondary_pct"),
			Claims: []Claim{
				{Text: "share of reads on secondaries under YCSB-A (second half of the phase)", PaperText: "stabilises at 90%", Source: Source{274, "stabilises at 90%"}, Kind: Approx, Paper: 90, Tol: 10, Abs: true, Unit: "%", Measure: phase("fig2", dec, false, secondaryPct)},
				{Text: "share on secondaries after the switch to YCSB-B", PaperText: "stables at 70%", Source: Source{274, "stables at 70% under this workload"}, Kind: Approx, Paper: 70, Tol: 10, Abs: true, Unit: "%", Measure: phase("fig2", dec, true, secondaryPct), Cause: probeWriterCause},
				{Text: "YCSB-B read throughput, decongestant over primary", PaperText: "higher than either baseline", Source: Source{274, "throughput (Figure 2 (a)) of the read operations is higher than either baseline"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(phase("fig2", dec, true, readTput), phase("fig2", pri, true, readTput))},
				{Text: "YCSB-B read throughput, decongestant over secondary", PaperText: "higher than either baseline", Source: Source{274, "throughput (Figure 2 (a)) of the read operations is higher than either baseline"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(phase("fig2", dec, true, readTput), phase("fig2", sec, true, readTput))},
			}},
		{Paper: p, ID: "fig3", Caption: "YCSB-B at 180 clients to YCSB-A at 20: read throughput, P80, share on secondaries", Source: Source{302, "Figure 3: Decongestant's ability to respond to sudden decrease"},
			Status: Scaled, Note: shift + "; the YCSB-A phase held to 40 % of this primary's YCSB-A capacity (measured first, primary alone), as the paper's 20 clients were 40 % of the 50 its primary served (one scaled client alone fills this primary), by as many clients as the paper's 50 scaled", Experiment: dcFig3, Plots: plots("fig3", "read_tput", "read_p80", "secondary_pct"),
			Claims: []Claim{
				{Text: "share on secondaries under YCSB-B, 180 clients", PaperText: "an optimised state at 70%", Source: Source{278, "The percentage soon reaches an optimised state at 70%"}, Kind: Approx, Paper: 70, Tol: 10, Abs: true, Unit: "%", Measure: phase("fig3", dec, false, secondaryPct)},
				{Text: "share on secondaries under YCSB-A, 20 clients", PaperText: "the minimum we allow (10%)", Source: Source{280, "allow (10%)"}, Kind: Approx, Paper: 10, Tol: 10, Abs: true, Ref: 70, Unit: "%", Measure: lighter("fig3", phase("fig3", dec, true, secondaryPct))},
				{Text: "YCSB-B read throughput, decongestant over primary", PaperText: "higher", Source: Source{278, "The percentage soon reaches an optimised state at 70%"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(phase("fig3", dec, false, readTput), phase("fig3", pri, false, readTput))},
				{Text: "YCSB-B read throughput, decongestant over secondary", PaperText: "higher", Source: Source{278, "The percentage soon reaches an optimised state at 70%"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(phase("fig3", dec, false, readTput), phase("fig3", sec, false, readTput))},
			}},
		{Paper: p, ID: "fig4", Caption: "read-write TPC-C, 20 → 200 → 20 clients: Stock-Level throughput, P80, share on secondaries", Source: Source{308, "Figure 4: Decongestant's response to variations of client number in read-write TPC-C"},
			Status: Scaled, Note: "phases of 120 s (40 s quick) instead of 5 min, 20 warehouses (10 clients a warehouse at the burst, TPC-C's terminals; a small database quick) instead of the paper's; the 20 clients before and after the burst held to 40 % of this primary's throughput of the mix (measured first, primary alone), as 20 closed loops alone kept a 0.35-CPU primary at its cap where the paper's had room; the S probe's writer every 50 ms, not 5", Experiment: dcFig4, Plots: plots("fig4", "stock_level_tput", "stock_level_p80", "secondary_pct"),
			Claims: []Claim{
				{Text: "share on secondaries in the burst minus before it", PaperText: "quickly pushes up the percentage", Source: Source{282, "quickly pushes up the percentage of secondary Stock Level transactions"}, Kind: Above, Ref: 0, Unit: "points", Measure: eased(0, diffOf(burst(dec, 1, secondaryPct), burst(dec, 0, secondaryPct)))},
				{Text: "Stock-Level throughput in the burst, decongestant over secondary", PaperText: "a level similar to Secondary", Source: Source{282, "to a level similar to the situation where the Read Preference is"}, Kind: Similar, Ref: 1, Tol: 0.15, Unit: "×", Measure: ratioOf(burst(dec, 1, readTput), burst(sec, 1, readTput))},
				{Text: "share on secondaries after the burst minus in it", PaperText: "brings back most of the Stock Level transactions", Source: Source{282, "Read Balancer gradually brings back most of the Stock Level"}, Kind: Below, Ref: 0, Unit: "points", Measure: eased(2, diffOf(burst(dec, 2, secondaryPct), burst(dec, 1, secondaryPct)))},
			}},
		{Paper: p, ID: "fig5", Caption: "YCSB-B, clients swept: read throughput, P80, share on secondaries", Source: Source{324, "Figure 5: Performance trends with increasing client count"},
			Status: Scaled, Note: "clients 20-180 (20, 100, 180 quick), three runs per point (one quick), 100 s runs; " + scaled, Experiment: dcFig5, Plots: plots("fig5", "sweep_tput", "sweep_p80", "sweep_secondary"),
			Claims: []Claim{
				{Text: "share on secondaries at the most clients", PaperText: "roughly stable at around 70%", Source: Source{288, "roughly stable at around 70%"}, Kind: Approx, Paper: 70, Tol: 10, Abs: true, Unit: "%", Measure: sweepMax("fig5", dec, share)},
				{Text: "read throughput at the most clients, decongestant over secondary", PaperText: "around 30% higher", Source: Source{310, "around 30% higher than only routing"}, Kind: Approx, Paper: 1.3, Ref: 1, Tol: 0.1, Unit: "×", Measure: ratioOf(sweepMax("fig5", dec, tput), sweepMax("fig5", sec, tput))},
				{Text: "read throughput at the most clients, decongestant over primary", PaperText: "around 2.5 times", Source: Source{310, "around 2.5 times than only sending"}, Kind: Approx, Paper: 2.5, Ref: 1, Tol: 0.2, Unit: "×", Measure: ratioOf(sweepMax("fig5", dec, tput), sweepMax("fig5", pri, tput))},
				{Text: "read P80 at the most clients, decongestant over secondary", PaperText: "lower than the two hard-coded systems when the load is high", Source: Source{310, "80-percentile latency for Decongestant is lower that the two hard-coded systems when the load is high"}, Kind: Below, Ref: 1, Unit: "×", Measure: ratioOf(sweepMax("fig5", dec, p80), sweepMax("fig5", sec, p80))},
				{Text: "share on secondaries at the fewest clients", PaperText: "most read requests to the primary node (10 to 50 clients)", Source: Source{288, "Decongestant sends most read requests to the primary node"}, Kind: Below, Ref: 50, Unit: "%", Measure: unsaturated("fig5", sweepMin("fig5", dec, share))},
			}},
		{Paper: p, ID: "fig6", Caption: "YCSB-A: read throughput and P80 against P80 staleness at 20, 100, 180 clients", Source: Source{328, "Figure 6: Performance and 80-percentile data staleness trade-off in YCSB-A"},
			Status: Scaled, Note: "100 s runs, three per point (20 and 180 clients once each quick); " + scaled, Experiment: dcFig6, Plots: plots("fig6", "sweep_tput_staleness", "sweep_p80_staleness"),
			Claims: []Claim{
				{Text: "read throughput at the most clients, decongestant over primary", PaperText: "close to the desired zone (primary: low throughput)", Source: Source{332, "Decongestant is able to push the data point close to the desired zone"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(sweepMax("fig6", dec, tput), sweepMax("fig6", pri, tput))},
				{Text: "P80 staleness at the most clients, decongestant minus secondary", PaperText: "secondary seeing high staleness", Source: Source{332, "Decongestant is able to push the data point close to the desired zone"}, Kind: AtMost, Paper: 0, Unit: "ms", Measure: diffOf(sweepMax("fig6", dec, stale), sweepMax("fig6", sec, stale))},
			}},
		{Paper: p, ID: "fig7", Caption: "read-write TPC-C: Stock-Level throughput and P80 against P80 staleness", Source: Source{351, "Figure 7: Performance and 80-percentile data staleness trade-off for Stock Level"},
			Status: Scaled, Note: "20 warehouses, clients 20-200: at most 10 clients a warehouse, TPC-C's terminals (one small warehouse quick, where 100 clients measure Payment's write conflicts)", Experiment: dcFig7, Plots: plots("fig7", "sweep_tput_staleness", "sweep_p80_staleness"),
			Claims: []Claim{
				{Text: "Stock-Level throughput at the most clients, decongestant over primary", PaperText: "push the data points toward the desired zone", Source: Source{336, "Decongestant is able to push the data points toward the desired zone"}, Kind: Above, Ref: 1, Unit: "×", Measure: ratioOf(sweepMax("fig7", dec, tput), sweepMax("fig7", pri, tput))},
				{Text: "P80 staleness at the most clients, decongestant minus secondary", PaperText: "small data staleness", Source: Source{336, "Decongestant is able to push the data points toward the desired zone"}, Kind: AtMost, Paper: 0, Unit: "ms", Measure: diffOf(sweepMax("fig7", dec, stale), sweepMax("fig7", sec, stale))},
			}},
		{Paper: p, ID: "fig8", Caption: "estimated maximum staleness against the S probe's, YCSB-A, 100 clients", Source: Source{360, "Figure 8: The maximum data staleness of the secondaries estimated by the Decongestant"},
			Status: Scaled, Note: "three 300 s runs (one of 60 s quick)", Experiment: dcFig8, Plots: plots("fig8", "staleness"),
			Claims: []Claim{
				{Text: "periods whose lag estimate is not below the probe's staleness", PaperText: "not smaller than the one seen by the clients", Source: Source{360, "not smaller than the one seen by the clients"}, Kind: Approx, Paper: 100, Tol: 10, Abs: true, Unit: "%", Measure: func(o Outputs) (Estimate, error) { return perRun(o, "fig8", dec, lagCovers) }},
			}},
		{Paper: p, ID: "fig9", Caption: "S-probe staleness against the bound of 10 s, read-write TPC-C, 60 clients", Source: Source{363, "Figure 9: Data staleness measured by S workload versus the max data staleness"},
			Status: Scaled, Note: "three 300 s runs (one of 60 s quick), 20 warehouses; n3's replication paused for the bound + 5 s a third into each run, so the bound is approached (without it the lag stays under 1 s here)", Experiment: dcFig9, Plots: plots("fig9", "staleness"),
			Claims: []Claim{
				{Text: "S-probe reads past the 10 s bound", PaperText: "all green circles are below their data staleness limit", Source: Source{355, "all green circles are below their data staleness limit"}, Kind: AtMost, Paper: 0, Unit: "reads", Measure: nearBound("fig9", summary("fig9", dec, func(s results.Summary) float64 { return float64(s.BoundViolations) }))},
			}},
		{Paper: p, ID: "fig10", Caption: "S-probe staleness with a 3 s bound, read-write TPC-C, 200 clients", Source: Source{372, "Figure 10: Data staleness measured by S workload in Decongestant with the data staleness limit set to be 3 seconds"},
			Status: Scaled, Note: "three 300 s runs (one of 60 s quick), 20 warehouses; n3's replication paused for the bound + 5 s a third into each run, so the bound is approached", Experiment: dcFig9, Plots: plots("fig10", "staleness"),
			Claims: []Claim{
				{Text: "largest S-probe staleness", PaperText: "two data points have staleness value 4 seconds", Source: Source{377, "two data points have staleness value 4 seconds"}, Kind: AtMost, Paper: 4000, Unit: "ms", Measure: nearBound("fig10", summary("fig10", dec, func(s results.Summary) float64 { return s.StalenessMaxMS }))},
			}},
		{Paper: p, ID: "fig11", Caption: "Stock-Level throughput with and without the S probe (primary)", Source: Source{375, "Figure 11: Throughput of Stock Level transactions when running the read-write TPC-C workload"},
			Status: Runs, Note: "runs without and with the probe alternate, three of each (one quick)", Experiment: dcFig11, Plots: append(plots("fig11-off-1", "read_tput"), plots("fig11-on-1", "read_tput")...),
			Claims: []Claim{
				{Text: "Stock-Level throughput with the probe over without", PaperText: "remains at a similar level", Source: Source{381, "remains at a similar level when running with or without the S workload"}, Kind: Similar, Ref: 1, Tol: 0.05, Unit: "×", Measure: ratioOf(fig11Tput(true), fig11Tput(false))},
			}},
	}
}
