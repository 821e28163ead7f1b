package tpcc

import (
	"errors"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/workload"
)

func TestParseMix(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Weights
		err  string
	}{
		{in: "standard", want: Weights{45, 43, 4, 4, 4}},
		{in: "readwrite", want: Weights{22, 20, 4, 4, 50}},
		{in: "no=40,pay=40,os=5,del=5,sl=10", want: Weights{40, 40, 5, 5, 10}},
		{in: " sl=100 ", want: Weights{0, 0, 0, 0, 100}},
		{in: "no=50,pay=40", err: "sum to 90, not 100"},
		{in: "no=50,foo=50", err: `mix weight "foo=50"`},
		{in: "no=50,no=50", err: "given twice"},
		{in: "no=-5,pay=105", err: "whole percent"},
		{in: "heavy", err: `unknown mix "heavy"`},
		{in: "", err: "empty mix"},
	} {
		got, err := ParseMix(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrConfig) {
				t.Errorf("ParseMix(%q) = %v, %v; want an ErrConfig saying %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMix(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		// A mix prints back to something ParseMix reads as the same mix.
		if again, err := ParseMix(got.String()); err != nil || again != got {
			t.Errorf("ParseMix(%q.String() = %q) = %v, %v", tt.in, got.String(), again, err)
		}
	}
}

// TestMixPick checks that choosing by the mix gives each transaction its
// share: over 0..99 every transaction is picked exactly its weight times.
func TestMixPick(t *testing.T) {
	for _, w := range []Weights{StandardMix, ReadWriteMix, {0, 0, 0, 0, 100}, {100, 0, 0, 0, 0}} {
		got := map[txnType]int{}
		for n := range 100 {
			got[w.pick(n)]++
		}
		for i, tt := range txnTypes {
			if got[tt] != w[i] {
				t.Errorf("mix %v: %s picked %d times of 100, want %d", w, tt, got[tt], w[i])
			}
		}
	}
}

func TestRandomFunctions(t *testing.T) {
	if got := lastName(371); got != "PRICALLYOUGHT" {
		t.Errorf("lastName(371) = %q (clause 4.3.2.3's example)", got)
	}
	if got := lastName(0); got != "BARBARBAR" {
		t.Errorf("lastName(0) = %q", got)
	}
	for seed := range uint64(50) {
		c := newNURandConstants(seed)
		d := c.CLastRun - c.CLastLoad
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 || c.CID > 1023 || c.OLIID > 8191 {
			t.Fatalf("seed %d: constants %+v break clause 2.1.6.1", seed, c)
		}
	}
	r := newRandom(1, 2, newNURandConstants(1))
	for range 10000 {
		if v := r.CustomerID(3000); v < 1 || v > 3000 {
			t.Fatalf("CustomerID = %d", v)
		}
		if v := r.ItemID(100000); v < 1 || v > 100000 {
			t.Fatalf("ItemID = %d", v)
		}
		if v := r.Float(1, 5000, 2); v < 1 || v > 5000 {
			t.Fatalf("Float = %v", v)
		}
	}
	// Small scales draw run-time last names only among the loaded ones.
	for range 1000 {
		name := r.RunLastName(30)
		found := false
		for n := range 30 {
			if lastName(n) == name {
				found = true
			}
		}
		if !found {
			t.Fatalf("RunLastName(30) = %q: no customer of a 30-customer district has it", name)
		}
	}
	if got := badCreditData(1, 2, 3, 4, 5, 6.5, strings.Repeat("x", 600)); len(got) != 500 || !strings.HasPrefix(got, "1 2 3 4 5 6.50|") {
		t.Errorf("badCreditData = %.40q… (len %d)", got, len(got))
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		mod  func(*Config)
		err  string
	}{
		{"zero warehouses", func(c *Config) { c.Warehouses = 0 }, "warehouses 0"},
		{"bad scale", func(c *Config) { c.Scale.NewOrders = c.Scale.Customers }, "new orders"},
		{"no schema", func(c *Config) { c.Schema = 0 }, "schema"},
		{"mix not 100", func(c *Config) { c.Mix = Weights{1, 1, 1, 1, 1} }, "not 100"},
		{"write concern", func(c *Config) { c.WriteConcern = "all" }, "write concern"},
		{"negative backoff", func(c *Config) { c.RetryBackoff = -1 }, "backoff"},
		{"stock-level read concern", func(c *Config) { c.StockLevelReadConcern = 3 }, "stock-level read concern"},
	} {
		c := DefaultConfig()
		tt.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.err)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
	if _, err := workload.Configure(Name, workload.Shared{Seed: 1}, "--warehouses", "x"); err == nil || !strings.Contains(err.Error(), "warehouses") {
		t.Errorf("--warehouses x: %v", err)
	}
	if _, err := workload.Configure(Name, workload.Shared{Seed: 1}, "--speed", "1"); err == nil || !strings.Contains(err.Error(), "speed") {
		t.Errorf("an unknown flag: %v", err)
	}
	if _, err := workload.Configure(Name, workload.Shared{Seed: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("a negative seed: %v, want ErrConfig", err)
	}
}

func TestParseStockLevelReadConcern(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want StockLevelReadConcern
	}{
		{"local", StockLevelLocal}, {"majority", StockLevelMajority}, {" Majority ", StockLevelMajority},
		{"snapshot", 0}, {"linearizable", 0}, {"", 0},
	} {
		got, err := ParseStockLevelReadConcern(tt.in)
		if tt.want == 0 {
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "want local or majority") {
				t.Errorf("ParseStockLevelReadConcern(%q) = %v, %v; want an ErrConfig naming local and majority", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseStockLevelReadConcern(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if again, err := ParseStockLevelReadConcern(got.String()); err != nil || again != got {
			t.Errorf("%v does not parse back: %v, %v", got, again, err)
		}
	}
}

// TestStockLevelReadConcernDefault checks the rule: local for the Decongestant
// paper's readwrite mix, majority for the TPC-C-on-MongoDB paper's standard mix
// and for custom weights; an explicit choice wins; the run's settings record
// the choice.
func TestStockLevelReadConcernDefault(t *testing.T) {
	custom := Weights{40, 40, 5, 5, 10}
	for _, tt := range []struct {
		name     string
		mix      Weights
		explicit StockLevelReadConcern
		want     StockLevelReadConcern
	}{
		{"readwrite", ReadWriteMix, 0, StockLevelLocal},
		{"standard", StandardMix, 0, StockLevelMajority},
		{"custom weights", custom, 0, StockLevelMajority},
		{"readwrite, majority asked", ReadWriteMix, StockLevelMajority, StockLevelMajority},
		{"standard, local asked", StandardMix, StockLevelLocal, StockLevelLocal},
	} {
		if tt.explicit == 0 {
			if got := DefaultStockLevelReadConcern(tt.mix); got != tt.want {
				t.Errorf("%s: DefaultStockLevelReadConcern = %v, want %v", tt.name, got, tt.want)
			}
		}
		cfg := DefaultConfig()
		cfg.Mix, cfg.StockLevelReadConcern = tt.mix, tt.explicit
		g, err := NewGenerator(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Config().StockLevelReadConcern; got != tt.want {
			t.Errorf("%s: generator's Stock-Level read concern %v, want %v", tt.name, got, tt.want)
		}
		if got := g.settings()["stock_level_read_concern"]; got != tt.want.String() {
			t.Errorf("%s: settings record %v, want %q", tt.name, got, tt.want.String())
		}
		// The registered workload's flags say the same.
		args := []string{"--mix", tt.mix.String()}
		if tt.explicit != 0 {
			args = append(args, "--stock-level-read-concern", tt.explicit.String())
		}
		wg, err := workload.Configure(Name, workload.Shared{Seed: 1}, args...)
		if err != nil {
			t.Fatal(err)
		}
		if got := wg.(*Generator).Config().StockLevelReadConcern; got != tt.want {
			t.Errorf("%s: flags %v read %v, want %v", tt.name, args, got, tt.want)
		}
	}
	// Switching the mix later (phases) keeps the configured read concern.
	cfg := DefaultConfig()
	g, err := NewGenerator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetMix("readwrite"); err != nil || g.Config().StockLevelReadConcern != StockLevelMajority {
		t.Errorf("after SetMix(readwrite): %v, %v; want majority kept", g.Config().StockLevelReadConcern, err)
	}
	if _, err := workload.Configure(Name, workload.Shared{Seed: 1}, "--stock-level-read-concern", "snapshot"); !errors.Is(err, ErrConfig) {
		t.Errorf("--stock-level-read-concern snapshot: %v, want ErrConfig", err)
	}
}
