package report_test

import (
	"log"
	"os"

	"github.com/decongestant/decongestant/report"
	"github.com/decongestant/decongestant/results"
)

func ExampleWriteText() {
	bound := 500.0
	r := &results.Results{
		Workload: "ycsb",
		Config: results.Config{Mix: "95/5", Clients: 32, DurationS: 60, PeriodS: 10, WarmupS: 10,
			Repeat: 2, MaxStalenessMS: &bound},
		Runs: []results.Run{
			{Policy: "primary", Summary: results.Summary{ReadTput: 2400, WriteTput: 1700, ReadP80MS: 7.3, ReadP99MS: 22, ReadP999MS: 41, MaxLagMS: 900, Probes: 120}},
			{Policy: "decongestant", Repetition: 0, Summary: results.Summary{ReadTput: 5200, WriteTput: 3600,
				ReadP80MS: 4.7, ReadP99MS: 14, ReadP999MS: 30, SecondaryPct: 30, StalenessP80MS: 270, StalenessMaxMS: 500, MaxLagMS: 850, Probes: 118}},
			{Policy: "decongestant", Repetition: 1, Summary: results.Summary{ReadTput: 5000, WriteTput: 3700,
				ReadP80MS: 4.9, ReadP99MS: 15, ReadP999MS: 34, SecondaryPct: 32, StalenessP80MS: 290, StalenessMaxMS: 530,
				BoundViolations: 1, MaxLagMS: 950, Probes: 121}},
		},
	}
	if err := report.WriteText(os.Stdout, []report.Input{{Name: "run.json", Results: r}}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// run.json: workload ycsb, mix 95/5, 32 clients, duration 60 s (period 10 s, warm-up 10 s), repeat 2, max staleness bound 500 ms
	// policy        runs  read ops/s  relative    write ops/s  read P80 ms  read P99 ms  read P99.9 ms  secondary %  stale P80 ms  stale max ms  violations  max lag ms  errors
	// primary       1     2400        0.47x       1700         7.30         22.0         41.0           0            0             0             0           900         0
	// decongestant  2     5100 ±141   1.00x best  3650 ±70.7   4.80 ±0.14   14.5 ±0.71   32.0 ±2.83     31.0 ±1.41   280 ±14.1     515 ±21.2     0.5 ±0.71   900 ±70.7   0 ±0
}
