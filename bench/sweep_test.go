package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/workload"
)

func TestParseClients(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  string // substring of the error; "" for none
	}{
		{in: "64", want: []int{64}},
		{in: "20,60,100,140,180", want: []int{20, 60, 100, 140, 180}},
		{in: " 180 , 20 ", want: []int{180, 20}},
		{in: "", err: "item 1 is empty"},
		{in: "20,,60", err: "item 2 is empty"},
		{in: "20,", err: "item 2 is empty"},
		{in: "twenty", err: `"twenty" is not a whole number`},
		{in: "20,6.5", err: `"6.5" is not a whole number`},
		{in: "0", err: "clients 0 must be at least 1"},
		{in: "20,-3", err: "clients -3 must be at least 1"},
		{in: "20,60,20", err: "clients 20 appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseClients(tt.in)
			if tt.err == "" {
				if err != nil || !slices.Equal(got, tt.want) {
					t.Fatalf("got %v, %v; want %v", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, ErrBadClients) || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err %v, want ErrBadClients saying %q", err, tt.err)
			}
		})
	}
}

// sweepOptions are valid options for a sweep of 2 counts x 2 policies x 2
// repetitions.
func sweepOptions(t *testing.T) Options {
	t.Helper()
	gen, err := workload.Configure("ycsb", workload.Shared{Seed: 1}, "--records", "500")
	if err != nil {
		t.Fatal(err)
	}
	s := balancer.DefaultSettings()
	specs, err := balancer.ParseSpecs("primary,secondary", s)
	if err != nil {
		t.Fatal(err)
	}
	return Options{URI: "mongodb://h1/?replicaSet=rs0", Generator: gen, Sweep: []int{8, 32}, Repeat: 2,
		Duration: time.Minute, Period: 10 * time.Second, Policies: specs, Settings: s}
}

// TestPlanInterleavesPoliciesWithinEachCount: per client count, the
// repetitions of all policies in turn (the order of a run without a sweep).
func TestPlanInterleavesPoliciesWithinEachCount(t *testing.T) {
	o := sweepOptions(t)
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, p := range o.plan() {
		got = append(got, fmt.Sprintf("%s rep %d", p.label(i+1, 8, o.sweeping()), p.rep))
		if oc := p.options(&o); oc.Clients != p.clients || o.Clients != 0 {
			t.Errorf("run %d: options have %d clients (invocation's %d), want %d (0)", i, oc.Clients, o.Clients, p.clients)
		}
	}
	want := []string{
		"1/8 primary, 8 clients rep 0", "2/8 secondary, 8 clients rep 0",
		"3/8 primary, 8 clients rep 1", "4/8 secondary, 8 clients rep 1",
		"5/8 primary, 32 clients rep 0", "6/8 secondary, 32 clients rep 0",
		"7/8 primary, 32 clients rep 1", "8/8 secondary, 32 clients rep 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	one := sweepOptions(t)
	one.Sweep, one.Clients, one.Repeat = nil, 16, 1
	if err := one.validate(); err != nil {
		t.Fatal(err)
	}
	if p := one.plan(); len(p) != 2 || p[0].clients != 16 || p[0].label(1, 2, one.sweeping()) != "1/2 primary" {
		t.Errorf("one count: plan %+v", p)
	}
}

// TestSweepIsRecorded: the config keeps the first count as clients and the
// whole sweep; a phase that only switches the mix is allowed.
func TestSweepIsRecorded(t *testing.T) {
	o := sweepOptions(t)
	o.Phases = []Phase{{At: 30 * time.Second, Mix: "a"}}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	c := newResults(&o).Config
	if c.Clients != 8 || !slices.Equal(c.ClientsSweep, []int{8, 32}) {
		t.Errorf("config clients %d sweep %v, want 8 and [8 32]", c.Clients, c.ClientsSweep)
	}
	o = sweepOptions(t)
	o.Sweep, o.Clients = nil, 4
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	if c := newResults(&o).Config; c.Clients != 4 || c.ClientsSweep != nil {
		t.Errorf("one count: config clients %d sweep %v", c.Clients, c.ClientsSweep)
	}
}
