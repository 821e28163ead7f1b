package sprobe

import (
	"testing"
	"time"
)

const ms = time.Millisecond

// clock returns the time t0+d and its value in µs.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }
func val(d time.Duration) int64    { return at(d).UnixMicro() }

// steady writes every 5 ms from `from` for n writes, each acknowledged 1 ms
// after it was issued, each replacing the previous one.
func steady(h *history, from time.Duration, n int, prev int64) int64 {
	for i := range n {
		issue := from + time.Duration(i)*5*ms
		h.acked(val(issue), prev, at(issue+ms))
		prev = val(issue)
	}
	return prev
}

func TestStalenessOfAPausedMember(t *testing.T) {
	h := &history{}
	steady(h, 0, 400, 0) // writes issued at 0, 5, ..., 1995 ms
	tests := []struct {
		name string
		read int64 // the value the member returned
		sent time.Duration
		want time.Duration
	}{
		{"has the latest write", val(1995 * ms), 2100 * ms, 0},
		{"misses a write acknowledged after the read was sent", val(1990 * ms), 1995 * ms, 0},
		{"misses the write issued at 1000ms, acknowledged at 1001ms", val(995 * ms), 2000 * ms, 999 * ms},
		{"misses everything since 500ms", val(495 * ms), 1501 * ms, 1000 * ms},
	}
	for _, tt := range tests {
		if got := h.staleness(tt.read, at(tt.sent)); got != tt.want {
			t.Errorf("%s: staleness %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestAnElectionIsNotStaleness: the writer's last writes on the old primary
// (a1, a2) are acknowledged and then lost in the failover; 10 s pass without
// writes; the first write on the new primary (b1) replaces a0. A member that
// has a0 and serves a read 1 ms after b1 was acknowledged is 1 ms stale, not 10
// s (the Decongestant paper's primary-minus-second value gap) and not 10 s
// since a1.
func TestAnElectionIsNotStaleness(t *testing.T) {
	h := &history{}
	a0 := steady(h, 0, 10, 0) // last write issued at 45 ms
	h.acked(val(50*ms), a0, at(51*ms))
	h.acked(val(55*ms), val(50*ms), at(56*ms))
	// The old primary dies; a read during the election (none possible on
	// the primary, but a secondary could answer) is not judged until a
	// write issued after it is acknowledged.
	during := at(5 * time.Second)
	if h.settled(during) {
		t.Fatal("a read during the election was judged before any later write was acknowledged")
	}
	b1 := 10 * time.Second
	h.acked(val(b1), a0, at(b1+ms)) // the new primary had a0
	if !h.settled(during) {
		t.Fatal("not judged after a later write was acknowledged")
	}
	if n := h.lostWrites(); n != 2 {
		t.Fatalf("lost writes %d, want 2 (a1, a2)", n)
	}
	if got := h.staleness(a0, during); got != 0 {
		t.Errorf("read of a0 during the election: staleness %v, want 0 (the only newer writes were lost)", got)
	}
	if got := h.staleness(a0, at(b1+2*ms)); got != ms {
		t.Errorf("read of a0 1ms after b1's acknowledgement: staleness %v, want 1ms", got)
	}
	if got := h.staleness(val(b1), at(b1+2*ms)); got != 0 {
		t.Errorf("read of b1: staleness %v, want 0", got)
	}
}

// TestHistoryWindow: the writes kept never exceed a window's (201 at 200
// writes/s over a 1 s window, both ends in) and about an eighth more (228
// at most), so the probe's memory stops growing after one window. Trimming
// at half, 402 stayed: two windows' worth.
func TestHistoryWindow(t *testing.T) {
	h := &history{window: time.Second}
	most, prev := 0, int64(0)
	for i := range 1000 { // 5 s of writes
		prev = steady(h, time.Duration(i)*5*ms, 1, prev)
		most = max(most, len(h.writes))
	}
	if most > 228 || len(h.writes) < 201 {
		t.Fatalf("kept up to %d writes for a 1s window (200 writes/s), %d at the end; want at most 228 and at least 201", most, len(h.writes))
	}
	// A read older than everything kept is measured against the oldest
	// write kept: a lower bound, still far over any sane bound.
	if got := h.staleness(val(0), at(5*time.Second)); got < time.Second {
		t.Fatalf("staleness %v of a read 5s behind, want >= 1s", got)
	}
}
