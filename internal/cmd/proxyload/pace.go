package main

import (
	"context"
	"math/rand/v2"
	"time"
)

// pacer spaces one client's operations every interval, from a random
// offset within the first (so clients do not send in step): an open loop
// per client, whatever the replies' latency, up to the point where a reply
// takes longer than the interval; a client behind its schedule sends at
// once until it has caught up. A zero interval does not wait: a closed loop.
type pacer struct {
	every time.Duration
	next  time.Time
}

// newPacer paces every interval from now plus a random offset drawn from r.
func newPacer(every time.Duration, r *rand.Rand, now time.Time) *pacer {
	p := &pacer{every: every}
	if every > 0 {
		p.next = now.Add(time.Duration(r.Int64N(int64(every))))
	}
	return p
}

// wait returns when the next operation is due (at once when it is
// overdue, or with no interval), or ctx's error.
func (p *pacer) wait(ctx context.Context) error {
	if d := p.delay(time.Now()); d > 0 {
		return sleep(ctx, d)
	}
	return ctx.Err()
}

// delay is how long after now the next operation is due (0: at once) and
// moves the schedule on by one interval.
func (p *pacer) delay(now time.Time) time.Duration {
	if p.every <= 0 {
		return 0
	}
	d := p.next.Sub(now)
	p.next = p.next.Add(p.every)
	return max(d, 0)
}

// interval is how often each of conns clients sends for rate operations a
// second over all of them; 0 (a closed loop) for a rate of 0.
func interval(rate float64, conns int) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(float64(conns) / rate * float64(time.Second))
}
