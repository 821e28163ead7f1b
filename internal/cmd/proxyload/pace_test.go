package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestInterval(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		conns int
		want  time.Duration
	}{
		{0, 64, 0},
		{1000, 64, 64 * time.Millisecond},
		{2000, 1000, 500 * time.Millisecond},
		{500, 1, 2 * time.Millisecond},
	} {
		if got := interval(c.rate, c.conns); got != c.want {
			t.Errorf("interval(%v, %d) = %v, want %v", c.rate, c.conns, got, c.want)
		}
	}
}

func TestPacerKeepsItsSchedule(t *testing.T) {
	start := time.Unix(1000, 0)
	every := 10 * time.Millisecond
	p := newPacer(every, rand.New(rand.NewPCG(1, 2)), start)
	first := p.delay(start)
	if first < 0 || first >= every {
		t.Fatalf("first delay %v: want an offset in [0, %v)", first, every)
	}
	// On time: each operation waits the rest of its interval.
	at := start.Add(first + 3*time.Millisecond) // the operation took 3 ms
	if got := p.delay(at); got != every-3*time.Millisecond {
		t.Errorf("after a 3 ms operation: delay %v, want %v", got, every-3*time.Millisecond)
	}
	// Behind: an operation that took 25 ms leaves the client two intervals
	// behind; it sends at once until it has caught up, then waits again.
	at = start.Add(first + every + 25*time.Millisecond)
	for i, want := range []time.Duration{0, 0, 5 * time.Millisecond} {
		if got := p.delay(at); got != want {
			t.Errorf("catching up, step %d: delay %v, want %v", i, got, want)
		}
	}
}

func TestClosedLoopDoesNotWait(t *testing.T) {
	p := newPacer(0, rand.New(rand.NewPCG(1, 2)), time.Unix(1000, 0))
	for range 3 {
		if d := p.delay(time.Unix(999, 0)); d != 0 {
			t.Fatalf("closed loop: delay %v, want 0", d)
		}
	}
}
