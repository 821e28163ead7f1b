// Package hints warms the caches of the replica-set members that did not
// serve a read by replaying it on them: the read-hints module of the
// read-hints paper, done from the client. The router appends every routed
// read to a Capture (a double buffer, no allocation on the read path); a
// Module ships the buffer every Config.Interval or at Config.MaxBatch reads,
// Summarise keeps the last read of each distinct query, Plan turns those
// into replays for each target member (sampled to Config.Apply, equality
// reads merged into $in queries), and a Replayer sends them. A Switch turns
// a member's hints off while it is overloaded and back on after.
//
// Applications turn hints on through the router rather than this package:
//
//	r, err := router.Connect(ctx, uri, router.WithHints(hints.DefaultConfig()))
package hints
