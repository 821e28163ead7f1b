// Package router is decongestant's public library: it wraps a mongo-go-driver
// client connected to a replica set and routes every read by a policy (package
// balancer). The Decongestant paper's policies give a balance fraction: each
// read flips a biased coin between read preference primary and secondary, and
// the driver picks the secondary. Per-member policies (leastwait, Spillway, weights:) give
// a share per member: the primary's share is read with read preference primary,
// each secondary's on a direct connection pool of its own, so the router
// chooses the member of every read on any replica set; a causally consistent
// session in a unit's context is carried across pools.
//
// The router records each read's latency (by default the time its commands
// spent on a checked-out connection, from the driver's command monitoring; the
// Decongestant paper's client-observed latency with WithLatencySource) under
// its side and under the member that actually served it, measures RTT and
// replication lag through package monitor (polling often enough for the
// policy's staleness bound: the primary's replSetGetStatus, else a heartbeat
// document it writes on the primary and reads on every secondary for a user
// with readWrite only, else every member's hello), stops secondary reads the
// moment the driver may read from a member no lag poll vouches for, and feeds
// the policy every period and every lag poll. Writes go through Client() to the
// primary unchanged.
//
// Stats returns one snapshot of what the router does (the policy's shares,
// the reads each member served and their latest period, the latest lag
// poll, decisions by reason, what the staleness bound did), cheap enough for
// every scrape; package router/routermetrics exports it to Prometheus.
// WithLogger logs decisions and changes with log/slog.
//
// A Router is safe for concurrent use; routing costs about 0.4 µs and one
// allocation per read (BenchmarkRoute, both kinds of policy).
package router
