package sprobe

import (
	"sort"
	"time"
)

// history is the probe writer's record of acknowledged writes, from which a
// read's staleness is computed. It is pure: times are inputs.
//
// A read that returns value v, sent at time ts, is stale by ts - ack(w),
// where w is the oldest acknowledged write newer than v that was not lost:
// how long the member had been missing a write the client already had an
// acknowledgement for when the read was sent. 0 when there is no such write
// or it was acknowledged after ts. A write is lost when a later write's
// reply shows the primary's value just before it was older than the lost
// one (a w:1 write rolled back in a failover): missing it is not staleness.
//
// Values are the writes' issue times in µs, so the writer's order, the
// values' order and the acknowledgements' order agree.
type history struct {
	writes []write // ascending by value
	// window is how long acknowledged writes are kept; a read older than
	// all of them is measured against the oldest (a lower bound).
	window time.Duration
	lost   int // writes found lost so far
}

type write struct {
	value int64 // µs since the epoch, when issued
	ack   time.Time
	lost  bool
}

// acked records write value, acknowledged at ack, whose reply showed prev as
// the primary's value just before it (0 when the document did not exist):
// acknowledged writes between prev and value were lost.
func (h *history) acked(value, prev int64, ack time.Time) {
	if prev > 0 {
		for i := len(h.writes) - 1; i >= 0 && h.writes[i].value > prev; i-- {
			if !h.writes[i].lost {
				h.writes[i].lost = true
				h.lost++
			}
		}
	}
	h.writes = append(h.writes, write{value: value, ack: ack})
	if h.window > 0 {
		// Drop what fell out of the window once it is an eighth of the
		// record: each write costs O(1) amortised (7 entries moved), and
		// the record peaks at 8/7 of a window's writes. (Half of it, as
		// before, let it reach two windows' worth: twice the memory, and
		// a probe's heap that grew for two windows, 20 minutes by
		// default, before it levelled off.)
		cut := sort.Search(len(h.writes), func(i int) bool { return ack.Sub(h.writes[i].ack) <= h.window })
		if cut > 0 && cut >= len(h.writes)/8 {
			h.writes = append(h.writes[:0], h.writes[cut:]...)
		}
	}
}

// settled reports whether a read sent at ts can be judged: a write issued
// after ts has been acknowledged, so any write lost before ts has shown up
// as a gap in the chain of previous values.
func (h *history) settled(ts time.Time) bool {
	return len(h.writes) > 0 && h.writes[len(h.writes)-1].value > ts.UnixMicro()
}

// staleness returns how stale a read sent at ts that returned v was.
func (h *history) staleness(v int64, ts time.Time) time.Duration {
	i := sort.Search(len(h.writes), func(i int) bool { return h.writes[i].value > v })
	for ; i < len(h.writes); i++ {
		w := h.writes[i]
		if w.lost {
			continue
		}
		if !w.ack.Before(ts) {
			return 0
		}
		return ts.Sub(w.ack)
	}
	return 0
}

// lostWrites counts the acknowledged writes found lost so far.
func (h *history) lostWrites() int { return h.lost }
