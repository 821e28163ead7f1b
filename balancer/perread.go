package balancer

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// PerReadConfig holds the constants of the per-read policies (leastwait,
// p2c, prequal; see DESIGN.md, "Least wait"). The zero value is not valid;
// start from DefaultPerReadConfig.
type PerReadConfig struct {
	// Interval is how often the members' speeds are estimated (1 s).
	Interval time.Duration
	// Bound is the client's staleness limit (10 s).
	Bound Bound
	// Headroom is added to every lag before comparing it with the bound;
	// AutoHeadroom (the default) adds each poll's Horizon.
	Headroom time.Duration
	// PrimaryFloor (leastwait) is the primary's wait that is never
	// congestion (5 ms, as Spillway's floor): while a read there would wait
	// under it, reads stay on the freshest member.
	PrimaryFloor time.Duration
	// ProbeEvery is how long a readable member may go without a read
	// before it gets the next one (500 ms: 2 reads a second, Spillway's
	// probe rate), so the estimate of a member that stalled follows its
	// recovery.
	ProbeEvery time.Duration
	// Smoothing is the weight of a period's estimate in each member's
	// moving average (0.5).
	Smoothing float64
	// MinSamples is the number of reads in a period from which its
	// estimate moves a member's average by the full Smoothing (2).
	MinSamples int
	// LatencyFloor bounds a member's latency from below (20 µs).
	LatencyFloor time.Duration
	// Sample (leastwait) is how many members, drawn at random, each read
	// weighs (leastwait:2); 0, the default, weighs every member.
	Sample int
	// QRIF (prequal) is the quantile of the members' requests in flight
	// above which a member is hot (0.75, inside the range Prequal's paper
	// gives).
	QRIF float64
}

// DefaultPerReadConfig returns the per-read policies' defaults with a 10 s
// bound.
func DefaultPerReadConfig() PerReadConfig {
	return PerReadConfig{Interval: time.Second, Bound: Bound{Max: 10 * time.Second}, Headroom: AutoHeadroom,
		PrimaryFloor: 5 * time.Millisecond, ProbeEvery: 500 * time.Millisecond, Smoothing: 0.5, MinSamples: 2,
		LatencyFloor: 20 * time.Microsecond, QRIF: 0.75}
}

// Validate checks the constants once.
func (c PerReadConfig) Validate() error {
	switch {
	case c.Interval <= 0:
		return invalid("Interval", "interval %v must be positive", c.Interval)
	case c.PrimaryFloor < 0:
		return invalid("PrimaryFloor", "primary floor %v must not be negative", c.PrimaryFloor)
	case c.ProbeEvery < 0:
		return invalid("ProbeEvery", "probe interval %v must not be negative", c.ProbeEvery)
	case c.Sample < 0 || c.Sample == 1:
		return invalid("Sample", "sample %d must be 0 (every member) or at least 2", c.Sample)
	case !(c.QRIF >= 0 && c.QRIF <= 1):
		return invalid("QRIF", "QRIF %v must be in [0, 1]", c.QRIF)
	}
	if err := checkAveraging(c.Smoothing, c.MinSamples, c.LatencyFloor); err != nil {
		return err
	}
	return Config{Interval: 1, Delta: 1, LowBal: 1, HighBal: 1, LowRatio: 1, HighRatio: 2, History: 1, MinSamples: 1,
		LatencyFloor: 1, Bound: c.Bound, Headroom: c.Headroom}.Validate()
}

// estimate is what a per-read policy knows of one member's speed.
type estimate struct {
	perRead float64 // s one more operation in flight adds to a read there
	latency float64 // s, mean read latency
}

// PerRead is a per-member policy whose router picks each read's member by
// a per-read rule (Rule) over the primary and the secondaries within the
// bound, the rule informed by the router's operations in flight and by
// this policy's estimates of each member's speed, made once a period from
// the reads it served. A secondary is readable only while its last polled
// lag plus headroom is within the bound, as for Spillway.
type PerRead struct {
	name    string
	rule    Rule
	cfg     PerReadConfig
	est     map[string]*estimate // host -> its speed
	primary string               // the primary's host in the latest poll
	fresh   []string             // readable secondaries in the latest poll
	// writesTimed: the latest period timed writes on the primary, which
	// keep its estimate current without reads (see NeedsProbe).
	writesTimed bool
}

var (
	_ Bounded   = (*PerRead)(nil)
	_ Estimator = (*PerRead)(nil)
)

// NewPerRead returns a per-read policy in its initial state: every read on
// the primary until a lag poll vouches for a secondary. rule is
// LeastWait ("leastwait"), TwoChoices ("p2c") or HotCold ("prequal").
func NewPerRead(rule Rule, cfg PerReadConfig) (*PerRead, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	names := map[Rule]string{LeastWait: "leastwait", TwoChoices: "p2c", HotCold: "prequal"}
	name, ok := names[rule]
	if !ok {
		return nil, fmt.Errorf("%w: no per-read policy for rule %v", ErrInvalidPolicy, rule)
	}
	if rule == LeastWait && cfg.Sample > 0 {
		name = fmt.Sprintf("leastwait:%d", cfg.Sample)
	}
	return &PerRead{name: name, rule: rule, cfg: cfg, est: map[string]*estimate{}}, nil
}

// Name returns "leastwait" ("leastwait:2" with a sample), "p2c" or
// "prequal".
func (p *PerRead) Name() string { return p.name }

// Selection returns PerMember with the policy's per-read rule.
func (p *PerRead) Selection() Selection {
	ch := Choice{Rule: p.rule, ProbeEvery: p.cfg.ProbeEvery}
	switch p.rule {
	case LeastWait:
		ch.Floor, ch.Sample = p.cfg.PrimaryFloor.Seconds(), p.cfg.Sample
	case HotCold:
		ch.QRIF = p.cfg.QRIF
	}
	return Selection{Mode: PerMember, Choice: ch}
}

// Interval returns the estimation period.
func (p *PerRead) Interval() time.Duration { return p.cfg.Interval }

// Config returns the constants.
func (p *PerRead) Config() PerReadConfig { return p.cfg }

// Bound returns the staleness bound.
func (p *PerRead) Bound() Bound { return p.cfg.Bound }

// CheckLagInterval reports an error when polls every d could never vouch
// for a secondary under the bound.
func (p *PerRead) CheckLagInterval(d time.Duration) error {
	return checkLagInterval(p.cfg.Bound, p.cfg.Headroom, d)
}

// Fraction returns the secondaries' share in Weights.
func (p *PerRead) Fraction() float64 { return p.Weights().Secondary() }

// Fresh returns the readable secondaries of the latest poll.
func (p *PerRead) Fresh() []string { return slices.Clone(p.fresh) }

// Weights admits the primary and the readable secondaries, each with the
// share of the reads it would take if all were busy: in proportion to its
// speed, 1 / per-read time (a member not measured yet as the mean of the
// measured ones). The rule, not these shares, picks each read; they are
// what Stats and the metrics show as the routing in force.
func (p *PerRead) Weights() Weights {
	if len(p.fresh) == 0 {
		return PrimaryOnly()
	}
	hosts := append([]string{p.primary}, p.fresh...)
	speed := make([]float64, len(hosts))
	var known, sum float64
	for i, h := range hosts {
		if e := p.est[h]; e != nil && e.perRead > 0 {
			speed[i] = 1 / e.perRead
			known++
			sum += speed[i]
		}
	}
	for i := range speed {
		if speed[i] == 0 {
			speed[i] = 1
			if known > 0 {
				speed[i] = sum / known
			}
		}
	}
	w := Weights{Primary: speed[0]}
	for i, h := range p.fresh {
		w.Secondaries = append(w.Secondaries, HostWeight{Host: h, Weight: speed[i+1]})
	}
	return normalise(w)
}

// Estimate returns host's per-read time in seconds ("" is the primary), 0
// when not measured yet.
func (p *PerRead) Estimate(host string) float64 {
	if host == "" {
		host = p.primary
	}
	if e := p.est[host]; e != nil {
		return e.perRead
	}
	return 0
}

// NeedsProbe reports whether host ("" is the primary) needs probe reads
// to keep its estimate current: every member but the primary while the
// router times its writes, which measure it (a primary saturated by
// writes then gets no read at all, not 2 a second).
func (p *PerRead) NeedsProbe(host string) bool {
	return !p.writesTimed || (host != "" && host != p.primary)
}

// ObserveLag takes the readable secondaries from a poll and forgets the
// estimates of members the poll no longer lists. An unknown lag leaves no
// secondary readable.
func (p *PerRead) ObserveLag(l Lag) float64 {
	p.primary, p.fresh = readableOf(l, p.cfg.Bound, p.cfg.Headroom, p.primary, p.fresh[:0])
	if l.Known && len(l.Members) > 0 {
		for h := range p.est {
			if !slices.ContainsFunc(l.Members, func(m MemberLag) bool { return m.Host == h }) {
				delete(p.est, h)
			}
		}
	}
	return p.Fraction()
}

// EndPeriod estimates every member's per-read time from the period's
// reads: its mean latency divided by the operations the router had in
// flight there on average (Little's law: reads per second x mean latency,
// the primary's writes added), at least one. A primary that served no
// read is estimated from its writes (their median as the mean). On a busy member that is the
// time each operation in flight adds (the inverse of its throughput); on
// an idle one it is the latency itself.
func (p *PerRead) EndPeriod(per Period) Decision {
	length := per.Length
	if length <= 0 {
		length = p.cfg.Interval
	}
	type sum struct {
		n    int
		time float64 // summed latency, s
	}
	by := map[string]*sum{}
	var order []string
	for _, m := range per.Members {
		if m.Count <= 0 || m.Mean <= 0 {
			continue
		}
		s := by[m.Host]
		if s == nil {
			s = &sum{}
			by[m.Host] = s
			order = append(order, m.Host)
		}
		s.n += m.Count
		s.time += float64(m.Count) * max(m.Mean, p.cfg.LatencyFloor).Seconds()
	}
	var writes float64 // the primary's writes in flight on average
	p.writesTimed = per.Writes.Count > 0 && per.Writes.P50 > 0
	if p.writesTimed {
		writes = float64(per.Writes.Count) * max(per.Writes.P50, p.cfg.LatencyFloor).Seconds() / length.Seconds()
		if _, ok := by[p.primary]; !ok && p.primary != "" {
			// no reads there: its writes alone measure it
			by[p.primary] = &sum{n: per.Writes.Count, time: writes * length.Seconds()}
			order = append(order, p.primary)
			writes = 0
		}
	}
	for _, h := range order {
		s := by[h]
		lat := s.time / float64(s.n)
		inFlight := s.time / length.Seconds() // Little's law: rate x mean latency
		if h == p.primary {
			inFlight += writes
		}
		e := p.est[h]
		if e == nil {
			e = &estimate{}
			p.est[h] = e
		}
		a := p.cfg.Smoothing * min(1, float64(s.n)/float64(p.cfg.MinSamples))
		e.perRead = smooth(e.perRead, lat/max(1, inFlight), a)
		e.latency = smooth(e.latency, lat, a)
	}
	if len(p.fresh) == 0 {
		return Decision{Fraction: 0, Ratio: nan(), Reason: "no-fresh-secondary"}
	}
	return Decision{Fraction: p.Fraction(), Ratio: nan(), Reason: "estimate", Detail: p.describe()}
}

// describe says what the estimates are, for the record.
func (p *PerRead) describe() string {
	var b strings.Builder
	for i, h := range append([]string{p.primary}, p.fresh...) {
		if i > 0 {
			b.WriteString(", ")
		}
		var per, lat float64
		if e := p.est[h]; e != nil {
			per, lat = e.perRead, e.latency
		}
		fmt.Fprintf(&b, "%s per-read %.3fms latency %.2fms", h, per*1000, lat*1000)
	}
	return b.String()
}

// readableOf returns the primary of a poll (prev when it names none) and
// its readable secondaries, appended to dst: those it reports as SECONDARY
// with lag plus headroom (AutoHeadroom: the poll's Horizon) within the
// bound. An unknown lag leaves none.
func readableOf(l Lag, b Bound, headroom time.Duration, prev string, dst []string) (string, []string) {
	if headroom == AutoHeadroom {
		headroom = l.Horizon
	}
	primary := prev
	for _, m := range l.Members {
		switch {
		case m.Role == Primary:
			primary = m.Host
		case m.Role != Secondary || !l.Known || slices.Contains(dst, m.Host):
		case b.Unbounded || (b.Max > 0 && m.Lag+headroom <= b.Max):
			dst = append(dst, m.Host)
		}
	}
	return primary, dst
}

// checkAveraging checks the constants Spillway and the per-read policies
// share for their members' moving averages.
func checkAveraging(smoothing float64, minSamples int, latencyFloor time.Duration) error {
	switch {
	case !(smoothing > 0 && smoothing <= 1):
		return invalid("Smoothing", "smoothing %v must be in (0, 1]", smoothing)
	case minSamples < 1:
		return invalid("MinSamples", "min samples %d must be at least 1", minSamples)
	case latencyFloor <= 0:
		return invalid("LatencyFloor", "latency floor %v must be positive", latencyFloor)
	}
	return nil
}
