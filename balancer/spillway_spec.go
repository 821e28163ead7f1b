package balancer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// spillwayParams are the constants a "spillway:" spec may override, so one
// bench invocation can compare settings side by side:
// "spillway:deadband=0.3/gain=0.1".
var spillwayParams = map[string]func(*SpillwayConfig, float64){
	"gain":        func(c *SpillwayConfig, v float64) { c.Gain = v },
	"deadband":    func(c *SpillwayConfig, v float64) { c.Deadband = v },
	"floor-ms":    func(c *SpillwayConfig, v float64) { c.PrimaryFloor = time.Duration(v * float64(time.Millisecond)) },
	"probe-share": func(c *SpillwayConfig, v float64) { c.ProbeShare = v },
	"probe-rate":  func(c *SpillwayConfig, v float64) { c.ProbeRate = v },
	"smoothing":   func(c *SpillwayConfig, v float64) { c.Smoothing = v },
}

// parseSpillway builds Spillway from cfg changed by arg, key=value pairs
// separated by "/" (empty: the settings as they are). The policy is named
// after the spec, keys lower-cased, so runs with different settings stay
// apart in the results.
func parseSpillway(spec, arg string, hasArg bool, cfg SpillwayConfig) (Policy, error) {
	name := "spillway"
	if hasArg {
		var keys []string
		for _, kv := range strings.Split(arg, "/") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			k = strings.ToLower(strings.TrimSpace(k))
			set, known := spillwayParams[k]
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if !ok || !known || err != nil {
				return nil, fmt.Errorf("%w %q: want spillway:<key>=<value>/..., keys %s, e.g. spillway:deadband=0.3/gain=0.1",
					ErrInvalidPolicy, spec, spillwayKeys())
			}
			set(&cfg, f)
			keys = append(keys, k+"="+strconv.FormatFloat(f, 'g', -1, 64))
		}
		name += ":" + strings.Join(keys, "/")
	}
	s, err := NewSpillway(cfg)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", spec, err)
	}
	s.name = name
	return s, nil
}

func spillwayKeys() string {
	keys := slices.Sorted(maps.Keys(spillwayParams))
	return strings.Join(keys, ", ")
}
