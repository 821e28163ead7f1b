package ycsb

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Config configures a YCSB generator. Start from DefaultConfig; the zero
// Config is invalid.
type Config struct {
	// Mix is the core workload, A to F.
	Mix Mix
	// Records is YCSB's recordcount: how many records Load inserts.
	Records int64
	// Fields is YCSB's fieldcount: fields field0..field{n-1} per record.
	Fields int
	// FieldLength is the length in bytes of each field's value.
	FieldLength int
	// Distribution overrides the mix's requestdistribution; zero keeps it.
	Distribution Distribution
	// MaxScanLength bounds workload E's scans, whose length is uniform in
	// [1, MaxScanLength].
	MaxScanLength int
	// Seed makes the loaded data and the workers' random streams
	// reproducible.
	Seed int64
	// Collection is YCSB's table.
	Collection string
	// InsertStart is the first key number Load inserts (YCSB's insertstart).
	InsertStart int64
	// Causal runs every client in a causally consistent session: its
	// reads, routed ones included, see its own writes and never go back
	// (with majority read and write concerns, also across failovers).
	Causal bool
	// ReadProportion, when above 0, replaces the mix's proportions by
	// reads with this probability and updates otherwise (YCSB's
	// readproportion; updateproportion is 1 minus it). Mixes A, B and C
	// only, which read and update.
	ReadProportion float64
	// ReadKeys, when above 0, splits the loaded keys: reads draw from the first
	// ReadKeys, updates from the rest, with the request distribution over each
	// part (the disjoint read and write key sets of the read-hints paper,
	// §4.5).
	ReadKeys int64
}

// Defaults, as YCSB's workload files and CoreWorkload set them; maxscanlength
// is workload E's 100.
const (
	DefaultRecords       = 100_000
	DefaultFields        = 10
	DefaultFieldLength   = 100
	DefaultMaxScanLength = 100
	DefaultCollection    = "usertable"
)

// maxRecordBytes keeps a record well under MongoDB's 16 MiB document limit.
const maxRecordBytes = 15 << 20

// DefaultConfig returns workload B over 100,000 records of ten 100-byte
// fields in collection usertable, seed 1.
func DefaultConfig() Config {
	return Config{
		Mix:           MixB,
		Records:       DefaultRecords,
		Fields:        DefaultFields,
		FieldLength:   DefaultFieldLength,
		MaxScanLength: DefaultMaxScanLength,
		Seed:          1,
		Collection:    DefaultCollection,
	}
}

// Validate reports the first invalid setting.
func (c Config) Validate() error {
	switch {
	case c.Mix < MixA || c.Mix > MixF:
		return fmt.Errorf("ycsb: invalid mix %v (want a..f)", c.Mix)
	case c.Records < 1:
		return fmt.Errorf("ycsb: records must be at least 1, got %d", c.Records)
	case c.InsertStart < 0:
		return fmt.Errorf("ycsb: insertstart must not be negative, got %d", c.InsertStart)
	case c.InsertStart > math.MaxInt64/2-c.Records:
		return fmt.Errorf("ycsb: insertstart %d + records %d is too large", c.InsertStart, c.Records)
	case !(c.ReadProportion >= 0 && c.ReadProportion <= 1):
		return fmt.Errorf("ycsb: readproportion %v must be in [0, 1]", c.ReadProportion)
	case c.ReadProportion > 0 && c.Mix > MixC:
		return fmt.Errorf("ycsb: readproportion replaces a read/update mix's proportions (a, b or c), not workload %v's", c.Mix)
	case c.ReadKeys < 0 || (c.ReadKeys > 0 && c.ReadKeys >= c.Records):
		return fmt.Errorf("ycsb: readkeys %d must be 0 (all keys) or below the record count %d, leaving keys to update", c.ReadKeys, c.Records)
	case c.Fields < 1:
		return fmt.Errorf("ycsb: fields must be at least 1, got %d", c.Fields)
	case c.FieldLength < 1:
		return fmt.Errorf("ycsb: fieldlength must be at least 1, got %d", c.FieldLength)
	case int64(c.Fields)*int64(c.FieldLength) > maxRecordBytes:
		return fmt.Errorf("ycsb: fields %d x fieldlength %d exceeds %d bytes per record",
			c.Fields, c.FieldLength, maxRecordBytes)
	case c.Distribution > Latest:
		return fmt.Errorf("ycsb: invalid distribution %v", c.Distribution)
	case c.MaxScanLength < 1:
		return fmt.Errorf("ycsb: maxscanlength must be at least 1, got %d", c.MaxScanLength)
	}
	return validateCollection(c.Collection)
}

func validateCollection(name string) error {
	switch {
	case name == "":
		return errors.New("ycsb: collection must not be empty")
	case strings.ContainsAny(name, "$\x00"):
		return fmt.Errorf("ycsb: collection %q must not contain '$' or NUL", name)
	case strings.HasPrefix(name, "system."):
		return fmt.Errorf("ycsb: collection %q must not be in the system namespace", name)
	}
	return nil
}

// distribution is the effective request distribution for mix m.
func (c Config) distribution(m Mix) Distribution {
	if c.Distribution != 0 {
		return c.Distribution
	}
	return m.distribution()
}

// Option names accepted by New, and YCSB's property names accepted as
// aliases.
const (
	optWorkload      = "workload"
	optRecords       = "records"
	optFields        = "fields"
	optFieldLength   = "fieldlength"
	optDistribution  = "distribution"
	optMaxScanLength = "maxscanlength"
	optSeed          = "seed"
	optCollection    = "collection"
	optInsertStart   = "insertstart"
	optCausal        = "causal"
	optReadProp      = "readproportion"
	optReadKeys      = "readkeys"
)

var optionAliases = map[string]string{
	"recordcount":         optRecords,
	"fieldcount":          optFields,
	"requestdistribution": optDistribution,
	"table":               optCollection,
}

var optionNames = []string{
	optWorkload, optRecords, optFields, optFieldLength, optDistribution,
	optMaxScanLength, optSeed, optCollection, optInsertStart, optCausal, optReadProp, optReadKeys,
}

// ParseOptions builds a validated Config from string options over
// DefaultConfig. Unknown options are rejected so a misspelling is not
// silently ignored.
func ParseOptions(opts map[string]string) (Config, error) {
	c := DefaultConfig()
	canon := make(map[string]string, len(opts))
	from := make(map[string]string, len(opts))
	for k, v := range opts {
		name := strings.ToLower(strings.TrimSpace(k))
		if a, ok := optionAliases[name]; ok {
			name = a
		}
		if !isOption(name) {
			return Config{}, fmt.Errorf("ycsb: unknown option %q (known: %s)", k, strings.Join(optionNames, ", "))
		}
		if prev, dup := from[name]; dup {
			return Config{}, fmt.Errorf("ycsb: option %q given twice (as %q and %q)", name, prev, k)
		}
		canon[name], from[name] = v, k
	}
	keys := make([]string, 0, len(canon))
	for k := range canon {
		keys = append(keys, k)
	}
	sort.Strings(keys) // first error is deterministic
	for _, name := range keys {
		if err := c.set(name, canon[name]); err != nil {
			return Config{}, err
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func isOption(name string) bool {
	for _, n := range optionNames {
		if n == name {
			return true
		}
	}
	return false
}

func (c *Config) set(name, value string) error {
	v := strings.TrimSpace(value)
	var err error
	switch name {
	case optWorkload:
		c.Mix, err = ParseMix(v)
	case optRecords:
		c.Records, err = strconv.ParseInt(v, 10, 64)
	case optFields:
		c.Fields, err = strconv.Atoi(v)
	case optFieldLength:
		c.FieldLength, err = strconv.Atoi(v)
	case optDistribution:
		c.Distribution, err = ParseDistribution(v)
	case optMaxScanLength:
		c.MaxScanLength, err = strconv.Atoi(v)
	case optSeed:
		c.Seed, err = strconv.ParseInt(v, 10, 64)
	case optCollection:
		c.Collection = v
	case optInsertStart:
		c.InsertStart, err = strconv.ParseInt(v, 10, 64)
	case optCausal:
		c.Causal, err = strconv.ParseBool(v)
	case optReadProp:
		c.ReadProportion, err = strconv.ParseFloat(v, 64)
	case optReadKeys:
		c.ReadKeys, err = strconv.ParseInt(v, 10, 64)
	}
	if err != nil {
		return fmt.Errorf("ycsb: option %s=%q: %w", name, value, err)
	}
	return nil
}
