package results

// SoakFlatPct is the growth under which Soak calls the heap and the goroutines
// flat (the soak criterion: growth under 5 % over the last half of the run).
const SoakFlatPct = 5.0

// SoakMinMeasuredS is the least measured time (after the warm-up), in
// seconds, over which Soak gives a verdict: over shorter runs the live heap
// swings more between quarters than the 5 % looked for (the demo's 75 s
// runs: −1 % to +23 % with nothing retained), so Flat stays null while the
// growths are still reported.
const SoakMinMeasuredS = 300.0

// Soak is the verdict on the benchmark process's own heap and goroutines
// over the periods after the warm-up, split in quarters: the growth over the
// last half of the run is the mean of the last quarter minus the mean of the
// second quarter, over the mean of the second quarter, in %. The heap judged
// is the live heap (Period.HeapLiveMB) less the run's own results held so
// far (the periods, events and probe figures the run keeps for its results
// file, which grow with its length by design): the heap's objects (HeapMB)
// swing between the live heap and up to twice it from one garbage
// collection to the next, a noise wider than the 5% looked for.
type Soak struct {
	// Periods are the periods after the warm-up.
	Periods int `json:"periods"`
	// HeapQ2MB and HeapQ4MB are the live heap's means over the second and
	// the last quarter; RecordsQ2MB and RecordsQ4MB those of the run's own
	// results held at each period end, counted as their JSON size (0 in
	// results written before they were counted). HeapGrowthPct is the
	// growth of the live heap less the results (null when not measured:
	// fewer than 4 periods, or none with the figure).
	HeapQ2MB      float64  `json:"heap_q2_mb"`
	HeapQ4MB      float64  `json:"heap_q4_mb"`
	RecordsQ2MB   float64  `json:"records_q2_mb"`
	RecordsQ4MB   float64  `json:"records_q4_mb"`
	HeapGrowthPct *float64 `json:"heap_growth_pct"`
	// GoroutinesQ2, GoroutinesQ4 and GoroutineGrowthPct are the same for
	// the goroutines.
	GoroutinesQ2       float64  `json:"goroutines_q2"`
	GoroutinesQ4       float64  `json:"goroutines_q4"`
	GoroutineGrowthPct *float64 `json:"goroutine_growth_pct"`
	// Flat is true when both grew less than SoakFlatPct (shrinking is
	// flat); null when either growth is, or when fewer than
	// SoakMinMeasuredS seconds were measured.
	Flat *bool `json:"flat"`
}

// ReadsCheck checks that no routed read is lost or counted twice: the
// routed reads the clients made against the router's count of the read
// commands the members answered (router.Served), both from just before the
// first client started to just after the last one stopped, when nothing
// reads through the router (package bench: the S probe and the read hints
// read on clients of their own). Each routed read call sends one read
// command, so the two match exactly unless one of the legitimate
// differences below happened; Match is null then, and Note says which.
type ReadsCheck struct {
	// Routed are the routed read calls (FindOne, Find, Aggregate,
	// CountDocuments, Distinct) that returned to the clients, whatever
	// their outcome; Served the read commands the router counted.
	Routed int64 `json:"routed"`
	Served int64 `json:"served"`
	// Failed are the calls that returned an error: a call that could not
	// reach a member sent no command, one the driver retried sent two.
	Failed int64 `json:"failed"`
	// FailedCommands are the read commands that failed (on the routed
	// client and the members' pools, routed or not): after a failed
	// attempt the driver retries a read, so a call that returned fine may
	// have sent two.
	FailedCommands int64 `json:"failed_commands"`
	// Cancelled are the calls cut off by an interruption, or by a client
	// stopping after its 5 s of grace: whether their command reached a
	// member is not known.
	Cancelled int64 `json:"cancelled"`
	// Units are the multi-query units (workload.Reads.Begin; TPC-C's
	// ORDER_STATUS and STOCK_LEVEL) that finished: the router counts
	// every read command of a unit.
	Units int64 `json:"units"`
	// Match is Served == Routed; null when Failed, FailedCommands,
	// Cancelled or Units is not 0.
	Match *bool  `json:"match"`
	Note  string `json:"note,omitempty"`
}

// Decisions is how punctually a policy with a balancing period decided over
// the measured interval. The router's period loop runs on a ticker; every
// decision event carries the tick it was scheduled for (router.Event.At),
// and the runner notes when the event reached it, just after the policy's
// new fraction or weights took effect.
type Decisions struct {
	// IntervalMS is the policy's balancing period.
	IntervalMS float64 `json:"interval_ms"`
	// Count are the decisions whose tick is in the measured interval, and
	// Missed the ticks in it with no decision (a ticker drops the ticks
	// that come while the loop is still busy with an earlier one).
	Count  int64 `json:"count"`
	Missed int64 `json:"missed"`
	// LateMaxMS is the longest time from a decision's tick to its event
	// reaching the runner.
	LateMaxMS float64 `json:"late_max_ms"`
	// OnTimePct is the share of the interval's ticks decided within a
	// tenth of the period of the tick (missed ticks are late).
	OnTimePct float64 `json:"on_time_pct"`
}
