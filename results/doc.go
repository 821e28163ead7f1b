// Package results is the contract of decongestant's results JSON: what
// `decongestant bench` writes, what `decongestant report` reads, and what
// users' scripts parse. It holds the types, reading and atomic writing, and
// nothing else, so reading results never links the MongoDB driver.
//
// One file is one bench invocation: the workload, its settings (Config) and
// one Run per (policy, repetition); a Run holds its Periods, Minutes, Events
// and a Summary over the measured interval (after warm-up).
//
//	res, err := results.Read("results.json")
//	if err != nil { ... }
//	for _, run := range res.Runs {
//		fmt.Println(run.Policy, run.Summary.ReadTput, run.Summary.BoundViolations)
//	}
//
// The JSON field names are a contract: new fields may be added, existing ones
// are never renamed.
package results
