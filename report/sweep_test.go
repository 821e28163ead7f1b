package report

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/results"
)

// sweepResults builds a synthetic sweep: YCSB-B at 20, 60 and 100 clients
// under primary and decongestant (2 repetitions each) and secondary (1), run
// count by count as bench runs them. Throughput grows with the count until
// the policy's capacity; the second repetition serves 200 ops/s more and,
// under decongestant, sends 5 points more to the secondaries; staleness is
// 0 on the primary. sprobe sets whether the runs measured staleness.
func sweepResults(sprobe bool) *results.Results {
	r := &results.Results{Workload: "ycsb", Config: results.Config{
		URI: "mongodb://h1,h2,h3/?replicaSet=rs0", Workload: "ycsb", Mix: "b", Records: 20000,
		Clients: 20, ClientsSweep: []int{20, 60, 100}, DurationS: 20, PeriodS: 10, WarmupS: 5, Repeat: 2,
		Policies: []string{"primary", "secondary", "decongestant"}, SProbe: sprobe, StartedAt: "2025-03-01T10:00:00Z",
	}}
	capacity := map[string]float64{"primary": 3000, "secondary": 5000, "decongestant": 7000}
	for _, c := range r.Config.ClientsSweep {
		for rep := range 2 {
			for _, pol := range r.Config.Policies {
				if pol == "secondary" && rep == 1 {
					continue
				}
				tput := math.Min(float64(c)*80, capacity[pol]) + float64(200*rep)
				s := results.Summary{ReadTput: tput, ReadP80MS: float64(c) * 1000 / tput, ReadOps: int64(tput * 15)}
				switch pol {
				case "secondary":
					s.SecondaryPct = 100
				case "decongestant":
					s.SecondaryPct = float64(c/2 + 5*rep)
				}
				if sprobe {
					s.Probes = 50
				}
				if sprobe && pol != "primary" {
					s.StalenessP80MS = float64(c)/10 + float64(rep)
				}
				run := results.Run{Policy: pol, Repetition: rep, Clients: c, Summary: s}
				for i, ts := range []float64{10, 20} {
					run.Periods = append(run.Periods, results.Period{TS: ts, ReadTput: tput + float64(i), ReadP80MS: s.ReadP80MS,
						SecondaryPct: s.SecondaryPct, SProbeStalenessP80MS: s.StalenessP80MS, Clients: c, Mix: "b"})
				}
				r.Runs = append(r.Runs, run)
			}
		}
	}
	return r
}

var sweepSectionRE = regexp.MustCompile(`(?s)<section class="sweep".*?</section>\n`)

func TestSweepGolden(t *testing.T) {
	for _, sprobe := range []bool{true, false} {
		t.Run(fmt.Sprintf("sprobe=%v", sprobe), func(t *testing.T) {
			in := []Input{{Name: "sweep.json", Results: sweepResults(sprobe)}}
			suffix := ""
			if !sprobe {
				suffix = "_nosprobe"
			}
			page := writeHTML(t, in)
			if *htmlOut != "" && sprobe {
				if err := os.WriteFile(strings.TrimSuffix(*htmlOut, ".html")+"_sweep.html", []byte(page), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkSelfContained(t, page)
			secs := sweepSectionRE.FindAllString(page, -1)
			if len(secs) != 1 {
				t.Fatalf("%d sweep sections, want 1", len(secs))
			}
			svgtest.WellFormed(t, secs[0], nil)
			goldenFile(t, filepath.Join("testdata", "sweep_html"+suffix+".golden"), []byte(secs[0]))
			goldenFile(t, filepath.Join("testdata", "sweep_text"+suffix+".golden"), []byte(writeText(t, in)))
		})
	}
}

// TestSweepPlots checks what the sweep section draws: fig. 5 has a line
// per policy with min-max bars where a count was repeated, figs. 6/7 a
// point per policy and count labelled with the count, or none and a note
// without the S probe.
func TestSweepPlots(t *testing.T) {
	for _, sprobe := range []bool{true, false} {
		t.Run(fmt.Sprintf("sprobe=%v", sprobe), func(t *testing.T) {
			page := writeHTML(t, []Input{{Name: "sweep.json", Results: sweepResults(sprobe)}})
			plots := plotsOf(t, sweepSectionRE.FindString(page))
			// primary and decongestant were repeated: a bar path each where
			// the repetitions differ (not primary's secondary share, 0).
			bars := map[string]int{"sweep_tput": 2, "sweep_p80": 2, "sweep_secondary": 1}
			for _, p := range sweepLinePlots {
				svg := one(t, plots, p.id)
				if got := strings.Count(svg, `<path class="`+classMain+`"`); got != 3 {
					t.Errorf("%s: %d lines, want 3", p.id, got)
				}
				if got := strings.Count(svg, `class="errbar"`); got != bars[p.id] {
					t.Errorf("%s: %d bar paths, want %d", p.id, got, bars[p.id])
				}
			}
			wantPoints := 9
			if !sprobe {
				wantPoints = 0
			}
			for _, p := range sweepTradeoffPlots {
				svg := one(t, plots, p.id)
				if got := strings.Count(svg, `<g class="point">`); got != wantPoints {
					t.Errorf("%s: %d points, want %d", p.id, got, wantPoints)
				}
				if sprobe && strings.Count(svg, `fill="#222" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">100</text>`) != 3 {
					t.Errorf("%s: want three points labelled 100", p.id)
				}
				if got := strings.Contains(svg, "run bench with --sprobe"); got == sprobe {
					t.Errorf("%s: note about --sprobe shown: %v, want %v", p.id, got, !sprobe)
				}
			}
		})
	}
}

func one(t *testing.T, plots map[string][]string, id string) string {
	t.Helper()
	if len(plots[id]) != 1 {
		t.Fatalf("%d %s plots, want 1", len(plots[id]), id)
	}
	svgtest.Check(t, plots[id][0])
	return plots[id][0]
}

// TestSweepNumbers: a point is the mean of its repetitions, with their
// min-max; counts sort numerically whatever order they ran in.
func TestSweepNumbers(t *testing.T) {
	r := sweepResults(true)
	slices.Reverse(r.Runs)
	sw := findSweep(Input{Name: "x", Results: r})
	if sw == nil {
		t.Fatal("no sweep found")
	}
	if !slices.Equal(sw.counts, []int{20, 60, 100}) || !slices.Equal(sw.policies, []string{"decongestant", "primary", "secondary"}) {
		t.Fatalf("counts %v policies %v", sw.counts, sw.policies)
	}
	pts := sw.policyPoints("decongestant")
	if len(pts) != 3 || pts[1].clients != 60 || pts[1].runs != 2 {
		t.Fatalf("decongestant points %+v", pts)
	}
	// 60 clients: 4800 and 5000 ops/s; staleness 6 and 7 ms.
	if got := pts[1].values[swTput]; got.mean != 4900 || got.lo != 4800 || got.hi != 5000 || got.n != 2 {
		t.Errorf("throughput %+v, want mean 4900, 4800-5000", got)
	}
	if got := pts[1].values[swStale].text(); got != "6.50 (6.00–7.00)" {
		t.Errorf("staleness %q", got)
	}
	if got := sw.policyPoints("secondary")[0].values[swTput].text(); got != "1600" {
		t.Errorf("one repetition: %q, want the value alone", got)
	}
	if got := sw.policyPoints("primary")[0].values[swStale].text(); got != "0" {
		t.Errorf("repetitions that agree: %q, want the value alone", got)
	}
}

// TestNoSweepNoSection: results without a sweep, or with one client count
// recorded, get no sweep section, plots or table.
func TestNoSweepNoSection(t *testing.T) {
	oneCount := sweepResults(true)
	oneCount.Runs = slices.DeleteFunc(oneCount.Runs, func(r results.Run) bool { return r.Clients != 60 })
	for name, x := range map[string]Input{
		"fixture":        fixture(t),
		"tpcc":           tpccFixture(t),
		"one of a sweep": {Name: "one.json", Results: oneCount},
	} {
		t.Run(name, func(t *testing.T) {
			if findSweep(x) != nil {
				t.Fatal("found a sweep")
			}
			page := writeHTML(t, []Input{x})
			if strings.Contains(page, "Client-count sweep") || strings.Contains(page, `data-plot="sweep_`) {
				t.Error("the page has a sweep section")
			}
			if strings.Contains(writeText(t, []Input{x}), "Client-count sweep") {
				t.Error("the text has a sweep table")
			}
			paths, err := WritePlots(t.TempDir(), []Input{x})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range paths {
				if strings.HasPrefix(filepath.Base(p), "sweep_") {
					t.Errorf("wrote %s", p)
				}
			}
		})
	}
}

// TestSweepComparisonPerCount: the comparison has a row per count and
// policy, relative to the best policy at that count, and the time series
// are drawn per count.
func TestSweepComparisonPerCount(t *testing.T) {
	in := []Input{{Name: "sweep.json", Results: sweepResults(true)}}
	rows := buildRows(in)
	if len(rows) != 9 {
		t.Fatalf("%d rows, want 9", len(rows))
	}
	for _, r := range rows {
		// At 20 clients every policy serves 1600 ops/s (+100 on average
		// for the repeated ones); at 100 decongestant is best.
		if r.clients == 100 && (r.policy == "decongestant") != r.best {
			t.Errorf("%s at %d clients: best %v", r.policy, r.clients, r.best)
		}
		if want := map[bool]float64{true: 1, false: 1600.0 / 1700}[r.runs == 2]; r.clients == 20 && math.Abs(r.rel-want) > 1e-9 {
			t.Errorf("%s at 20 clients: relative %v, want %v", r.policy, r.rel, want)
		}
	}
	page := writeHTML(t, in)
	for _, c := range []int{20, 60, 100} {
		if !strings.Contains(page, fmt.Sprintf("<h2>Time series: sweep.json, %d clients</h2>", c)) {
			t.Errorf("no time series for %d clients", c)
		}
	}
	if got := len(plotsOf(t, page)["read_tput"]); got != 3 {
		t.Errorf("%d read throughput time series, want one per count", got)
	}
	paths, err := WritePlots(t.TempDir(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(paths); got != len(plotFiles)+len(sweepPlotFiles) {
		t.Errorf("%d plot files, want %d", got, len(plotFiles)+len(sweepPlotFiles))
	}
	svg, err := os.ReadFile(filepath.Join(filepath.Dir(paths[0]), "sweep_tput.svg"))
	if err != nil || !bytes.Contains(svg, []byte("Fig. 5a: read throughput against clients")) {
		t.Errorf("sweep_tput.svg: %v %.200s", err, svg)
	}
}

// TestSweepTPCC: a TPC-C sweep gets a TPC-C section per count, and its
// trade-off plots are the Decongestant paper's fig. 7, of Stock-Level
// transactions.
func TestSweepTPCC(t *testing.T) {
	x := tpccFixture(t)
	r := *x.Results
	r.Runs = slices.Clone(r.Runs)
	for i := range r.Runs {
		r.Runs[i].Clients = 16 * (i + 1)
	}
	x.Results = &r
	page := writeHTML(t, []Input{x})
	secs := tpccSections(t, page)
	if len(secs) != len(r.Runs) {
		t.Fatalf("%d TPC-C sections, want one per count (%d)", len(secs), len(r.Runs))
	}
	for i, sec := range secs {
		if want := fmt.Sprintf("<h2>TPC-C: tpcc.json, %d clients</h2>", 16*(i+1)); !strings.Contains(sec, want) {
			t.Errorf("section %d lacks %q", i, want)
		}
	}
	plots := plotsOf(t, sweepSectionRE.FindString(page))
	if svg := one(t, plots, "sweep_tput_staleness"); !strings.Contains(svg, "Fig. 7a: Stock-Level throughput against P80 staleness") {
		t.Errorf("trade-off plot title: %.300s", svg)
	}
	if text := writeText(t, []Input{x}); strings.Count(text, "\nTPC-C: tpcc.json, ") != len(r.Runs) {
		t.Errorf("text: want a TPC-C section per count:\n%s", text)
	}
}
