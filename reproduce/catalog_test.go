package reproduce

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// seedsDir is where the papers' plain-text copies are: ../shared/seeds
// beside the repository, or $DECONGESTANT_SEEDS.
func seedsDir(t *testing.T) string {
	if d := os.Getenv("DECONGESTANT_SEEDS"); d != "" {
		return d
	}
	d, err := filepath.Abs(filepath.Join("..", "..", "shared", "seeds"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Skipf("the papers' texts are not beside the repository (%v); set DECONGESTANT_SEEDS", err)
	}
	return d
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestSourcesQuoteThePapers checks every transcribed caption and number
// against the line of the paper it names.
func TestSourcesQuoteThePapers(t *testing.T) {
	dir := seedsDir(t)
	texts := map[*Paper][]string{}
	for _, p := range Papers {
		texts[p] = readLines(t, filepath.Join(dir, p.File))
	}
	check := func(where string, p *Paper, s Source) {
		t.Helper()
		lines := texts[p]
		if s.Line < 1 || s.Line > len(lines) {
			t.Errorf("%s: line %d is outside %s (%d lines)", where, s.Line, p.File, len(lines))
			return
		}
		if s.Quote == "" || !strings.Contains(lines[s.Line-1], s.Quote) {
			t.Errorf("%s: line %d of %s does not contain %q", where, s.Line, p.File, s.Quote)
		}
	}
	n := 0
	for _, f := range Figures() {
		check(f.Name()+" caption", f.Paper, f.Source)
		if e := f.Experiment; e != nil && e.Saturate != nil {
			s := e.Saturate
			check(f.Name()+" saturation point", f.Paper, s.Source)
			if !strings.Contains(s.Source.Quote, strconv.Itoa(s.Paper)) {
				t.Errorf("%s: the saturation point %d is not printed in %q", f.Name(), s.Paper, s.Source.Quote)
			}
		}
		for _, c := range f.Claims {
			check(f.Name()+" "+c.Text, f.Paper, c.Source)
			n++
		}
	}
	if n < 40 {
		t.Errorf("only %d claims checked; the catalogue lost some", n)
	}
}

// TestPaperNumbersMatchTheirLines checks that each number the paper
// prints (a claim whose words hold a digit) is on the claim's source line,
// and, for a ratio or a difference, that the two numbers it comes from
// are.
func TestPaperNumbersMatchTheirLines(t *testing.T) {
	n := 0
	for _, f := range Figures() {
		for _, c := range f.Claims {
			if c.Kind != Approx || !strings.ContainsAny(c.PaperText, "0123456789") {
				continue
			}
			n++
			num := strconv.FormatFloat(c.Paper, 'g', -1, 64)
			switch c.Unit {
			case "×": // a ratio: the paper's two numbers, or its own "2.5 times"
				if strings.Contains(c.Source.Quote, num) || strings.Contains(c.PaperText, num) {
					continue
				}
				if pct, ok := percentChange(c.Source.Quote); ok && math.Abs(pct-c.Paper) < 1e-9 {
					continue
				}
				a, b, ok := twoNumbers(c.PaperText)
				if !ok || math.Abs(a/b-c.Paper) > 1e-9 || !strings.Contains(c.Source.Quote, strconv.FormatFloat(a, 'g', -1, 64)) {
					t.Errorf("%s %q: ratio %v is not the paper's %q on its line %q", f.Name(), c.Text, c.Paper, c.PaperText, c.Source.Quote)
				}
			case "points": // a difference of two printed percentages
				a, b, ok := twoNumbers(c.PaperText)
				if !ok || math.Abs(a-b-c.Paper) > 1e-9 || !strings.Contains(c.Source.Quote, strconv.FormatFloat(a, 'g', -1, 64)) {
					t.Errorf("%s %q: difference %v is not the paper's %q on its line %q", f.Name(), c.Text, c.Paper, c.PaperText, c.Source.Quote)
				}
			default:
				if a, b, ok := twoNumbers(c.Source.Quote); ok && c.Abs && (a+b)/2 == c.Paper && c.Tol == math.Abs(a-b)/2 {
					continue // a range, "between 60% and 40%": its middle, give or take half its width
				}
				if !strings.Contains(c.Source.Quote, num+"%") && !strings.Contains(c.Source.Quote, num+" ") {
					t.Errorf("%s %q: %s is not printed in %q", f.Name(), c.Text, num, c.Source.Quote)
				}
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d printed numbers checked", n)
	}
}

// twoNumbers are the first two numbers in s.
func twoNumbers(s string) (a, b float64, ok bool) {
	var nums []float64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') }) {
		if v, err := strconv.ParseFloat(strings.Trim(f, "."), 64); err == nil {
			nums = append(nums, v)
		}
	}
	if len(nums) < 2 {
		return 0, 0, false
	}
	return nums[0], nums[1], true
}

func TestCatalogue(t *testing.T) {
	seenExp := map[string]*Experiment{}
	for _, f := range Figures() {
		if f.Paper == nil || f.ID == "" || f.Caption == "" {
			t.Errorf("%+v: paper, id and caption are required", f)
		}
		switch f.Status {
		case Runs, Scaled:
			if f.Experiment == nil {
				t.Errorf("%s: status %v without an experiment", f.Name(), f.Status)
			}
			if len(f.Claims) == 0 {
				t.Errorf("%s: runs but compares nothing with the paper", f.Name())
			}
		case CannotRun, Diagram:
			if f.Experiment != nil {
				t.Errorf("%s: status %v with an experiment", f.Name(), f.Status)
			}
			if f.Status == CannotRun && f.Note == "" {
				t.Errorf("%s: cannot run without saying what it would take", f.Name())
			}
		}
		if f.Status == Scaled && f.Note == "" {
			t.Errorf("%s: scaled without saying how", f.Name())
		}
		if e := f.Experiment; e != nil {
			if other, ok := seenExp[e.Name]; ok && other != e {
				t.Errorf("two experiments named %s", e.Name)
			}
			seenExp[e.Name] = e
			for _, quick := range []bool{true, false} {
				steps := e.Steps(quick)
				if len(steps) == 0 {
					t.Errorf("%s: no steps (quick %v)", e.Name, quick)
				}
				outputs := map[string]bool{}
				for _, s := range steps {
					if s.Output != "" {
						outputs[s.Output] = true
					}
					for _, a := range s.Args {
						if a == "" {
							t.Errorf("%s: empty argument in %s", e.Name, s.Command())
						}
					}
				}
				if len(outputs) == 0 {
					t.Errorf("%s: no step writes an output to judge", e.Name)
				}
			}
		}
		for _, pl := range f.Plots {
			found := false
			for _, st := range f.Experiment.Steps(false) {
				found = found || (st.Output == pl.Output && st.Report)
			}
			if !found {
				t.Errorf("%s: plot %s is of no reported step of %s", f.Name(), pl.Path(), f.Experiment.Name)
			}
		}
		for _, c := range f.Claims {
			if c.Measure == nil || c.Kind == 0 || c.PaperText == "" {
				t.Errorf("%s %q: measure, kind and the paper's words are required", f.Name(), c.Text)
			}
		}
	}
	// The list: these must be reproducible here.
	for _, name := range []string{"decongestant fig2", "decongestant fig5", "decongestant fig11", "decongestant table1",
		"rpm fig2", "rpm fig5", "tpcc fig1", "tpcc fig2", "tpcc fig3", "consistency matrix",
		"read-hints fig7", "read-hints fig8", "read-hints fig10", "read-hints fig15", "read-hints table1"} {
		p, id, _ := strings.Cut(name, " ")
		f, err := Find(p, id)
		if err != nil {
			t.Errorf("Find(%s): %v", name, err)
			continue
		}
		if !f.Runnable() {
			t.Errorf("%s does not run", name)
		}
	}
}

func TestFind(t *testing.T) {
	f, err := Find("decongestant", "5")
	if err != nil || f.ID != "fig5" {
		t.Fatalf("Find(decongestant, 5) = %v, %v; want fig5", f, err)
	}
	if _, err := Find("edbt2021", "fig5"); err == nil || !strings.Contains(err.Error(), "decongestant, rpm, tpcc, consistency, read-hints") {
		t.Errorf("unknown paper: %v; want the valid ones listed", err)
	}
	if _, err := Find("rpm", "fig9"); err == nil || !strings.Contains(err.Error(), "fig2, fig3, fig4, fig5") {
		t.Errorf("unknown figure: %v; want the paper's figures listed", err)
	}
}

// percentChange reads "N% higher" as 1+N/100 and "N% less" or "N%
// reduction" as 1-N/100.
func percentChange(s string) (float64, bool) {
	for _, dir := range []struct {
		word string
		sign float64
	}{{"% higher", 1}, {"% less", -1}, {"% reduction", -1}} {
		i := strings.Index(s, dir.word)
		if i < 0 {
			continue
		}
		j := i
		for j > 0 && (s[j-1] >= '0' && s[j-1] <= '9' || s[j-1] == '.') {
			j--
		}
		v, err := strconv.ParseFloat(s[j:i], 64)
		if err != nil {
			return 0, false
		}
		return 1 + dir.sign*v/100, true
	}
	return 0, false
}

// TestTPCCWarehousesCoverThreads: every full-shape TPC-C run keeps at
// most 10 clients per warehouse, TPC-C's terminals (more measure Payment's
// write conflicts on the warehouse documents, not the figure's effect),
// and the TPC-C-on-MongoDB paper's figs. 1-3 no more threads than
// warehouses, as that paper ran. Scaled client counts are checked at the
// paper's own (the most a scaling can give).
func TestTPCCWarehousesCoverThreads(t *testing.T) {
	phaseClients := regexp.MustCompile(`clients=([0-9]+)`)
	n := 0
	for _, e := range Experiments(Figures()) {
		perThread := 10
		if e == tpccThreads || e == tpccSchema || e == tpccFAM {
			perThread = 1
		}
		for _, s := range e.AllSteps(false) {
			if len(s.Args) < 2 || s.Args[0] != "bench" || s.Args[1] != "tpcc" {
				continue
			}
			args, err := FillClients(s.Args, &Scaling{Ours: 1, Paper: 1})
			if err != nil {
				t.Fatal(err)
			}
			wh, most := 0, 0
			for i, a := range args {
				if a == "--warehouses" && i+1 < len(args) {
					wh, _ = strconv.Atoi(args[i+1])
				}
				if a == "--clients" && i+1 < len(args) {
					for _, c := range strings.Split(args[i+1], ",") {
						v, _ := strconv.Atoi(c)
						most = max(most, v)
					}
				}
				for _, m := range phaseClients.FindAllStringSubmatch(a, -1) {
					v, _ := strconv.Atoi(m[1])
					most = max(most, v)
				}
			}
			n++
			if wh == 0 || most == 0 || most > perThread*wh {
				t.Errorf("%s: %d clients on %d warehouses (at most %d a warehouse): %s", e.Name, most, wh, perThread, s.Command())
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d TPC-C steps checked", n)
	}
}

// TestCausesNameTheirRuns: a claim's cause names the committed run that
// established it (a directory under docs/results), so a reader can check it
// and a mistyped or removed run fails here.
func TestCausesNameTheirRuns(t *testing.T) {
	dirs, err := os.ReadDir("../docs/results")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range Figures() {
		for _, c := range f.Claims {
			if c.Cause == "" {
				continue
			}
			n++
			named := 0
			for _, d := range dirs {
				if d.IsDir() && strings.Contains(c.Cause, d.Name()) {
					named++
				}
			}
			if named == 0 {
				t.Errorf("%s, %q: the cause names no run committed under docs/results: %s", f.Name(), c.Text, c.Cause)
			}
		}
	}
	if n == 0 {
		t.Error("no claim carries a cause")
	}
}
