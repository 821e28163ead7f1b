package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/reconfig"
	"github.com/decongestant/decongestant/results"
)

// serverResults builds the read-hints paper's experiment in small: reads only,
// all on the primary, 2 s periods for 40 s after a 4 s warm-up; n1 steps down
// at 20 s (a fault-action phase) and n2 takes the reads with a cold cache; 30 s
// is given as a reconfiguration too. Two policies:
//   - primary: n2's miss rate goes 80, 60, 40, 20 % then 5 %, the reads
//     dip to 40 % and are back at 90 % of before from 26 s; n3 is down in
//     the period ending at 32 s (no counters);
//   - secondary (as a stand-in for a run that never recovers): reads stay at
//     half of before.
//
// Each run's summary is measured by package reconfig, as bench does.
func serverResults() *results.Results {
	r := &results.Results{Workload: "ycsb", Config: results.Config{
		URI: "mongodb://h1,h2,h3/?replicaSet=rs0", Workload: "ycsb", Mix: "c", Records: 1000, Clients: 8,
		DurationS: 40, PeriodS: 2, WarmupS: 4, Repeat: 1, Policies: []string{"primary", "secondary"},
		Phases: []results.PhaseSpec{{AtS: 20, Actions: []string{"stepdown"}}}, ReconfigAtS: []float64{30},
		StartedAt: "2025-03-01T10:00:00Z",
	}}
	for _, policy := range []string{"primary", "secondary"} {
		run := results.Run{Policy: policy, Summary: results.Summary{ReadTput: 900, MeasuredS: 36}}
		for k := range 20 {
			ts := float64(2 * (k + 1))
			run.Periods = append(run.Periods, serverPeriod(policy, ts))
		}
		run.Summary.Reconfigurations = reconfig.Run(run.Periods, reconfig.Times(r.Config))
		r.Runs = append(r.Runs, run)
	}
	return r
}

// serverPeriod is the period of policy's run ending at ts.
func serverPeriod(policy string, ts float64) results.Period {
	tput := 1000.0
	miss := map[float64]float64{22: 80, 24: 60, 26: 40, 28: 20}[ts]
	if ts > 20 {
		switch {
		case policy == "secondary":
			tput = 500
		case ts == 22:
			tput = 400
		case ts == 24:
			tput = 700
		default:
			tput = 950
		}
		if miss == 0 {
			miss = 5
		}
	}
	ops := int64(2 * tput)
	mem := func(name, role string, served, requested int64, missPct, cpu float64) results.Member {
		read := int64(float64(requested) * missPct / 100)
		m := results.Member{Host: "10.0.0." + name[1:] + ":27017", Name: name, Role: role, Served: served,
			CachePagesRequested: ptr64(requested), CachePagesRead: ptr64(read), CacheReadMB: ptr(float64(read) * 0.03),
			CacheWrittenMB: ptr(cpu / 100), CPUPct: ptr(cpu), RSSMB: ptr(300 + ts)}
		if requested > 0 {
			m.CacheMissPct = ptr(missPct)
		}
		return m
	}
	p := results.Period{TS: ts, ReadOps: ops, ReadTput: tput, Clients: 8, Mix: "c"}
	if ts <= 20 {
		p.Members = []results.Member{mem("n1", "primary", ops, 2*ops, 5, 60), mem("n2", "secondary", 0, 0, 0, 2),
			mem("n3", "secondary", 0, 100, 0, 2)}
	} else {
		p.Members = []results.Member{mem("n1", "secondary", 0, 100, 0, 3), mem("n2", "primary", ops, 2*ops, miss, 70),
			mem("n3", "secondary", 0, 100, 0, 2)}
	}
	if ts == 32 {
		p.Members[2] = results.Member{Host: p.Members[2].Host, Name: "n3", Role: "other"}
	}
	return p
}

func ptr64(v int64) *int64 { return &v }

var reconfigTableRE = regexp.MustCompile(`(?s)<h3>Reconfigurations</h3>.*?</table></div>\n`)

func TestServerGolden(t *testing.T) {
	in := []Input{{Name: "server.json", Results: serverResults()}}
	page := writeHTML(t, in)
	if *htmlOut != "" {
		if err := os.WriteFile(strings.TrimSuffix(*htmlOut, ".html")+"_server.html", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkSelfContained(t, page)
	members := membersSectionRE.FindString(page)
	table := reconfigTableRE.FindString(page)
	if members == "" || table == "" {
		t.Fatalf("per-member section %d bytes, reconfiguration table %d bytes: want both", len(members), len(table))
	}
	svgtest.WellFormed(t, members, nil)
	svgtest.WellFormed(t, table[strings.Index(table, "<div"):], nil)
	goldenFile(t, filepath.Join("testdata", "server_html.golden"), []byte(table+members))
	goldenFile(t, filepath.Join("testdata", "server_text.golden"), []byte(writeText(t, in)))
}

// TestServerPlots: per run a miss-rate and a CPU plot, a line per member
// in its colour (the same as in the share plots), the line broken where
// the member was not measured, the stepdown and the given reconfiguration
// as dashed lines there and on the throughput plot (the configuration lists
// the given time); WritePlots writes a panel per run.
func TestServerPlots(t *testing.T) {
	in := []Input{{Name: "server.json", Results: serverResults()}}
	page := writeHTML(t, in)
	plots := plotsOf(t, membersSectionRE.FindString(page))
	if len(plots["member_cache_miss"]) != 2 || len(plots["member_cpu"]) != 2 {
		t.Fatalf("%d miss plots, %d CPU plots; want one per run", len(plots["member_cache_miss"]), len(plots["member_cpu"]))
	}
	lineRE := regexp.MustCompile(`<path class="` + classServer + `" d="([^"]*)" fill="none" stroke="([^"]+)"[^>]*><title>(n\d)`)
	bandRE := regexp.MustCompile(`<path class="` + classMember + `" d="[^"]*" fill="([^"]+)"[^>]*><title>(n\d)`)
	colours := map[string]string{}
	for _, m := range bandRE.FindAllStringSubmatch(plots["member_share"][0], -1) {
		colours[m[2]] = m[1]
	}
	for _, id := range []string{"member_cache_miss", "member_cpu"} {
		svg := plots[id][0]
		svgtest.Check(t, svg)
		lines := lineRE.FindAllStringSubmatch(svg, -1)
		if len(lines) != 3 {
			t.Fatalf("%s: %d member lines, want 3", id, len(lines))
		}
		for _, m := range lines {
			if colours[m[3]] != m[2] {
				t.Errorf("%s: %s drawn in %s, in %s in the share plot", id, m[3], m[2], colours[m[3]])
			}
			// n3 was not measured at 32 s: its line starts again after.
			if moves := strings.Count(m[1], "M"); m[3] == "n3" && moves != 2 || m[3] != "n3" && moves > 2 {
				t.Errorf("%s: %s's line has %d pieces", id, m[3], moves)
			}
		}
		if got := strings.Count(svg, `class="phase"`); got != 2 {
			t.Errorf("%s: %d dashed lines, want the stepdown's and the given one", id, got)
		}
		for _, want := range []string{">phase 1: stepdown</text>", ">reconfiguration</text>", ">n1 (primary→secondary)</text>"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s lacks %q", id, want)
			}
		}
	}
	if !strings.Contains(page, "<dt>reconfigurations given</dt><dd>30 s</dd>") {
		t.Error("the configuration does not list the reconfiguration given at 30 s")
	}
	if tput := plotsOf(t, page)["read_tput"][0]; strings.Count(tput, `class="phase"`) != 2 || !strings.Contains(tput, ">phase 1: stepdown</text>") {
		t.Error("the throughput plot lacks the stepdown's or the given reconfiguration's line")
	}
	paths, err := WritePlots(t.TempDir(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"member_cache_miss.svg", "member_cpu.svg"} {
		i := slices.IndexFunc(paths, func(p string) bool { return filepath.Base(p) == name })
		if i < 0 {
			t.Fatalf("no %s in %v", name, paths)
		}
		data, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		svgtest.Check(t, string(data))
		if got := strings.Count(string(data), `data-plot="`); got != 2 {
			t.Errorf("%s: %d panels, want 2", name, got)
		}
	}
}

// TestServerNone: runs without member stats draw no server plots, add no
// server columns and write no server plot files; runs without a
// reconfiguration have no reconfiguration table.
func TestServerNone(t *testing.T) {
	for name, x := range map[string]Input{
		"members":  {Name: "members.json", Results: membersResults()},
		"fixture":  fixture(t),
		"no stats": {Name: "server.json", Results: withoutServer(serverResults())},
	} {
		t.Run(name, func(t *testing.T) {
			page := writeHTML(t, []Input{x})
			if strings.Contains(page, `data-plot="member_cache_miss"`) || strings.Contains(page, "cache miss %") {
				t.Error("the page has server plots or columns")
			}
			if text := writeText(t, []Input{x}); strings.Contains(text, "cache miss %") {
				t.Error("the text has server columns")
			}
			paths, err := WritePlots(t.TempDir(), []Input{x})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				if strings.HasPrefix(filepath.Base(p), "member_c") {
					t.Errorf("wrote %s", p)
				}
			}
			if hasReconfig := strings.Contains(page, "<h3>Reconfigurations</h3>"); hasReconfig != (name == "no stats") {
				t.Errorf("reconfiguration table: %v", hasReconfig)
			}
		})
	}
}

// withoutServer is r without member stats (bench --member-stats=false).
func withoutServer(r *results.Results) *results.Results {
	c := *r
	c.Runs = slices.Clone(r.Runs)
	for i := range c.Runs {
		c.Runs[i].Periods = slices.Clone(c.Runs[i].Periods)
		for k := range c.Runs[i].Periods {
			ms := slices.Clone(c.Runs[i].Periods[k].Members)
			for j := range ms {
				ms[j] = results.Member{Host: ms[j].Host, Name: ms[j].Name, Role: ms[j].Role, Served: ms[j].Served}
			}
			c.Runs[i].Periods[k].Members = ms
		}
	}
	return &c
}

// TestServerRows: the table's server columns over the periods after the
// warm-up: the miss rate pooled over pages, MB/s over the periods' seconds,
// the mean CPU and the largest RSS.
func TestServerRows(t *testing.T) {
	mr := memberRuns(Input{Name: "s", Results: serverResults()})[0]
	n2 := mr.rows[1]
	// After the warm-up (periods ending 6..40 s): as a secondary 8 periods
	// requesting nothing; as the primary 10 periods of 2 x reads requests:
	// 800 (22 s), 1400, 1900 × 8, missing 80, 60, 40, 20, then 5 %.
	requested := 2.0 * (800 + 1400 + 8*1900)
	read := 0.8*1600 + 0.6*2800 + 0.4*3800 + 0.2*3800 + 0.05*3800*6
	if got := n2.server.missPct(); !near(got, 100*read/requested) {
		t.Errorf("n2 miss %v %%, want %v", got, 100*read/requested)
	}
	if got := n2.server.readMBps(); !near(got, read*0.03/36) {
		t.Errorf("n2 read %v MB/s, want %v", got, read*0.03/36)
	}
	if got := n2.server.cpu.value(); !near(got, (8*2+10*70)/18.0) {
		t.Errorf("n2 mean CPU %v %%, want %v", got, (8*2+10*70)/18.0)
	}
	if n2.server.rssMax != 340 {
		t.Errorf("n2 max RSS %v, want 340", n2.server.rssMax)
	}
	// n2 wrote CPU/100 MiB a period: (8 x 0.02 + 10 x 0.7) MiB over 36 s
	if got := n2.server.writtenMBps(); !near(got, (8*0.02+10*0.7)/36) {
		t.Errorf("n2 written %v MB/s, want %v", got, (8*0.02+10*0.7)/36)
	}
	if got := mr.columns(); len(got) != len(memberColumns)+len(serverColumns)+1 {
		t.Errorf("%d columns with member stats and the written bytes", len(got))
	}
}

// TestReconfigRows: a row per run and reconfiguration, in time order; a
// run that never recovers says so.
func TestReconfigRows(t *testing.T) {
	rows := reconfigRows(Input{Name: "s", Results: serverResults()})
	var got []string
	for _, r := range rows {
		cells := []string{r.name}
		for _, c := range reconfigColumns {
			cells = append(cells, c.get(r.v))
		}
		got = append(got, strings.Join(cells, " | "))
	}
	want := []string{
		// 20 s before it, 10 periods of 1000; the dip to 400 at 22 s; 950
		// from the period (24, 26] on; n2 missed 80 % at 22 s.
		"primary | 20 | stepdown | 1000 | 20 | 400 | 40.0 | 4 | n2 | 80.0",
		// (10 x 1000 + 400 + 700 + 3 x 950) / 15; no lower period in the
		// minute after; n2 misses 5 % from 30 s.
		"primary | 30 | given | 930 | 30 | 950 | 102 | 0 | n2 | 5.00",
		"secondary | 20 | stepdown | 1000 | 20 | 500 | 50.0 | never | n2 | 80.0",
		"secondary | 30 | given | 833 | 30 | 500 | 60.0 | never | n2 | 5.00",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMemoryPlotOnlyWhenMeasured: a memory plot per run whose members have
// a memory figure, none for a run without any.
func TestMemoryPlotOnlyWhenMeasured(t *testing.T) {
	r := serverResults()
	mem := 512.0
	for i := range r.Runs[0].Periods {
		for j := range r.Runs[0].Periods[i].Members {
			r.Runs[0].Periods[i].Members[j].RSSMB = &mem
			r.Runs[0].Periods[i].Members[j].MemCgroupMB = nil
		}
	}
	for i := range r.Runs[1].Periods {
		for j := range r.Runs[1].Periods[i].Members {
			r.Runs[1].Periods[i].Members[j].RSSMB, r.Runs[1].Periods[i].Members[j].MemCgroupMB = nil, nil
		}
	}
	plots := plotsOf(t, membersSectionRE.FindString(writeHTML(t, []Input{{Name: "server.json", Results: r}})))
	if got := len(plots["member_memory"]); got != 1 {
		t.Fatalf("%d memory plots, want one: for the run that measured memory", got)
	}
	if !strings.Contains(plots["member_memory"][0], "<path class=\""+classServer+"\"") {
		t.Error("the memory plot has no member line")
	}
}

// TestWrittenColumnOnlyWhenMeasured: the cache written rate is a column of
// runs that measured it, after the read rate; runs recorded before it was
// measured keep their columns.
func TestWrittenColumnOnlyWhenMeasured(t *testing.T) {
	headers := func(mr memberRun) []string {
		var out []string
		for _, c := range mr.columns() {
			out = append(out, c.header)
		}
		return out
	}
	r := serverResults()
	with := headers(memberRuns(Input{Name: "server.json", Results: r})[0])
	for i := range r.Runs {
		for j := range r.Runs[i].Periods {
			for k := range r.Runs[i].Periods[j].Members {
				r.Runs[i].Periods[j].Members[k].CacheWrittenMB = nil
			}
		}
	}
	without := headers(memberRuns(Input{Name: "server.json", Results: r})[0])
	if i := slices.Index(with, "cache written MB/s"); i < 1 || with[i-1] != "cache read MB/s" {
		t.Errorf("columns with the written bytes measured: %v", with)
	}
	if slices.Contains(without, "cache written MB/s") || len(without) != len(with)-1 {
		t.Errorf("columns without them: %v", without)
	}
}
