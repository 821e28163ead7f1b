package results_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/decongestant/decongestant/results"
)

// Read a results file and compare the policies' measured throughput and
// staleness violations, as a user's script would.
func ExampleRead() {
	dir, _ := os.MkdirTemp("", "results-example-")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "results.json")
	written := &results.Results{Workload: "ycsb", Runs: []results.Run{
		{Policy: "primary", Summary: results.Summary{ReadTput: 1708}},
		{Policy: "decongestant", Summary: results.Summary{ReadTput: 4696, SecondaryPct: 82.5}},
	}}
	if err := written.WriteJSONPath(path); err != nil { // atomically: temp file + rename
		fmt.Println(err)
		return
	}

	res, err := results.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, run := range res.Runs {
		fmt.Printf("%-12s %6.0f reads/s, %4.1f%% on secondaries, %d violations\n",
			run.Policy, run.Summary.ReadTput, run.Summary.SecondaryPct, run.Summary.BoundViolations)
	}
	// Output:
	// primary        1708 reads/s,  0.0% on secondaries, 0 violations
	// decongestant   4696 reads/s, 82.5% on secondaries, 0 violations
}
