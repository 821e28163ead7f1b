package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestInterleavingRun runs the isolation tests' harness on fake steps (a
// plain held transaction and a plain concurrent one need no database) and
// checks the order it runs them in, what it hands the script and what it
// reports.
func TestInterleavingRun(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name   string
		fail   string // the step that fails: first, then, concurrent, observe or check
		noThen bool
		events string
		// violations and notes of the finding, joined by "; "
		violations, notes string
	}{
		{name: "every step", events: "first,concurrent,then,observe,check,note",
			notes: "concurrent first=true conflicts=0 err=<nil>"},
		{name: "no then step", noThen: true, events: "first,concurrent,observe,check,note",
			notes: "concurrent first=true conflicts=0 err=<nil>"},
		{name: "first step fails", fail: "first", events: "first",
			violations: "New-Order T1: boom"},
		{name: "then step fails", fail: "then", events: "first,concurrent,then",
			violations: "New-Order T1: boom"},
		{name: "concurrent fails", fail: "concurrent", events: "first,concurrent,then,observe,check,note",
			notes: "concurrent first=true conflicts=0 err=boom"},
		{name: "observation fails", fail: "observe", events: "first,concurrent,then,observe",
			violations: "Order-Status T3: boom"},
		{name: "check finds a violation", fail: "check", events: "first,concurrent,then,observe,check,note",
			violations: "planted", notes: "concurrent first=true conflicts=0 err=<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var events []string
			step := func(name string) func(context.Context) error {
				return func(context.Context) error {
					events = append(events, name)
					if tt.fail == name {
						return boom
					}
					return nil
				}
			}
			var seen concurrentOutcome
			s := interleaving{
				held:       heldTxn{name: "New-Order T1", endName: "New-Order T1's end", plain: true, first: step("first"), then: step("then")},
				concurrent: concurrentTxn{mode: bgPlain, body: step("concurrent")},
				observe: func(ctx context.Context, c concurrentOutcome) error {
					seen = c
					return stepErr("Order-Status T3", step("observe")(ctx))
				},
				check: func() []string {
					events = append(events, "check")
					if tt.fail == "check" {
						return []string{"planted"}
					}
					return nil
				},
				note: func(f *acidFinding, c concurrentOutcome) {
					events = append(events, "note")
					f.note("concurrent first=%v conflicts=%d err=%v", c.first, c.conflicts, c.err)
				},
			}
			if tt.noThen {
				s.held.then = nil
			}
			f := s.run(ctx)
			if got := strings.Join(events, ","); got != tt.events {
				t.Errorf("ran %s, want %s", got, tt.events)
			}
			if got := strings.Join(f.violations, "; "); got != tt.violations {
				t.Errorf("violations %q, want %q", got, tt.violations)
			}
			if got := strings.Join(f.notes, "; "); got != tt.notes {
				t.Errorf("notes %q, want %q", got, tt.notes)
			}
			if tt.fail == "observe" && (!seen.first || seen.err != nil) {
				t.Errorf("observe saw %+v, want the concurrent transaction finished first without error", seen)
			}
		})
	}
}

func TestStepErr(t *testing.T) {
	if err := stepErr("read D_NEXT_O_ID", nil); err != nil {
		t.Errorf("stepErr of no error: %v", err)
	}
	inner := fmt.Errorf("district: %w", ErrConfig)
	err := stepErr("read D_NEXT_O_ID", inner)
	var f acidFinding
	f.violate("%v", err)
	// The harness's detail of a failed observation is that of failed().
	if want := failed(acidFinding{}, "read D_NEXT_O_ID", inner).violations; f.violations[0] != want[0] || !errors.Is(err, ErrConfig) {
		t.Errorf("stepErr: %q (wraps ErrConfig: %v), want %q", f.violations[0], errors.Is(err, ErrConfig), want[0])
	}
}
