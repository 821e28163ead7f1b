package balancer

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// SpillwayConfig holds Spillway's constants (see DESIGN.md, "Spillway").
// The zero value is not valid; start from DefaultSpillwayConfig.
type SpillwayConfig struct {
	// Interval is the control period (1 s): how often capacities are
	// re-estimated and the weights moved.
	Interval time.Duration
	// Bound is the client's staleness limit (10 s).
	Bound Bound
	// Headroom is added to every lag before comparing it with the bound;
	// AutoHeadroom (the default) adds each poll's Horizon, as Decongestant.
	Headroom time.Duration
	// SpillAt is the primary's utilisation at which reads start spilling to
	// an equal secondary (0.75): below it the primary's fresher data is
	// worth its queueing. It sets the penalty of a secondary read to
	// (1/(1-SpillAt)^2 - 1) of that secondary's service time.
	SpillAt float64
	// ProbeShare is the least share every readable member gets, so its
	// capacity stays measured (0.01).
	ProbeShare float64
	// Smoothing is the weight of a new capacity estimate in the moving
	// average (0.5).
	Smoothing float64
	// Step is how far the weights move toward the computed optimum per
	// period (0.5); stale members drop out at once, whatever the step.
	Step float64
	// MinSamples is the number of reads a member needs for its capacity to
	// be re-estimated (10). A member served fewer in a period (a probe under
	// light load) is re-estimated once its reads since the last estimate
	// add up to MinSamples.
	MinSamples int
	// LatencyFloor bounds a member's server-side latency from below (50 µs).
	LatencyFloor time.Duration
}

// DefaultSpillwayConfig returns Spillway's defaults with a 10 s bound.
func DefaultSpillwayConfig() SpillwayConfig {
	return SpillwayConfig{Interval: time.Second, Bound: Bound{Max: 10 * time.Second}, Headroom: AutoHeadroom,
		SpillAt: 0.75, ProbeShare: 0.01, Smoothing: 0.5, Step: 0.5, MinSamples: 10, LatencyFloor: 50 * time.Microsecond}
}

// Validate checks the constants once.
func (c SpillwayConfig) Validate() error {
	switch {
	case c.Interval <= 0:
		return fmt.Errorf("%w: spillway interval %v must be positive", ErrInvalidPolicy, c.Interval)
	case !(c.SpillAt > 0 && c.SpillAt < 1):
		return fmt.Errorf("%w: spill-at %v must be in (0, 1)", ErrInvalidPolicy, c.SpillAt)
	case !(c.ProbeShare >= 0 && c.ProbeShare <= 0.1):
		return fmt.Errorf("%w: probe share %v must be in [0, 0.1]", ErrInvalidPolicy, c.ProbeShare)
	case !(c.Smoothing > 0 && c.Smoothing <= 1):
		return fmt.Errorf("%w: smoothing %v must be in (0, 1]", ErrInvalidPolicy, c.Smoothing)
	case !(c.Step > 0 && c.Step <= 1):
		return fmt.Errorf("%w: step %v must be in (0, 1]", ErrInvalidPolicy, c.Step)
	case c.MinSamples < 1:
		return fmt.Errorf("%w: min samples %d must be at least 1", ErrInvalidPolicy, c.MinSamples)
	case c.LatencyFloor <= 0:
		return fmt.Errorf("%w: latency floor %v must be positive", ErrInvalidPolicy, c.LatencyFloor)
	}
	return Config{Interval: 1, Delta: 1, LowBal: 1, HighBal: 1, LowRatio: 1, HighRatio: 2, History: 1, MinSamples: 1,
		LatencyFloor: 1, Bound: c.Bound, Headroom: c.Headroom}.Validate()
}

// Spillway is decongestant's own per-member policy. Each period it estimates
// every member's read capacity from client-side measurements only (a member
// serving x reads/s with mean server time s can serve about x + 1/s), then
// splits the measured demand over the primary and the fresh secondaries so
// that the mean cost per read is least, a secondary read costing a little
// more than a primary one (SpillAt). Reads therefore stay on the primary
// until it queues, spill just as far as its queueing requires, and go to
// the members in proportion to what they can serve. A secondary is readable
// only while its last polled lag plus headroom is within the bound; it drops
// out alone at the poll that says otherwise.
type Spillway struct {
	cfg     SpillwayConfig
	penalty float64            // a secondary read's extra cost, in its service times
	cap     map[string]float64 // host -> capacity estimate (reads/s)
	pending map[string]tally   // host -> reads not yet in an estimate
	demand  float64            // moving average of the routed reads/s
	primary string             // the primary's host in the latest poll
	fresh   []string           // readable secondaries in the latest poll, in poll order
	w       Weights
}

var (
	_ Bounded  = (*Spillway)(nil)
	_ Weighted = (*Spillway)(nil)
)

// NewSpillway returns the policy in its initial state: every read on the
// primary until a lag poll vouches for a secondary.
func NewSpillway(cfg SpillwayConfig) (*Spillway, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k := 1/((1-cfg.SpillAt)*(1-cfg.SpillAt)) - 1
	return &Spillway{cfg: cfg, penalty: k, cap: map[string]float64{}, pending: map[string]tally{}, w: PrimaryOnly()}, nil
}

// Name returns "spillway".
func (s *Spillway) Name() string { return "spillway" }

// Selection returns PerMember.
func (s *Spillway) Selection() Selection { return Selection{Mode: PerMember} }

// Interval returns the control period.
func (s *Spillway) Interval() time.Duration { return s.cfg.Interval }

// Fraction returns the secondaries' share.
func (s *Spillway) Fraction() float64 { return s.w.Secondary() }

// Weights returns the routing in force.
func (s *Spillway) Weights() Weights { return s.w }

// Config returns the constants.
func (s *Spillway) Config() SpillwayConfig { return s.cfg }

// Bound returns the staleness bound.
func (s *Spillway) Bound() Bound { return s.cfg.Bound }

// CheckLagInterval reports an error when polls every d could never vouch
// for a secondary under the bound (see Config.CheckLagInterval).
func (s *Spillway) CheckLagInterval(d time.Duration) error {
	return checkLagInterval(s.cfg.Bound, s.cfg.Headroom, d)
}

// Capacity returns the capacity estimate of host (reads/s), 0 when unknown.
func (s *Spillway) Capacity(host string) float64 { return s.cap[host] }

// ObserveLag takes the readable secondaries from a poll: those it reports
// as SECONDARY with lag plus headroom within the bound. An unknown lag (a
// failed or expired poll) leaves none. A member that stops being readable
// loses its share at once, spread over the others in proportion to theirs;
// one that becomes readable gets ProbeShare.
func (s *Spillway) ObserveLag(l Lag) float64 {
	s.fresh = s.fresh[:0]
	headroom := s.cfg.Headroom
	if headroom == AutoHeadroom {
		headroom = l.Horizon
	}
	for _, m := range l.Members {
		switch {
		case m.Role == Primary:
			s.primary = m.Host
		case m.Role != Secondary || !l.Known:
		case s.cfg.Bound.Unbounded || (s.cfg.Bound.Max > 0 && m.Lag+headroom <= s.cfg.Bound.Max):
			s.fresh = append(s.fresh, m.Host)
		}
	}
	s.w = s.admit(s.w)
	return s.Fraction()
}

// admit restricts w to the readable members: others' shares are spread in
// proportion over the rest, newcomers get ProbeShare.
func (s *Spillway) admit(w Weights) Weights {
	out := Weights{Primary: w.Primary}
	for _, h := range s.fresh {
		share := w.Of(h)
		if share == 0 {
			share = s.cfg.ProbeShare
		}
		out.Secondaries = append(out.Secondaries, HostWeight{Host: h, Weight: share})
	}
	return normalise(out)
}

// normalise scales the shares to sum to 1 (all on the primary when none).
func normalise(w Weights) Weights {
	sum := w.Primary + w.Secondary()
	if sum <= 0 || math.IsNaN(sum) {
		return PrimaryOnly()
	}
	w.Primary /= sum
	for i := range w.Secondaries {
		w.Secondaries[i].Weight /= sum
	}
	return w
}

// EndPeriod re-estimates the capacities of the members that served enough
// reads, computes the least-cost split of the demand over the primary and
// the readable secondaries, and moves the weights a Step toward it.
func (s *Spillway) EndPeriod(p Period) Decision {
	s.observe(p)
	if len(s.fresh) == 0 {
		s.w = PrimaryOnly()
		return Decision{Fraction: 0, Ratio: nan(), Reason: "no-fresh-secondary"}
	}
	pc, ok := s.cap[s.primary]
	if !ok {
		return Decision{Fraction: s.Fraction(), Ratio: nan(), Reason: "too-few-samples"}
	}
	target := s.target(pc)
	next := Weights{Primary: s.w.Primary + s.cfg.Step*(target.Primary-s.w.Primary)}
	for _, h := range target.Secondaries {
		cur := s.w.Of(h.Host)
		next.Secondaries = append(next.Secondaries, HostWeight{Host: h.Host, Weight: cur + s.cfg.Step*(h.Weight-cur)})
	}
	s.w = normalise(next)
	reason := "primary"
	if target.Secondary() > float64(len(s.fresh))*s.cfg.ProbeShare+1e-9 {
		reason = "spill"
	}
	return Decision{Fraction: s.Fraction(), Ratio: s.demand * s.w.Primary / pc, Reason: reason}
}

// observe updates the capacity estimates and the demand from a period.
func (s *Spillway) observe(p Period) {
	secs := p.Length.Seconds()
	if secs <= 0 {
		return
	}
	var total int
	for _, m := range p.Members {
		total += m.Count
		if m.Count <= 0 || m.Mean <= 0 {
			continue
		}
		t := s.pending[m.Host]
		t.count += m.Count
		t.busy += float64(m.Count) * max(m.Mean-m.RTT, s.cfg.LatencyFloor).Seconds()
		s.pending[m.Host] = t
	}
	for h, t := range s.pending {
		t.secs += secs
		if t.count < s.cfg.MinSamples {
			s.pending[h] = t
			continue
		}
		delete(s.pending, h)
		est := float64(t.count)/t.secs + float64(t.count)/t.busy // rate + 1/mean server time
		if old, ok := s.cap[h]; ok {
			est = old + s.cfg.Smoothing*(est-old)
		}
		s.cap[h] = est
	}
	rate := float64(total) / secs
	if s.demand == 0 {
		s.demand = rate
	} else {
		s.demand += s.cfg.Smoothing * (rate - s.demand)
	}
}

// tally accumulates a member's reads until there are MinSamples of them.
type tally struct {
	count int
	busy  float64 // their summed server time (s)
	secs  float64 // the length of the periods they were served in (s)
}

// target is the least-cost split over the primary (capacity pc) and the
// readable secondaries, each given at least ProbeShare. A secondary not
// measured yet is assumed as capable as the best measured member.
func (s *Spillway) target(pc float64) Weights {
	best := pc
	for _, h := range s.fresh {
		best = max(best, s.cap[h])
	}
	mu := []float64{pc}
	pen := []float64{0}
	for _, h := range s.fresh {
		c, ok := s.cap[h]
		if !ok {
			c = best
		}
		mu = append(mu, c)
		pen = append(pen, s.penalty/c)
	}
	shares := allocate(mu, pen, s.demand)
	w := Weights{Primary: max(shares[0], s.cfg.ProbeShare)}
	for i, h := range s.fresh {
		w.Secondaries = append(w.Secondaries, HostWeight{Host: h, Weight: max(shares[i+1], s.cfg.ProbeShare)})
	}
	return normalise(w)
}

// Fresh returns the readable secondaries of the latest poll.
func (s *Spillway) Fresh() []string { return slices.Clone(s.fresh) }
