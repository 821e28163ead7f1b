package bench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/event"
)

// TestReadsCheck: the clients' routed reads and the router's count match
// exactly, or the check says which legitimate difference keeps it from
// comparing them.
func TestReadsCheck(t *testing.T) {
	tests := []struct {
		name   string
		c      readCounts
		served int64
		match  *bool
		note   string // substring; "" = none
	}{
		{name: "equal", c: readCounts{routed: 120345}, served: 120345, match: ptrB(true)},
		{name: "none", served: 0, match: ptrB(true)},
		{name: "lost", c: readCounts{routed: 1000}, served: 998, match: ptrB(false), note: "counted 2 fewer"},
		{name: "double-counted", c: readCounts{routed: 1000}, served: 1001, match: ptrB(false), note: "counted 1 more"},
		{name: "failed calls", c: readCounts{routed: 1000, failed: 3}, served: 998, note: "not compared: failed calls 3"},
		{name: "retried read", c: readCounts{routed: 1000, failedCommands: 1}, served: 1001, note: "failed read commands 1"},
		{name: "cut off", c: readCounts{routed: 1000, cancelled: 4}, served: 1002, note: "calls cut off 4"},
		{name: "units", c: readCounts{routed: 10, units: 5}, served: 27, note: "multi-query units 5"},
		{name: "several", c: readCounts{routed: 10, failed: 1, cancelled: 2}, served: 9, note: "failed calls 1, calls cut off 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := readsCheck(tt.c, tt.served)
			if rc.Routed != tt.c.routed || rc.Served != tt.served || rc.Failed != tt.c.failed ||
				rc.Cancelled != tt.c.cancelled || rc.Units != tt.c.units || rc.FailedCommands != tt.c.failedCommands {
				t.Errorf("counts %+v, want %+v and served %d", rc, tt.c, tt.served)
			}
			if (rc.Match == nil) != (tt.match == nil) || (rc.Match != nil && *rc.Match != *tt.match) {
				t.Errorf("match %v, want %v", fmtB(rc.Match), fmtB(tt.match))
			}
			if (tt.note == "") != (rc.Note == "") || !strings.Contains(rc.Note, tt.note) {
				t.Errorf("note %q, want %q", rc.Note, tt.note)
			}
		})
	}
}

func TestReadCountsSub(t *testing.T) {
	a := readCounts{routed: 10, failed: 2, cancelled: 3, units: 4, failedCommands: 5}
	b := readCounts{routed: 1, failed: 1, cancelled: 1, units: 1, failedCommands: 1}
	if got, want := a.sub(b), (readCounts{routed: 9, failed: 1, cancelled: 2, units: 3, failedCommands: 4}); got != want {
		t.Fatalf("sub = %+v, want %+v", got, want)
	}
}

// TestReadCountDone: a call is counted whatever its outcome; an error is a
// failure unless the call's context was cancelled (cut off).
func TestReadCountDone(t *testing.T) {
	var n readCount
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	<-expired.Done()
	n.done(context.Background(), nil)
	n.done(context.Background(), errors.New("not primary"))
	n.done(cancelled, context.Canceled)
	n.done(expired, context.DeadlineExceeded)
	if got, want := n.snapshot(), (readCounts{routed: 4, failed: 2, cancelled: 1}); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
}

// TestReadCountMonitor: failed read commands are counted (not getMore, not
// writes) and every event still reaches the caller's own monitor.
func TestReadCountMonitor(t *testing.T) {
	var n readCount
	var failed, succeeded int
	user := &event.CommandMonitor{
		Failed:    func(context.Context, *event.CommandFailedEvent) { failed++ },
		Succeeded: func(context.Context, *event.CommandSucceededEvent) { succeeded++ },
	}
	m := n.monitor(user)
	for _, name := range []string{"find", "aggregate", "count", "distinct", "getMore", "update"} {
		m.Failed(context.Background(), &event.CommandFailedEvent{CommandFinishedEvent: event.CommandFinishedEvent{CommandName: name}})
	}
	m.Succeeded(context.Background(), &event.CommandSucceededEvent{CommandFinishedEvent: event.CommandFinishedEvent{CommandName: "find"}})
	if got := n.snapshot().failedCommands; got != 4 || failed != 6 || succeeded != 1 {
		t.Errorf("counted %d failed read commands (want 4); the caller's monitor saw %d failures (want 6), %d successes (want 1)",
			got, failed, succeeded)
	}
	if m := n.monitor(nil); m.Succeeded != nil || m.Started != nil {
		t.Error("without a monitor of the caller's, only failures are watched")
	}
}
