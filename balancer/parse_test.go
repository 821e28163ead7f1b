package balancer

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		spec     string
		name     string
		mode     Mode
		fraction float64
	}{
		{"decongestant", "decongestant", Split, 0.1},
		{"rpm", "rpm", Split, 0.1},
		{"primary", "primary", Split, 0},
		{" Secondary ", "secondary", Split, 1},
		{"secondarypreferred", "secondarypreferred", SecondaryPreferred, 1},
		{"nearest", "nearest", Nearest, 1},
		{"nearest:1000ms", "nearest:1s", Nearest, 1},
		{"leastwait", "leastwait", PerMember, 0},
		{"LeastWait:2", "leastwait:2", PerMember, 0},
		{"p2c", "p2c", PerMember, 0},
		{"Prequal", "prequal", PerMember, 0},
		{"fixed:0.5", "fixed:0.5", Split, 0.5},
		{"fixed:1", "fixed:1", Split, 1},
		{"fixed:0", "fixed:0", Split, 0},
		{"fixed:0.25", "fixed:0.25", Split, 0.25},
		{"maxstaleness:120s", "maxstaleness:2m0s", MaxStaleness, 1},
		{"spillway", "spillway", PerMember, 0},
		{" Spillway", "spillway", PerMember, 0},
		{"spillway:Deadband=0.30", "spillway:deadband=0.3", PerMember, 0},
		{"spillway:deadband=0.3/gain=0.1", "spillway:deadband=0.3/gain=0.1", PerMember, 0},
		{"weights:primary=0.2,n2=0.4,n3=0.4", "weights:primary=0.2,n2=0.4,n3=0.4", PerMember, 0},
		{"Weights:primary=0.5,127.0.0.1:27018=0.5", "weights:primary=0.5,127.0.0.1:27018=0.5", PerMember, 0},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			p, err := Parse(tt.spec, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tt.name || p.Selection().Mode != tt.mode || p.Fraction() != tt.fraction {
				t.Fatalf("got %s %v %v", p.Name(), p.Selection().Mode, p.Fraction())
			}
		})
	}
	bad := []string{"", "primry", "fixed", "fixed:", "fixed:1.5", "fixed:-0.1", "fixed:x",
		"maxstaleness:30s", "maxstaleness", "maxstaleness:abc", "decongestant:3", "primary:1",
		"spillway:1", "spillway:", "spillway:gain", "spillway:gain=x", "spillway:speed=1", "spillway:gain=3",
		"spillway:deadband=0.3/", "nearest:", "nearest:0s", "nearest:fast", "leastwait:1", "leastwait:0", "leastwait:two", "p2c:x", "weights", "weights:", "weights:primary=0.5", "weights:n2", "weights:primary=0.5,n2=0.5,n2=0"}
	for _, spec := range bad {
		t.Run("bad "+spec, func(t *testing.T) {
			if _, err := Parse(spec, DefaultSettings()); !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("err %v, want ErrInvalidPolicy", err)
			}
		})
	}
	if p, _ := Parse("maxstaleness:90s", DefaultSettings()); p.Selection().MaxStaleness != 90*time.Second {
		t.Fatalf("maxstaleness %v", p.Selection().MaxStaleness)
	}
	if p, _ := Parse("nearest:1s", DefaultSettings()); p.Selection().LocalThreshold != time.Second {
		t.Fatalf("nearest:1s local threshold %v", p.Selection().LocalThreshold)
	}
	if p, _ := Parse("leastwait:2", DefaultSettings()); p.Selection().Choice.Sample != 2 {
		t.Fatalf("leastwait:2 sample %d", p.Selection().Choice.Sample)
	}
	if p, _ := Parse("leastwait", DefaultSettings()); p.Selection().Choice.Sample != 0 {
		t.Fatalf("leastwait sample %d, want every member", p.Selection().Choice.Sample)
	}
	rules := map[string]Rule{"leastwait": LeastWait, "p2c": TwoChoices, "prequal": HotCold}
	for spec, rule := range rules {
		if p, _ := Parse(spec, DefaultSettings()); p.Selection().Choice.Rule != rule {
			t.Fatalf("%s rule %v, want %v", spec, p.Selection().Choice.Rule, rule)
		}
	}
}

func TestParseSpecs(t *testing.T) {
	specs, err := ParseSpecs("primary, fixed:0.7,,decongestant", DefaultSettings())
	if err != nil || len(specs) != 3 {
		t.Fatalf("got %d specs, err %v", len(specs), err)
	}
	if got := specs[1].String(); got != "fixed:0.7" {
		t.Fatalf("spec text %q, want the trimmed spec", got)
	}
	// Every New is a fresh state machine.
	a, b := specs[2].New(), specs[2].New()
	a.EndPeriod(Period{Primary: Stats{Count: 100, P50: 8 * time.Millisecond}, Secondary: Stats{Count: 100, P50: 2 * time.Millisecond}})
	if a.Fraction() == b.Fraction() {
		t.Fatalf("two policies from one spec share state: %v and %v", a.Fraction(), b.Fraction())
	}
	if _, err := ParseSpecs(" , ", DefaultSettings()); err == nil {
		t.Fatal("empty list accepted")
	}
	if _, err := ParseSpecs("primary,fastest", DefaultSettings()); !errors.Is(err, ErrInvalidPolicy) {
		t.Fatalf("unknown policy: err %v", err)
	}
}

func TestParseSpecsWeights(t *testing.T) {
	tests := []struct {
		list  string
		names []string // nil: an error
	}{
		{"weights:primary=0.5,n2=0.5", []string{"weights:primary=0.5,n2=0.5"}},
		{"secondary,weights:primary=0.5,n2=0.5,spillway", []string{"secondary", "weights:primary=0.5,n2=0.5", "spillway"}},
		{"weights:primary=0.5,n2=0.5,fixed:0.5", []string{"weights:primary=0.5,n2=0.5", "fixed:0.5"}},
		{"weights:primary=0.5,127.0.0.1:27018=0.5", []string{"weights:primary=0.5,127.0.0.1:27018=0.5"}},
		{"weights:primary=0.5,n2=0.5,weights:primary=1", []string{"weights:primary=0.5,n2=0.5", "weights:primary=1"}},
		{"weights:primary=0.5, n2=0.5 , primary", []string{"weights:primary=0.5,n2=0.5", "primary"}},
		{"weights:primary=0.5,,n2=0.5", nil}, // an empty item ends the weights
		{"fixed:0.5,n2=0.5", nil},            // pairs only follow weights:
		{"weights:primary=1,fastest", nil},
		{"weights:primary=0.5,n2=0.4", nil},
		{"", nil},
		{",,", nil},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			specs, err := ParseSpecs(tt.list, DefaultSettings())
			if tt.names == nil {
				if !errors.Is(err, ErrInvalidPolicy) {
					t.Fatalf("got %v, err %v: want ErrInvalidPolicy", specs, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, sp := range specs {
				names = append(names, sp.New().Name())
			}
			if !slices.Equal(names, tt.names) {
				t.Fatalf("policies %q, want %q", names, tt.names)
			}
		})
	}
}

func TestSplitSpecs(t *testing.T) {
	tests := []struct {
		list string
		want []string
	}{
		{"", nil},
		{"primary, fixed:0.7,,decongestant", []string{"primary", "fixed:0.7", "decongestant"}},
		{"weights:primary=0.5,n2=0.5", []string{"weights:primary=0.5,n2=0.5"}},
		{"secondary,weights:primary=0.5,n2=0.5,spillway", []string{"secondary", "weights:primary=0.5,n2=0.5", "spillway"}},
		{" weights:primary=0.5 , n2=0.5 ,spillway", []string{"weights:primary=0.5,n2=0.5", "spillway"}},
		{"WEIGHTS:primary=0.5,n2=0.5", []string{"WEIGHTS:primary=0.5,n2=0.5"}},
		{"weights:primary=0.5,127.0.0.1:27018=0.5,primary", []string{"weights:primary=0.5,127.0.0.1:27018=0.5", "primary"}},
		{"weights:primary=0.5,n2=0.5,weights:n3=1,n4=0", []string{"weights:primary=0.5,n2=0.5", "weights:n3=1,n4=0"}},
		{"weights:primary=0.5,,n2=0.5", []string{"weights:primary=0.5", "n2=0.5"}},
		{"fixed:0.5,n2=0.5", []string{"fixed:0.5", "n2=0.5"}},
		{"n2=0.5,weights:primary=1", []string{"n2=0.5", "weights:primary=1"}},
	}
	for _, tt := range tests {
		if got := splitSpecs(tt.list); !slices.Equal(got, tt.want) {
			t.Errorf("splitSpecs(%q) = %q, want %q", tt.list, got, tt.want)
		}
	}
}

func TestParseBound(t *testing.T) {
	tests := []struct {
		in   string
		want Bound
		ok   bool
	}{
		{"10s", Bound{Max: 10 * time.Second}, true},
		{"0", Bound{}, true},
		{"0s", Bound{}, true},
		{"none", Bound{Unbounded: true}, true},
		{"-1s", Bound{}, false},
		{"-1ns", Bound{}, false},
		{"1ns", Bound{Max: 1}, true},
		{"ten", Bound{}, false},
	}
	for _, tt := range tests {
		got, err := ParseBound(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseBound(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestParseSpillwaySettings checks that a spillway spec's keys reach the
// policy's constants and leave the others as given.
func TestParseSpillwaySettings(t *testing.T) {
	p, err := Parse("spillway:deadband=0.3/gain=0.1/floor-ms=2.5/probe-share=0.02/probe-rate=5/smoothing=0.8", DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	got, want := p.(*Spillway).Config(), DefaultSpillwayConfig()
	want.Deadband, want.Gain, want.PrimaryFloor, want.ProbeShare, want.ProbeRate, want.Smoothing = 0.3, 0.1, 2500*time.Microsecond, 0.02, 5, 0.8
	if got != want {
		t.Fatalf("config %+v, want %+v", got, want)
	}
}

func TestSettingsWithBound(t *testing.T) {
	b := Bound{Max: 2 * time.Second}
	s := DefaultSettings().WithBound(b)
	if s.Decongestant.Bound != b || s.Spillway.Bound != b {
		t.Fatalf("bounds %v and %v, want %v", s.Decongestant.Bound, s.Spillway.Bound, b)
	}
	if d := DefaultSettings(); d.Decongestant.Bound == b {
		t.Fatal("WithBound changed the defaults")
	}
}
