package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/results"
)

const tpccFixturePath = "testdata/tpcc.json"

// tpccFixture loads the hand-made TPC-C results file: decongestant and
// primary, 3 minutes each (the last 45 s long), 6 periods of 30 s (the last
// 15 s), and a TPC-C report per run; primary's check 3.3.2.2 fails.
func tpccFixture(t *testing.T) Input {
	t.Helper()
	r, err := results.Read(tpccFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Name: filepath.Base(tpccFixturePath), Results: r}
}

func writeText(t *testing.T, in []Input) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, in); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var sectionRE = regexp.MustCompile(`(?s)<section class="tpcc".*?</section>\n`)

// tpccSections returns the TPC-C sections of an HTML page, checking that
// each is well-formed XML.
func tpccSections(t *testing.T, page string) []string {
	t.Helper()
	secs := sectionRE.FindAllString(page, -1)
	for _, s := range secs {
		svgtest.WellFormed(t, s, nil)
	}
	return secs
}

func TestTPCCTextGolden(t *testing.T) {
	got := writeText(t, []Input{tpccFixture(t)})
	goldenFile(t, filepath.Join("testdata", "tpcc_text.golden"), []byte(got))
	// The TPC-C section (after the comparison table) keeps to 100 columns.
	_, section, ok := strings.Cut(got, "\nTPC-C: ")
	if !ok {
		t.Fatalf("no TPC-C section in:\n%s", got)
	}
	for _, l := range strings.Split(section, "\n") {
		if n := utf8.RuneCountInString(l); n > textWidthLimit {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
}

func TestTPCCHTMLGolden(t *testing.T) {
	page := writeHTML(t, []Input{tpccFixture(t)})
	goldenFile(t, filepath.Join("testdata", "tpcc_html.golden"), []byte(page))
	checkSelfContained(t, page)
	if n := len(tpccSections(t, page)); n != 1 {
		t.Errorf("got %d TPC-C sections, want 1", n)
	}
	plots := plotsOf(t, page)
	for _, p := range tpccPlots {
		svgs := plots[p.id]
		if len(svgs) != 1 {
			t.Fatalf("%s: got %d plots, want 1", p.id, len(svgs))
		}
		svg := svgs[0]
		svgtest.Check(t, svg)
		if got := strings.Count(svg, `<path class="`+classMain+`"`); got != 2 {
			t.Errorf("%s: %d main lines, want 2 (one per policy)", p.id, got)
		}
		if !strings.Contains(svg, " per minute</title>") {
			t.Errorf("%s: title does not say per minute", p.id)
		}
		for _, axisTitle := range []string{">minute</text>", ">" + p.yTitle + "</text>"} {
			if !strings.Contains(svg, axisTitle) {
				t.Errorf("%s: lacks axis title %s", p.id, axisTitle)
			}
		}
	}
	// The policies keep the colours they have in the other plots.
	pal := newPalette([]Input{tpccFixture(t)})
	for _, policy := range []string{"decongestant", "primary"} {
		want := `stroke="` + pal.color(policy) + `" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"><title>` + policy + `, repetition 0</title>`
		if got := strings.Count(plots["tpmc"][0], want); got != 1 {
			t.Errorf("tpmc: %d lines for %s in %s, want 1", got, policy, pal.color(policy))
		}
	}
}

// TestTPCCLatencyTable finds each transaction type's row in each run's
// latency table, in the text and in the HTML, and checks its p95.
func TestTPCCLatencyTable(t *testing.T) {
	x := tpccFixture(t)
	p95 := map[string]map[string]string{
		"decongestant": {"NEW_ORDER": "18.4", "PAYMENT": "8.60", "ORDER_STATUS": "3.90", "DELIVERY": "42.5", "STOCK_LEVEL": "17.3"},
		"primary":      {"NEW_ORDER": "24.6", "PAYMENT": "11.2", "ORDER_STATUS": "5.70", "DELIVERY": "55.1", "STOCK_LEVEL": "38.9"},
	}

	t.Run("text", func(t *testing.T) {
		text := writeText(t, []Input{x})
		for policy, types := range p95 {
			_, block, ok := strings.Cut(text, "\n"+policy+", repetition 0")
			if !ok {
				t.Fatalf("no details for %s", policy)
			}
			block, _, _ = strings.Cut(block, "\n\n")
			lines := strings.Split(block, "\n")
			col := -1
			for _, l := range lines {
				if f := strings.Fields(l); len(f) > 0 && f[0] == "latency" {
					col = slices.Index(f, "p95") - 1 // "latency ms" is two fields
				}
			}
			if col < 0 {
				t.Fatalf("%s: no latency header with p95 in:\n%s", policy, block)
			}
			for typ, want := range types {
				found := false
				for _, l := range lines {
					if f := strings.Fields(l); len(f) > col && f[0] == typ {
						found = true
						if f[col] != want {
							t.Errorf("%s %s: p95 %q, want %q (row %q)", policy, typ, f[col], want, l)
						}
					}
				}
				if !found {
					t.Errorf("%s: no row for %s", policy, typ)
				}
			}
		}
	})

	t.Run("html", func(t *testing.T) {
		page := writeHTML(t, []Input{x})
		secs := tpccSections(t, page)
		if len(secs) != 1 {
			t.Fatalf("got %d TPC-C sections, want 1", len(secs))
		}
		header := regexp.MustCompile(`<table class="latency">\n<thead><tr>(.*?)</tr>`).FindStringSubmatch(secs[0])
		if header == nil {
			t.Fatal("no latency table")
		}
		col := slices.Index(regexp.MustCompile(`<th[^>]*>([^<]*)</th>`).FindAllString(header[1], -1), "<th>p95 ms</th>")
		if col < 0 {
			t.Fatalf("no p95 ms column in %s", header[1])
		}
		cell := regexp.MustCompile(`<td[^>]*>([^<]*)</td>`)
		for policy, types := range p95 {
			_, block, ok := strings.Cut(secs[0], "</span>"+policy+", repetition 0</h3>")
			if !ok {
				t.Fatalf("no details for %s", policy)
			}
			block, _, _ = strings.Cut(block, "</table>")
			for typ, want := range types {
				row := regexp.MustCompile(`<tr><td class="l">` + typ + `</td>.*</tr>`).FindString(block)
				cells := cell.FindAllStringSubmatch(row, -1)
				if len(cells) <= col {
					t.Errorf("%s: no row for %s", policy, typ)
					continue
				}
				if got := cells[col][1]; got != want {
					t.Errorf("%s %s: p95 %q, want %q", policy, typ, got, want)
				}
			}
		}
	})
}

func TestTPCCChecks(t *testing.T) {
	x := tpccFixture(t)
	text := writeText(t, []Input{x})
	for _, want := range []string{
		"  checks: 12/12 pass\n",
		"  checks: 11/12 pass; not passed:\n    FAIL 3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID): w=3 d=7:",
		"11/12 pass; 3.3.2.2 FAIL\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	page := writeHTML(t, []Input{x})
	for _, want := range []string{
		"Consistency checks: 12/12 pass</p>",
		`Consistency checks: 11/12 pass<span class="warn">1 not passed</span>`,
		`<td class="l">3.3.2.2</td><td class="l">D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)</td><td class="l">FAIL</td>` +
			`<td class="l">w=3 d=7: d_next_o_id - 1 = 3001 &lt; max(o_id) = 3002 &amp; max(no_o_id) = 3002</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestTPCCMissingOrPartial feeds reports that are missing, partial, of the
// wrong shape or not even JSON-encodable: every writer must still succeed,
// show "-" for what is missing and say what it could not read.
func TestTPCCMissingOrPartial(t *testing.T) {
	base := func(extra map[string]any, minutes []results.Minute) *results.Results {
		return &results.Results{Workload: "tpcc", Config: results.Config{PeriodS: 10},
			Runs: []results.Run{{Policy: "primary", Extra: extra, Minutes: minutes,
				Periods: []results.Period{{TS: 10, ReadOps: 5, ReadTput: 0.5, ReadP80MS: 9, Ops: map[string]int64{"NEW_ORDER": 20, "STOCK_LEVEL": 5}}}}}}
	}
	tests := []struct {
		name string
		r    *results.Results
		text []string // the text must contain these
	}{
		{"workload tpcc, no report", base(nil, nil),
			[]string{"primary  0    -     -     -       -        -       -           no TPC-C report", "primary, repetition 0: no TPC-C report"}},
		{"only tpmC", base(map[string]any{"tpcc": map[string]any{"tpmC": 99.5}}, nil),
			[]string{"primary  0    99.5  -     -       -        -       -           not run", "(no per-type results)", "checks: not run"}},
		{"empty checks and a type without latencies", base(map[string]any{"tpcc": map[string]any{
			"check": []any{}, "transactions": map[string]any{"PAYMENT": map[string]any{"total": 3}}}}, nil),
			[]string{"checks: none recorded", "  PAYMENT     3      -        -       -    -    -    -    -    -    -"}},
		{"wrong types", base(map[string]any{"tpcc": map[string]any{
			"tpmC": "fast", "total": 7, "transactions": 5, "check": "all good", "server": []any{1}}}, nil),
			[]string{"warning: tpcc report partly unreadable: check is a JSON string, want an array; not numbers: tpmC",
				"primary  0    -     7     -"}},
		{"bad nested numbers", base(map[string]any{"tpcc": map[string]any{"transactions": map[string]any{
			"NEW_ORDER": map[string]any{"total": "x", "errors": 0, "latency_ms": map[string]any{"p95": true, "p99": 4.5}}}}}, nil),
			[]string{"not numbers: transactions.NEW_ORDER.total,\n    transactions.NEW_ORDER.latency_ms.p95",
				"  NEW_ORDER   -      -        0       -    -    -    -    -    4.50  -"}},
		{"not an object", base(map[string]any{"tpcc": "n/a"}, nil), []string{"warning: tpcc report"}},
		{"null", base(map[string]any{"tpcc": nil}, nil), []string{"no TPC-C report"}},
		{"not encodable", base(map[string]any{"tpcc": map[string]any{"tpmC": math.NaN()}}, nil),
			[]string{"warning: tpcc report unreadable"}},
		{"bad minutes", base(nil, []results.Minute{{TS: 60, LengthS: 0, ReadOps: 3}, {TS: math.NaN(), LengthS: 60},
			{TS: 120, LengthS: math.Inf(1), Ops: map[string]int64{"NEW_ORDER": 1}}}), nil},
		{"report but other workload", &results.Results{Workload: "ycsb", Runs: []results.Run{{Policy: "p",
			Extra: map[string]any{"tpcc": map[string]any{"tpmC": 1.0}}}}}, []string{"TPC-C: "}},
		{"no runs", &results.Results{Workload: "tpcc"}, []string{"TPC-C: x\n(no runs)\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []Input{{Name: "x", Results: tt.r}}
			text := writeText(t, in)
			for _, want := range tt.text {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q:\n%s", want, text)
				}
			}
			page := writeHTML(t, in)
			if n := len(tpccSections(t, page)); n != 1 {
				t.Errorf("got %d TPC-C sections, want 1", n)
			}
			for _, svg := range svgRE.FindAllString(page, -1) {
				svgtest.Check(t, svg)
			}
			dir := t.TempDir()
			paths, err := WritePlots(dir, in)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(plotFiles) + len(tpccPlotFiles); len(paths) != want {
				t.Errorf("wrote %d plots, want %d", len(paths), want)
			}
			for _, p := range paths {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				svgtest.Check(t, string(data))
			}
		})
	}
}

// TestTPCCOnlyForTPCC checks that a YCSB results file gets no TPC-C output,
// and that with a YCSB and a TPC-C input only the latter does.
func TestTPCCOnlyForTPCC(t *testing.T) {
	y, x := fixture(t), tpccFixture(t)
	if text := writeText(t, []Input{y}); strings.Contains(text, "TPC-C") {
		t.Error("YCSB text has a TPC-C section")
	}
	page := writeHTML(t, []Input{y})
	if strings.Contains(page, "tpcc") || strings.Contains(page, "TPC-C") {
		t.Error("YCSB page mentions TPC-C")
	}
	both := []Input{y, x}
	text := writeText(t, both)
	if n := strings.Count(text, "\nTPC-C: "); n != 1 {
		t.Errorf("%d TPC-C sections in the text, want 1", n)
	}
	page = writeHTML(t, both)
	secs := tpccSections(t, page)
	if len(secs) != 1 || !strings.Contains(secs[0], "<h2>TPC-C: tpcc.json</h2>") {
		t.Errorf("got %d TPC-C sections, want 1 for tpcc.json", len(secs))
	}
	if n := len(plotsOf(t, page)["tpmc"]); n != 1 {
		t.Errorf("%d tpmC plots, want 1", n)
	}
}

// TestTPCCEscapes puts markup and control characters in every string of a
// TPC-C report: the HTML must escape them and the text keep one line per row.
func TestTPCCEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>&` + "\n\x01"
	r := &results.Results{Workload: "tpcc", Runs: []results.Run{{Policy: evil,
		Minutes: []results.Minute{{TS: 60, LengthS: 60, Ops: map[string]int64{evil: 3}}},
		Extra: map[string]any{"tpcc": map[string]any{
			"transactions": map[string]any{evil: map[string]any{"total": 1}},
			"settings":     map[string]any{evil: evil},
			"server":       map[string]any{"member": evil},
			"check":        []any{map[string]any{"clause": evil, "name": evil, "status": evil, "detail": evil}},
		}}}}}
	in := []Input{{Name: evil, Results: r}}
	page := writeHTML(t, in)
	checkSelfContained(t, page)
	if strings.Contains(page, "<script") || strings.Contains(page, "\x01") {
		t.Error("unescaped markup or control character in the page")
	}
	secs := tpccSections(t, page)
	if len(secs) != 1 {
		t.Fatalf("got %d TPC-C sections, want 1", len(secs))
	}
	if n := strings.Count(secs[0], "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;"); n < 6 {
		t.Errorf("escaped string found %d times in the section, want at least 6", n)
	}
	for _, svg := range svgRE.FindAllString(page, -1) {
		svgtest.Check(t, svg)
	}
	text := writeText(t, in)
	_, section, _ := strings.Cut(text, "\nTPC-C: ")
	for _, l := range strings.Split(section, "\n") {
		if strings.IndexFunc(l, unicode.IsControl) >= 0 {
			t.Errorf("control character in text line %q", l)
		}
	}
	if n := strings.Count(section, `<script>alert("x")</script>&`); n < 6 {
		t.Errorf("string found %d times in the text section, want at least 6", n)
	}
}
