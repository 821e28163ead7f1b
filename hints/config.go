package hints

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrConfig is returned for invalid settings.
var ErrConfig = errors.New("invalid read hints")

// Targets says which members receive a batch's hints (the read-hints paper,
// §3.1).
type Targets uint8

const (
	// All sends every read to every member that did not serve it.
	All Targets = iota + 1
	// One sends them to one member only: the one named in Config.One, or
	// by default the first in host order of the members that are not the
	// primary, so the same member stays warm batch after batch.
	One
)

// String returns "all" or "one".
func (t Targets) String() string {
	switch t {
	case All:
		return "all"
	case One:
		return "one"
	}
	return fmt.Sprintf("targets(%d)", uint8(t))
}

// ParseTargets accepts "all" and "one".
func ParseTargets(s string) (Targets, error) {
	switch s {
	case "all":
		return All, nil
	case "one":
		return One, nil
	}
	return 0, fmt.Errorf("%w: unknown targets %q (want all or one)", ErrConfig, s)
}

// Config holds the read hints' settings. The zero value is not valid; start
// from DefaultConfig.
type Config struct {
	// Interval is how often the capture buffer is shipped (the read-hints
	// paper: 90 ms).
	Interval time.Duration
	// MaxBatch is the number of captured reads that ships a batch early
	// (the read-hints paper: 10 000); the capture buffers hold that many.
	MaxBatch int
	// Targets and One say which members receive hints.
	Targets Targets
	One     string
	// Apply is the fraction of a batch's distinct reads replayed on each
	// target, in (0, 1] (the read-hints paper, Table 1: 0.1 to 1).
	Apply float64
	// Coalesce is the most keys one replayed find asks for: equality reads
	// of one field of one collection are replayed as one $in query.
	Coalesce int
	// Workers is the number of replays in flight per target member.
	Workers int
	// MaxLimit is the most documents a replayed find asks for: a captured
	// find without a limit, or with a larger one, is replayed with this
	// limit (it warms the first MaxLimit documents it returns).
	MaxLimit int64
	// Timeout bounds one replayed find, AggTimeout one replayed
	// aggregation. An aggregation is replayed as it was sent, so a scan
	// such as TPC-H Q1 takes as long on its target as on the member that
	// served it: seconds on capped members, where a find's replay that
	// takes seconds is a member to spare.
	Timeout, AggTimeout time.Duration
	// Overload decides when a member is too strained to take hints.
	Overload OverloadConfig
}

// DefaultConfig returns the read-hints paper's interval and batch size, all
// targets, every hint applied.
func DefaultConfig() Config {
	return Config{Interval: 90 * time.Millisecond, MaxBatch: 10000, Targets: All, Apply: 1, Coalesce: 256, Workers: 2,
		MaxLimit: 100, Timeout: 5 * time.Second, AggTimeout: 2 * time.Minute, Overload: DefaultOverloadConfig()}
}

// Validate checks the settings once.
func (c Config) Validate() error {
	switch {
	case c.Interval <= 0:
		return fmt.Errorf("%w: batch interval %v must be positive", ErrConfig, c.Interval)
	case c.MaxBatch < 1:
		return fmt.Errorf("%w: batch size %d must be at least 1", ErrConfig, c.MaxBatch)
	case c.Targets != All && c.Targets != One:
		return fmt.Errorf("%w: targets %v (want all or one)", ErrConfig, c.Targets)
	case c.Targets != One && c.One != "":
		return fmt.Errorf("%w: a target member (%q) needs targets one", ErrConfig, c.One)
	case !(c.Apply > 0 && c.Apply <= 1):
		return fmt.Errorf("%w: apply fraction %v must be in (0, 1]", ErrConfig, c.Apply)
	case c.Coalesce < 1:
		return fmt.Errorf("%w: coalesce %d must be at least 1", ErrConfig, c.Coalesce)
	case c.Workers < 1:
		return fmt.Errorf("%w: workers %d must be at least 1", ErrConfig, c.Workers)
	case c.MaxLimit < 1:
		return fmt.Errorf("%w: max limit %d must be at least 1", ErrConfig, c.MaxLimit)
	case c.Timeout <= 0 || c.AggTimeout <= 0:
		return fmt.Errorf("%w: replay timeouts %v (finds) and %v (aggregations) must be positive", ErrConfig, c.Timeout, c.AggTimeout)
	}
	return c.Overload.Validate()
}

// Name is the settings as a spec: "hints" for the defaults, else the
// settings that differ, e.g. "hints:apply=0.33/targets=one".
func (c Config) Name() string {
	d := DefaultConfig()
	var parts []string
	if c.Apply != d.Apply {
		parts = append(parts, "apply="+strconv.FormatFloat(c.Apply, 'g', -1, 64))
	}
	if c.Targets != d.Targets || c.One != "" {
		t := c.Targets.String()
		if c.One != "" {
			t += ":" + c.One
		}
		parts = append(parts, "targets="+t)
	}
	if c.Interval != d.Interval {
		parts = append(parts, "interval="+c.Interval.String())
	}
	if c.MaxBatch != d.MaxBatch {
		parts = append(parts, "batch="+strconv.Itoa(c.MaxBatch))
	}
	if len(parts) == 0 {
		return "hints"
	}
	return "hints:" + strings.Join(parts, "/")
}

// ParseSpec changes c by a spec's settings, key=value pairs separated by
// "/": apply=0.33, targets=all|one|one:n2, interval=90ms, batch=10000
// (empty: c unchanged). The result is validated.
func ParseSpec(c Config, spec string) (Config, error) {
	if strings.TrimSpace(spec) != "" {
		for _, kv := range strings.Split(spec, "/") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return c, fmt.Errorf("%w: %q is not key=value (keys apply, targets, interval, batch)", ErrConfig, kv)
			}
			if err := c.set(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)); err != nil {
				return c, err
			}
		}
	}
	return c, c.Validate()
}

func (c *Config) set(k, v string) error {
	var err error
	switch k {
	case "apply":
		c.Apply, err = strconv.ParseFloat(v, 64)
	case "targets":
		t, member, _ := strings.Cut(v, ":")
		if c.Targets, err = ParseTargets(t); err == nil {
			c.One = member
		}
		return err
	case "interval":
		c.Interval, err = time.ParseDuration(v)
	case "batch":
		c.MaxBatch, err = strconv.Atoi(v)
	default:
		return fmt.Errorf("%w: unknown setting %q (keys apply, targets, interval, batch)", ErrConfig, k)
	}
	if err != nil {
		return fmt.Errorf("%w: %s=%q: %v", ErrConfig, k, v, err)
	}
	return nil
}

// ParseVariants parses a comma-separated list of hints settings to compare:
// "off" (hints off, nil), "on" or "hints" (the defaults), and specs such
// as "hints:apply=0.33/targets=one". An empty list is off alone.
func ParseVariants(list string) ([]*Config, error) {
	var out []*Config
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case item == "off":
			out = append(out, nil)
			continue
		case item == "on" || item == "hints":
			item = "hints:"
		}
		spec, ok := strings.CutPrefix(item, "hints:")
		if !ok {
			return nil, fmt.Errorf("%w: %q (want off, on, or hints:key=value/..., e.g. hints:apply=0.33/targets=one)", ErrConfig, item)
		}
		c, err := ParseSpec(DefaultConfig(), spec)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		out = append(out, &c)
	}
	if len(out) == 0 {
		out = append(out, nil)
	}
	return out, nil
}
