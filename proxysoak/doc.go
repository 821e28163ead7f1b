// Package proxysoak is the chaos soak of the proxy behind `decongestant
// proxy-soak`: it runs the proxy as a process of its own (so that its RSS
// and heap are its alone) in front of a local replica set, drives it with
// authenticated connections from the Go driver and pymongo while fault
// actions hit the set and unauthenticated hostile connections hit the
// proxy, then checks, on the replica set itself, that nothing the clients
// were told was done is missing or was done twice, and judges the run
// against its targets.
//
// One job per file:
//
//   - options.go: Options, the fault plan (DefaultSchedule) and its phases.
//   - run.go: Run: the set, the users file, the proxy, and the soak's
//     course: clients, S probe, change stream, faults, hostile connections,
//     checks.
//   - proxyproc.go: the proxy process: start, where it listens, stop.
//   - sampler.go: the proxy's RSS, file descriptors and live heap, sampled.
//   - goclients.go: the Go driver connections; the transaction.
//   - pyclients.go: the pymongo processes (testdata/soak_client.py,
//     embedded) and their records.
//   - recorder.go: latencies by phase, errors by kind, acknowledged ids.
//   - changes.go: the change stream that must see every acknowledged insert.
//   - hostile.go: oversized, slow, flooding and garbage connections.
//   - check.go: the end checks: lost inserts, counters applied twice.
//   - result.go: Result, the results file.
//   - verdict.go: the targets, Judge and the verdict table.
//
// A soak of ten minutes with 200 connections, judged against a baseline
// run without hostile connections:
//
//	base, err := proxysoak.Run(ctx, proxysoak.Options{ProxyCommand: []string{exe, "proxy"},
//		Duration: 10 * time.Minute, Connections: 200, NoHostile: true})
//	...
//	r, err := proxysoak.Run(ctx, proxysoak.Options{ProxyCommand: []string{exe, "proxy"},
//		Duration: 10 * time.Minute, Connections: 200, BaselineP99MS: base.Overall.P99MS})
//	if err != nil {
//		return err // could not run
//	}
//	r.WriteTable(os.Stdout) // r.Pass: every target met
package proxysoak
