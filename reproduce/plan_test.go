package reproduce

import (
	"slices"
	"testing"
)

// TestRanThisShape: a run's commands are this code's shape when they are
// its steps (the sets' `cluster up` lines aside) or the first of them; the
// closed-loop fig. 4 that ran on 2026-11-27, before its light phases were
// held to a rate, is not, and neither is the quick shape judged as full.
func TestRanThisShape(t *testing.T) {
	var commands []string
	for _, s := range dcFig4.AllSteps(false) {
		commands = append(commands, s.Command())
	}
	up := "decongestant cluster up --dir {dir} --cpu 0.35"
	old := "decongestant bench tpcc --uri {uri} --cluster-dir {dir} --mix readwrite --period 5s --balancer-period 5s --warehouses 20 --sprobe --clients 20 --max-staleness 10s " +
		`--phases "120s:clients=200;240s:clients=20" --duration 360s --repeat 3 --warmup 0s --policies primary,secondary,decongestant --out {out}/fig4.json`
	var quick []string
	for _, s := range dcFig4.AllSteps(true) {
		quick = append(quick, s.Command())
	}
	for _, tt := range []struct {
		name string
		ran  []string
		want bool
	}{
		{"this code's full shape", append([]string{up}, commands...), true},
		{"stopped after its first step", []string{up, commands[0]}, true},
		{"the closed-loop shape of 2026-11-27", []string{up, old}, false},
		{"the quick shape", append([]string{up}, quick...), false},
		{"a step more", append(append([]string{up}, commands...), commands[0]), false},
	} {
		if got := dcFig4.RanThisShape(tt.ran, false); got != tt.want {
			t.Errorf("%s: RanThisShape %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCheckedOnce: the poster's sweep runs its TPC-C runs unchecked and
// then TPC-C's consistency checks once, on the same set, keeping their
// results; the step it was given is left as it was.
func TestCheckedOnce(t *testing.T) {
	for _, quick := range []bool{true, false} {
		steps := rpmSweep.Steps(quick)
		if len(steps) != 2 {
			t.Fatalf("quick %v: %d steps, want the sweep and its check", quick, len(steps))
		}
		run, check := steps[0], steps[1]
		if run.Args[0] != "bench" || run.Args[1] != "tpcc" || !slices.Contains(run.Args, "--check=false") {
			t.Errorf("quick %v: the sweep %q still checks after every run", quick, run.Command())
		}
		want := "decongestant tpcc check --uri {uri} --json {out}/rpm-check.json"
		if check.Command() != want || check.Output != "rpm-check" {
			t.Errorf("quick %v: after the sweep %q (output %q), want %q (output rpm-check)", quick, check.Command(), check.Output, want)
		}
	}
	orig := Step{Args: make([]string, 2, 8)}
	copy(orig.Args, []string{"bench", "tpcc"})
	got := checkedOnce("x", orig)
	got[0].Args[2] = "changed"
	if orig.Args[:3][2] != "" {
		t.Errorf("checkedOnce wrote into its argument's array: %q", orig.Args[:3])
	}
}
