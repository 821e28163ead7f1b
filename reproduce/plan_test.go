package reproduce

import (
	"slices"
	"strings"
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

// TestSameCommand: two command lines as written are the same shape when
// they run the same: a flag named twice counts once, with its last value
// (the read-hints figures' lines before withFlags), flags in any order;
// another value, another flag or another command is not.
func TestSameCommand(t *testing.T) {
	now := rhCache.Steps(false)[0].Command()
	old := "decongestant bench ycsb --uri {uri} --cluster-dir {dir} --records 1500000 --readkeys 500000 --clients 16 --period 2s --warmup 0s --duration 240s --repeat 3 --policies weights:primary=1 --phases 120s:reads=n2 --hints off,on --cold-start --workload c --distribution uniform --hints off --records 2000000 --readkeys 0 --out {out}/rh-cache-1.json"
	for _, tt := range []struct {
		name string
		a, b string
		want bool
	}{
		{"fig. 10's line of 2026-11-28, its flags named twice", old, now, true},
		{"another order", "decongestant bench ycsb --clients 16 --cold-start --hints off", "decongestant bench ycsb --hints off --cold-start --clients 16", true},
		{"another value", now, strings.Replace(now, "--records 2000000", "--records 1500000", 1), false},
		{"the earlier value winning", strings.Replace(old, "--hints off --records", "--records", 1), now, false},
		{"a switch more", now, now + " --skip-load", false},
		{"another command", "decongestant bench ycsb --clients 16", "decongestant bench tpcc --clients 16", false},
	} {
		if got := SameCommand(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: SameCommand %v, want %v\n%s\n%s", tt.name, got, tt.want, tt.a, tt.b)
		}
	}
}

// TestWithFlags: a flag the arguments give takes the new value in place, a
// new one is appended, a switch before a flag is left alone, and the
// arguments given are not written into.
func TestWithFlags(t *testing.T) {
	args := []string{"bench", "ycsb", "--hints", "off,on", "--cold-start", "--records", "100"}
	got := withFlags(args, flags("hints", "off", "cold-start", "x", "workload", "c"))
	want := []string{"bench", "ycsb", "--hints", "off", "--cold-start", "--records", "100", "--cold-start", "x", "--workload", "c"}
	if !slices.Equal(got, want) {
		t.Errorf("withFlags: %q, want %q", got, want)
	}
	if args[3] != "off,on" {
		t.Errorf("withFlags wrote into its argument: %q", args)
	}
	if strings.Count(strings.Join(rhCache.Steps(false)[0].Args, " "), "--records") != 1 {
		t.Errorf("fig. 10's step names --records more than once: %s", rhCache.Steps(false)[0].Command())
	}
}
