package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/results"
)

// soakResults is a soak run in small: 10 s periods for 120 s after a 20 s
// warm-up, the process's heap and goroutines recorded in every period.
//   - spillway, two repetitions: flat (the live heap settles at 40 MiB, its
//     objects swing between 40 and 80), the reads match, decisions on time
//     but one missed;
//   - primary: its live heap grows 1 MiB a period, some calls failed, so
//     the reads are not compared; no period, so no decisions.
func soakResults() *results.Results {
	r := &results.Results{Workload: "ycsb", Config: results.Config{
		URI: "mongodb://h1,h2,h3/?replicaSet=rs0", Workload: "ycsb", Mix: "b", Records: 1000, Clients: 1000,
		DurationS: 120, PeriodS: 10, WarmupS: 20, Repeat: 2, Policies: []string{"spillway", "primary"},
		StartedAt: "2025-03-01T10:00:00Z",
	}}
	heapGrowth := map[string]float64{"spillway": 0, "primary": 1}
	for _, run := range []results.Run{
		{Policy: "spillway", Summary: results.Summary{ReadTput: 2100, MeasuredS: 100,
			Soak: &results.Soak{Periods: 10, HeapQ2MB: 40, HeapQ4MB: 40.5, RecordsQ2MB: 0.1, RecordsQ4MB: 0.6, HeapGrowthPct: ptr(0),
				GoroutinesQ2: 1043, GoroutinesQ4: 1043, GoroutineGrowthPct: ptr(0), Flat: ptrBool(true)},
			ReadsCheck: &results.ReadsCheck{Routed: 190213, Served: 190213, Match: ptrBool(true)},
			Decisions:  &results.Decisions{IntervalMS: 1000, Count: 99, Missed: 1, LateMaxMS: 1.234, OnTimePct: 99}}},
		{Policy: "spillway", Repetition: 1, Summary: results.Summary{ReadTput: 2050, MeasuredS: 100,
			Soak: &results.Soak{Periods: 10, HeapQ2MB: 41, HeapQ4MB: 41, HeapGrowthPct: ptr(0),
				GoroutinesQ2: 1044, GoroutinesQ4: 1043, GoroutineGrowthPct: ptr(-0.096), Flat: ptrBool(true)},
			ReadsCheck: &results.ReadsCheck{Routed: 188001, Served: 188001, Match: ptrBool(true)},
			Decisions:  &results.Decisions{IntervalMS: 1000, Count: 100, LateMaxMS: 0.8, OnTimePct: 100}}},
		{Policy: "primary", Summary: results.Summary{ReadTput: 900, MeasuredS: 100,
			Soak: &results.Soak{Periods: 10, HeapQ2MB: 45, HeapQ4MB: 52.5, HeapGrowthPct: ptr(16.667),
				GoroutinesQ2: 1040, GoroutinesQ4: 1040, GoroutineGrowthPct: ptr(0), Flat: ptrBool(false)},
			ReadsCheck: &results.ReadsCheck{Routed: 90000, Served: 89998, Failed: 3,
				Note: "not compared: failed calls 3"}}},
	} {
		for k := range 12 {
			live := 40 + heapGrowth[run.Policy]*float64(k)
			swing := []float64{1, 1.5, 2, 1.25}[k%4]
			run.Periods = append(run.Periods, results.Period{TS: float64(10 * (k + 1)), ReadTput: run.Summary.ReadTput,
				Clients: 1000, Mix: "b", HeapLiveMB: live, HeapMB: live * swing, Goroutines: 1040 + run.Repetition + k%2})
		}
		r.Runs = append(r.Runs, run)
	}
	return r
}

func ptrBool(v bool) *bool { return &v }

var soakSectionRE = regexp.MustCompile(`(?s)<h3>Benchmark process: soak, reads check, decisions</h3>.*?</table></div>\n`)

// TestSoakGolden: the runs' heap and goroutines are drawn, a line per run,
// and their verdicts tabled, in the page and in the text.
func TestSoakGolden(t *testing.T) {
	in := []Input{{Name: "soak.json", Results: soakResults()}}
	page := writeHTML(t, in)
	if *htmlOut != "" {
		if err := os.WriteFile(strings.TrimSuffix(*htmlOut, ".html")+"_soak.html", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkSelfContained(t, page)
	section := soakSectionRE.FindString(page)
	if section == "" {
		t.Fatal("no soak section")
	}
	table := section[strings.Index(section, `<div class="scroll"><table class="soak">`):]
	svgtest.WellFormed(t, table, nil)
	goldenFile(t, filepath.Join("testdata", "soak_html.golden"), []byte(section))
	goldenFile(t, filepath.Join("testdata", "soak_text.golden"), []byte(writeText(t, in)))
}

// TestSoakPlots: the heap plot draws every run's live heap (the second
// repetition lighter) and, dotted, the main repetitions' heap objects; the
// goroutine plot a line per run; WritePlots writes both.
func TestSoakPlots(t *testing.T) {
	in := []Input{{Name: "soak.json", Results: soakResults()}}
	plots := plotsOf(t, soakSectionRE.FindString(writeHTML(t, in)))
	for _, tt := range []struct {
		id                 string
		main, rep, objects int
	}{
		{clientHeapPlot.id, 2, 1, 2},
		{clientGoroutinesPlot.id, 2, 1, 0},
	} {
		if len(plots[tt.id]) != 1 {
			t.Fatalf("%d %s plots, want 1", len(plots[tt.id]), tt.id)
		}
		svg := plots[tt.id][0]
		svgtest.Check(t, svg)
		main, rep := strings.Count(svg, `class="`+classMain+`"`), strings.Count(svg, `class="`+classRep+`"`)
		objects := strings.Count(svg, `class="`+classHeapObjects+`"`)
		if main != tt.main || rep != tt.rep || objects != tt.objects {
			t.Errorf("%s: %d main, %d repetition, %d heap-object lines; want %d, %d, %d", tt.id, main, rep, objects,
				tt.main, tt.rep, tt.objects)
		}
		if !strings.Contains(svg, ">warm-up</text>") {
			t.Errorf("%s: no warm-up band", tt.id)
		}
	}
	paths, err := WritePlots(t.TempDir(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range clientPlotFiles {
		i := slices.IndexFunc(paths, func(p string) bool { return filepath.Base(p) == name })
		if i < 0 {
			t.Fatalf("no %s in %v", name, paths)
		}
		data, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		svgtest.Check(t, string(data))
	}
}

// TestSoakNone: results written before the process's figures were recorded
// get no section, no table and no plot files.
func TestSoakNone(t *testing.T) {
	for name, x := range map[string]Input{
		"fixture": fixture(t),
		"members": {Name: "members.json", Results: membersResults()},
	} {
		t.Run(name, func(t *testing.T) {
			if page := writeHTML(t, []Input{x}); strings.Contains(page, "Benchmark process") {
				t.Error("the page has a soak section")
			}
			if text := writeText(t, []Input{x}); strings.Contains(text, "Benchmark process") {
				t.Error("the text has a soak table")
			}
			paths, err := WritePlots(t.TempDir(), []Input{x})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				if slices.Contains(clientPlotFiles, filepath.Base(p)) {
					t.Errorf("wrote %s", p)
				}
			}
		})
	}
}
