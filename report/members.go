package report

// Per-member routing: which replica-set member served a run's routed reads,
// period by period (results.Period.Members), beside what the policy intended
// (the members' weights, for policies that route per member). This file
// gathers the numbers; members_palette.go colours the members,
// members_table.go formats the table's cells, members_plots.go,
// members_html.go and members_text.go draw and print them.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/decongestant/decongestant/results"
)

// memberKey names a member across the report: its name in a cluster
// decongestant started (n1, n2...), else its host.
func memberKey(m results.Member) string {
	if m.Name != "" {
		return m.Name
	}
	return m.Host
}

// runHasMembers reports whether some period of run records its members
// (results written before per-member routing have none).
func runHasMembers(run *results.Run) bool {
	for _, p := range run.Periods {
		if len(p.Members) > 0 {
			return true
		}
	}
	return false
}

// memberOf returns the member key of period p.
func memberOf(p results.Period, key string) (results.Member, bool) {
	for _, m := range p.Members {
		if memberKey(m) == key {
			return m, true
		}
	}
	return results.Member{}, false
}

// sharePct is the share in % of period p's routed reads that member key
// served; NaN (a gap) when it is not listed or no member served a read.
func sharePct(p results.Period, key string) float64 {
	m, ok := memberOf(p, key)
	total := servedBy(p, "")
	if !ok || total == 0 {
		return math.NaN()
	}
	return float64(m.Served) * 100 / float64(total)
}

// weightPct is member key's weight in force at the end of period p, in %;
// NaN when it is not listed or its policy gives no weights.
func weightPct(p results.Period, key string) float64 {
	m, ok := memberOf(p, key)
	if !ok || m.Weight == nil {
		return math.NaN()
	}
	return *m.Weight * 100
}

// servedBy counts the reads period p's members of role served (every
// member's when role is "").
func servedBy(p results.Period, role string) int64 {
	var n int64
	for _, m := range p.Members {
		if role == "" || m.Role == role {
			n += m.Served
		}
	}
	return n
}

// idleSecondary reports whether m was a secondary that served no read in
// period p while the other secondaries served some: a secondary the driver
// dropped, or one the policy excluded.
func idleSecondary(p results.Period, m results.Member) bool {
	return m.Role == "secondary" && m.Served == 0 && servedBy(p, "secondary") > 0
}

// measuredPeriods are the periods of run that start at or after the
// warm-up, as the run summaries count them (a period starts where the
// previous one ended, the first at 0).
func measuredPeriods(run *results.Run, warmupS float64) []results.Period {
	if !(warmupS > 0) {
		warmupS = 0
	}
	var out []results.Period
	start := 0.0
	for _, p := range run.Periods {
		if start >= warmupS {
			out = append(out, p)
		}
		start = p.TS
	}
	return out
}

// periodLengths are the lengths in seconds of ps, periods of run: each
// from the end of the period before it in run (0 for the first).
func periodLengths(run *results.Run, ps []results.Period) []float64 {
	starts := make(map[float64]float64, len(run.Periods))
	prev := 0.0
	for _, p := range run.Periods {
		starts[p.TS] = prev
		prev = p.TS
	}
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.TS - starts[p.TS]
	}
	return out
}

// memberKeys are the members run's periods list, in natural order (n2
// before n10).
func memberKeys(run *results.Run) []string {
	seen := map[string]bool{}
	var keys []string
	for _, p := range run.Periods {
		for _, m := range p.Members {
			if k := memberKey(m); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
	return keys
}

// memberRoles are the roles member key had at the ends of run's periods,
// in order, a repeated role once: [primary secondary] after a stepdown.
func memberRoles(run *results.Run, key string) []string {
	var roles []string
	for _, p := range run.Periods {
		if m, ok := memberOf(p, key); ok && (len(roles) == 0 || roles[len(roles)-1] != m.Role) {
			roles = append(roles, m.Role)
		}
	}
	return roles
}

// memberLabel labels a member in legends: its key, with its roles when
// they changed during the run ("n1 (primary→secondary)").
func memberLabel(key string, roles []string) string {
	if len(roles) < 2 {
		return key
	}
	return key + " (" + strings.Join(roles, "→") + ")"
}

// mean accumulates a mean; NaN without values.
type mean struct {
	sum float64
	n   int
}

func (m *mean) add(v float64) { m.sum, m.n = m.sum+v, m.n+1 }

func (m mean) value() float64 {
	if m.n == 0 {
		return math.NaN()
	}
	return m.sum / float64(m.n)
}

// memberRow is one member of a run over its measured periods: the table's
// row. Latencies are means of the per-period values over the periods the
// member served reads in (a period without reads has no latency).
type memberRow struct {
	key, host string
	roles     []string
	served    int64
	sharePct  float64 // of the reads every member served; NaN when none did
	maxLagMS  float64 // NaN when never known
	weightPct mean

	clientP50, clientP80, wireP50, serverMS mean

	// secondary counts the measured periods it ended as a secondary; idle
	// those in which it served no read while other secondaries did, and
	// idleWeight0 those of them in which the policy gave it no weight.
	secondary, idle, idleWeight0 int

	// The member's own counters (members_server.go).
	server serverSums
}

// newMemberRow sums member key over the measured periods ps, whose
// lengths in seconds are lengths; total is the reads all members served in
// them.
func newMemberRow(run *results.Run, key string, ps []results.Period, lengths []float64, total int64) memberRow {
	r := memberRow{key: key, roles: memberRoles(run, key), maxLagMS: math.NaN(), sharePct: math.NaN(),
		server: serverSums{rssMax: math.NaN()}}
	for i, p := range ps {
		if m, ok := memberOf(p, key); ok {
			r.addPeriod(p, m)
			r.server.add(m, lengths[i])
		}
	}
	if total > 0 {
		r.sharePct = float64(r.served) * 100 / float64(total)
	}
	return r
}

// addPeriod adds member m's numbers of period p.
func (r *memberRow) addPeriod(p results.Period, m results.Member) {
	r.host = m.Host
	r.served += m.Served
	if m.Served > 0 {
		r.clientP50.add(m.ClientP50MS)
		r.clientP80.add(m.ClientP80MS)
		r.wireP50.add(m.WireP50MS)
		r.serverMS.add(m.ServerMS)
	}
	if m.LagMS != nil && (math.IsNaN(r.maxLagMS) || *m.LagMS > r.maxLagMS) {
		r.maxLagMS = *m.LagMS
	}
	if m.Weight != nil {
		r.weightPct.add(*m.Weight * 100)
	}
	if m.Role == "secondary" {
		r.secondary++
	}
	if idleSecondary(p, m) {
		r.idle++
		if m.Weight != nil && *m.Weight == 0 {
			r.idleWeight0++
		}
	}
}

// memberRun is the per-member view of one run.
type memberRun struct {
	run  *results.Run
	name string // the policy, with the repetition when the policy has several
	keys []string
	rows []memberRow // parallel to keys
	// weights says whether the policy gave members weights, server
	// whether some member has server counters (bench --member-stats),
	// written whether some member has the bytes it wrote out of its cache
	// (runs recorded before that was measured do not).
	weights, server, written bool
	measured                 int // periods after the warm-up
}

// memberRuns are the runs of x that record their members, ordered as the
// comparison (policy in order of first appearance, then repetition).
func memberRuns(x Input) []memberRun {
	var out []memberRun
	for _, g := range groupRuns(x.Results) {
		for _, run := range g.runs {
			if !runHasMembers(run) {
				continue
			}
			name := run.Policy
			if len(g.runs) > 1 {
				name = fmt.Sprintf("%s, repetition %d", run.Policy, run.Repetition)
			}
			out = append(out, newMemberRun(run, name, x.Results.Config.WarmupS))
		}
	}
	return out
}

func newMemberRun(run *results.Run, name string, warmupS float64) memberRun {
	ps := measuredPeriods(run, warmupS)
	lengths := periodLengths(run, ps)
	var total int64
	for _, p := range ps {
		total += servedBy(p, "")
	}
	mr := memberRun{run: run, name: name, keys: memberKeys(run), measured: len(ps)}
	for _, k := range mr.keys {
		mr.rows = append(mr.rows, newMemberRow(run, k, ps, lengths, total))
	}
	for _, p := range run.Periods {
		for _, m := range p.Members {
			mr.weights = mr.weights || m.Weight != nil
			mr.server = mr.server || hasServer(m)
			mr.written = mr.written || m.CacheWrittenMB != nil
		}
	}
	return mr
}

// hasNotes reports whether some member has an idle note.
func (mr memberRun) hasNotes() bool {
	for _, r := range mr.rows {
		if idleNote(r) != "" {
			return true
		}
	}
	return false
}

// label is member i's legend label.
func (mr memberRun) label(i int) string { return memberLabel(mr.keys[i], mr.rows[i].roles) }

// hasMembers reports whether some run of some input records its members.
func hasMembers(in []Input) bool {
	for _, x := range in {
		for i := range x.Results.Runs {
			if runHasMembers(&x.Results.Runs[i]) {
				return true
			}
		}
	}
	return false
}
