package proxy

import (
	"sync"
	"sync/atomic"
)

// Stats counts what the proxy forwarded, by the member that answered.
type Stats struct {
	// Reads are the eligible reads (find, aggregate without $out or
	// $merge, count, distinct) answered, by member, whether the policy
	// routed them or they stayed on the primary; Routed counts those the
	// policy routed (the rest were sent with the primary read preference
	// under ReadsOptedIn, or there is no policy).
	Reads  map[string]int64
	Routed int64
	// Rewritten counts routed reads sent to a secondary rewritten: their
	// $readPreference made secondaryPreferred (they carried none, or
	// primary), or, for a majority read after a write, the connection's
	// fence added as readConcern afterClusterTime.
	Rewritten int64
	// Retried counts routed reads that failed on a secondary (a
	// state-change error, or no reply) and were answered by another
	// member.
	Retried int64
}

// counters are the live Stats.
type counters struct {
	reads             sync.Map // member -> *atomic.Int64
	routed, rewritten atomic.Int64
	retried           atomic.Int64
}

func (c *counters) read(member string) {
	v, ok := c.reads.Load(member)
	if !ok {
		v, _ = c.reads.LoadOrStore(member, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

// Stats returns the counters since New.
func (s *Server) Stats() Stats {
	st := Stats{Reads: map[string]int64{}, Routed: s.counts.routed.Load(), Rewritten: s.counts.rewritten.Load(), Retried: s.counts.retried.Load()}
	s.counts.reads.Range(func(k, v any) bool {
		st.Reads[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return st
}
