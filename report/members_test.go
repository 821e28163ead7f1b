package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/report/chart"
	"github.com/decongestant/decongestant/results"
)

// membersResults builds two runs on members n1 (the primary), n2 and n3,
// 6 periods of 10 s after a 10 s warm-up (so 5 measured periods), 1000
// routed reads a period:
//   - spillway gives weights: 50/25/25 %, and 50/50/0 % in the periods
//     ending at 30 and 40 s, where n3 is stale (lag 2500 ms) and serves
//     nothing;
//   - secondary lets the driver pick: it drops n2 in the periods ending at
//     20 and 30 s, and n1 steps down in the period ending at 50 s (n2
//     becomes primary); n1's lag is unknown at 50 s.
func membersResults() *results.Results {
	bound := 2000.0
	r := &results.Results{Workload: "ycsb", Config: results.Config{
		URI: "mongodb://h1,h2,h3/?replicaSet=rs0", Workload: "ycsb", Mix: "b", Records: 1000, Clients: 64,
		DurationS: 60, PeriodS: 10, WarmupS: 10, Repeat: 1, Policies: []string{"spillway", "secondary"},
		MaxStalenessMS: &bound, StartedAt: "2025-03-01T10:00:00Z",
	}}
	r.Runs = append(r.Runs, membersRun("spillway", spillwayPeriod), membersRun("secondary", secondaryPeriod))
	return r
}

func membersRun(policy string, period func(k int) []results.Member) results.Run {
	run := results.Run{Policy: policy, Summary: results.Summary{ReadTput: 100, ReadOps: 5000, MeasuredS: 50}}
	for k := range 6 {
		run.Periods = append(run.Periods, results.Period{TS: float64(10 * (k + 1)), ReadOps: 1000, ReadTput: 100,
			Clients: 64, Mix: "b", Members: period(k)})
	}
	return run
}

func ptr(v float64) *float64 { return &v }

// member makes a member of period k: latencies grow with k so that means
// differ from any one period's.
func member(name, role string, served int64, k int, lag, weight *float64) results.Member {
	base := map[string]float64{"n1": 8, "n2": 3, "n3": 4}[name] + float64(k)
	m := results.Member{Host: "10.0.0." + name[1:] + ":27017", Name: name, Role: role, Served: served,
		RTTMinMS: 0.2, LagMS: lag, Weight: weight}
	if served > 0 {
		m.ClientP50MS, m.ClientP80MS, m.WireP50MS = base, 1.5*base, base-1
		m.ServerMS = m.WireP50MS - m.RTTMinMS
	}
	return m
}

func spillwayPeriod(k int) []results.Member {
	if stale := k == 2 || k == 3; stale {
		return []results.Member{
			member("n1", "primary", 500, k, ptr(0), ptr(0.5)),
			member("n2", "secondary", 500, k, ptr(15), ptr(0.5)),
			member("n3", "secondary", 0, k, ptr(2500), ptr(0)),
		}
	}
	return []results.Member{
		member("n1", "primary", 500, k, ptr(0), ptr(0.5)),
		member("n2", "secondary", 240+int64(k), k, ptr(15), ptr(0.25)),
		member("n3", "secondary", 260-int64(k), k, ptr(20), ptr(0.25)),
	}
}

func secondaryPeriod(k int) []results.Member {
	switch {
	case k == 1 || k == 2:
		return []results.Member{
			member("n1", "primary", 0, k, ptr(0), nil),
			member("n2", "secondary", 0, k, ptr(30), nil),
			member("n3", "secondary", 1000, k, ptr(30), nil),
		}
	case k >= 4:
		var lag *float64
		if k == 5 {
			lag = ptr(40)
		}
		return []results.Member{
			member("n1", "secondary", 450, k, lag, nil),
			member("n2", "primary", 0, k, ptr(0), nil),
			member("n3", "secondary", 550, k, ptr(40), nil),
		}
	}
	return []results.Member{
		member("n1", "primary", 0, k, ptr(0), nil),
		member("n2", "secondary", 480, k, ptr(30), nil),
		member("n3", "secondary", 520, k, ptr(30), nil),
	}
}

// withoutMembers is r as a results file written before per-member routing.
func withoutMembers(r *results.Results) *results.Results {
	c := *r
	c.Runs = slices.Clone(r.Runs)
	for i := range c.Runs {
		c.Runs[i].Periods = slices.Clone(c.Runs[i].Periods)
		for k := range c.Runs[i].Periods {
			c.Runs[i].Periods[k].Members = nil
		}
	}
	return &c
}

var membersSectionRE = regexp.MustCompile(`(?s)<section class="members".*?</section>\n`)

func TestMembersGolden(t *testing.T) {
	in := []Input{{Name: "members.json", Results: membersResults()}}
	page := writeHTML(t, in)
	if *htmlOut != "" {
		if err := os.WriteFile(strings.TrimSuffix(*htmlOut, ".html")+"_members.html", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkSelfContained(t, page)
	secs := membersSectionRE.FindAllString(page, -1)
	if len(secs) != 1 {
		t.Fatalf("%d per-member sections, want 1", len(secs))
	}
	svgtest.WellFormed(t, secs[0], nil)
	goldenFile(t, filepath.Join("testdata", "members_html.golden"), []byte(secs[0]))
	goldenFile(t, filepath.Join("testdata", "members_text.golden"), []byte(writeText(t, in)))
}

// TestMembersNone: results without members (written before per-member
// routing, and the other fixtures) render without the section, its text
// tables or its plot files.
func TestMembersNone(t *testing.T) {
	none := Input{Name: "members.json", Results: withoutMembers(membersResults())}
	goldenFile(t, filepath.Join("testdata", "members_none_text.golden"), []byte(writeText(t, []Input{none})))
	for name, x := range map[string]Input{
		"members stripped": none,
		"fixture":          fixture(t),
		"tpcc":             tpccFixture(t),
		"sweep":            {Name: "sweep.json", Results: sweepResults(true)},
	} {
		t.Run(name, func(t *testing.T) {
			page := writeHTML(t, []Input{x})
			if strings.Contains(page, "Per-member routing") || strings.Contains(page, `data-plot="member_`) {
				t.Error("the page has a per-member section")
			}
			if strings.Contains(writeText(t, []Input{x}), "Per-member routing") {
				t.Error("the text has per-member tables")
			}
			paths, err := WritePlots(t.TempDir(), []Input{x})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				if strings.HasPrefix(filepath.Base(p), "member_") {
					t.Errorf("wrote %s", p)
				}
			}
		})
	}
}

// TestMemberRows checks the table's numbers: periods after the warm-up,
// shares of all members' reads, latency means over the periods a member
// served reads in, and the periods a secondary served nothing while the
// others did.
func TestMemberRows(t *testing.T) {
	runs := memberRuns(Input{Name: "m", Results: membersResults()})
	if len(runs) != 2 || runs[0].name != "spillway" || runs[1].name != "secondary" {
		t.Fatalf("runs %+v", runs)
	}
	tests := []struct {
		run, member             int
		served                  int64
		share, p50, lag, weight float64
		roles                   string
		idle, idleW0, secondary int
		note                    string
		dropped                 bool
	}{
		// spillway, periods k = 1..5: n1 500 each, P50 8+k → mean 11.
		{run: 0, member: 0, served: 2500, share: 50, p50: 11, lag: 0, weight: 50, roles: "primary"},
		// n2: 241, 500, 500, 244, 245; weight 25, 50, 50, 25, 25.
		{run: 0, member: 1, served: 1730, share: 34.6, p50: 6, lag: 20 - 5, weight: 35, roles: "secondary", secondary: 5},
		// n3: 259, 0, 0, 256, 255; served in k = 1, 4, 5: P50 5, 8, 9.
		{run: 0, member: 2, served: 770, share: 15.4, p50: 22.0 / 3, lag: 2500, weight: 15, roles: "secondary",
			idle: 2, idleW0: 2, secondary: 5, note: "no reads in 2 of 5 periods as secondary (weight 0)"},
		// secondary: n1 serves at k = 4, 5 (P50 12, 13); lag 0, 0, 0, unknown, 40.
		{run: 1, member: 0, served: 900, share: 18, p50: 12.5, lag: 40, weight: math.NaN(), roles: "primary→secondary",
			secondary: 2},
		// n2: 0, 0, 480, 0, 0; a secondary at k = 1..3, dropped at 1 and 2.
		{run: 1, member: 1, served: 480, share: 9.6, p50: 6, lag: 30, weight: math.NaN(), roles: "secondary→primary",
			idle: 2, secondary: 3, note: "no reads in 2 of 3 periods as secondary", dropped: true},
		{run: 1, member: 2, served: 3620, share: 72.4, p50: 7, lag: 40, weight: math.NaN(), roles: "secondary", secondary: 5},
	}
	for _, tt := range tests {
		mr := runs[tt.run]
		r := mr.rows[tt.member]
		t.Run(mr.name+"/"+r.key, func(t *testing.T) {
			if mr.measured != 5 {
				t.Errorf("%d measured periods, want 5", mr.measured)
			}
			if r.served != tt.served || !nearOrNaN(r.sharePct, tt.share) || !nearOrNaN(r.clientP50.value(), tt.p50) {
				t.Errorf("served %d share %v P50 %v, want %d %v %v", r.served, r.sharePct, r.clientP50.value(), tt.served, tt.share, tt.p50)
			}
			if !nearOrNaN(r.maxLagMS, tt.lag) || !nearOrNaN(r.weightPct.value(), tt.weight) {
				t.Errorf("max lag %v weight %v, want %v %v", r.maxLagMS, r.weightPct.value(), tt.lag, tt.weight)
			}
			if got := strings.Join(r.roles, "→"); got != tt.roles {
				t.Errorf("roles %q, want %q", got, tt.roles)
			}
			if r.idle != tt.idle || r.idleWeight0 != tt.idleW0 || r.secondary != tt.secondary {
				t.Errorf("idle %d (weight 0: %d) of %d, want %d (%d) of %d", r.idle, r.idleWeight0, r.secondary, tt.idle, tt.idleW0, tt.secondary)
			}
			if idleNote(r) != tt.note || r.dropped() != tt.dropped {
				t.Errorf("note %q dropped %v, want %q %v", idleNote(r), r.dropped(), tt.note, tt.dropped)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// nearOrNaN is near, with NaN equal to NaN (a value that is not there).
func nearOrNaN(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return near(a, b)
}

// TestMemberPlots checks what the section draws: per run a band per member
// in the member's colour (the same in every plot), the weight plot only for
// the run with weights, legend labels with the roles of a member whose role
// changed; and WritePlots writes a panel per run.
func TestMemberPlots(t *testing.T) {
	in := []Input{{Name: "members.json", Results: membersResults()}}
	plots := plotsOf(t, membersSectionRE.FindString(writeHTML(t, in)))
	if len(plots["member_share"]) != 2 || len(plots["member_weight"]) != 1 {
		t.Fatalf("%d share plots, %d weight plots; want 2 and 1", len(plots["member_share"]), len(plots["member_weight"]))
	}
	bandRE := regexp.MustCompile(`<path class="` + classMember + `" d="[^"]*" fill="([^"]+)"[^>]*><title>(n\d)`)
	colours := map[string]string{}
	for _, svg := range append(plots["member_share"], plots["member_weight"]...) {
		svgtest.Check(t, svg)
		bands := bandRE.FindAllStringSubmatch(svg, -1)
		if len(bands) != 3 {
			t.Errorf("%d bands, want one per member:\n%.300s", len(bands), svg)
		}
		for _, m := range bands {
			if c, ok := colours[m[2]]; ok && c != m[1] {
				t.Errorf("%s drawn in %s and %s", m[2], c, m[1])
			}
			colours[m[2]] = m[1]
		}
	}
	if len(colours) != 3 || colours["n1"] == colours["n2"] || colours["n2"] == colours["n3"] {
		t.Errorf("member colours %v: want three distinct", colours)
	}
	for _, want := range []string{">n1 (primary→secondary)</text>", ">n2 (secondary→primary)</text>", ">n3</text>"} {
		if !strings.Contains(plots["member_share"][1], want) {
			t.Errorf("secondary's share plot lacks the legend label %q", want)
		}
	}
	paths, err := WritePlots(t.TempDir(), in)
	if err != nil {
		t.Fatal(err)
	}
	for name, panels := range map[string]int{"member_share.svg": 2, "member_weight.svg": 1} {
		i := slices.IndexFunc(paths, func(p string) bool { return filepath.Base(p) == name })
		if i < 0 {
			t.Errorf("no %s in %v", name, paths)
			continue
		}
		data, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		svgtest.Check(t, string(data))
		if got := strings.Count(string(data), `data-plot="`); got != panels {
			t.Errorf("%s: %d panels, want %d", name, got, panels)
		}
	}
}

// TestMemberShareGap: a period in which no member served a read has no
// share, so every band has a gap there; a member missing from a period
// (removed from the set) counts as 0 in the stack.
func TestMemberShareGap(t *testing.T) {
	ps := []results.Period{
		{TS: 10, Members: []results.Member{{Name: "n1", Served: 3}, {Name: "n2", Served: 1}}},
		{TS: 20, Members: []results.Member{{Name: "n1"}, {Name: "n2"}}},
		{TS: 30, Members: []results.Member{{Name: "n1", Served: 2}}},
	}
	values := make([][]float64, 2)
	for i, key := range []string{"n1", "n2"} {
		for _, p := range ps {
			values[i] = append(values[i], sharePct(p, key))
		}
	}
	tops, bases := chart.Stack(values)
	want := [][2][]float64{
		{{75, math.NaN(), 100}, {0, math.NaN(), 0}},
		{{100, math.NaN(), 100}, {75, math.NaN(), 100}},
	}
	for i := range want {
		for k := range ps {
			if !nearOrNaN(tops[i][k], want[i][0][k]) || !nearOrNaN(bases[i][k], want[i][1][k]) {
				t.Errorf("band %d at %v: %v..%v, want %v..%v", i, ps[k].TS, bases[i][k], tops[i][k], want[i][1][k], want[i][0][k])
			}
		}
	}
}

func TestMeasuredPeriods(t *testing.T) {
	run := &results.Run{Periods: []results.Period{{TS: 10}, {TS: 20}, {TS: 30}}}
	for _, tt := range []struct {
		warmup float64
		want   int
	}{{0, 3}, {-1, 3}, {math.NaN(), 3}, {10, 2}, {15, 1}, {20, 1}, {30, 0}, {math.Inf(1), 0}} {
		if got := len(measuredPeriods(run, tt.warmup)); got != tt.want {
			t.Errorf("warm-up %v: %d periods, want %d", tt.warmup, got, tt.want)
		}
	}
}

func TestMemberKeysAndLabels(t *testing.T) {
	run := &results.Run{Periods: []results.Period{
		{Members: []results.Member{{Name: "n10", Role: "secondary"}, {Name: "n2", Role: "primary"}, {Host: "h:27017", Role: "other"}}},
		{Members: []results.Member{{Name: "n10", Role: "secondary"}, {Name: "n2", Role: "secondary"}, {Host: "h:27017", Role: "secondary"}}},
		{Members: []results.Member{{Name: "n2", Role: "primary"}}},
	}}
	keys := memberKeys(run)
	if want := []string{"h:27017", "n2", "n10"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	for key, want := range map[string]string{
		"n10":     "n10",
		"n2":      "n2 (primary→secondary→primary)",
		"h:27017": "h:27017 (other→secondary)",
	} {
		if got := memberLabel(key, memberRoles(run, key)); got != want {
			t.Errorf("label of %s = %q, want %q", key, got, want)
		}
	}
}

func TestNaturalLess(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"n2", "n10", true}, {"n10", "n2", false}, {"n1", "n1", false}, {"n", "n1", true},
		{"h:999", "h:1000", true}, {"a01", "a1", true}, {"a1", "a01", false}, {"b1", "a2", false},
	} {
		if got := naturalLess(tt.a, tt.b); got != tt.want {
			t.Errorf("naturalLess(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestMembersSweep: in a sweep the section is per client count, and a
// member keeps its colour across the counts.
func TestMembersSweep(t *testing.T) {
	r := membersResults()
	second := slices.Clone(r.Runs)
	for i := range r.Runs {
		r.Runs[i].Clients, second[i].Clients = 20, 60
	}
	r.Runs = append(r.Runs, second...)
	page := writeHTML(t, []Input{{Name: "m.json", Results: r}})
	secs := membersSectionRE.FindAllString(page, -1)
	if len(secs) != 2 {
		t.Fatalf("%d per-member sections, want one per count", len(secs))
	}
	for i, c := range []int{20, 60} {
		if want := fmt.Sprintf("<h2>Per-member routing: m.json, %d clients</h2>", c); !strings.Contains(secs[i], want) {
			t.Errorf("section %d lacks %q", i, want)
		}
	}
	if a, b := plotsOf(t, secs[0])["member_share"][0], plotsOf(t, secs[1])["member_share"][0]; stripTitles(a) != stripTitles(b) {
		t.Error("the same run draws differently at another count")
	}
}

var titleRE = regexp.MustCompile(`(?s)<title>.*?</title>|aria-label="[^"]*"|font-weight="600" fill="#222">[^<]*`)

func stripTitles(svg string) string { return titleRE.ReplaceAllString(svg, "") }

// TestMembersNoNotes: when no secondary went without reads, the HTML table
// has no note column and the text no note lines.
func TestMembersNoNotes(t *testing.T) {
	r := membersResults()
	r.Runs = []results.Run{membersRun("secondary", func(int) []results.Member { return secondaryPeriod(0) })}
	in := []Input{{Name: "m.json", Results: r}}
	sec := membersSectionRE.FindString(writeHTML(t, in))
	if sec == "" || strings.Contains(sec, ">note<") || strings.Count(sec, "<td") != 3*(1+len(memberColumns)) {
		t.Errorf("want a table of 3 rows without notes:\n%s", sec[strings.Index(sec, "<table"):])
	}
	if text := writeText(t, in); strings.Contains(text, "no reads") || !strings.Contains(text, "  n3      secondary  2600 ") {
		t.Errorf("text:\n%s", text)
	}
}
