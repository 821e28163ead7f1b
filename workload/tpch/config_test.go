package tpch

import (
	"errors"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/workload"
)

// TestFlags configures the registered workload from flags, as `bench tpch`
// does, and checks that every bad setting is refused with an error naming
// it.
func TestFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // substring of the error; "" = valid
	}{
		{nil, ""},
		{[]string{"--sf", "0.05", "--q1-plan", "collscan", "--collection", "li"}, ""},
		{[]string{"--sf", "0"}, "sf 0 must be above 0"},
		{[]string{"--sf", "-1"}, "sf -1 must be above 0"},
		{[]string{"--sf", "NaN"}, "sf NaN must be above 0"},
		{[]string{"--sf", "0.00001"}, "below 0.0001, the smallest scale factor with one supplier"},
		{[]string{"--sf", "5000"}, "sf 5000 is above 1000"},
		{[]string{"--sf", "ten"}, `"ten" is not a scale factor`},
		{[]string{"--q1-plan", "fast"}, `Q1 plan "fast": want auto, index or collscan`},
		{[]string{"--collection", ""}, "collection must not be empty"},
		{[]string{"--collection", "a$b"}, "must not contain '$'"},
		{[]string{"--collection", "system.x"}, "system namespace"},
		{[]string{"--records", "10"}, "flag provided but not defined"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			g, err := workload.Configure(Name, workload.Shared{Seed: 3}, tt.args...)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Configure: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Configure(%q) = %v, %v; want an error containing %q", tt.args, g, err, tt.want)
			}
		})
	}
}

func TestGeneratorSettings(t *testing.T) {
	g, err := workload.Configure(Name, workload.Shared{Seed: 3}, "--sf", "0.002", "--q1-plan", "index")
	if err != nil {
		t.Fatal(err)
	}
	tg := g.(*Generator)
	if c := tg.Config(); c.Seed != 3 || c.SF != 0.002 || c.Plan != PlanIndex || c.Collection != DefaultCollection {
		t.Errorf("config %+v, want the runner's seed 3, sf 0.002, plan index, collection lineitem", c)
	}
	if g.Name() != "tpch" || g.Mix() != "q1" {
		t.Errorf("name %q mix %q, want tpch q1", g.Name(), g.Mix())
	}
	if err := g.SetMix("q1"); err != nil {
		t.Errorf("SetMix(q1): %v", err)
	}
	if err := g.SetMix("b"); !errors.Is(err, ErrConfig) {
		t.Errorf("SetMix(b) = %v, want ErrConfig", err)
	}
	if n, want := tg.Records(), tg.Data().Lines(); n != want || n < 3000*3 || n > 3000*5 {
		t.Errorf("Records() = %d, Lines() = %d; want equal, about 4 x 3000 orders", n, want)
	}
	s := tg.Settings()
	if s["sf"] != "0.002" || s["q1_plan"] != "index" || s["orders"] != "3000" || s["bson_mb"] == "" {
		t.Errorf("settings %v", s)
	}
}

func TestEstimate(t *testing.T) {
	docs, bytes := Estimate(10)
	if docs != 60_000_000 || bytes != 60_000_000*docBytes {
		t.Errorf("Estimate(10) = %d docs, %d bytes; want 60,000,000 docs of %d bytes", docs, bytes, docBytes)
	}
}

func TestParsePlan(t *testing.T) {
	for p := PlanAuto; p <= PlanCollScan; p++ {
		got, err := ParsePlan(strings.ToUpper(p.String()))
		if err != nil || got != p {
			t.Errorf("ParsePlan(%q) = %v, %v", p, got, err)
		}
	}
	if _, err := ParsePlan(""); !errors.Is(err, ErrConfig) {
		t.Errorf("ParsePlan(\"\") = %v, want ErrConfig", err)
	}
	if s := Plan(0).String(); s != "plan(0)" {
		t.Errorf("Plan(0) = %q", s)
	}
}
