package ycsb

import (
	"flag"
	"strconv"

	"github.com/decongestant/decongestant/workload"
)

func init() {
	workload.Register(workload.Meta{Name: Name, Description: "YCSB core workloads A-F",
		Clients: 64, WriteConcern: "1", New: func() workload.Flagser { return NewFlags() }})
}

// Flags are YCSB's settings as command-line flags, named as the options of
// ParseOptions (YCSB's property names), over DefaultConfig; the seed is
// the runner's. It is the registered workload.
type Flags struct{ cfg Config }

var _ workload.Flagser = (*Flags)(nil)

// NewFlags returns the settings at DefaultConfig.
func NewFlags() *Flags { return &Flags{cfg: DefaultConfig()} }

// Flags returns the flag set bound to the settings.
func (f *Flags) Flags() *flag.FlagSet {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	opt := func(name, usage string) { fs.Var(option{&f.cfg, name}, name, usage) }
	opt(optWorkload, "YCSB core workload: a, b, c, d, e or f")
	opt(optRecords, "YCSB record count")
	opt(optFields, "YCSB fields per record")
	opt(optFieldLength, "YCSB bytes per field")
	opt(optDistribution, "override the request distribution: zipfian, uniform or latest")
	opt(optMaxScanLength, "workload E: longest scan")
	opt(optCollection, "YCSB table (collection)")
	opt(optInsertStart, "first key number loaded")
	opt(optCausal, "run every client in a causally consistent session (true/false)")
	opt(optReadProp, "replace a, b or c's proportions: reads with this probability, updates otherwise (YCSB's readproportion; the read-hints paper ran 0.8)")
	opt(optReadKeys, "reads draw from the first N loaded keys, updates from the rest (the read-hints paper's disjoint read and write key sets); 0 = all keys for both")
	return fs
}

// Configure validates the settings with the runner's seed and returns the
// generator.
func (f *Flags) Configure(s workload.Shared) (workload.Generator, error) {
	c := f.cfg
	c.Seed = s.Seed
	return NewGenerator(c)
}

// option is one setting as a flag.Value, parsed by Config.set.
type option struct {
	c    *Config
	name string
}

func (o option) Set(v string) error { return o.c.set(o.name, v) }

func (o option) String() string {
	if o.c == nil {
		return ""
	}
	switch o.name {
	case optWorkload:
		return o.c.Mix.String()
	case optRecords:
		return strconv.FormatInt(o.c.Records, 10)
	case optFields:
		return strconv.Itoa(o.c.Fields)
	case optFieldLength:
		return strconv.Itoa(o.c.FieldLength)
	case optDistribution:
		if o.c.Distribution == 0 {
			return ""
		}
		return o.c.Distribution.String()
	case optMaxScanLength:
		return strconv.Itoa(o.c.MaxScanLength)
	case optCollection:
		return o.c.Collection
	case optInsertStart:
		return strconv.FormatInt(o.c.InsertStart, 10)
	case optCausal:
		return strconv.FormatBool(o.c.Causal)
	}
	return ""
}

// IsBoolFlag lets --causal stand alone.
func (o option) IsBoolFlag() bool { return o.name == optCausal }
