package consistency

import (
	"errors"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/balancer"
)

func TestConcernsValidate(t *testing.T) {
	s := balancer.DefaultSettings()
	good := []Concerns{
		{W: "majority", RC: "linearizable", Read: "primary"},
		{W: "1", RC: "local", Read: "secondary"},
		{W: "2", RC: "majority", Read: "Nearest"},
		{W: "majority", RC: "available", Read: "spillway"},
		{W: "majority", RC: "local", Read: "decongestant"},
	}
	for _, c := range good {
		if err := c.Validate(s); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
	bad := []struct {
		c   Concerns
		say string
	}{
		{Concerns{W: "all", RC: "local", Read: "primary"}, `write concern "all"`},
		{Concerns{W: "-1", RC: "local", Read: "primary"}, `write concern "-1"`},
		{Concerns{W: "1", RC: "snapshot", Read: "primary"}, `read concern "snapshot"`},
		{Concerns{W: "1", RC: "linearizable", Read: "secondary"}, "MongoDB serves linearizable reads only on the primary"},
		{Concerns{W: "1", RC: "linearizable", Read: "spillway"}, "MongoDB serves linearizable reads only on the primary"},
		{Concerns{W: "1", RC: "local", Read: "fastest"}, `read "fastest" is neither a read preference`},
	}
	for _, tt := range bad {
		if err := tt.c.Validate(s); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), tt.say) {
			t.Errorf("%v: err %v, want %q", tt.c, err, tt.say)
		}
	}
}

func TestConcernsIsPolicy(t *testing.T) {
	for read, want := range map[string]bool{"primary": false, "SECONDARY": false, "nearest": false, "spillway": true, "weights:primary=1": true} {
		if got := (Concerns{Read: read}).IsPolicy(); got != want {
			t.Errorf("%s: policy %v, want %v", read, got, want)
		}
	}
}

func TestCheckOptionsBound(t *testing.T) {
	s := balancer.DefaultSettings()
	s.Spillway.Bound = balancer.Bound{Max: 2e9}
	o := CheckOptions{Concerns: Concerns{Read: "spillway"}, Settings: s}
	if b, ok := o.Bound(); !ok || b.Max != 2e9 {
		t.Errorf("spillway: bound %v %v, want 2s", b, ok)
	}
	o.Concerns.Read = "secondary"
	if _, ok := o.Bound(); ok {
		t.Error("secondary reads have no bound")
	}
}

func TestFailureWindow(t *testing.T) {
	for _, tt := range []struct{ n, lin, from, to int }{
		{10, 3, 0, 10},           // short: all of it
		{9021, 12, 7, 32},        // around where the linearization stopped
		{9021, 9020, 8996, 9021}, // at the end: the last 25
		{30, 0, 0, 25},
	} {
		if from, to := failureWindow(tt.n, tt.lin); from != tt.from || to != tt.to {
			t.Errorf("%d ops, %d linearized: [%d, %d), want [%d, %d)", tt.n, tt.lin, from, to, tt.from, tt.to)
		}
	}
}
