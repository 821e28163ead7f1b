package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	reconfigs "github.com/decongestant/decongestant/reconfig"
	"github.com/decongestant/decongestant/results"
)

// Outputs are the files an experiment's steps wrote, by Step.Output name.
type Outputs interface {
	Results(name string) (*results.Results, error)
	Matrix(name string) (*results.Matrix, error)
	// JSON decodes any other output into v.
	JSON(name string, v any) error
}

// estimate is the mean of vs with the half-width of its 95 % confidence
// interval, Student's t with n-1 degrees of freedom over the sample's
// standard deviation; NaNs are skipped. One value has no interval (Spread
// 0): Judge calls anything under MinRepeats inconclusive.
func estimate(vs []float64) Estimate {
	var xs []float64
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return Estimate{V: math.NaN()}
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	e := Estimate{V: mean, N: len(xs)}
	if e.N > 1 {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(e.N - 1)}.Quantile(0.975)
		e.Spread = t * sd / math.Sqrt(float64(e.N))
	}
	return e
}

// ratio is a/b, its interval's relative half-width the two relative
// half-widths added in quadrature (first order, the two independent).
func ratio(a, b Estimate) Estimate {
	if !a.Measured() || !b.Measured() || b.V == 0 {
		return Estimate{V: math.NaN()}
	}
	v := a.V / b.V
	s := math.Abs(v) * math.Hypot(a.Spread/math.Abs(a.V), b.Spread/math.Abs(b.V))
	if a.V == 0 {
		s = a.Spread / math.Abs(b.V)
	}
	return Estimate{V: v, Spread: s, N: min(a.N, b.N), NotExercised: firstOf(a.NotExercised, b.NotExercised)}
}

// diff is a-b, its half-width the two added in quadrature.
func diff(a, b Estimate) Estimate {
	if !a.Measured() || !b.Measured() {
		return Estimate{V: math.NaN()}
	}
	return Estimate{V: a.V - b.V, Spread: math.Hypot(a.Spread, b.Spread), N: min(a.N, b.N),
		NotExercised: firstOf(a.NotExercised, b.NotExercised)}
}

// firstOf is the first non-empty string.
func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sel chooses runs of a results file.
type sel struct {
	policy  string // exact policy name; "" any
	hints   int    // 0 any, 1 without hints, 2 with
	clients int    // 0 any
	// paperClients selects the runs of the paper's client count as the
	// run scaled it (scaling.json); 0 any.
	paperClients int
	variant      string // the hints variant the run had ("hints:apply=0.1"); "" any
}

func (s sel) match(r *results.Run) bool {
	base, withHints := r.Policy, false
	if i := strings.Index(r.Policy, "+hints"); i >= 0 {
		base, withHints = r.Policy[:i], true
	}
	switch {
	case s.policy != "" && base != s.policy,
		s.hints == 1 && withHints, s.hints == 2 && !withHints,
		s.clients != 0 && r.Clients != s.clients,
		s.variant != "" && !strings.HasSuffix(r.Policy, "+"+s.variant):
		return false
	}
	return true
}

// perRun measures f on every run s selects in the named results.
func perRun(o Outputs, name string, s sel, f func(*results.Results, *results.Run) float64) (Estimate, error) {
	if s.paperClients != 0 {
		c, err := scaledClients(o, s.paperClients)
		if err != nil {
			return Estimate{}, err
		}
		s.clients = c
	}
	r, err := o.Results(name)
	if err != nil {
		return Estimate{}, err
	}
	var vs []float64
	for i := range r.Runs {
		if s.match(&r.Runs[i]) {
			vs = append(vs, f(r, &r.Runs[i]))
		}
	}
	if len(vs) == 0 {
		return Estimate{}, fmt.Errorf("%s: no run of %s", name, s)
	}
	return estimate(vs), nil
}

func (s sel) String() string {
	var parts []string
	if s.policy != "" {
		parts = append(parts, "policy "+s.policy)
	}
	switch s.hints {
	case 1:
		parts = append(parts, "hints off")
	case 2:
		parts = append(parts, "hints on")
	}
	if s.clients != 0 {
		parts = append(parts, fmt.Sprintf("%d clients", s.clients))
	}
	if len(parts) == 0 {
		return "any policy"
	}
	return strings.Join(parts, ", ")
}

// summary measures one Summary field.
func summary(name string, s sel, f func(results.Summary) float64) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		return perRun(o, name, s, func(_ *results.Results, r *results.Run) float64 { return f(r.Summary) })
	}
}

// window is the mean of f over the periods of run ending in (from, to]
// seconds from its start (to <= 0: to the end), skipping the periods where
// f is NaN (nothing to measure).
func window(r *results.Run, from, to float64, f func(results.Period) float64) float64 {
	sum, n := 0.0, 0
	for _, p := range r.Periods {
		if p.TS > from && (to <= 0 || p.TS <= to) {
			if v := f(p); !math.IsNaN(v) {
				sum += v
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// inWindow measures the mean of f over a window of each selected run.
func inWindow(name string, s sel, from, to float64, f func(results.Period) float64) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		return perRun(o, name, s, func(_ *results.Results, r *results.Run) float64 { return window(r, from, to, f) })
	}
}

// ratioOf and diffOf combine two measures.
func ratioOf(a, b func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
	return combine(a, b, ratio)
}

func diffOf(a, b func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
	return combine(a, b, diff)
}

func combine(a, b func(Outputs) (Estimate, error), op func(a, b Estimate) Estimate) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		ea, err := a(o)
		if err != nil {
			return Estimate{}, err
		}
		eb, err := b(o)
		if err != nil {
			return Estimate{}, err
		}
		return op(ea, eb), nil
	}
}

// Period fields.
func readTput(p results.Period) float64     { return p.ReadTput }
func secondaryPct(p results.Period) float64 { return p.SecondaryPct }

// primaryCPU is the primary's CPU in the period, % of one core (NaN when
// not measured).
func primaryCPU(p results.Period) float64 {
	for _, m := range p.Members {
		if m.Role == "primary" && m.CPUPct != nil {
			return *m.CPUPct
		}
	}
	return math.NaN()
}

// tpmC is a TPC-C run's New-Order transactions per minute.
func tpmC(_ *results.Results, r *results.Run) float64 {
	t, ok := r.Extra["tpcc"].(map[string]any)
	if !ok {
		return math.NaN()
	}
	v, ok := t["tpmC"].(float64)
	if !ok {
		return math.NaN()
	}
	return v
}

// reconfig measures the first reconfiguration of each selected run.
func reconfig(name string, s sel, f func(results.Reconfiguration) float64) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		return perRun(o, name, s, func(_ *results.Results, r *results.Run) float64 {
			if len(r.Summary.Reconfigurations) == 0 {
				return math.NaN()
			}
			return f(r.Summary.Reconfigurations[0])
		})
	}
}

// placeboOffsets are how long before a run's move recoveryPlacebo
// pretends one happened: each with reconfig.PreS before it to compare with
// and 60 s or more to recover in before the real move.
var placeboOffsets = []float64{80, 70, 60}

// recoveryPlacebo is the recovery time (reconfig.Measure's) a run shows
// where nothing moved: its mean over placeboOffsets before the run's first
// reconfiguration, on the periods before that move only. A pretended move
// the run never recovers from before the real one counts the whole time
// to it. NaN when the run has no move or too little before it.
func recoveryPlacebo(r *results.Run) float64 {
	rcs := r.Summary.Reconfigurations
	if len(rcs) == 0 {
		return math.NaN()
	}
	at := rcs[0].AtS
	n := 0
	for n < len(r.Periods) && r.Periods[n].TS <= at {
		n++
	}
	var vs []float64
	for _, off := range placeboOffsets {
		t := at - off
		if t < reconfigs.PreS {
			continue
		}
		m, ok := reconfigs.Measure(r.Periods[:n], reconfigs.Time{AtS: t})
		switch {
		case !ok:
		case m.RecoveryS != nil:
			vs = append(vs, *m.RecoveryS)
		default:
			vs = append(vs, off)
		}
	}
	if len(vs) == 0 {
		return math.NaN()
	}
	return stat.Mean(vs, nil)
}

// recoveryDiff is the recovery time after the move (hints off) of the
// runs in output last minus those in first, with the placebo's noise
// floor as its interval's half-width when that is wider: the recovery time
// the same runs show where nothing moved (recoveryPlacebo), as drop does.
func recoveryDiff(first, last string) func(Outputs) (Estimate, error) {
	off := sel{hints: 1}
	recovery := func(name string) func(Outputs) (Estimate, error) {
		return reconfig(name, off, func(rc results.Reconfiguration) float64 { return orNaN(rc.RecoveryS) })
	}
	return func(o Outputs) (Estimate, error) {
		e, err := diffOf(recovery(last), recovery(first))(o)
		if err != nil || !e.Measured() {
			return e, err
		}
		var placebos []float64
		for _, name := range []string{first, last} {
			if _, err := perRun(o, name, off, func(_ *results.Results, r *results.Run) float64 {
				v := recoveryPlacebo(r)
				placebos = append(placebos, v)
				return v
			}); err != nil {
				return Estimate{}, err
			}
		}
		if p := estimate(placebos); p.Measured() {
			finite := slices.DeleteFunc(placebos, math.IsNaN)
			e.Spread = max(e.Spread, p.V)
			e.Note = fmt.Sprintf("placebo: the same recovery time taken %s s before the move, where nothing moved, is "+
				"%s s (mean of %d runs, %s to %s s a run); the interval is at least that wide", placeboWhen(), fmtNum(p.V), p.N,
				fmtNum(slices.Min(finite)), fmtNum(slices.Max(finite)))
		}
		return e, nil
	}
}

// placeboWhen names placeboOffsets ("80, 70 and 60").
func placeboWhen() string {
	var parts []string
	for _, o := range placeboOffsets {
		parts = append(parts, strconv.FormatFloat(o, 'f', -1, 64))
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// dropWindow is the longest window, before and after a reconfiguration,
// that drop compares (s).
const dropWindow = 30.0

// drop measures how far the read throughput fell at the i-th
// reconfiguration of each selected run (dropAt), with the noise floor of
// that statistic as its interval's half-width when that is wider: the same
// "lowest period against the mean" taken before the reconfiguration, where
// nothing changed (a placebo), over as many periods.
func drop(name string, s sel, i int) func(Outputs) (Estimate, error) {
	return dropMeasure(name, s, i, false)
}

// dropAfterGap is drop with the gap a stepdown's election leaves cut out:
// the window after starts at the first period back at half the level
// before. It measures what a new primary's caches cost, not that a set
// without a primary serves nothing for seconds.
func dropAfterGap(name string, s sel, i int) func(Outputs) (Estimate, error) {
	return dropMeasure(name, s, i, true)
}

func dropMeasure(name string, s sel, i int, skipGap bool) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		var placebos []float64
		e, err := perRun(o, name, s, func(_ *results.Results, r *results.Run) float64 {
			rcs := r.Summary.Reconfigurations
			if len(rcs) <= i {
				return math.NaN()
			}
			at, w := rcs[i].AtS, moveWindow(rcs, i)
			from := at
			if skipGap {
				from = gapEnd(r.Periods, at, w)
			}
			d, placebo := dropAt(r.Periods, at, from, w)
			placebos = append(placebos, placebo)
			return d
		})
		if err != nil || !e.Measured() {
			return e, err
		}
		if p := estimate(placebos); p.Measured() {
			e.Spread = max(e.Spread, p.V)
			e.Note = fmt.Sprintf("placebo: the same statistic over the periods before the move, where nothing moved, "+
				"is a drop of %s %% (mean of %d runs); the interval is at least that wide", fmtNum(p.V), p.N)
		}
		return e, nil
	}
}

// moveWindow is the window drop uses at the i-th reconfiguration: 30 s,
// or half the time to the nearest other reconfiguration when that is
// shorter, so that two moves' windows never overlap.
func moveWindow(rcs []results.Reconfiguration, i int) float64 {
	w := dropWindow
	for j, rc := range rcs {
		if j != i {
			w = min(w, math.Abs(rc.AtS-rcs[i].AtS)/2)
		}
	}
	return w
}

// dropAt is how far the read throughput fell at a reconfiguration at: 100
// minus the lowest period ending in the w seconds after from (at, or the
// end of an election's gap), as % of the mean of the periods ending in the
// w seconds before at; and the placebo, the same with the lowest period
// taken before, where nothing happened. Both take the lowest of the same
// number of periods (the bench summary's dip takes it over 60 s after
// against 30 s before, which deepens a drop by chance alone).
func dropAt(periods []results.Period, at, from, w float64) (drop, placebo float64) {
	var before, after []float64
	for _, p := range periods {
		switch {
		case p.TS > at-w && p.TS <= at:
			before = append(before, p.ReadTput)
		case p.TS > from && p.TS <= from+w:
			after = append(after, p.ReadTput)
		}
	}
	n := min(len(before), len(after))
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	before, after = before[len(before)-n:], after[:n]
	var sum float64
	for _, v := range before {
		sum += v
	}
	mean := sum / float64(n)
	if mean <= 0 {
		return math.NaN(), math.NaN()
	}
	return max(0, 100-100*slices.Min(after)/mean), max(0, 100-100*slices.Min(before)/mean)
}

// gapEnd is the end of the first period after at whose read throughput is
// back at half the mean of the w seconds before at (at itself when none
// is, or nothing came before).
func gapEnd(periods []results.Period, at, w float64) float64 {
	var sum float64
	n := 0
	for _, p := range periods {
		if p.TS > at-w && p.TS <= at {
			sum += p.ReadTput
			n++
		}
	}
	if n == 0 {
		return at
	}
	for i, p := range periods {
		if p.TS > at && p.ReadTput >= sum/float64(n)/2 {
			return periods[i-1].TS // the window after begins with this period (i > 0: one ends at or before at)
		}
	}
	return at
}

// servingMiss is the worst cache miss rate of the member that took the
// reads after a reconfiguration.
func servingMiss(rc results.Reconfiguration) float64 {
	if rc.ServingMaxCacheMissPct == nil {
		return math.NaN()
	}
	return *rc.ServingMaxCacheMissPct
}

// ptr helpers.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// sweepAt measures a Summary field at a sweep's largest (most) or smallest
// client count, read from its results.
func sweepAt(name string, s sel, most bool, f func(results.Summary) float64) func(Outputs) (Estimate, error) {
	return sweepPerRun(name, s, most, func(_ *results.Results, r *results.Run) float64 { return f(r.Summary) })
}

// sweepPerRun measures f on the runs s selects at a sweep's largest (most)
// or smallest client count.
func sweepPerRun(name string, s sel, most bool, f func(*results.Results, *results.Run) float64) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		r, err := o.Results(name)
		if err != nil {
			return Estimate{}, err
		}
		if len(r.Config.ClientsSweep) == 0 {
			return Estimate{}, fmt.Errorf("%s: not a client sweep", name)
		}
		c := r.Config.ClientsSweep[0]
		for _, n := range r.Config.ClientsSweep {
			if most == (n > c) {
				c = n
			}
		}
		s.clients = c
		return perRun(o, name, s, f)
	}
}

func sweepMax(name string, s sel, f func(results.Summary) float64) func(Outputs) (Estimate, error) {
	return sweepAt(name, s, true, f)
}

func sweepMin(name string, s sel, f func(results.Summary) float64) func(Outputs) (Estimate, error) {
	return sweepAt(name, s, false, f)
}

// unsaturated marks a measure at a sweep's fewest clients not exercised
// when the primary was already saturated there: its read throughput at the
// fewest clients is at least 90 % of that at the most, in the same sweep.
// The papers' "few clients" regimes are relative to their machines (a
// primary with room to spare); where the fewest clients already saturate
// this set's primary, a claim about that regime describes another one.
func unsaturated(name string, m func(Outputs) (Estimate, error)) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		e, err := m(o)
		if err != nil || !e.Measured() {
			return e, err
		}
		pri := sel{policy: "primary"}
		lo, err1 := sweepMin(name, pri, sumTput)(o)
		hi, err2 := sweepMax(name, pri, sumTput)(o)
		if err1 != nil || err2 != nil || !lo.Measured() || !hi.Measured() || hi.V <= 0 {
			e.NotExercised = firstOf(e.NotExercised, name+": no primary runs at both ends of the sweep to tell whether the fewest clients left the primary room")
			return e, nil
		}
		if r, err := o.Results(name); err == nil && lo.V >= 0.9*hi.V && e.NotExercised == "" {
			few := slices.Min(r.Config.ClientsSweep)
			e.NotExercised = fmt.Sprintf("the primary was already saturated at %d clients (%.0f reads/s, %.0f %% of its %.0f at %d): "+
				"the paper's few-clients regime did not occur on this set", few, lo.V, 100*lo.V/hi.V, hi.V, slices.Max(r.Config.ClientsSweep))
		}
		return e, nil
	}
}

// withRoom judges m only when the primary had room in a light window
// against a busy one: under `primary` its CPU in the light window (light)
// below 90 % of the busy window's (busy). Else m's estimate is not
// exercised, saying why: unmeasured when either CPU figure is missing,
// same(light, busy) when the light window was as busy.
func withRoom(m, light, busy func(Outputs) (Estimate, error), unmeasured string, same func(light, busy float64) string) func(Outputs) (Estimate, error) {
	return func(o Outputs) (Estimate, error) {
		e, err := m(o)
		if err != nil || !e.Measured() {
			return e, err
		}
		l, err1 := light(o)
		b, err2 := busy(o)
		switch {
		case err1 != nil || err2 != nil || !l.Measured() || !b.Measured() || b.V <= 0:
			e.NotExercised = firstOf(e.NotExercised, unmeasured)
		case l.V >= 0.9*b.V:
			e.NotExercised = firstOf(e.NotExercised, same(l.V, b.V))
		}
		return e, nil
	}
}

// Summary fields.
func sumTput(s results.Summary) float64  { return s.ReadTput }
func sumP80(s results.Summary) float64   { return s.ReadP80MS }
func sumShare(s results.Summary) float64 { return s.SecondaryPct }
func sumStale(s results.Summary) float64 { return s.StalenessP80MS }
