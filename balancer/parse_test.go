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

func TestParseList(t *testing.T) {
	ps, err := ParseList("primary,secondary,,decongestant", DefaultSettings())
	if err != nil || len(ps) != 3 {
		t.Fatalf("got %d policies, err %v", len(ps), err)
	}
	if _, err := ParseList(" , ", DefaultSettings()); err == nil {
		t.Fatal("empty list accepted")
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
