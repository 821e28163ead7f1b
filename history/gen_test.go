package history

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// genConfig shapes a generated history.
type genConfig struct {
	ops, keys, clients int
	seed               uint64
	unknown            float64 // share of ops whose outcome is unknown
}

// generate builds a history that is linearizable by construction: each
// client issues sequential ops with random latencies (a heavy tail included),
// every op takes effect at a random point inside its interval, and the ops
// are applied to the registers in the order of those points. An op with an
// unknown outcome takes effect, or not, at random. The ops are in completion
// order, as a recorder appends them, and the finals are the registers' end
// state, so every checker must find nothing.
func generate(cfg genConfig) History {
	r := rand.New(rand.NewPCG(cfg.seed, 7))
	keys := make([]string, cfg.keys)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	members := []string{"h:27017", "h:27018", "h:27019"}
	type pending struct {
		op      Op
		at      int64 // when it takes effect
		applied bool
	}
	ps := make([]pending, 0, cfg.ops)
	for c := range cfg.clients {
		n := cfg.ops / cfg.clients
		if c < cfg.ops%cfg.clients {
			n++
		}
		t := r.Int64N(1_000_000)
		for range n {
			t += r.Int64N(200_000) // think time up to 0.2 ms
			lat := 200_000 + int64(r.ExpFloat64()*1_000_000)
			if r.Float64() < 0.01 {
				lat += r.Int64N(50_000_000) // a slow one, up to 50 ms more
			}
			op := Op{Client: c, Key: keys[r.IntN(len(keys))], Invoke: t, Complete: t + lat, Outcome: OutcomeOK, Member: members[r.IntN(len(members))]}
			switch p := r.Float64(); {
			case p < 0.5:
				op.Kind = KindRead
			case p < 0.8:
				op.Kind = KindWrite
			default:
				op.Kind = KindCAS
			}
			applied := true
			if r.Float64() < cfg.unknown {
				op.Outcome, op.Err = OutcomeUnknown, "context deadline exceeded"
				applied = r.IntN(2) == 0
			}
			ps = append(ps, pending{op: op, at: t + r.Int64N(lat+1), applied: applied})
			t += lat
		}
	}
	slices.SortStableFunc(ps, func(a, b pending) int { return cmp.Compare(a.at, b.at) })
	type register struct {
		version, value int64
		log            []int64
	}
	regs := make(map[string]*register)
	for _, k := range keys {
		regs[k] = &register{log: []int64{}}
	}
	next := int64(0)
	for i := range ps {
		op, reg := &ps[i].op, regs[ps[i].op.Key]
		if op.Kind == KindRead {
			if op.Outcome == OutcomeOK {
				op.Version, op.Value = reg.version, reg.value
			}
			continue
		}
		next++
		op.Value = next
		if op.Kind == KindCAS {
			op.Expect = reg.value
			if r.Float64() < 0.3 && len(reg.log) > 0 {
				op.Expect = reg.log[r.IntN(len(reg.log))]
			}
		}
		matches := op.Kind == KindWrite || op.Expect == reg.value
		if op.Outcome == OutcomeOK && !matches {
			op.Outcome = OutcomeFail // the cas returned false
		}
		if ps[i].applied && matches {
			reg.version++
			reg.value = op.Value
			reg.log = append(reg.log, op.Value)
			if op.Outcome == OutcomeOK {
				op.Version = reg.version
			}
		}
	}
	h := History{Header: Header{Version: FormatVersion, Keys: keys}}
	for _, p := range ps {
		h.Ops = append(h.Ops, p.op)
	}
	slices.SortStableFunc(h.Ops, func(a, b Op) int { return cmp.Compare(a.Complete, b.Complete) })
	for _, k := range keys {
		reg := regs[k]
		h.Final = append(h.Final, Final{Key: k, Version: reg.version, Value: reg.value, Log: reg.log})
	}
	return h
}
