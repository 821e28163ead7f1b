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

// Parse turns the policy specs of the command line (--policy, --policies)
// into policies: each says how it routes (split: a fraction of the reads to
// the secondaries; per-member: a share to each member; or one of the
// driver's read preferences), the secondaries' share it starts with, and
// its staleness bound, if it keeps one. DefaultSettings holds the papers'
// constants and a 10 s bound; here the bound is 2 s. A spillway or weights
// policy starts with every read on the primary, until a lag poll vouches for
// a secondary.
func ExampleParse() {
	settings := balancer.DefaultSettings().WithBound(balancer.Bound{Max: 2 * time.Second})
	for _, spec := range []string{"decongestant", "spillway:deadband=0.5/gain=0.1", "rpm", "secondarypreferred",
		"fixed:0.7", "weights:primary=0.2,n2=0.4,n3=0.4", "maxstaleness:30s", "spillway:gain=3"} {
		p, err := balancer.Parse(spec, settings)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		bound := "-"
		if b, ok := p.(balancer.Bounded); ok {
			bound = b.Bound().String()
		}
		fmt.Printf("%s: %s, secondaries %.2f, bound %s\n", p.Name(), p.Selection().Mode, p.Fraction(), bound)
	}
	// Output:
	// decongestant: split, secondaries 0.10, bound 2s
	// spillway:deadband=0.5/gain=0.1: per-member, secondaries 0.00, bound 2s
	// rpm: split, secondaries 0.10, bound -
	// secondarypreferred: secondarypreferred, secondaries 1.00, bound -
	// fixed:0.7: split, secondaries 0.70, bound -
	// weights:primary=0.2,n2=0.4,n3=0.4: per-member, secondaries 0.00, bound -
	// error: invalid policy "maxstaleness:30s": the drivers require maxStalenessSeconds >= 90s; use decongestant for a tighter bound
	// error: "spillway:gain=3": invalid policy: gain 3 must be in (0, 2]
}

// A Spillway step. A lag poll vouches for two secondaries, which get the
// probe share; then three one-second periods in which the primary's reads
// take 20 ms at the median (it is congested) and the secondaries' 1 ms move
// the primary's share down toward equal marginal cost. A poll that finds n3
// 12 s behind (over the 10 s bound) takes n3's share away at once and gives
// it to n2.
func ExampleSpillway() {
	p, err := balancer.NewSpillway(balancer.DefaultSpillwayConfig()) // 10 s bound
	if err != nil {
		panic(err)
	}
	poll := func(n3Lag time.Duration) balancer.Lag {
		return balancer.Lag{Known: true, Horizon: time.Second, Max: n3Lag, Members: []balancer.MemberLag{
			{Host: "n1:27017", Role: balancer.Primary},
			{Host: "n2:27017", Role: balancer.Secondary, Lag: 100 * time.Millisecond},
			{Host: "n3:27017", Role: balancer.Secondary, Lag: n3Lag},
		}}
	}
	p.ObserveLag(poll(100 * time.Millisecond))
	fmt.Println("vouched:", p.Weights())
	for range 3 {
		w := p.Weights()
		reads := func(share float64) int { return int(1000 * share) } // 1000 reads a period
		d := p.EndPeriod(balancer.Period{Length: time.Second, Members: []balancer.MemberStats{
			{Host: "n1:27017", Role: balancer.Primary, Count: reads(w.Primary), P50: 20 * time.Millisecond},
			{Host: "n2:27017", Role: balancer.Secondary, Count: reads(w.Of("n2:27017")), P50: time.Millisecond},
			{Host: "n3:27017", Role: balancer.Secondary, Count: reads(w.Of("n3:27017")), P50: time.Millisecond},
		}})
		fmt.Printf("%s: %v\n", d.Reason, p.Weights())
	}
	p.ObserveLag(poll(12 * time.Second))
	fmt.Println("n3 stale:", p.Weights())
	// Output:
	// vouched: primary=0.98,n2:27017=0.0098,n3:27017=0.0098
	// spill: primary=0.74,n2:27017=0.13,n3:27017=0.13
	// spill: primary=0.559,n2:27017=0.221,n3:27017=0.221
	// spill: primary=0.422,n2:27017=0.289,n3:27017=0.289
	// n3 stale: primary=0.422,n2:27017=0.578
}

// Each period end of Algorithm 1 in the Decongestant paper: the ratio of the
// primary's to the secondaries' server-side latency (median read time minus
// the round trip) moves the fraction of reads sent to the secondaries up by
// Delta above HighRatio (1.30), down below LowRatio (0.75), and leaves it
// in between, except that after History (4) periods at one fraction it
// explores down.
func ExampleDecongestant_EndPeriod() {
	p, err := balancer.NewDecongestant(balancer.DefaultConfig())
	if err != nil {
		panic(err)
	}
	period := func(primary, secondary time.Duration) balancer.Period {
		return balancer.Period{
			Primary:    balancer.Stats{Count: 900, P50: primary},
			Secondary:  balancer.Stats{Count: 100, P50: secondary},
			PrimaryRTT: 200 * time.Microsecond, SecondaryRTT: 200 * time.Microsecond,
		}
	}
	for _, per := range []balancer.Period{
		period(6200*time.Microsecond, 2200*time.Microsecond), // 6 ms / 2 ms server-side
		period(6200*time.Microsecond, 2200*time.Microsecond),
		period(2200*time.Microsecond, 4200*time.Microsecond), // secondaries now slower
		period(3200*time.Microsecond, 3200*time.Microsecond), // even
		period(3200*time.Microsecond, 3200*time.Microsecond),
		period(3200*time.Microsecond, 3200*time.Microsecond),
		period(3200*time.Microsecond, 3200*time.Microsecond),
	} {
		d := p.EndPeriod(per)
		fmt.Printf("ratio %.2f: %-21s fraction %.1f\n", d.Ratio, d.Reason, d.Fraction)
	}
	// Output:
	// ratio 3.00: primary-congested     fraction 0.2
	// ratio 3.00: primary-congested     fraction 0.3
	// ratio 0.50: secondaries-congested fraction 0.2
	// ratio 1.00: balanced              fraction 0.2
	// ratio 1.00: balanced              fraction 0.2
	// ratio 1.00: balanced              fraction 0.2
	// ratio 1.00: explore-down          fraction 0.1
}
