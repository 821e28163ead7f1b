package reproduce

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/decongestant/decongestant/results"
)

// fakeOutputs serves results from memory.
type fakeOutputs map[string]*results.Results

func (f fakeOutputs) Results(name string) (*results.Results, error) {
	if r, ok := f[name]; ok {
		return r, nil
	}
	return nil, errors.New("no " + name)
}
func (f fakeOutputs) Matrix(string) (*results.Matrix, error) { return nil, errors.New("no matrix") }
func (f fakeOutputs) JSON(string, any) error                 { return errors.New("no json") }

// periods builds a run's periods every 2 s to end, from f(t).
func periods(end float64, f func(t float64) results.Period) []results.Period {
	var out []results.Period
	for t := 2.0; t <= end; t += 2 {
		p := f(t)
		p.TS = t
		out = append(out, p)
	}
	return out
}

func claimOf(t *testing.T, paper, fig, text string) (Claim, *Figure) {
	t.Helper()
	f, err := Find(paper, fig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Claims {
		if c.Text == text {
			return c, f
		}
	}
	t.Fatalf("%s %s has no claim %q", paper, fig, text)
	return Claim{}, nil
}

// TestFig2Phases: the share and throughput are taken in the second half
// of each phase, from the run's own switch time, and judged.
func TestFig2Phases(t *testing.T) {
	run := func(policy string, shareA, shareB, tputB float64) results.Run {
		return results.Run{Policy: policy, Periods: periods(80, func(ts float64) results.Period {
			switch {
			case ts <= 20: // warming up: not in the window
				return results.Period{SecondaryPct: 0, ReadTput: 1}
			case ts <= 40:
				return results.Period{SecondaryPct: shareA, ReadTput: 100}
			case ts <= 60:
				return results.Period{SecondaryPct: 0, ReadTput: 1}
			}
			return results.Period{SecondaryPct: shareB, ReadTput: tputB}
		})}
	}
	r := &results.Results{Config: results.Config{Phases: []results.PhaseSpec{{AtS: 40, Workload: "b"}}},
		Runs: []results.Run{run("primary", 0, 0, 1000), run("secondary", 100, 100, 1500), run("decongestant", 88, 71, 1800)}}
	o := fakeOutputs{"fig2": r}
	rows := Evaluate(mustFind(t, "decongestant", "fig2"), o)
	want := []string{Agrees, Agrees, Agrees, Agrees}
	for i, row := range rows {
		if row.Verdict != want[i] {
			t.Errorf("%s: %s (ours %s), want %s", row.Claim, row.Verdict, row.Ours, want[i])
		}
	}
	if e := rows[0].Estimate; e == nil || e.V != 88 {
		t.Errorf("share under A = %v, want 88 (the warm-up before 20 s excluded)", rows[0].Estimate)
	}
	// The secondary faster than decongestant in B: the claim disagrees.
	r.Runs[1] = run("secondary", 100, 100, 2500)
	if rows := Evaluate(mustFind(t, "decongestant", "fig2"), o); rows[3].Verdict != Disagrees {
		t.Errorf("decongestant slower than secondary: %s, want disagrees", rows[3].Verdict)
	}
}

func mustFind(t *testing.T, paper, fig string) *Figure {
	t.Helper()
	f, err := Find(paper, fig)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSweepAtTheMostClients: sweep claims read the largest client count,
// with the spread over repetitions.
func TestSweepAtTheMostClients(t *testing.T) {
	var runs []results.Run
	add := func(policy string, clients int, tputs ...float64) {
		for _, v := range tputs {
			runs = append(runs, results.Run{Policy: policy, Clients: clients, Summary: results.Summary{ReadTput: v, SecondaryPct: 70}})
		}
	}
	add("primary", 20, 900, 900)
	add("primary", 180, 1000, 1000)
	add("secondary", 180, 2000, 2000)
	add("decongestant", 20, 100, 100) // the fewest clients: must not count
	add("decongestant", 180, 2500, 2700)
	o := fakeOutputs{"fig5": {Config: results.Config{ClientsSweep: []int{20, 100, 180}}, Runs: runs}}
	c, _ := claimOf(t, "decongestant", "fig5", "read throughput at the most clients, decongestant over primary")
	e, err := c.Measure(o)
	if err != nil || math.Abs(e.V-2.6) > 1e-9 || math.Abs(e.Spread-0.1) > 1e-9 {
		t.Fatalf("decongestant/primary at 180 = %+v, %v; want 2.6 ± 0.1", e, err)
	}
	if v := Judge(c, e); v != Agrees {
		t.Errorf("2.6 against the paper's 2.5: %s", v)
	}
	c, _ = claimOf(t, "decongestant", "fig5", "read throughput at the most clients, decongestant over secondary")
	e, _ = c.Measure(o)
	if v := Judge(c, e); v != Agrees { // 1.3 ± 0.05 against 1.3
		t.Errorf("1.3 against the paper's 1.3: %s (%v)", v, e)
	}
}

// TestFig11AlternatedRuns: the probe's cost is over all rounds' files.
func TestFig11AlternatedRuns(t *testing.T) {
	file := func(tput float64) *results.Results {
		return &results.Results{Runs: []results.Run{{Policy: "primary", Summary: results.Summary{ReadTput: tput}}}}
	}
	o := fakeOutputs{"fig11-off-1": file(100), "fig11-on-1": file(90), "fig11-off-2": file(100), "fig11-on-2": file(92)}
	c, _ := claimOf(t, "decongestant", "fig11", "Stock-Level throughput with the probe over without")
	e, err := c.Measure(o)
	if err != nil || math.Abs(e.V-0.91) > 1e-9 || e.N != 2 {
		t.Fatalf("on/off = %+v, %v; want 0.91 over 2 rounds", e, err)
	}
	if v := Judge(c, e); v != Disagrees {
		t.Errorf("a 9%% cost judged %s, want disagrees with 'similar'", v)
	}
}

// TestReadHintsMeasures: the reconfiguration drop and the new member's
// miss rate come from the runs with and without hints.
func TestReadHintsMeasures(t *testing.T) {
	rc := func(dip, miss float64) results.Summary {
		return results.Summary{Reconfigurations: []results.Reconfiguration{{AtS: 40, DipPct: &dip, ServingMaxCacheMissPct: &miss}}}
	}
	o := fakeOutputs{"rh-uniform": {Runs: []results.Run{
		{Policy: "weights:primary=1", Summary: rc(60, 85)},
		{Policy: "weights:primary=1+hints", Summary: rc(98, 5)},
	}}}
	for _, tt := range []struct {
		fig, claim string
		v          float64
		verdict    string
	}{
		{"fig7", "throughput drop at the move, hints off", 40, Agrees},
		{"fig7", "throughput drop at the move, hints on", 2, Agrees},
		{"fig8", "new member's worst cache miss rate, hints off", 85, Agrees},
		{"fig8", "new member's worst miss rate, hints on over off", 5.0 / 85, Agrees},
	} {
		c, _ := claimOf(t, "read-hints", tt.fig, tt.claim)
		e, err := c.Measure(o)
		if err != nil || math.Abs(e.V-tt.v) > 1e-9 {
			t.Errorf("%s %s = %+v, %v; want %v", tt.fig, tt.claim, e, err, tt.v)
			continue
		}
		if v := Judge(c, e); v != tt.verdict {
			t.Errorf("%s %s: %s, want %s", tt.fig, tt.claim, v, tt.verdict)
		}
	}
}

// TestQ1Slowdown: Q1's P50 in the 10 s after the move over the 10 s before,
// per run.
func TestQ1Slowdown(t *testing.T) {
	run := func(policy string, before, after float64) results.Run {
		return results.Run{Policy: policy, Summary: results.Summary{Reconfigurations: []results.Reconfiguration{{AtS: 30}}},
			Periods: periods(60, func(ts float64) results.Period {
				switch {
				case ts <= 20:
					return results.Period{ReadOps: 1, ReadP50MS: 10 * before} // older: outside the window
				case ts <= 30:
					return results.Period{ReadOps: 1, ReadP50MS: before}
				case ts <= 40:
					return results.Period{ReadOps: 1, ReadP50MS: after}
				}
				return results.Period{} // no Q1 finished: skipped
			})}
	}
	o := fakeOutputs{"rh-tpch": {Runs: []results.Run{run("weights:primary=1", 1000, 5000), run("weights:primary=1+hints", 1000, 1100)}}}
	c, _ := claimOf(t, "read-hints", "fig17", "Q1 time after the move over before, hints off")
	if e, err := c.Measure(o); err != nil || math.Abs(e.V-5) > 1e-9 || Judge(c, e) != Agrees {
		t.Errorf("hints off slowdown = %+v, %v; want 5, agreeing with 5.25", e, err)
	}
	c, _ = claimOf(t, "read-hints", "fig17", "Q1 time after the move over before, hints on")
	if e, err := c.Measure(o); err != nil || math.Abs(e.V-1.1) > 1e-9 || Judge(c, e) != Agrees {
		t.Errorf("hints on slowdown = %+v, %v; want 1.1", e, err)
	}
	c, _ = claimOf(t, "read-hints", "fig17", "Q1 time after the move, hints on over off")
	if e, err := c.Measure(o); err != nil || math.Abs(e.V-0.22) > 1e-9 {
		t.Errorf("on/off after = %+v, %v; want 0.22", e, err)
	}
}

func TestLagCoversAndMixShare(t *testing.T) {
	r := &results.Run{Periods: []results.Period{
		{TS: 2, SProbeSecondaryProbes: 3, MaxLagMS: 100, SProbeStalenessMaxMS: 900},  // within the 1 s granularity
		{TS: 4, SProbeSecondaryProbes: 3, MaxLagMS: 100, SProbeStalenessMaxMS: 2000}, // estimate too low
		{TS: 6, SProbeSecondaryProbes: 0, MaxLagMS: 0, SProbeStalenessMaxMS: 5000},   // no probe: not counted
	}}
	if got := lagCovers(nil, r); got != 50 {
		t.Errorf("lagCovers = %v, want 50", got)
	}
	res := &results.Results{Config: results.Config{WarmupS: 2}, Runs: []results.Run{{Periods: []results.Period{
		{TS: 2, Ops: map[string]int64{"STOCK_LEVEL": 100}}, // warm-up
		{TS: 4, Ops: map[string]int64{"STOCK_LEVEL": 25, "NEW_ORDER": 75}},
	}}}}
	e, err := fig11Share("STOCK_LEVEL")(fakeOutputs{"fig11-off-1": res})
	if err != nil || e.V != 25 || math.Abs(e.Spread-200*math.Sqrt(0.25*0.75/100)) > 1e-9 {
		t.Errorf("Stock-Level share = %+v, %v; want 25 ± 8.66 (warm-up excluded, the noise of 100 draws)", e, err)
	}
}

func TestMissingOutputIsNotMeasured(t *testing.T) {
	rows := Evaluate(mustFind(t, "decongestant", "fig5"), fakeOutputs{})
	for _, r := range rows {
		if r.Verdict != NotMeasured || r.Detail == "" {
			t.Errorf("%s: %s (%s), want not measured with the reason", r.Claim, r.Verdict, r.Detail)
		}
	}
	if Summary(rows) != NotMeasured {
		t.Errorf("summary %s", Summary(rows))
	}
}

// jsonOutputs serves one JSON document under a name.
type jsonOutputs struct {
	fakeOutputs
	name, doc string
}

func (j jsonOutputs) JSON(name string, v any) error {
	if name != j.name {
		return errors.New("no " + name)
	}
	return json.Unmarshal([]byte(j.doc), v)
}

func TestACIDClaims(t *testing.T) {
	o := jsonOutputs{name: "acid", doc: `[
		{"test":"atomicity-1","clause":"3.2.2.1","result":"pass"},
		{"test":"atomicity-2","clause":"3.2.2.2","result":"pass"},
		{"test":"isolation-3","clause":"3.4.2.3","result":"fail"},
		{"test":"isolation-4","clause":"3.4.2.4","result":"pass"},
		{"test":"durability","clause":"3.5.4","result":"skipped"}]`}
	f := mustFind(t, "tpcc", "acid")
	rows := Evaluate(f, o)
	want := []string{Agrees, Disagrees, NotMeasured}
	for i, r := range rows {
		if r.Verdict != want[i] {
			t.Errorf("%s: %s (%s, %s), want %s", r.Claim, r.Verdict, r.Ours, r.Detail, want[i])
		}
	}
}

// TestOneRunCarriesItsPeriodsNoise: with one run per setting, fig. 11's
// throughput gets twice the standard error of its periods as its spread,
// so a difference within the noise is not a disagreement.
func TestOneRunCarriesItsPeriodsNoise(t *testing.T) {
	file := func(vs ...float64) *results.Results {
		var ps []results.Period
		for i, v := range vs {
			ps = append(ps, results.Period{TS: float64(2 * (i + 1)), ReadTput: v})
		}
		mean := 0.0
		for _, v := range vs {
			mean += v
		}
		mean /= float64(len(vs))
		return &results.Results{Runs: []results.Run{{Policy: "primary", Periods: ps, Summary: results.Summary{ReadTput: mean}}}}
	}
	o := fakeOutputs{"fig11-off-1": file(80, 120, 80, 120), "fig11-on-1": file(75, 115, 75, 115)}
	e, err := fig11Tput(false)(o)
	want := 2 * math.Sqrt(4*400.0/3/4) // sd of 80,120,80,120 over 4 periods
	if err != nil || e.V != 100 || math.Abs(e.Spread-want) > 1e-9 {
		t.Fatalf("one run: %+v, %v; want 100 ± %.2f", e, err, want)
	}
	c, _ := claimOf(t, "decongestant", "fig11", "Stock-Level throughput with the probe over without")
	if e, _ := c.Measure(o); Judge(c, e) != Agrees {
		t.Errorf("0.95 within its periods' noise judged %s (%+v)", Judge(c, e), e)
	}
}

// TestDropCarriesThePlacebo: a drop's spread is how deep the lowest period
// went before the move, where nothing changed; a drop within that noise
// does not break a "no drop" claim, and one beyond it does.
func TestDropCarriesThePlacebo(t *testing.T) {
	run := func(policy string, dip float64) results.Run {
		return results.Run{Policy: policy,
			Summary: results.Summary{Reconfigurations: []results.Reconfiguration{{AtS: 40, DipPct: &dip}}},
			Periods: periods(80, func(ts float64) results.Period {
				if ts == 30 {
					return results.Period{ReadTput: 85} // the noise: one low period before the move
				}
				return results.Period{ReadTput: 101}
			})}
	}
	c, _ := claimOf(t, "read-hints", "fig7", "throughput drop at the move, hints on")
	for _, tt := range []struct {
		dip  float64
		want string
	}{{83, Agrees}, {70, Disagrees}} {
		o := fakeOutputs{"rh-uniform": {Runs: []results.Run{run("weights:primary=1+hints", tt.dip)}}}
		e, err := c.Measure(o)
		if err != nil || math.Abs(e.V-(100-tt.dip)) > 1e-9 || math.Abs(e.Spread-15) > 0.1 {
			t.Fatalf("dip %v: %+v, %v; want %v ± 15 (the placebo: 85 against a mean of about 100)", tt.dip, e, err, 100-tt.dip)
		}
		if v := Judge(c, e); v != tt.want {
			t.Errorf("a %v%% drop with a 15%% placebo: %s, want %s", 100-tt.dip, v, tt.want)
		}
	}
}
