package history

import "time"

// Tiny hand-written histories: times are in milliseconds since the start.
const ms = int64(time.Millisecond)

// w is an acknowledged write by client c of val to key, which got version
// ver, in [inv, comp] ms.
func w(c int, key string, val, ver, inv, comp int64) Op {
	return Op{Client: c, Key: key, Kind: KindWrite, Value: val, Version: ver, Outcome: OutcomeOK, Invoke: inv * ms, Complete: comp * ms}
}

// rd is a read by client c of key that returned (ver, val).
func rd(c int, key string, val, ver, inv, comp int64) Op {
	return Op{Client: c, Key: key, Kind: KindRead, Value: val, Version: ver, Outcome: OutcomeOK, Invoke: inv * ms, Complete: comp * ms}
}

// cas is an acknowledged compare-and-set of expect to val that got ver.
func cas(c int, key string, expect, val, ver, inv, comp int64) Op {
	return Op{Client: c, Key: key, Kind: KindCAS, Expect: expect, Value: val, Version: ver, Outcome: OutcomeOK, Invoke: inv * ms, Complete: comp * ms}
}

// unknown makes op's outcome unknown (a timeout): no version came back.
func unknown(op Op) Op {
	op.Outcome, op.Err = OutcomeUnknown, "context deadline exceeded"
	if op.Kind != KindRead {
		op.Version = 0
	}
	return op
}

// failed makes op's outcome fail with err ("" for a cas that returned false).
func failed(op Op, err string) Op {
	op.Outcome, op.Err, op.Version = OutcomeFail, err, 0
	return op
}

func hist(ops ...Op) History {
	return History{Header: Header{Version: FormatVersion}, Ops: ops}
}
