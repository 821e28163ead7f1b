package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in ../testdata/report and testdata")

const fixturePath = "../testdata/report/fixture.json"

// fixture loads the hand-made results file: 3 policies × 6 periods,
// decongestant repeated twice, null ratios, a phase switch and a bound.
func fixture(t *testing.T) Input {
	t.Helper()
	r, err := results.Read(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	return Input{Name: filepath.Base(fixturePath), Results: r}
}

// golden compares got with testdata/report/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenFile(t, filepath.Join("..", "testdata", "report", name), got)
}

// goldenFile compares got with the file at path, or rewrites it with -update.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	name := filepath.Base(path)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	if len(got)+len(want) > 8000 {
		// Too long to print whole (an HTML page): show the first line that differs.
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end of file)"
		}
		t.Errorf("%s differs from the golden file at line %d (go test ./report -update to accept):\n--- got\n%.600s\n--- want\n%.600s",
			name, i+1, line(gl), line(wl))
		return
	}
	t.Errorf("%s differs from the golden file (go test ./report -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
}

func TestWriteTextGolden(t *testing.T) {
	x := fixture(t)
	tests := []struct {
		golden string
		in     []Input
	}{
		{"text.golden", []Input{x}},
		{"text_two_inputs.golden", []Input{x, {Name: "copy.json", Results: x.Results}}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, tt.in); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, b.Bytes())
		})
	}
}

func TestWriteTextAggregates(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, []Input{fixture(t)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	find := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix+" ") {
				return l
			}
		}
		t.Fatalf("no row for %q in:\n%s", prefix, b.String())
		return ""
	}
	// decongestant: two repetitions with read tput 5180 and 5170 → 5175
	// ±7.07; it is the best, just ahead of secondary (5160, 0.997 → 1.00x).
	dec := find("decongestant")
	for _, want := range []string{" 2 ", "5175 ±7.07", "1.00x best", "0.5 ±0.71"} {
		if !strings.Contains(dec, want) {
			t.Errorf("decongestant row %q lacks %q", dec, want)
		}
	}
	if sec := find("secondary"); !strings.Contains(sec, "1.00x ") || strings.Contains(sec, "best") {
		t.Errorf("secondary row %q: want 1.00x, not best", sec)
	}
	if pr := find("primary"); !strings.Contains(pr, "0.48x") || strings.Contains(pr, "±") || strings.Contains(pr, "best") {
		t.Errorf("primary row %q: want 0.48x, no ±, not best", pr)
	}
}

func TestRelative(t *testing.T) {
	mk := func(vs ...float64) []row {
		rows := make([]row, len(vs))
		for i, v := range vs {
			rows[i].stats = make([]stat, len(columns))
			rows[i].stats[colReadTput] = stat{mean: v, n: 1}
		}
		markRelative(rows)
		return rows
	}
	tests := []struct {
		name string
		vs   []float64
		want []string
	}{
		{"ordinary", []float64{100, 45, 200}, []string{"0.50x", "0.23x", "1.00x best"}},
		{"tie", []float64{10, 10}, []string{"1.00x best", "1.00x best"}},
		{"all zero", []float64{0, 0}, []string{"-", "-"}},
		{"single", []float64{3}, []string{"1.00x best"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, r := range mk(tt.vs...) {
				if got := r.relative(); got != tt.want[i] {
					t.Errorf("row %d: relative = %q, want %q", i, got, tt.want[i])
				}
			}
		})
	}
}

func TestWritersRejectNoInput(t *testing.T) {
	var b bytes.Buffer
	for name, err := range map[string]error{
		"text":    WriteText(&b, nil),
		"html":    WriteHTML(&b, nil),
		"nil res": WriteText(&b, []Input{{Name: "x"}}),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := WriteText(&b, nil); !errors.Is(err, ErrNoInput) {
		t.Errorf("WriteText(nil) = %v, want ErrNoInput", err)
	}
	if _, err := WritePlots(t.TempDir(), nil); !errors.Is(err, ErrNoInput) {
		t.Errorf("WritePlots(nil) = %v, want ErrNoInput", err)
	}
}
