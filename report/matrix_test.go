package report

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/internal/svgtest"
	"github.com/decongestant/decongestant/results"
)

var matrixOut = flag.String("matrix-out", "", "also write the synthetic matrix page here, to look at")

// spreadOf is the spread of two iterations at 0.9 v and 1.1 v.
func spreadOf(v float64) results.Spread {
	return results.Spread{N: 2, Mean: v, Min: 0.9 * v, Max: 1.1 * v, Stdev: math.Sqrt2 * 0.1 * v}
}

// syntheticMatrix is a small matrix whose numbers follow simple rules, so
// the findings have known values: rc linearizable adds 1.5 ms to writes
// and 30 ms to reads over majority (0.5 ms); w 1 with rc majority reads
// 40 % stale, secondaries with rc local 10 %; 2 writers + 10 readers add
// 10 ms to writes and 2 points of staleness where there is some; 1 MB
// documents add 20 ms to writes and 5 % to reads.
func syntheticMatrix() *results.Matrix {
	m := &results.Matrix{
		Config: results.MatrixConfig{URI: "mongodb://127.0.0.1:27017/?replicaSet=rs0",
			Setups: []results.MatrixSetup{{Name: "operation", Writers: 1, Readers: 1, Concerns: "operation"},
				{Name: "multi", Writers: 2, Readers: 10, Concerns: "operation"}},
			Sizes: []int{1024, 1 << 20}, W: []string{"1", "majority"}, RC: []string{"majority", "linearizable"},
			Reads: []string{"primary", "secondary"}, Iterations: 2, Writes: 25, WriteIntervalMs: 20, ReadIntervalMs: 1,
			MaxStaleness: "10s"},
		MongodVersion: "6.0.5", StartedAt: "2026-11-23T03:00:00Z", WallS: 754,
	}
	for _, s := range m.Config.Setups {
		for _, size := range m.Config.Sizes {
			for _, w := range m.Config.W {
				for _, rc := range m.Config.RC {
					for _, read := range m.Config.Reads {
						c := results.MatrixCell{Setup: s.Name, DocSize: size, W: w, RC: rc, Read: read}
						if rc == "linearizable" && read != "primary" {
							c.Skipped = "MongoDB serves linearizable reads only on the primary"
							m.Cells = append(m.Cells, c)
							continue
						}
						write, read1, stale := 2.0, 1.0, 0.0
						if w == "majority" {
							write += 3
						}
						if rc == "linearizable" {
							write, read1 = write+1.5, read1+30
						} else {
							read1 += 0.5
						}
						if w == "1" && rc == "majority" {
							stale = 40
						}
						if s.Name == "multi" {
							write += 10
							if stale > 0 {
								stale += 2
							}
						}
						if size > 1024 {
							write, read1 = write+20, read1*1.05
						}
						c.Summary = results.MatrixSummary{Iterations: 2,
							WriteMean: spreadOf(write), WriteP50: spreadOf(0.8 * write), WriteP99: spreadOf(3 * write),
							ReadMean: spreadOf(read1), ReadP50: spreadOf(0.8 * read1), ReadP99: spreadOf(4 * read1),
							StalePct: spreadOf(stale), StaleVersionsMax: spreadOf(math.Ceil(stale / 10)), StaleMsMax: spreadOf(stale * 2),
							UnacknowledgedPct: spreadOf(1), Reads: spreadOf(300), Writes: spreadOf(25)}
						c.Iterations = make([]results.MatrixIteration, 2)
						m.Cells = append(m.Cells, c)
					}
				}
			}
		}
	}
	// One failed cell: drawn as "failed", not as zero.
	c := m.Find("multi", 1<<20, "majority", "majority", "secondary")
	c.Summary, c.Iterations, c.Failed = results.MatrixSummary{}, nil, []string{"registers: drop registers: no primary", "same"}
	return m
}

// sampleFindings are two findings as reproduce judges them: the page
// draws what it is given.
var sampleFindings = []ThesisFinding{
	{Text: "§5.1 baseline concurrency: rc linearizable instead of majority raises read latency", Thesis: "+32 ms",
		Ours: "30.2 ± 3.18 (n=3) ms", Verdict: "agrees", Rule: "95 % CI [27.1, 33.4] of n=3 against 16.0 to 64.0 (within 2.00× of 32.0): inside", Class: "agree"},
	{Text: "§5.1 baseline concurrency: rc majority has more stale reads than linearizable", Thesis: "1.67 points",
		Ours: "20.0 ± 1.00 (n=3) pp", Verdict: "same direction", Rule: "95 % CI [19.0, 21.0] of n=3 against 0.835 to 3.34 (within 2.00× of 1.67): outside, on the paper's side of 0", Class: "partial",
		Note: "the thesis' reading (also counting the reads that returned a write before its acknowledgement): 21.5 ± 1.20 (n=3) pp"},
}

func writeMatrixPage(t *testing.T, m *results.Matrix) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteMatrixHTML(&b, m, sampleFindings); err != nil {
		t.Fatal(err)
	}
	if *matrixOut != "" {
		if err := os.WriteFile(*matrixOut, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestMatrixHTML: the page has the thesis' figures per setup, metric and
// size, valid inline SVG only, the skipped and failed cells marked, and the
// findings table; the whole page is pinned by a golden file.
func TestMatrixHTML(t *testing.T) {
	m := syntheticMatrix()
	page := writeMatrixPage(t, m)
	checkSelfContained(t, page)
	plots := plotsOf(t, page)
	if len(plots) != 2*3*2 {
		t.Errorf("%d plots, want 12 (2 setups x 3 metrics x 2 sizes)", len(plots))
	}
	for id, svgs := range plots {
		if len(svgs) != 1 {
			t.Errorf("plot %s drawn %d times", id, len(svgs))
		}
		svgtest.Check(t, svgs[0])
	}
	read := one(t, plots, "matrix-operation-read-1K")
	// 4 pairs x 2 reads, 2 skipped: 6 bars; the primary's linearizable bars
	// are the tallest.
	if n := strings.Count(read, `<rect class="bar"`); n != 6 || strings.Count(read, ">n/a</text>") != 2 {
		t.Errorf("read figure: %d bars, %d n/a", n, strings.Count(read, ">n/a</text>"))
	}
	if stale := one(t, plots, "matrix-multi-stale-1M"); strings.Count(stale, ">failed</text>") != 1 {
		t.Error("the failed cell is not marked in its figure")
	}
	for _, want := range []string{
		"The consistency thesis beside this machine", "&#43;32 ms", // html/template writes + as &#43;
		"30.2 ± 3.18 (n=3) ms", `<td class="l agree">agrees<div class="rule">95 % CI [27.1, 33.4]`,
		`<td class="l partial">same direction<div class="rule">`,
		"n/a", "failed: registers: drop registers: no primary; same", "6.0.5", "12 min 34 s",
		"Operation-level concerns (the consistency thesis, figs 4.3-4.9)", "Multiple readers and writers (the consistency thesis, figs 4.17-4.23)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	goldenFile(t, filepath.Join("testdata", "matrix_html.golden"), []byte(page))

	// A matrix file from elsewhere whose URI keeps its secrets: the page does not.
	m.Config.URI = "mongodb://u:xxxxx@h1/?replicaSet=rs0&proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n"
	var secret bytes.Buffer
	if err := WriteMatrixHTML(&secret, m, sampleFindings); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(secret.String(), "mongodb://REDACTED@h1/?replicaSet=rs0&amp;proxyPassword=REDACTED&amp;authMechanismProperties=REDACTED") ||
		strings.Contains(secret.String(), "xxxxx") || strings.Contains(secret.String(), "s3cret") || strings.Contains(secret.String(), "tok3n") {
		t.Error("the page shows a secret of the URI, or not the URI redacted")
	}
	m.Config.URI = syntheticMatrix().Config.URI

	var text bytes.Buffer
	if err := WriteMatrixText(&text, m, sampleFindings); err != nil {
		t.Fatal(err)
	}
	goldenFile(t, filepath.Join("testdata", "matrix_text.golden"), text.Bytes())
}

func TestMatrixWritersRefuseNoSetups(t *testing.T) {
	for _, m := range []*results.Matrix{nil, {}} {
		if err := WriteMatrixHTML(&bytes.Buffer{}, m, nil); err == nil {
			t.Error("HTML of an empty matrix")
		}
		if err := WriteMatrixText(&bytes.Buffer{}, m, nil); err == nil {
			t.Error("text of an empty matrix")
		}
	}
}
