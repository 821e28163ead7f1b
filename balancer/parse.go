package balancer

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MinMaxStaleness is the smallest maxStalenessSeconds the drivers accept.
const MinMaxStaleness = 90 * time.Second

// Settings configure the adaptive policies built by Parse.
type Settings struct {
	Decongestant Config
	RPM          RPMConfig
	Spillway     SpillwayConfig
	PerRead      PerReadConfig
}

// WithBound returns s with b as the staleness bound of every bounded
// policy (decongestant, spillway, leastwait, p2c, prequal).
func (s Settings) WithBound(b Bound) Settings {
	s.Decongestant.Bound, s.Spillway.Bound, s.PerRead.Bound = b, b, b
	return s
}

// DefaultSettings returns the papers' constants.
func DefaultSettings() Settings {
	return Settings{Decongestant: DefaultConfig(), RPM: DefaultRPMConfig(), Spillway: DefaultSpillwayConfig(), PerRead: DefaultPerReadConfig()}
}

// Names lists the policy specs Parse accepts, for help texts.
const Names = "spillway[:<key>=<value>/...], leastwait[:<sample>], p2c, prequal, decongestant, rpm, primary, secondary, secondarypreferred, nearest[:<localThreshold>=15ms], maxstaleness:<dur>=90s, fixed:<fraction 0..1>, weights:<member>=<share>,... (members: primary, a name such as n2, or host:port)"

// Spec is a parsed, validated policy spec. A policy is a state machine, so
// every run needs its own: parse a spec once and call New for each.
type Spec struct {
	text     string
	settings Settings
	build    func() (Policy, error)
}

// ParseSpec parses and validates spec with the settings.
func ParseSpec(spec string, s Settings) (Spec, error) {
	text := strings.TrimSpace(spec)
	build := func() (Policy, error) { return parse(text, s) }
	if _, err := build(); err != nil {
		return Spec{}, err
	}
	return Spec{text: text, settings: s, build: build}, nil
}

// ParseSpecs parses a comma-separated list of specs; empty items are
// skipped, an empty list is an error. The member=share pairs after
// "weights:" belong to that spec: "secondary,weights:primary=0.5,n2=0.5,spillway".
func ParseSpecs(list string, s Settings) ([]Spec, error) {
	var out []Spec
	for _, item := range splitSpecs(list) {
		sp, err := ParseSpec(item, s)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty policy list (known: %s)", ErrInvalidPolicy, Names)
	}
	return out, nil
}

// SplitSpecs splits a comma-separated list of specs as ParseSpecs does,
// keeping the member=share pairs after "weights:" with their spec, without
// parsing them.
func SplitSpecs(list string) []string { return splitSpecs(list) }

// splitSpecs splits a policy list at commas, keeping the key=value items
// that follow a "weights:" spec with it.
func splitSpecs(list string) []string {
	var out []string
	weights := false
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			weights = false
		case weights && strings.Contains(item, "=") && !strings.HasPrefix(strings.ToLower(item), "weights:"):
			out[len(out)-1] += "," + item
		default:
			out = append(out, item)
			weights = strings.HasPrefix(strings.ToLower(item), "weights:")
		}
	}
	return out
}

// Settings returns the constants the spec was parsed with.
func (s Spec) Settings() Settings { return s.settings }

// String returns the spec as given (trimmed), e.g. "fixed:0.7".
func (s Spec) String() string { return s.text }

// New returns a policy in its initial state. ParseSpec validated the same
// inputs, so it cannot fail; it panics on a zero Spec.
func (s Spec) New() Policy {
	p, err := s.build()
	if err != nil {
		panic("balancer: a parsed spec failed to build: " + err.Error())
	}
	return p
}

// Parse builds a policy from its spec.
func Parse(spec string, s Settings) (Policy, error) { return parse(strings.TrimSpace(spec), s) }

func parse(spec string, s Settings) (Policy, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	name = strings.ToLower(name)
	noArg := func(p Policy, err error) (Policy, error) {
		if hasArg {
			return nil, fmt.Errorf("%w %q: %s takes no argument", ErrInvalidPolicy, spec, name)
		}
		return p, err
	}
	switch name {
	case "decongestant":
		return noArg(NewDecongestant(s.Decongestant))
	case "rpm":
		return noArg(NewRPM(s.RPM))
	case "spillway":
		return parseSpillway(spec, arg, hasArg, s.Spillway)
	case "leastwait":
		if !hasArg {
			return NewPerRead(LeastWait, s.PerRead)
		}
		k, err := strconv.Atoi(arg)
		if err != nil || k < 2 {
			return nil, fmt.Errorf("%w %q: want leastwait or leastwait:<sample>, the members each read weighs, drawn at random (2 or more), e.g. leastwait:2", ErrInvalidPolicy, spec)
		}
		cfg := s.PerRead
		cfg.Sample = k
		return NewPerRead(LeastWait, cfg)
	case "p2c":
		return noArg(NewPerRead(TwoChoices, s.PerRead))
	case "prequal":
		return noArg(NewPerRead(HotCold, s.PerRead))
	case "weights":
		if !hasArg {
			return nil, fmt.Errorf("%w %q: want weights:<member>=<share>,..., e.g. weights:primary=0.2,n2=0.4,n3=0.4", ErrInvalidPolicy, spec)
		}
		return ParseWeights(arg)
	case "primary":
		return noArg(&Static{name: "primary", sel: Selection{Mode: Split}, fraction: 0}, nil)
	case "secondary":
		return noArg(&Static{name: "secondary", sel: Selection{Mode: Split}, fraction: 1}, nil)
	case "secondarypreferred":
		return noArg(&Static{name: "secondarypreferred", sel: Selection{Mode: SecondaryPreferred}, fraction: 1}, nil)
	case "nearest":
		if !hasArg {
			return &Static{name: "nearest", sel: Selection{Mode: Nearest}, fraction: 1}, nil
		}
		d, err := time.ParseDuration(arg)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%w %q: want nearest or nearest:<localThreshold>, e.g. nearest:1s (the drivers' window of heartbeat round trips, 15ms by default)", ErrInvalidPolicy, spec)
		}
		return &Static{name: "nearest:" + d.String(), sel: Selection{Mode: Nearest, LocalThreshold: d}, fraction: 1}, nil
	case "fixed":
		f, err := strconv.ParseFloat(arg, 64)
		if !hasArg || err != nil || f < 0 || f > 1 {
			return nil, fmt.Errorf("%w %q: want fixed:<fraction> with a fraction from 0 to 1, e.g. fixed:0.7", ErrInvalidPolicy, spec)
		}
		return NewFixed(f), nil
	case "maxstaleness":
		d, err := time.ParseDuration(arg)
		if !hasArg || err != nil {
			return nil, fmt.Errorf("%w %q: want maxstaleness:<duration>, e.g. maxstaleness:90s", ErrInvalidPolicy, spec)
		}
		if d < MinMaxStaleness {
			return nil, fmt.Errorf("%w %q: the drivers require maxStalenessSeconds >= 90s; use decongestant for a tighter bound", ErrInvalidPolicy, spec)
		}
		return &Static{name: "maxstaleness:" + d.String(), sel: Selection{Mode: MaxStaleness, MaxStaleness: d}, fraction: 1}, nil
	}
	return nil, fmt.Errorf("%w %q: unknown policy (known: %s)", ErrInvalidPolicy, spec, Names)
}
