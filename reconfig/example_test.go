package reconfig_test

import (
	"fmt"

	"github.com/decongestant/decongestant/reconfig"
	"github.com/decongestant/decongestant/results"
)

// Measure the stepdown of a run: reads at 1000/s, the stepdown at 8 s, a
// dip to 400/s while the new primary's cache warms up, then 950/s.
func ExampleMeasure() {
	cfg := results.Config{Phases: []results.PhaseSpec{{AtS: 8, Actions: []string{"stepdown"}}}}
	var periods []results.Period
	for i, tput := range []float64{1000, 1000, 1000, 1000, 400, 700, 950, 950, 950, 950} {
		periods = append(periods, results.Period{TS: float64(2 * (i + 1)), ReadTput: tput})
	}
	for _, t := range reconfig.Times(cfg) {
		r, ok := reconfig.Measure(periods, t)
		if !ok {
			continue
		}
		fmt.Printf("%s at %gs: %g reads/s before, dip to %g%% at %gs, back after %gs\n",
			r.Cause, r.AtS, r.PreReadTput, *r.DipPct, r.DipAtS, *r.RecoveryS)
	}
	// Output:
	// stepdown at 8s: 1000 reads/s before, dip to 40% at 10s, back after 4s
}
