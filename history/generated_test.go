package history

import (
	"testing"
	"time"
)

// Histories linearizable by construction, with concurrent clients, slow ops
// and unknown outcomes, give no finding to any checker.
func TestGeneratedHistoriesAreClean(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for seed := uint64(1); seed <= 4; seed++ {
		h := generate(genConfig{ops: n, keys: 4, clients: 12, seed: seed, unknown: 0.01})
		lin := CheckLinearizable(h, time.Minute)
		if lin.Result != LinOK {
			t.Errorf("seed %d: linearizability %s: %+v", seed, lin.Result, lin.Keys)
		}
		stale := CheckStaleness(h, RealTime)
		if stale.Stale != 0 || stale.Phantom != 0 || stale.Reads == 0 {
			t.Errorf("seed %d: %d stale and %d phantom of %d reads", seed, stale.Stale, stale.Phantom, stale.Reads)
		}
		if stale.Unacknowledged == 0 {
			t.Errorf("seed %d: no read overtook an acknowledgement: the generator has no concurrency", seed)
		}
		if s := CheckSessions(h); s.Violations != 0 || s.ReadYourWrites.Checked == 0 || s.WritesFollowReads.Checked == 0 {
			t.Errorf("seed %d: sessions %+v", seed, s)
		}
		if l := LostWrites(h); l.Lost != 0 || l.Acknowledged == 0 || len(l.Unchecked) != 0 {
			t.Errorf("seed %d: %d lost of %d, unchecked %v", seed, l.Lost, l.Acknowledged, l.Unchecked)
		}
	}
}

// One read of a generated history made to return the initial state after a
// write was acknowledged: linearizability fails on its key, and the read is
// the one stale read at bound 0.
func TestGeneratedHistoryWithAPlantedStaleRead(t *testing.T) {
	h := generate(genConfig{ops: 2000, keys: 4, clients: 12, seed: 3, unknown: 0.01})
	acked := make(map[string]int64) // first acknowledgement per key
	for _, op := range h.Ops {
		if op.Kind.writes() && op.Outcome == OutcomeOK {
			if at, ok := acked[op.Key]; !ok || op.Complete < at {
				acked[op.Key] = op.Complete
			}
		}
	}
	planted := -1
	for i := len(h.Ops) - 1; i >= 0 && planted < 0; i-- {
		op := h.Ops[i]
		if at, ok := acked[op.Key]; ok && op.Kind == KindRead && op.Outcome == OutcomeOK && at < op.Invoke {
			planted = i
		}
	}
	if planted < 0 {
		t.Fatal("no read after an acknowledged write")
	}
	h.Ops[planted].Version, h.Ops[planted].Value = 0, 0
	key := h.Ops[planted].Key

	lin := CheckLinearizable(h, time.Minute)
	if lin.Result != LinIllegal || lin.Illegal != 1 || lin.Failure == nil || lin.Failure.Key != key {
		t.Errorf("linearizability %s, %d illegal keys, failure %v; want key %s illegal", lin.Result, lin.Illegal, lin.Failure != nil, key)
	}
	stale := CheckStaleness(h, RealTime)
	if stale.Stale != 1 || stale.Examples[0].Op != h.Ops[planted] || stale.Phantom != 0 {
		t.Errorf("%d stale (%+v), %d phantom; want the planted read alone", stale.Stale, stale.Examples, stale.Phantom)
	}
}
