package balancer_test

import (
	"fmt"
	"time"

	"github.com/decongestant/decongestant/balancer"
)

// A congested primary: reads on it take 8 ms at the median, reads on the
// secondaries 2 ms, so the balancer moves 10% more reads to the secondaries
// each period, until a secondary lags past the bound.
func ExampleDecongestant() {
	cfg := balancer.DefaultConfig() // the Decongestant paper's constants, 10 s bound, headroom from each poll
	p, err := balancer.NewDecongestant(cfg)
	if err != nil {
		panic(err)
	}
	congested := balancer.Period{
		Primary:   balancer.Stats{Count: 5000, P50: 8 * time.Millisecond},
		Secondary: balancer.Stats{Count: 500, P50: 2 * time.Millisecond},
	}
	for range 3 {
		d := p.EndPeriod(congested)
		fmt.Printf("fraction %.1f ratio %.1f %s\n", d.Fraction, d.Ratio, d.Reason)
	}
	fmt.Printf("lag 12s: fraction %.1f\n", p.ObserveLag(balancer.Lag{Max: 12 * time.Second, Known: true}))
	fmt.Printf("lag 50ms: fraction %.1f\n", p.ObserveLag(balancer.Lag{Max: 50 * time.Millisecond, Known: true}))
	// Output:
	// fraction 0.2 ratio 4.0 primary-congested
	// fraction 0.3 ratio 4.0 primary-congested
	// fraction 0.4 ratio 4.0 primary-congested
	// lag 12s: fraction 0.0
	// lag 50ms: fraction 0.4
}

func ExampleParse() {
	for _, spec := range []string{"decongestant", "fixed:0.7", "maxstaleness:30s"} {
		p, err := balancer.Parse(spec, balancer.DefaultSettings())
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(p.Name(), p.Selection().Mode, p.Fraction())
	}
	// Output:
	// decongestant split 0.1
	// fixed:0.7 split 0.7
	// error: invalid policy "maxstaleness:30s": the drivers require maxStalenessSeconds >= 90s; use decongestant for a tighter bound
}
