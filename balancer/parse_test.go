package balancer

import (
	"errors"
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
		{"fixed:0.5", "fixed:0.5", Split, 0.5},
		{"fixed:1", "fixed:1", Split, 1},
		{"maxstaleness:120s", "maxstaleness:2m0s", MaxStaleness, 1},
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
		"maxstaleness:30s", "maxstaleness", "maxstaleness:abc", "decongestant:3", "primary:1"}
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
		{"ten", Bound{}, false},
	}
	for _, tt := range tests {
		got, err := ParseBound(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseBound(%q) = %v, %v", tt.in, got, err)
		}
	}
}
