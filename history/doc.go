// Package history holds the recorded-history format of the consistency
// experiments and the checkers that judge a history. A history is what
// clients did to a set of registers (one MongoDB document per key, holding a
// version, a value and the log of every value written): each operation with
// its client, kind, result, outcome and real-time interval, and the
// registers' final state read with majority after the run.
//
// The package is pure: histories in, reports out. It reads no clock (but
// the duration of the linearizability check), touches no network and knows
// nothing of MongoDB; the recorder lives elsewhere and writes through Writer.
//
// The format is JSONL: a header line, one line per op, the finals, and an
// end line counting the ops, so a truncated file is detected. Write and
// WritePath write a whole history, Writer streams one as ops complete, Read
// and ReadPath read one back (or fail with an error naming the line).
//
// The checkers, each returning a report with JSON tags, counts and examples:
//
//   - CheckLinearizable: linearizability of the registers, by Porcupine,
//     partitioned by key; WriteVisualization draws the smallest failing key.
//   - CheckStaleness: reads that missed a write acknowledged before they were
//     sent (bound RealTime), or more than a bound before (bounded staleness);
//     also reads of not yet acknowledged writes, and phantom reads.
//   - CheckSessions: read your writes, monotonic reads, monotonic writes,
//     writes follow reads, per client and key.
//   - LostWrites: acknowledged writes missing from the final log.
//
// Usage:
//
//	h, err := history.ReadPath("run.jsonl")
//	if err != nil {
//		return err // errors.Is(err, history.ErrMalformed) for a bad file
//	}
//	lin := history.CheckLinearizable(h, time.Minute)
//	if lin.Failure != nil {
//		for _, op := range lin.Failure.Ops {
//			fmt.Println(op)
//		}
//		err = lin.WriteVisualizationPath("linearizability.html")
//	}
//	stale := history.CheckStaleness(h, history.RealTime)
//	bounded := history.CheckStaleness(h, 10*time.Second)
//	sessions := history.CheckSessions(h)
//	lost := history.LostWrites(h)
//
// The recorder streams:
//
//	w := history.NewWriter(f, history.Header{Keys: keys, Started: start})
//	w.Add(op) // from every client, as each op completes
//	err := w.Finish(finals)
package history
