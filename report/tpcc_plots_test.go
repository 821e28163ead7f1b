package report

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
)

// TestTPCCSeries checks the per-minute values against the fixture worked out
// by hand (tpmC = NEW_ORDER × 60 / length_s; the last minute is 45 s), and
// against the raw fields of every minute.
func TestTPCCSeries(t *testing.T) {
	x := tpccFixture(t)
	want := map[string]map[string][]float64{
		"decongestant": {
			"tpmc":             {1300, 1340, 960 * 60 / 45.0},
			"stock_level_tput": {120 / 60.0, 126 / 60.0, 90 / 45.0},
			"stock_level_p80":  {14.2, 13.8, 15.1},
		},
		"primary": {
			"tpmc":             {1000, 1030, 735 * 60 / 45.0},
			"stock_level_tput": {92 / 60.0, 95 / 60.0, 69 / 45.0},
			"stock_level_p80":  {31.5, 29.8, 33.0},
		},
	}
	wantX := []float64{1, 2, 2.75}
	for i := range x.Results.Runs {
		run := &x.Results.Runs[i]
		for _, p := range tpccPlots {
			t.Run(run.Policy+"/"+p.id, func(t *testing.T) {
				pts, perMin := tpccSeries(run, x.Results.Config, p)
				if !perMin {
					t.Error("per period, want per minute")
				}
				w := want[run.Policy][p.id]
				if len(pts) != len(w) {
					t.Fatalf("got %d points, want %d", len(pts), len(w))
				}
				for k, pt := range pts {
					if !near(pt.X, wantX[k]) || math.Abs(pt.Y-w[k]) > 1e-3 {
						t.Errorf("point %d = %v, want {%v %v}", k, pt, wantX[k], w[k])
					}
					if m := run.Minutes[k]; p.id == "tpmc" && !near(pt.Y, float64(m.Ops["NEW_ORDER"])*60/m.LengthS) {
						t.Errorf("point %d: tpmC %v, want ops*60/length = %v", k, pt.Y, float64(m.Ops["NEW_ORDER"])*60/m.LengthS)
					}
				}
			})
		}
	}
}

// TestTPCCSeriesPeriods checks the fall-back to periods when a run has no
// minutes: a period's length is the gap to the previous one (30 s, and 15 s
// for the last), and the chart title says so.
func TestTPCCSeriesPeriods(t *testing.T) {
	x := tpccFixture(t)
	r := *x.Results
	r.Runs = slices.Clone(r.Runs)
	for i := range r.Runs {
		r.Runs[i].Minutes = nil
	}
	run := &r.Runs[0]
	pts, perMin := tpccSeries(run, r.Config, tpccPlots[0])
	if perMin {
		t.Error("per minute, want per period")
	}
	if len(pts) != len(run.Periods) {
		t.Fatalf("got %d points, want one per period (%d)", len(pts), len(run.Periods))
	}
	lengths := []float64{30, 30, 30, 30, 30, 15}
	for k, pt := range pts {
		p := run.Periods[k]
		want := float64(p.Ops["NEW_ORDER"]) * 60 / lengths[k]
		if !near(pt.X, p.TS/60) || !near(pt.Y, want) {
			t.Errorf("period %d: point %v, want {%v %v}", k, pt, p.TS/60, want)
		}
	}
	// The first two periods hold half of the first minute's 1300 new orders.
	if !near(pts[0].Y, 1300) {
		t.Errorf("first period tpmC %v, want 1300", pts[0].Y)
	}
	c := buildTPCCChart(tpccPlots[0], Input{Name: "short", Results: &r}, newPalette([]Input{{Results: &r}}), false)
	if !strings.Contains(c.Title, "per period (no per-minute data)") {
		t.Errorf("title %q does not say it falls back to periods", c.Title)
	}
	r.Runs[1].Minutes = x.Results.Runs[1].Minutes
	c = buildTPCCChart(tpccPlots[0], Input{Name: "mixed", Results: &r}, newPalette([]Input{{Results: &r}}), false)
	if !strings.Contains(c.Title, "per period for runs without per-minute data") {
		t.Errorf("title %q does not say some runs fall back to periods", c.Title)
	}
}

func TestPerMinute(t *testing.T) {
	tests := []struct {
		name  string
		ops   map[string]int64
		total int64
		l     float64
		want  float64
	}{
		{"full minute", map[string]int64{"NEW_ORDER": 900}, 2000, 60, 900},
		{"short minute", map[string]int64{"NEW_ORDER": 900}, 2000, 45, 1200},
		{"no new orders", map[string]int64{"PAYMENT": 5}, 5, 60, 0},
		{"no operations at all", nil, 0, 60, 0},
		{"operations but no breakdown", nil, 10, 60, math.NaN()},
		{"zero length", map[string]int64{"NEW_ORDER": 1}, 1, 0, math.NaN()},
		{"NaN length", map[string]int64{"NEW_ORDER": 1}, 1, math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := perMinute(tt.ops, "NEW_ORDER", tt.total, tt.l)
			if math.IsNaN(tt.want) != math.IsNaN(got) || (!math.IsNaN(got) && !near(got, tt.want)) {
				t.Errorf("perMinute = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWritePlotsTPCC(t *testing.T) {
	x := tpccFixture(t)
	dir := t.TempDir()
	paths, err := WritePlots(dir, []Input{fixture(t), x, {Name: "again.json", Results: x.Results}})
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(plotFiles), tpccPlotFiles...)
	if len(paths) != len(want) {
		t.Fatalf("got %d paths, want %d", len(paths), len(want))
	}
	for i, p := range paths {
		if filepath.Base(p) != want[i] {
			t.Errorf("path %d = %s, want %s", i, p, want[i])
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		svgtest.Check(t, string(data))
		if i < len(plotFiles) {
			continue
		}
		// One panel per TPC-C input, nested in an outer <svg>; one main
		// line per policy in each.
		svg := string(data)
		if got := strings.Count(svg, "<svg"); got != 3 {
			t.Errorf("%s: %d <svg> elements, want 3", want[i], got)
		}
		if got := strings.Count(svg, `<path class="`+classMain+`"`); got != 4 {
			t.Errorf("%s: %d main lines, want 4", want[i], got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(want) {
		t.Errorf("dir holds %d entries, want %d", len(entries), len(want))
	}
}
