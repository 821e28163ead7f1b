package reproduce

import "testing"

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
