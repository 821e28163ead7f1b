package bench

import (
	"strconv"
	"sync"
	"time"
)

// rateLimit holds all of a run's clients together to at most a rate of
// operations a second (YCSB's -target; Options.Rate, a phase's rate=):
// each operation takes the next free slot, one every 1/rate, and its
// client waits for it. A slot is never earlier than the moment it is
// taken, so clients that fell behind (every one waiting on a reply) do not
// burst to catch up: the rate is a ceiling, and what the run achieved is
// its measured throughput. Latency is timed from when an operation is
// sent, as YCSB times it by default. A nil or zero limit does not wait.
type rateLimit struct {
	mu    sync.Mutex
	every time.Duration // 0: no limit
	next  time.Time
}

// newRateLimit limits to rate operations a second (0: none).
func newRateLimit(rate float64) *rateLimit {
	l := &rateLimit{}
	l.set(rate)
	return l
}

// set changes the rate (0: no limit) from the next slot taken.
func (l *rateLimit) set(rate float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.every = 0
	if rate > 0 {
		l.every = time.Duration(float64(time.Second) / rate)
	}
	l.next = time.Time{}
}

// delay takes the next slot at or after now and returns how long its
// operation waits for it.
func (l *rateLimit) delay(now time.Time) time.Duration {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.every <= 0 {
		return 0
	}
	slot := l.next
	if slot.Before(now) {
		slot = now
	}
	l.next = slot.Add(l.every)
	return slot.Sub(now)
}

// formatRate writes a rate as given ("250", "0.5").
func formatRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }
