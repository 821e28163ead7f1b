package history_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/decongestant/decongestant/history"
)

// A secondary served a read 10 ms after the primary acknowledged a newer
// write: the history is not linearizable, the read is stale in real time but
// within a 100 ms staleness bound, and the writer's own session is intact.
func Example() {
	const ms = int64(time.Millisecond)
	h := history.History{
		Header: history.Header{Keys: []string{"x"}},
		Ops: []history.Op{
			{Client: 1, Key: "x", Kind: history.KindWrite, Value: 1, Version: 1, Outcome: history.OutcomeOK, Invoke: 0, Complete: 10 * ms},
			{Client: 1, Key: "x", Kind: history.KindWrite, Value: 2, Version: 2, Outcome: history.OutcomeOK, Invoke: 20 * ms, Complete: 30 * ms},
			{Client: 2, Key: "x", Kind: history.KindRead, Value: 1, Version: 1, Outcome: history.OutcomeOK, Invoke: 40 * ms, Complete: 50 * ms, Member: "h:27018"},
		},
		Final: []history.Final{{Key: "x", Version: 2, Value: 2, Log: []int64{1, 2}}},
	}

	// The recorder's file, written and read back.
	var file bytes.Buffer
	if err := history.Write(&file, h); err != nil {
		panic(err)
	}
	h, err := history.Read(&file)
	if err != nil {
		panic(err)
	}

	lin := history.CheckLinearizable(h, time.Minute)
	fmt.Println("linearizable:", lin.Result)
	if lin.Failure != nil {
		for _, op := range lin.Failure.Ops {
			fmt.Println(" ", op)
		}
	}
	for _, b := range []time.Duration{history.RealTime, 100 * time.Millisecond} {
		s := history.CheckStaleness(h, b)
		fmt.Printf("stale under %v: %d of %d reads\n", b, s.Stale, s.Reads)
	}
	s := history.CheckStaleness(h, history.RealTime).Examples[0]
	fmt.Printf("missed %d version(s) for %.0f ms\n", s.AgeVersions, s.AgeMs)
	fmt.Println("session violations:", history.CheckSessions(h).Violations)
	fmt.Println("lost writes:", history.LostWrites(h).Lost)
	// Output:
	// linearizable: illegal
	//   client 1 x write 1 -> v1 ok [0, 10000000]
	//   client 1 x write 2 -> v2 ok [20000000, 30000000]
	//   client 2 x read -> v1=1 ok [40000000, 50000000] @h:27018
	// stale under 0s: 1 of 1 reads
	// stale under 100ms: 0 of 1 reads
	// missed 1 version(s) for 10 ms
	// session violations: 0
	// lost writes: 0
}

// Two readers overlap a write of 1 to x. Client 2 reads the old value 0 and
// client 3 the new one while the write is in flight: either may come first,
// so the history is linearizable. A read of 0 by client 2 after the write
// was acknowledged is not: the write had taken effect.
func ExampleCheckLinearizable() {
	const ms = int64(time.Millisecond)
	ops := []history.Op{
		{Client: 1, Key: "x", Kind: history.KindWrite, Value: 1, Version: 1, Outcome: history.OutcomeOK, Invoke: 0, Complete: 30 * ms},
		{Client: 2, Key: "x", Kind: history.KindRead, Value: 0, Version: 0, Outcome: history.OutcomeOK, Invoke: 5 * ms, Complete: 10 * ms},
		{Client: 3, Key: "x", Kind: history.KindRead, Value: 1, Version: 1, Outcome: history.OutcomeOK, Invoke: 10 * ms, Complete: 20 * ms},
	}
	h := history.History{Header: history.Header{Keys: []string{"x"}}, Ops: ops}
	fmt.Println("concurrent reads:", history.CheckLinearizable(h, time.Minute).Result)

	h.Ops = append(h.Ops, history.Op{Client: 2, Key: "x", Kind: history.KindRead, Value: 0, Version: 0,
		Outcome: history.OutcomeOK, Invoke: 40 * ms, Complete: 50 * ms, Member: "h:27019"})
	rep := history.CheckLinearizable(h, time.Minute)
	fmt.Println("a read of 0 after the write returned:", rep.Result)
	if f := rep.Failure; f != nil { // the smallest key history that fails
		fmt.Printf("key %s: %d ops, longest linearization %d\n", f.Key, len(f.Ops), f.Linearized)
	}
	// Output:
	// concurrent reads: ok
	// a read of 0 after the write returned: illegal
	// key x: 4 ops, longest linearization 3
}

// Client 1 writes x twice on the primary, then reads from a secondary that
// has only the first write: it does not read its own write. Client 2 reads
// version 2, then version 1 from another member: its reads go back in time.
func ExampleCheckSessions() {
	const ms = int64(time.Millisecond)
	op := func(client int, kind history.Kind, version int64, at int64, member string) history.Op {
		return history.Op{Client: client, Key: "x", Kind: kind, Value: 10 * version, Version: version,
			Outcome: history.OutcomeOK, Invoke: at * ms, Complete: (at + 5) * ms, Member: member}
	}
	h := history.History{Header: history.Header{Keys: []string{"x"}}, Ops: []history.Op{
		op(1, history.KindWrite, 1, 0, "h:27017"),
		op(1, history.KindWrite, 2, 10, "h:27017"),
		op(1, history.KindRead, 1, 20, "h:27018"),
		op(2, history.KindRead, 2, 20, "h:27017"),
		op(2, history.KindRead, 1, 30, "h:27018"),
	}}
	rep := history.CheckSessions(h)
	for _, g := range []history.Guarantee{history.ReadYourWrites, history.MonotonicReads, history.MonotonicWrites, history.WritesFollowReads} {
		r := rep.Guarantee(g)
		fmt.Printf("%s: %d of %d checked ops violate it\n", g, r.Violations, r.Checked)
		for _, v := range r.Examples {
			fmt.Printf("  after %v\n  came %v\n", v.Earlier, v.Later)
		}
	}
	// Output:
	// read_your_writes: 1 of 1 checked ops violate it
	//   after client 1 x write 20 -> v2 ok [10000000, 15000000] @h:27017
	//   came client 1 x read -> v1=10 ok [20000000, 25000000] @h:27018
	// monotonic_reads: 1 of 1 checked ops violate it
	//   after client 2 x read -> v2=20 ok [20000000, 25000000] @h:27017
	//   came client 2 x read -> v1=10 ok [30000000, 35000000] @h:27018
	// monotonic_writes: 0 of 1 checked ops violate it
	// writes_follow_reads: 0 of 0 checked ops violate it
}

// Writes acknowledged with w:1 can be rolled back when the primary fails
// before a majority has them: the final state read after the run (with read
// concern majority) no longer holds value 30, although the client saw it
// acknowledged. A write whose outcome the client never learned, but whose
// value survived, took effect.
func ExampleLostWrites() {
	w := func(value int64, outcome history.Outcome) history.Op {
		return history.Op{Client: 1, Key: "x", Kind: history.KindWrite, Value: value, Version: value / 10, Outcome: outcome,
			Invoke: value * int64(time.Millisecond), Complete: (value + 5) * int64(time.Millisecond)}
	}
	h := history.History{
		Header: history.Header{Keys: []string{"x", "y"}},
		Ops:    []history.Op{w(10, history.OutcomeOK), w(20, history.OutcomeUnknown), w(30, history.OutcomeOK)},
		Final:  []history.Final{{Key: "x", Version: 2, Value: 20, Log: []int64{10, 20}}},
	}
	rep := history.LostWrites(h)
	fmt.Printf("%d of %d acknowledged writes lost: %v\n", rep.Lost, rep.Acknowledged, rep.Examples)
	fmt.Println("unknown outcome, applied:", rep.UnknownApplied)
	fmt.Println("no final state, not checked:", rep.Unchecked)
	// Output:
	// 1 of 2 acknowledged writes lost: [client 1 x write 30 -> v3 ok [30000000, 35000000]]
	// unknown outcome, applied: 1
	// no final state, not checked: [y]
}
