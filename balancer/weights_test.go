package balancer

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseWeightsErrors(t *testing.T) {
	tests := []struct {
		arg string
		say string // in the error
	}{
		{"", "is not member=share"},
		{"primary=0.5,n2=0.4", "sum to 0.9"},
		{"primary=0.5,n2=0.6", "sum to 1.1"},
		{"primary=0.5,n2=0.5,n3=0.001", "sum to"},
		{"primary=x,n2=1", `"primary=x"`},
		{"primary=,n2=1", `"primary="`},
		{"primary=-0.5,n2=1.5", `"primary=-0.5"`},
		{"primary=0,n2=1.5", `"n2=1.5"`},
		{"primary=NaN,n2=1", `"primary=NaN"`},
		{"primary=0,n2=nan", `"n2=nan"`},
		{"primary=0.5,primary=0.5", `"primary" is given twice`},
		{"primary=0.5,PRIMARY=0.5", "given twice"},
		{"n2=0.5,N2=0.5", "given twice"},
		{"primary,n2=1", `"primary"`},
		{"=1", `"=1"`},
		{"primary=0.5,,n2=0.5", `""`},
		{"primary=0.5;n2=0.5", "is not member=share"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			_, err := ParseWeights(tt.arg)
			if !errors.Is(err, ErrInvalidPolicy) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("err %v, want ErrInvalidPolicy saying %s", err, tt.say)
			}
			if !strings.Contains(err.Error(), "weights:"+tt.arg) {
				t.Fatalf("error %q does not quote the spec", err)
			}
		})
	}
}

func TestParseWeights(t *testing.T) {
	tests := []struct {
		arg  string
		keys []string
	}{
		{"primary=1", []string{"primary"}},
		{"primary=0.2,n2=0.4,n3=0.4", []string{"primary", "n2", "n3"}},
		{" primary = 0.5 , n2 = 0.5 ", []string{"primary", "n2"}},
		{"n3=0.3333333,n2=0.6666667", []string{"n3", "n2"}}, // within 1e-6 of 1
		{"primary=0.5,127.0.0.1:27018=0.5", []string{"primary", "127.0.0.1:27018"}},
		{"primary=0,n2=1", []string{"primary", "n2"}},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			s, err := ParseWeights(tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Keys(), tt.keys) {
				t.Fatalf("keys %q, want %q", s.Keys(), tt.keys)
			}
			if s.Name() != "weights:"+tt.arg {
				t.Fatalf("name %q", s.Name())
			}
			if s.Selection() != (Selection{Mode: PerMember}) || s.Interval() != 0 {
				t.Fatalf("selection %v interval %v", s.Selection(), s.Interval())
			}
			if w := s.Weights(); w.Primary != 1 || len(w.Secondaries) != 0 || s.Fraction() != 0 {
				t.Fatalf("before any poll: %v, want every read on the primary", w)
			}
		})
	}
}

func TestStaticWeightsResolve(t *testing.T) {
	named := func(host, name string, role Side) MemberLag {
		return MemberLag{Host: host, Name: name, Role: role}
	}
	set := []MemberLag{named(h1, "n1", Primary), named(h2, "n2", Secondary), named(h3, "n3", Secondary)}
	n3down := []MemberLag{named(h1, "n1", Primary), named(h2, "n2", Secondary), named(h3, "n3", 0)}
	elected := []MemberLag{named(h1, "n1", Secondary), named(h2, "n2", Primary), named(h3, "n3", Secondary)}
	untagged := []MemberLag{named(h1, "", Primary), named(h2, "", Secondary), named(h3, "", Secondary)}
	tests := []struct {
		name    string
		arg     string
		members []MemberLag
		known   bool
		want    map[string]float64
	}{
		{"by name", "primary=0.2,n2=0.4,n3=0.4", set, true, map[string]float64{"primary": 0.2, h2: 0.4, h3: 0.4}},
		{"names are case-insensitive", "PRIMARY=0.2,N2=0.4,n3=0.4", set, true, map[string]float64{"primary": 0.2, h2: 0.4, h3: 0.4}},
		{"by host:port", "primary=0.2,h2:27018=0.8", set, true, map[string]float64{"primary": 0.2, h2: 0.8}},
		{"by host:port, untagged", "primary=0.2,h2:27018=0.3,h3:27019=0.5", untagged, true, map[string]float64{"primary": 0.2, h2: 0.3, h3: 0.5}},
		{"a name matches nothing untagged", "primary=0.5,n2=0.5", untagged, true, map[string]float64{"primary": 1}},
		{"a named member that is primary adds to the primary's share", "n1=0.5,n2=0.5", set, true, map[string]float64{"primary": 0.5, h2: 0.5}},
		{"the primary by name and as primary", "primary=0.2,n1=0.2,n2=0.6", set, true, map[string]float64{"primary": 0.4, h2: 0.6}},
		{"after an election the shares follow the members", "primary=0.2,n2=0.4,n3=0.4", elected, true, map[string]float64{"primary": 0.6, h3: 0.4}},
		{"a member down has its share spread", "primary=0.2,n2=0.4,n3=0.4", n3down, true, map[string]float64{"primary": 0.2 / 0.6, h2: 0.4 / 0.6}},
		{"a member missing from the poll has its share spread", "primary=0.2,n2=0.4,n3=0.4", set[:2], true, map[string]float64{"primary": 0.2 / 0.6, h2: 0.4 / 0.6}},
		{"every named member down: the primary", "n2=0.5,n3=0.5", n3down[:1], true, map[string]float64{"primary": 1}},
		{"an empty poll: the primary", "n2=0.5,n3=0.5", nil, false, map[string]float64{"primary": 1}},
		{"a zero share", "primary=0,n2=1", set, true, map[string]float64{"primary": 0, h2: 1}},
		{"one member by name and by host", "primary=0.2,n2=0.3,h2:27018=0.5", set, true, map[string]float64{"primary": 0.2, h2: 0.8}},
		{"staleness is ignored", "primary=0.2,n2=0.4,n3=0.4", set, false, map[string]float64{"primary": 0.2, h2: 0.4, h3: 0.4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseWeights(tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			lag := Lag{Known: tt.known, Members: tt.members}
			if !tt.known {
				lag.Max = time.Hour
			}
			f := s.ObserveLag(lag)
			w := s.Weights()
			if err := checkWeights(w); err != nil {
				t.Fatal(err)
			}
			if f != s.Fraction() || math.Abs(f-w.Secondary()) > 1e-12 {
				t.Fatalf("ObserveLag %v, Fraction %v, secondaries' share %v", f, s.Fraction(), w.Secondary())
			}
			got := shares(w)
			if len(got) != len(tt.want) {
				t.Fatalf("weights %v, want %v", w, tt.want)
			}
			for k, v := range tt.want {
				if math.Abs(got[k]-v) > 1e-12 {
					t.Fatalf("weights %v, want %v", w, tt.want)
				}
			}
			dec := s.EndPeriod(secPeriod(served(h1, 100, 50)))
			if dec.Reason != "static" || !math.IsNaN(dec.Ratio) || dec.Fraction != f || shares(s.Weights())["primary"] != got["primary"] {
				t.Fatalf("a period end changed the static split: %+v, %v", dec, s.Weights())
			}
		})
	}
}

func TestMatches(t *testing.T) {
	tests := []struct {
		key, host, name string
		want            bool
	}{
		{"n2", h2, "n2", true},
		{"N2", h2, "n2", true},
		{h2, h2, "n2", true},
		{"H2:27018", h2, "", true},
		{"n2", h2, "", false},
		{"n2", h3, "n3", false},
		{"primary", h1, "", false},
		{"", h1, "", false},
	}
	for _, tt := range tests {
		if got := Matches(tt.key, tt.host, tt.name); got != tt.want {
			t.Errorf("Matches(%q, %q, %q) = %v, want %v", tt.key, tt.host, tt.name, got, tt.want)
		}
	}
}

func TestWeights(t *testing.T) {
	w := Weights{Primary: 0.25, Secondaries: []HostWeight{{h2, 0.5}, {h3, 0.25}}}
	if got := w.Secondary(); got != 0.75 {
		t.Errorf("Secondary() = %v, want 0.75", got)
	}
	if w.Of(h2) != 0.5 || w.Of(h3) != 0.25 || w.Of(h1) != 0 {
		t.Errorf("Of: %v %v %v", w.Of(h2), w.Of(h3), w.Of(h1))
	}
	if got, want := w.String(), "primary=0.25,h2:27018=0.5,h3:27019=0.25"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if p := PrimaryOnly(); p.Primary != 1 || p.Secondary() != 0 || p.String() != "primary=1" {
		t.Errorf("PrimaryOnly() = %v", p)
	}
}

// TestStaticWeightsReset checks that a new split takes effect at once,
// resolved against the latest poll, and that a bad one changes nothing.
func TestStaticWeightsReset(t *testing.T) {
	s, err := ParseWeights("primary=1")
	if err != nil {
		t.Fatal(err)
	}
	set := Lag{Known: true, Members: []MemberLag{
		{Host: h1, Name: "n1", Role: Primary}, {Host: h2, Name: "n2", Role: Secondary}, {Host: h3, Name: "n3", Role: Secondary}}}
	s.ObserveLag(set)
	steps := []struct {
		arg  string
		ok   bool
		want map[string]float64
	}{
		{"primary=0.2,n2=0.8", true, map[string]float64{"primary": 0.2, h2: 0.8}},
		{"n3=1", true, map[string]float64{"primary": 0, h3: 1}},
		{"n2=0.5", false, map[string]float64{"primary": 0, h3: 1}}, // does not sum to 1: the split stays
		{"n1=0.5,n3=0.5", true, map[string]float64{"primary": 0.5, h3: 0.5}},
	}
	for i, st := range steps {
		err := s.Reset(st.arg)
		if (err == nil) != st.ok {
			t.Fatalf("step %d: Reset(%q) err %v, want ok=%v", i, st.arg, err, st.ok)
		}
		got := shares(s.Weights())
		if len(got) != len(st.want) {
			t.Fatalf("step %d: weights %v, want %v", i, s.Weights(), st.want)
		}
		for k, v := range st.want {
			if math.Abs(got[k]-v) > 1e-12 {
				t.Fatalf("step %d: weights %v, want %v", i, s.Weights(), st.want)
			}
		}
		if s.Fraction() != s.Weights().Secondary() {
			t.Fatalf("step %d: Fraction %v, secondaries' share %v", i, s.Fraction(), s.Weights().Secondary())
		}
		if s.Name() != "weights:primary=1" {
			t.Fatalf("step %d: name %q, want the spec the policy was built from", i, s.Name())
		}
	}
}
