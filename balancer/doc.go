// Package balancer decides, from measured periods, where reads go: each
// policy turns a period's read latencies per side (or per member) and the
// replicas' lag into the share of reads to send to the secondaries, or to
// each member. The policies are the Read Balancer of Decongestant (the
// Decongestant paper, Algorithm 1), the Read Preference Manager (the Read
// Preference Manager poster), Spillway and fixed weights per member, and
// static baselines (primary, secondary, nearest, maxstaleness, a fixed
// fraction); Parse builds one from its spec. A policy is a pure state
// machine: the router feeds it period statistics and lag observations and
// reads back the balance fraction (and, from a Weighted policy, the
// members' weights). Nothing here reads a clock, touches the network or
// starts a goroutine, so every decision can be replayed from a table of
// synthetic periods.
//
//	p, _ := balancer.NewDecongestant(balancer.DefaultConfig())
//	p.ObserveLag(balancer.Lag{Max: 40 * time.Millisecond, Known: true}) // every lag poll
//	d := p.EndPeriod(period)                                            // every 10 s
//	fmt.Println(d.Fraction, d.Ratio, d.Reason)
package balancer
