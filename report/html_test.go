package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/results"
)

var htmlOut = flag.String("htmlout", "", "also write the fixture's HTML report to this file, to look at it")

var (
	svgRE      = regexp.MustCompile(`(?s)<svg.*?</svg>`)
	dataPlotRE = regexp.MustCompile(`data-plot="([^"]*)"`)
)

// plotsOf returns the inline SVGs of an HTML page by data-plot id.
func plotsOf(t *testing.T, page string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, svg := range svgRE.FindAllString(page, -1) {
		m := dataPlotRE.FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("svg without data-plot: %.200s", svg)
		}
		out[m[1]] = append(out[m[1]], svg)
	}
	return out
}

func writeHTML(t *testing.T, in []Input) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkSelfContained fails on any reference that would need the network.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	rest := strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"http://", "https://", "<script", "@import", "url(", "<link", "<img"} {
		if strings.Contains(strings.ToLower(rest), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func TestWriteHTMLFixture(t *testing.T) {
	page := writeHTML(t, []Input{fixture(t)})
	if *htmlOut != "" {
		if err := os.WriteFile(*htmlOut, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkSelfContained(t, page)
	for _, want := range []string{
		"<!DOCTYPE html>",
		"mongodb://REDACTED@localhost:27017", // the URI redacted again: the file kept a user name
		"<th>relative</th>",
		`1.00x<span class="badge">best</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	plots := plotsOf(t, page)
	// 3 policies; decongestant has a second repetition; only decongestant's
	// balance fraction varies; the phase at 0 s is not drawn, the one at 30 s is.
	tests := []struct {
		plot                        string
		main, rep, lag, aux, points int
		band, phase, bound          int
	}{
		{plot: "read_tput", main: 3, rep: 1, band: 1, phase: 1},
		{plot: "read_p80", main: 3, rep: 1, band: 1, phase: 1},
		{plot: "secondary_pct", main: 3, rep: 1, aux: 1, band: 1, phase: 1},
		{plot: "staleness", main: 3, rep: 2, lag: 3, band: 1, phase: 1, bound: 1},
		{plot: "write_tput", main: 3, rep: 1, band: 1, phase: 1},
		{plot: "tradeoff", points: 3, bound: 1},
	}
	for _, tt := range tests {
		t.Run(tt.plot, func(t *testing.T) {
			svgs := plots[tt.plot]
			if len(svgs) != 1 {
				t.Fatalf("got %d %s plots, want 1", len(svgs), tt.plot)
			}
			svg := svgs[0]
			svgtest.Check(t, svg)
			for what, want := range map[string]int{
				`<path class="` + classMain + `"`: tt.main,
				`<path class="` + classRep + `"`:  tt.rep,
				`<path class="` + classLag + `"`:  tt.lag,
				`<path class="` + classAux + `"`:  tt.aux,
				`<g class="point">`:               tt.points,
				`class="band"`:                    tt.band,
				`class="phase"`:                   tt.phase,
				`class="bound"`:                   tt.bound,
			} {
				if got := strings.Count(svg, what); got != want {
					t.Errorf("%d × %s, want %d", got, what, want)
				}
			}
		})
	}
	if len(plots) != len(plotFiles) {
		t.Errorf("got %d kinds of plots, want %d", len(plots), len(plotFiles))
	}
}

// TestWriteHTMLSameColour checks that a policy has one colour in every plot.
func TestWriteHTMLSameColour(t *testing.T) {
	page := writeHTML(t, []Input{fixture(t)})
	re := regexp.MustCompile(`<path class="s-main" d="[^"]*" fill="none" stroke="([^"]+)"[^>]*><title>([^,<]+),`)
	colours := map[string]map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		if colours[m[2]] == nil {
			colours[m[2]] = map[string]bool{}
		}
		colours[m[2]][m[1]] = true
	}
	if len(colours) != 3 {
		t.Fatalf("found lines for %d policies, want 3: %v", len(colours), colours)
	}
	seen := map[string]string{}
	for policy, cs := range colours {
		if len(cs) != 1 {
			t.Errorf("%s drawn in %d colours: %v", policy, len(cs), cs)
		}
		for c := range cs {
			if other, ok := seen[c]; ok {
				t.Errorf("%s and %s share colour %s", policy, other, c)
			}
			seen[c] = policy
		}
	}
}

func TestWriteHTMLEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>`
	r := &results.Results{
		Workload: evil,
		// A results file from elsewhere whose URI keeps its secrets: the page does not.
		Config: results.Config{URI: `mongodb://u:xxxxx@h/?proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n&a=1&b="><script>`,
			Mix: evil, Policies: []string{evil}},
		Runs: []results.Run{{Policy: evil, Periods: []results.Period{{TS: 10, ReadTput: 5}},
			Events: []results.Event{{TS: 1, Kind: evil, Detail: evil}}}},
	}
	page := writeHTML(t, []Input{{Name: evil, Results: r}, {Name: "b&c", Results: r}})
	checkSelfContained(t, page)
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("escaped policy name not found")
	}
	if !strings.Contains(page, "mongodb://REDACTED@h/?proxyPassword=REDACTED&amp;authMechanismProperties=REDACTED&amp;a=1&amp;b=&#34;&gt;&lt;script&gt;") {
		t.Error("escaped, redacted URI not found")
	}
	for _, secret := range []string{"xxxxx", "s3cret", "tok3n"} {
		if strings.Contains(page, secret) {
			t.Errorf("the page shows %q", secret)
		}
	}
	for _, svg := range svgRE.FindAllString(page, -1) {
		svgtest.Check(t, svg)
	}
}

// TestWriteHTMLDegenerate feeds the writers results a real run can produce
// (no runs, no periods, one period, all zeros, nothing after warm-up) and some
// only a Go caller can (NaN and Inf).
func TestWriteHTMLDegenerate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	bound := 100.0
	badBound := math.NaN()
	tests := []struct {
		name string
		r    *results.Results
	}{
		{"no runs", &results.Results{Workload: "ycsb"}},
		{"zero periods", &results.Results{Runs: []results.Run{{Policy: "primary"}, {Policy: "rpm"}}}},
		{"single period", &results.Results{Config: results.Config{MaxStalenessMS: &bound, SProbe: true, WarmupS: 10},
			Runs: []results.Run{{Policy: "rpm", Periods: []results.Period{{TS: 10, ReadTput: 100, MaxLagMS: 5}}}}}},
		{"all zero", &results.Results{Config: results.Config{SProbe: true},
			Runs: []results.Run{{Policy: "primary", Periods: []results.Period{{TS: 10}, {TS: 20}, {TS: 30}}}}}},
		{"non-finite", &results.Results{Config: results.Config{MaxStalenessMS: &badBound, WarmupS: inf, DurationS: nan,
			Phases: []results.PhaseSpec{{AtS: nan}, {AtS: inf}}},
			Runs: []results.Run{{Policy: "fixed:0.7", Periods: []results.Period{
				{TS: 10, ReadTput: nan, ReadP80MS: inf, BalanceFraction: nan},
				{TS: nan, ReadTput: 3},
				{TS: 30, ReadTput: 4, SecondaryPct: 150, BalanceFraction: 0.7}},
				Summary: results.Summary{ReadTput: nan, StalenessP80MS: inf}}}}},
		{"many policies", manyPolicies(14)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := writeHTML(t, []Input{{Name: tt.name, Results: tt.r}})
			checkSelfContained(t, page)
			svgs := svgRE.FindAllString(page, -1)
			if len(svgs) != len(plotFiles) {
				t.Errorf("got %d plots, want %d", len(svgs), len(plotFiles))
			}
			for _, svg := range svgs {
				svgtest.Check(t, svg)
			}
			var b bytes.Buffer
			if err := WriteText(&b, []Input{{Name: tt.name, Results: tt.r}}); err != nil {
				t.Fatal(err)
			}
			if _, err := WritePlots(t.TempDir(), []Input{{Name: tt.name, Results: tt.r}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func manyPolicies(n int) *results.Results {
	r := &results.Results{}
	for i := range n {
		run := results.Run{Policy: "fixed:0." + strings.Repeat("5", i+1)}
		for k := range 3 {
			run.Periods = append(run.Periods, results.Period{TS: float64(10 * (k + 1)), ReadTput: float64(100 * i)})
		}
		r.Runs = append(r.Runs, run)
	}
	return r
}

func TestWritePlots(t *testing.T) {
	x := fixture(t)
	tests := []struct {
		name   string
		in     []Input
		panels int // <svg> elements in a time-series file
	}{
		{"one input", []Input{x}, 1},
		{"two inputs", []Input{x, {Name: "other.json", Results: x.Results}}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := WritePlots(dir, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != len(plotFiles) {
				t.Fatalf("got %d paths, want %d", len(paths), len(plotFiles))
			}
			for i, p := range paths {
				if filepath.Base(p) != plotFiles[i] || filepath.Dir(p) != dir {
					t.Errorf("path %d = %s, want %s in %s", i, p, plotFiles[i], dir)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				svg := string(data)
				svgtest.Check(t, svg)
				var root struct {
					XMLName xml.Name
				}
				if err := xml.Unmarshal(data, &root); err != nil || root.XMLName.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("%s: root %v (err %v), want an svg element in the SVG namespace", p, root.XMLName, err)
				}
				want := tt.panels
				if plotFiles[i] == "tradeoff.svg" {
					want = 1
				}
				if got := strings.Count(svg, "<svg"); got != want {
					t.Errorf("%s: %d <svg> elements, want %d", plotFiles[i], got, want)
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(plotFiles) {
				t.Errorf("dir holds %d entries, want %d (temporary files left?)", len(entries), len(plotFiles))
			}
		})
	}
}

func TestWritePlotsBadDir(t *testing.T) {
	_, err := WritePlots(filepath.Join(t.TempDir(), "missing"), []Input{fixture(t)})
	if err == nil {
		t.Fatal("no error for a missing directory")
	}
}

var plotsOut = flag.String("plotsout", "", "also write the fixture's SVG plots into this directory, to look at them")

func TestWritePlotsOut(t *testing.T) {
	if *plotsOut == "" {
		t.Skip("no -plotsout")
	}
	if _, err := WritePlots(*plotsOut, []Input{fixture(t)}); err != nil {
		t.Fatal(err)
	}
}
