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
	for _, op := range lin.Failure.Ops {
		fmt.Println(" ", op)
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
