// Package router is decongestant's public library: it wraps a mongo-go-driver
// client connected to a replica set and routes every read to the primary or
// to the secondaries by the balance fraction of a policy (package balancer),
// flipping a biased coin per read. It records each read's latency under the
// read preference used (by default the time its commands spent on a
// checked-out connection, from the driver's command monitoring; seed 000's
// client-observed latency with WithLatencySource), counts which member
// actually served it, measures RTT and replication lag through package
// monitor (polling the primary often enough for the policy's staleness
// bound), stops secondary reads the moment the driver may read from a member
// no lag poll vouches for, and feeds the policy every period and every lag
// poll. Writes go through Client() to the primary unchanged.
//
// A Router is safe for concurrent use; the per-read cost of routing is about
// 100 ns and one allocation (BenchmarkRoute).
package router
