package bench

import (
	"testing"
	"time"
)

func TestRateLimitSpacesEveryClientsOperations(t *testing.T) {
	l := newRateLimit(100) // one slot every 10 ms, whichever client takes it
	now := time.Unix(1000, 0)
	for i, want := range []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond} {
		if got := l.delay(now); got != want {
			t.Errorf("operation %d taken at once by another client: delay %v, want %v", i, got, want)
		}
	}
	// 100 ms later every client had been waiting on replies: no burst to
	// catch up, the next slot is now and the one after 10 ms on.
	now = now.Add(100 * time.Millisecond)
	for i, want := range []time.Duration{0, 10 * time.Millisecond} {
		if got := l.delay(now); got != want {
			t.Errorf("after a pause, operation %d: delay %v, want %v", i, got, want)
		}
	}
}

func TestRateLimitChangesAndLifts(t *testing.T) {
	l := newRateLimit(100)
	now := time.Unix(1000, 0)
	l.delay(now)
	l.delay(now)
	l.set(10) // a phase's rate=10: slots 100 ms apart from the next one
	if d0, d1 := l.delay(now), l.delay(now); d0 != 0 || d1 != 100*time.Millisecond {
		t.Errorf("at 10/s: delays %v, %v, want 0, 100ms", d0, d1)
	}
	l.set(0) // rate=0: closed loops again
	for range 3 {
		if d := l.delay(now); d != 0 {
			t.Fatalf("no limit: delay %v, want 0", d)
		}
	}
	var none *rateLimit
	if d := none.delay(now); d != 0 {
		t.Errorf("nil limit: delay %v, want 0", d)
	}
}
