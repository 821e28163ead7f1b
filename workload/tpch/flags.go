package tpch

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/decongestant/decongestant/workload"
)

func init() {
	workload.Register(workload.Meta{Name: Name,
		Description: "TPC-H Q1 (Pricing Summary Report) on LINEITEM, as in the read-hints paper",
		Clients:     4, WriteConcern: "1", New: func() workload.Flagser { return NewFlags() }})
}

// Flags are the TPC-H settings as command-line flags over DefaultConfig;
// the seed is the runner's. It is the registered workload.
type Flags struct{ cfg Config }

var _ workload.Flagser = (*Flags)(nil)

// NewFlags returns the settings at DefaultConfig.
func NewFlags() *Flags { return &Flags{cfg: DefaultConfig()} }

// Flags returns the flag set bound to the settings.
func (f *Flags) Flags() *flag.FlagSet {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	docs, bytes := Estimate(1)
	fs.Var(sfFlag{&f.cfg.SF}, "sf", fmt.Sprintf("TPC-H scale factor (dbgen's -s), e.g. 0.05 for a quick run; about %d x SF LINEITEM documents of about %d bytes of BSON, %.0f MB x SF (the read-hints paper ran SF 10), plus the l_shipdate index",
		docs, docBytes, float64(bytes)/1e6))
	fs.StringVar(&f.cfg.Collection, "collection", f.cfg.Collection, "LINEITEM collection")
	fs.Var(planFlag{&f.cfg.Plan}, "q1-plan", "how Q1 reads LINEITEM: auto (the planner's choice: the l_shipdate index, fetching 95-98% of the documents in shipdate order), index (hint that index) or collscan (hint a collection scan)")
	return fs
}

// Configure validates the settings with the runner's seed and returns the
// generator.
func (f *Flags) Configure(s workload.Shared) (workload.Generator, error) {
	c := f.cfg
	c.Seed = s.Seed
	return NewGenerator(c)
}

// sfFlag is --sf; it rejects what is not a number at once, the range in
// Configure.
type sfFlag struct{ sf *float64 }

func (s sfFlag) Set(v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("%q is not a scale factor such as 0.1", v)
	}
	*s.sf = x
	return nil
}

func (s sfFlag) String() string {
	if s.sf == nil {
		return ""
	}
	return strconv.FormatFloat(*s.sf, 'g', -1, 64)
}

// planFlag is --q1-plan.
type planFlag struct{ p *Plan }

func (p planFlag) Set(v string) error {
	x, err := ParsePlan(v)
	if err != nil {
		return err
	}
	*p.p = x
	return nil
}

func (p planFlag) String() string {
	if p.p == nil {
		return ""
	}
	return p.p.String()
}
