package reproduce

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/results"
)

// writeCapacity writes a capacity step's results: primary runs at the
// given client counts and throughputs (reads, writes a second).
func writeCapacity(t *testing.T, dir, name string, runs ...results.Run) {
	t.Helper()
	if err := (&results.Results{Config: results.Config{Clients: 1}, Runs: runs}).WriteJSONPath(filepath.Join(dir, name+".json")); err != nil {
		t.Fatal(err)
	}
}

func capRun(policy string, clients int, reads, writes float64) results.Run {
	return results.Run{Policy: policy, Clients: clients, Summary: results.Summary{ReadTput: reads, WriteTput: writes}}
}

func TestFillRateTakesAShareOfTheBestCount(t *testing.T) {
	dir := t.TempDir()
	// the best count is 3 clients: (160+150 + 160+130) / 2 = 300 operations a second
	writeCapacity(t, dir, "capacity-a", capRun("primary", 1, 140, 140), capRun("primary", 3, 160, 150),
		capRun("primary", 3, 160, 130), capRun("primary", 11, 120, 130))
	args := []string{"--phases", "200s:workload=a,clients=1,rate=" + Rate(0.4, "capacity-a"), "--clients", "11"}
	got, err := FillRate(args, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--phases", "200s:workload=a,clients=1,rate=120", "--clients", "11"}; !slices.Equal(got, want) {
		t.Errorf("filled %q, want %q", got, want)
	}
	// an argument without a placeholder is left as it is
	if got, err := FillRate([]string{"--rate", "50"}, dir); err != nil || got[1] != "50" {
		t.Errorf("plain rate changed: %q, %v", got, err)
	}
	// a tiny share still offers one operation a second
	if got, err := FillRate([]string{Rate(0.0001, "capacity-a")}, dir); err != nil || got[0] != "1" {
		t.Errorf("tiny share: %q, %v", got, err)
	}
}

func TestFillRateNeedsItsCapacityStep(t *testing.T) {
	dir := t.TempDir()
	if _, err := FillRate([]string{Rate(0.4, "capacity-a")}, dir); err == nil || !strings.Contains(err.Error(), "needs the output of the step") {
		t.Errorf("no capacity output: err %v", err)
	}
	writeCapacity(t, dir, "mixed", capRun("primary", 1, 100, 100), capRun("secondary", 1, 300, 0))
	if _, err := FillRate([]string{Rate(0.4, "mixed")}, dir); err == nil || !strings.Contains(err.Error(), "primary only") {
		t.Errorf("a capacity step of another policy: err %v", err)
	}
	writeCapacity(t, dir, "empty")
	if _, err := FillRate([]string{Rate(0.4, "empty")}, dir); err == nil {
		t.Error("a capacity step without runs filled without an error")
	}
}

// TestRatesReadAnEarlierStep: every rate placeholder of an experiment reads
// the output of a step that runs before its own, one that runs primary
// alone and is not drawn as the figure's report; fig. 3's light phase is
// one of them.
func TestRatesReadAnEarlierStep(t *testing.T) {
	n := 0
	for _, e := range Experiments(Figures()) {
		for _, q := range []bool{true, false} {
			before := map[string]Step{}
			for _, s := range e.AllSteps(q) {
				for _, out := range rateOutputs(s.Args) {
					n++
					c, ok := before[out]
					if !ok {
						t.Errorf("%s: %s reads the capacity %q, which no earlier step writes", e.Name, s.Command(), out)
						continue
					}
					if !strings.Contains(c.Command(), "--policies primary ") {
						t.Errorf("%s: the capacity step %s does not run primary alone", e.Name, c.Command())
					}
					if c.Report {
						t.Errorf("%s: the capacity step %s is drawn as a report: the figure's report link would show it, not the figure's runs", e.Name, c.Command())
					}
				}
				if s.Output != "" {
					before[s.Output] = s
				}
			}
		}
	}
	if n < 6 {
		t.Errorf("%d rate placeholders in all experiments (quick and full), want fig. 3's two and fig. 4's four", n)
	}
}

// TestScaledFiguresRunALightProbe: where the runs are scaled to the
// primary's capacity (a saturation probe first, or a rate from a capacity
// step), the S probe beside them writes at most 20 times a second: at its
// default 200 it took most of a 0.35-CPU primary's cap, which the probe
// and the capacity steps measured without it.
func TestScaledFiguresRunALightProbe(t *testing.T) {
	n := 0
	for _, e := range Experiments(Figures()) {
		for _, q := range []bool{true, false} {
			rated := slices.ContainsFunc(e.Steps(q), func(s Step) bool { return len(rateOutputs(s.Args)) > 0 })
			if e.Saturate == nil && !rated {
				continue
			}
			for _, s := range e.Steps(q) {
				if !slices.Contains(s.Args, "--sprobe") {
					continue
				}
				n++
				i := slices.Index(s.Args, "--sprobe-write-interval")
				if i < 0 {
					t.Errorf("%s: %s runs the S probe at its default 200 writes a second", e.Name, s.Command())
					continue
				}
				if d, err := time.ParseDuration(s.Args[i+1]); err != nil || d < 50*time.Millisecond {
					t.Errorf("%s: S probe writes every %s, want 50ms or more", e.Name, s.Args[i+1])
				}
			}
		}
	}
	if n < 10 {
		t.Errorf("%d scaled steps with the S probe, want figs. 2-6, quick and full", n)
	}
}
