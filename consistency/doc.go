// Package consistency measures what a replica set's write and read
// concerns, and where reads go, guarantee in practice: it records histories
// of operations on registers and judges them. It runs the two experiments
// behind `decongestant consistency`:
//
//   - Check records one history under a set of concerns (and, on a local
//     cluster, fault actions), writes it, and judges it with package
//     history's checkers: linearizability per key (Porcupine), real-time
//     staleness and the routed reads' staleness bound, the four session
//     guarantees, and acknowledged writes lost. Violations are in the
//     Verdict, not the error.
//   - RunMatrix runs the consistency thesis' experiment (its section
//     4.2.3): every setup, document size, (w, rc) pair and read target,
//     measuring write latency, read latency and the share of stale reads
//     into a results.Matrix that package report draws.
//
// A check of majority writes and reads routed by the Decongestant policy:
//
//	v, err := consistency.Check(ctx, consistency.CheckOptions{
//		URI:       uri,
//		Registers: registers.Defaults(),
//		Concerns:  consistency.Concerns{W: "majority", RC: "majority", Read: "decongestant"},
//		Settings:  balancer.DefaultSettings(),
//		Out:       "check-out",
//	})
//	if err != nil {
//		return err // could not run or write; not a violation
//	}
//	v.WriteSummary(os.Stdout)
package consistency
