package balancer

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// StaticWeights is a hard-coded per-member split, e.g.
// "weights:primary=0.2,n2=0.4,n3=0.4": a baseline for finding the best
// static split by a sweep. Keys are "primary" (whichever member is primary),
// a member's name (its "node" tag, as decongestant's cluster sets it) or its
// host:port. A named member that is primary adds its share to the
// primary's; a member that is not readable (down, recovering) has its share
// spread over the others. Like fixed:f it ignores staleness.
type StaticWeights struct {
	name string
	keys []string
	vals []float64
	w    Weights
	last Lag // the latest poll, to resolve a new split at once (Reset)
}

var _ Weighted = (*StaticWeights)(nil)

// ParseWeights parses the argument of "weights:": key=share pairs, comma
// separated, shares in [0, 1] summing to 1.
func ParseWeights(arg string) (*StaticWeights, error) {
	s := &StaticWeights{name: "weights:" + arg, w: PrimaryOnly()}
	var sum float64
	for _, kv := range strings.Split(arg, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		k = strings.TrimSpace(k)
		if !ok || k == "" || err != nil || !(f >= 0 && f <= 1) {
			return nil, fmt.Errorf("%w %q: %q is not member=share with a share from 0 to 1 (e.g. weights:primary=0.2,n2=0.4,n3=0.4)", ErrInvalidPolicy, s.name, kv)
		}
		for _, seen := range s.keys {
			if strings.EqualFold(seen, k) {
				return nil, fmt.Errorf("%w %q: member %q is given twice", ErrInvalidPolicy, s.name, k)
			}
		}
		s.keys, s.vals = append(s.keys, k), append(s.vals, f)
		sum += f
	}
	if math.Abs(sum-1) > 1e-6 {
		return nil, fmt.Errorf("%w %q: shares sum to %g, not 1", ErrInvalidPolicy, s.name, sum)
	}
	return s, nil
}

// Reset replaces the split with arg's (the argument of "weights:") and
// resolves it against the latest poll; the name stays the spec the policy
// was built from. Experiments use it to move reads between members
// mid-run (a "reads=n2" phase).
func (s *StaticWeights) Reset(arg string) error {
	n, err := ParseWeights(arg)
	if err != nil {
		return err
	}
	s.keys, s.vals = n.keys, n.vals
	s.ObserveLag(s.last)
	return nil
}

// Keys returns the member keys as given, for checking them against a
// replica set before a run.
func (s *StaticWeights) Keys() []string { return s.keys }

// Matches reports whether key names the member (host, name): "primary"
// matches no member by name.
func Matches(key, host, name string) bool {
	return strings.EqualFold(key, host) || (name != "" && strings.EqualFold(key, name))
}

// Name returns the spec.
func (s *StaticWeights) Name() string { return s.name }

// Selection returns PerMember.
func (s *StaticWeights) Selection() Selection { return Selection{Mode: PerMember} }

// Interval returns 0: the split never changes by period.
func (s *StaticWeights) Interval() time.Duration { return 0 }

// Fraction returns the secondaries' share in force.
func (s *StaticWeights) Fraction() float64 { return s.w.Secondary() }

// Weights returns the split resolved against the latest poll.
func (s *StaticWeights) Weights() Weights { return s.w }

// EndPeriod changes nothing.
func (s *StaticWeights) EndPeriod(Period) Decision {
	return Decision{Fraction: s.Fraction(), Ratio: nan(), Reason: "static"}
}

// ObserveLag resolves the keys against the poll's members.
func (s *StaticWeights) ObserveLag(l Lag) float64 {
	s.last = l
	w := Weights{}
	for i, k := range s.keys {
		if strings.EqualFold(k, "primary") {
			w.Primary += s.vals[i]
			continue
		}
		for _, m := range l.Members {
			if !Matches(k, m.Host, m.Name) {
				continue
			}
			switch m.Role {
			case Primary:
				w.Primary += s.vals[i]
			case Secondary:
				// two keys may name one member (its name and its host)
				if j := slices.IndexFunc(w.Secondaries, func(h HostWeight) bool { return h.Host == m.Host }); j >= 0 {
					w.Secondaries[j].Weight += s.vals[i]
				} else {
					w.Secondaries = append(w.Secondaries, HostWeight{Host: m.Host, Weight: s.vals[i]})
				}
			}
		}
	}
	s.w = normalise(w)
	return s.Fraction()
}
