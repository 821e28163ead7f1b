package balancer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// SpillwayConfig holds Spillway's constants (see DESIGN.md, "Spillway").
// The zero value is not valid; start from DefaultSpillwayConfig.
type SpillwayConfig struct {
	// Interval is the control period (1 s).
	Interval time.Duration
	// Bound is the client's staleness limit (10 s).
	Bound Bound
	// Headroom is added to every lag before comparing it with the bound;
	// AutoHeadroom (the default) adds each poll's Horizon, as Decongestant.
	Headroom time.Duration
	// PrimaryFloor is the primary's time that is never congestion (5 ms):
	// while its operations' median server time is under it, reads stay on
	// it, the freshest member, whatever spilling would gain (an idle member
	// answers in 0.1 ms, and 4 clients on one 0.35-CPU primary already make
	// it 0.6-2.8 ms, a time that spilling hardly shortens; 64 clients make
	// it 20-50 ms). 0: reads go wherever they cost least.
	PrimaryFloor time.Duration
	// Gain is the controller's starting gain: a primary whose marginal
	// cost is g times the secondaries' keeps g^-Gain of its share after one
	// period (0.25). Each share's gain then adapts to the effect of its own
	// moves (see adapt): it halves when a move overshoots (the error changes
	// sign) and grows back while the error keeps its sign, within
	// [Gain/64, Gain].
	Gain float64
	// Deadband is the latency error a share does not answer: a primary
	// within a factor 1+Deadband of its target keeps its share, and a
	// larger error moves it only by the part beyond that factor; the same
	// holds between the secondaries (0.3; 0: every error moves the
	// shares). Median latencies of CPU-capped members swing by tens of
	// percent from one second to the next, and every answered swing moves
	// reads that change the latencies again: on 3 x 0.35-CPU members
	// (YCSB-B, 64 clients) 0.3 gave 2596 reads/s against 2346 without.
	Deadband float64
	// ProbeRate caps the probe share in reads per second (2): a member gets
	// at least ProbeShare or ProbeRate / the reads per second routed,
	// whichever is less, so on a busy router a member left only a probe (a
	// stalled one, say) takes 2 reads a second, not 1% of all reads, and
	// the tail of the reads does not wait on it. 0: ProbeShare always.
	ProbeRate float64
	// ProbeShare is the least share every readable member gets, so its
	// latency stays measured (0.01); the primary needs none while its
	// writes are timed (see primaryProbe).
	ProbeShare float64
	// Smoothing is the weight of a period's latency in each member's
	// moving average (0.5).
	Smoothing float64
	// MinSamples is the number of reads in a period from which its median
	// moves a member's average by the full Smoothing (fewer move it in
	// proportion) (2: a member left only a probe gets about ProbeRate reads a
	// period, and its average must follow them).
	MinSamples int
	// LatencyFloor bounds a member's server time from below (20 µs).
	LatencyFloor time.Duration
	// RTTWindow is how far back a member's network round trip is taken as
	// the least ping or read seen (30 s): a period holds about one ping per
	// member, and a ping to a CPU-starved member queues like a read.
	RTTWindow time.Duration
}

// DefaultSpillwayConfig returns Spillway's defaults with a 10 s bound.
func DefaultSpillwayConfig() SpillwayConfig {
	return SpillwayConfig{Interval: time.Second, Bound: Bound{Max: 10 * time.Second}, Headroom: AutoHeadroom,
		PrimaryFloor: 5 * time.Millisecond, Gain: 0.25, Deadband: 0.3, ProbeShare: 0.01, ProbeRate: 2, Smoothing: 0.5, MinSamples: 2,
		LatencyFloor: 20 * time.Microsecond, RTTWindow: 30 * time.Second}
}

// Validate checks the constants once.
func (c SpillwayConfig) Validate() error {
	switch {
	case c.Interval <= 0:
		return invalid("Interval", "spillway interval %v must be positive", c.Interval)
	case c.PrimaryFloor < 0:
		return invalid("PrimaryFloor", "primary floor %v must not be negative", c.PrimaryFloor)
	case !(c.Gain > 0 && c.Gain <= 2):
		return invalid("Gain", "gain %v must be in (0, 2]", c.Gain)
	case !(c.Deadband >= 0 && c.Deadband <= 1):
		return invalid("Deadband", "deadband %v must be in [0, 1]", c.Deadband)
	case !(c.ProbeRate >= 0) || math.IsInf(c.ProbeRate, 1):
		return invalid("ProbeRate", "probe rate %v must be a finite number of reads per second, at least 0", c.ProbeRate)
	case !(c.ProbeShare >= 0 && c.ProbeShare <= 0.1):
		return invalid("ProbeShare", "probe share %v must be in [0, 0.1]", c.ProbeShare)
	case c.RTTWindow < c.Interval:
		return invalid("RTTWindow", "RTT window %v must be at least the interval %v", c.RTTWindow, c.Interval)
	}
	if err := checkAveraging(c.Smoothing, c.MinSamples, c.LatencyFloor); err != nil {
		return err
	}
	return Config{Interval: 1, Delta: 1, LowBal: 1, HighBal: 1, LowRatio: 1, HighRatio: 2, History: 1, MinSamples: 1,
		LatencyFloor: 1, Bound: c.Bound, Headroom: c.Headroom}.Validate()
}

// Spillway is decongestant's own per-member policy. It sends each read
// where it adds least to the time of all operations: every period it
// moves the shares toward equal marginal cost (see marginal) on the fresh
// members, the primary's writes included in the primary's, each step
// proportional to the log of the cost ratio with a gain that adapts to
// whether its last move overshot. Reads stay on the primary (the freshest
// data) while its operations take under PrimaryFloor. A secondary is
// readable only while its last polled lag plus headroom is within the
// bound; it drops out alone at the poll that says otherwise.
type Spillway struct {
	name    string // "spillway", or the spec that changed its settings
	cfg     SpillwayConfig
	lat     map[string]float64 // host -> moving average of the median server time (s)
	rate    map[string]float64 // host -> moving average of its reads per second
	probe   float64            // the least share in force: ProbeShare, or less on a busy router (ProbeRate)
	gain    map[string]float64 // host ("" the primary's share) -> its adaptive gain
	lastErr map[string]float64 // host -> the error it answered last period
	write   float64            // moving average of the primary's write server time (s), 0 unknown
	wrate   float64            // moving average of the primary's writes per second
	rtt     *window            // host -> least round trip per period
	primary string             // the primary's host in the latest poll
	fresh   []string           // readable secondaries in the latest poll, in poll order
	w       Weights
	// seen is, for every host with state (lat, rtt), the latest period
	// whose input named it (see forget); periods counts the ended periods.
	seen    map[string]int
	periods int
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
	return &Spillway{name: "spillway", cfg: cfg, lat: map[string]float64{}, rate: map[string]float64{}, gain: map[string]float64{}, lastErr: map[string]float64{}, seen: map[string]int{},
		w: PrimaryOnly(), rtt: newWindow(int(cfg.RTTWindow / cfg.Interval)), probe: cfg.ProbeShare}, nil
}

// Name returns "spillway", or the spec with the settings it changed
// ("spillway:deadband=0.3").
func (s *Spillway) Name() string { return s.name }

// Selection returns PerMember.
func (s *Spillway) Selection() Selection { return Selection{Mode: PerMember, LeastLoaded: true} }

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

// Latency returns host's smoothed median server time, 0 when unknown.
func (s *Spillway) Latency(host string) time.Duration { return seconds(s.lat[host]) }

// Fresh returns the readable secondaries of the latest poll.
func (s *Spillway) Fresh() []string { return slices.Clone(s.fresh) }

// ObserveLag takes the readable secondaries from a poll: those it reports
// as SECONDARY with lag plus headroom within the bound. An unknown lag (a
// failed or expired poll) leaves none. A member that stops being readable
// loses its share at once to the readable secondaries, in proportion to
// theirs (to the primary when none is left); one that becomes readable
// gets ProbeShare.
func (s *Spillway) ObserveLag(l Lag) float64 {
	for _, m := range l.Members {
		s.seen[m.Host] = s.periods + 1 // named in the period under way
	}
	primary, fresh := readableOf(l, s.cfg.Bound, s.cfg.Headroom, s.primary, s.fresh[:0])
	if primary != s.primary {
		s.write = 0 // the writes' time was the old primary's
	}
	s.primary, s.fresh = primary, fresh
	s.w = s.admit(s.w)
	return s.Fraction()
}

// admit restricts w to the readable members. The shares of the secondaries
// that are no longer readable go to the readable ones that had a share, in
// proportion to theirs, so the primary's load stays where the controller
// left it (with none, they go to the primary); newcomers get ProbeShare.
func (s *Spillway) admit(w Weights) Weights {
	out := Weights{Primary: w.Primary}
	var kept, lost float64
	for _, hw := range w.Secondaries {
		if !slices.Contains(s.fresh, hw.Host) {
			lost += hw.Weight
		}
	}
	for _, h := range s.fresh {
		share := w.Of(h)
		if share == 0 {
			share = s.probe
		} else {
			kept += share
		}
		out.Secondaries = append(out.Secondaries, HostWeight{Host: h, Weight: share})
	}
	if lost > 0 && kept > 0 {
		for i, hw := range out.Secondaries {
			if w.Of(hw.Host) > 0 {
				out.Secondaries[i].Weight *= (kept + lost) / kept
			}
		}
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

// EndPeriod updates the members' measurements and moves the shares toward
// equal marginal cost (see marginal): the primary's toward the secondaries'
// unless its own time is under PrimaryFloor, the secondaries' toward each
// other's.
func (s *Spillway) EndPeriod(p Period) Decision {
	s.observe(p)
	if len(s.fresh) == 0 {
		s.w = PrimaryOnly()
		return Decision{Fraction: 0, Ratio: nan(), Reason: "no-fresh-secondary"}
	}
	mp, tp := s.marginal(s.primary)
	ms := s.spillMarginal()
	if mp == 0 || ms == 0 {
		return Decision{Fraction: s.Fraction(), Ratio: nan(), Reason: "too-few-samples"}
	}
	ratio := mp / ms
	if floor := s.cfg.PrimaryFloor.Seconds(); floor > 0 {
		ratio = min(ratio, tp/floor) // under the floor the primary keeps its reads
	}
	e := s.beyondDeadband(math.Log(ratio))
	g := s.adapt("", e)
	share, reason := s.w.Primary, "primary"
	if e > 1e-12 { // not a rounding error of equal costs
		share *= math.Exp(-g * e)
		reason = "spill"
	} else {
		share = 1 - (1-share)*math.Exp(g*e)
	}
	// the primary's share at most doubles in a period (or grows by
	// primaryStep): from a small share its time is measured on few reads,
	// and a step on the secondaries' part would hand it many times the
	// reads it was measured with
	share = min(share, max(2*s.w.Primary, s.w.Primary+primaryStep))
	n := float64(len(s.fresh))
	share = min(max(share, s.primaryProbe()), max(1-n*s.probe, s.probe))
	rel := s.secondaryShares(ms)
	if share < 1 {
		rel = floorShares(rel, s.probe/(1-share))
	}
	w := Weights{Primary: share}
	for i, h := range s.fresh {
		w.Secondaries = append(w.Secondaries, HostWeight{Host: h, Weight: (1 - share) * rel[i]})
	}
	s.w = normalise(w)
	return Decision{Fraction: s.Fraction(), Ratio: ratio, Reason: reason, Detail: s.describe(mp, ms)}
}

// primaryProbe is the least share the primary keeps: none while its writes
// are timed, since they measure it (its marginal cost is then its writes'
// alone, see marginal), and a read there on a primary saturated by writes
// costs many times one on a secondary (TPC-C's Stock-Level on the 1% probe
// share: 0.94 x the best split); the probe share otherwise.
func (s *Spillway) primaryProbe() float64 {
	if s.write > 0 && s.wrate > 0 {
		return 0
	}
	return s.probe
}

// primaryStep is the share a primary may always take back in a period,
// even where that is more than doubling its own. From its probe share (0.01,
// or 0.001 on a busy router) doubling alone took seven to ten periods to give
// it a fifth of the reads back, while a secondary that had fallen out of the
// bound left its reads on the one secondary still fresh (S3 in the README).
const primaryStep = 0.05

// adapt returns the gain for key's error e this period and remembers e: a
// step in the direction of the last one grows the gain back (x1.25, up to
// Gain); a reversal means the last step overshot, so the gain halves (down
// to Gain/64). Errors inside the deadband (0) keep the gain.
func (s *Spillway) adapt(key string, e float64) float64 {
	g, ok := s.gain[key]
	if !ok {
		g = s.cfg.Gain
	}
	prev := s.lastErr[key]
	switch {
	case e*prev < 0:
		g = max(g/2, s.cfg.Gain/64)
	case e*prev > 0:
		g = min(g*1.25, s.cfg.Gain)
	}
	s.gain[key], s.lastErr[key] = g, e
	return g
}

// marginal is host's marginal cost and its time per operation (s): what
// one more read there adds to the summed time of all its operations. With
// n operations in flight there (Little's law: rate x time), a member whose
// time grows as 1/(1-utilisation) has marginal cost time x (1 + n). The
// primary's writes count in its rate and time. 0 when host is not measured.
func (s *Spillway) marginal(host string) (mc, t float64) {
	t, r := s.lat[host], s.rate[host]
	n := r * t
	if host == s.primary && s.write > 0 && s.wrate > 0 {
		n += s.wrate * s.write // with no reads there, its writes alone
		t = n / (r + s.wrate)
	}
	if t == 0 {
		return 0, 0
	}
	return t * (1 + n), t
}

// secondaryShares returns the fresh secondaries' next relative shares
// (summing to 1), each moved toward the spilled reads' marginal cost ms. A
// secondary not measured yet keeps its share.
func (s *Spillway) secondaryShares(ms float64) []float64 {
	total := s.w.Secondary()
	rel := make([]float64, len(s.fresh))
	var relSum float64
	for i, h := range s.fresh {
		r := 1 / float64(len(s.fresh))
		if total > 0 {
			r = s.w.Of(h) / total
		}
		if m, _ := s.marginal(h); m > 0 {
			e := s.beyondDeadband(math.Log(ms / m))
			r *= math.Exp(min(s.adapt(h, e)*e, math.Ln2)) // at most doubles, as the primary's
		}
		rel[i] = r
		relSum += r
	}
	for i := range rel {
		rel[i] /= relSum
	}
	return rel
}

// beyondDeadband is the part of the log latency error e beyond the
// deadband, with e's sign.
func (s *Spillway) beyondDeadband(e float64) float64 {
	band := math.Log1p(s.cfg.Deadband)
	switch {
	case e > band:
		return e - band
	case e < -band:
		return e + band
	}
	return 0
}

// floorShares raises every share to at least floor (capped at an equal
// split) and scales the others down in proportion so that they still sum to
// 1. Scaling may bring a share that was above the floor below it; that one
// is floored too and the rest scaled again, at most once per share.
func floorShares(rel []float64, floor float64) []float64 {
	floor = min(floor, 1/float64(len(rel)))
	for {
		var floored int
		var rest float64 // the shares above the floor
		for _, r := range rel {
			if r <= floor {
				floored++
			} else {
				rest += r
			}
		}
		scale := 0.0
		if rest > 0 {
			scale = (1 - float64(floored)*floor) / rest
		}
		again := false
		for i, r := range rel {
			if r > floor && r*scale < floor {
				rel[i], again = floor, true
			}
		}
		if again {
			continue
		}
		for i, r := range rel {
			if r <= floor {
				rel[i] = floor
			} else {
				rel[i] = r * scale
			}
		}
		return rel
	}
}

// spillMarginal is the marginal cost of the secondaries where spilled
// reads go: theirs weighted by their shares beyond ProbeShare (a member only
// probed takes no spilled reads), or the least of them when all are only
// probed; 0 when none is measured.
func (s *Spillway) spillMarginal() float64 {
	var weight, sum, least float64
	for _, h := range s.fresh {
		m, _ := s.marginal(h)
		if m <= 0 {
			continue
		}
		if least == 0 || m < least {
			least = m
		}
		if beyond := s.w.Of(h) - s.probe; beyond > 1e-9 {
			sum += beyond * m
			weight += beyond
		}
	}
	if weight > 0 {
		return sum / weight
	}
	return least
}

// observe updates the members' smoothed server times and read rates and
// the primary's write time and rate from a period, and forgets the members
// gone. A member with state but no reads in the period has its rate smoothed
// toward 0.
func (s *Spillway) observe(p Period) {
	s.periods++
	s.rtt.advance()
	length := p.Length
	if length <= 0 {
		length = s.cfg.Interval
	}
	counts := map[string]int{}
	for _, m := range p.Members {
		counts[m.Host] += m.Count
		if m.Count > 0 || m.RTT > 0 || m.Min > 0 {
			s.seen[m.Host] = s.periods
		}
		least := m.RTT
		if m.Min > 0 && (least == 0 || m.Min < least) {
			least = m.Min
		}
		s.rtt.add(m.Host, least)
		if m.Count <= 0 || m.P50 <= 0 {
			continue
		}
		server := s.server(m.P50, s.rtt.least(m.Host))
		s.lat[m.Host] = smooth(s.lat[m.Host], server, s.sampleWeight(m.Count))
	}
	for h := range s.lat {
		s.rate[h] = float64(counts[h]) / length.Seconds()
	}
	if p.Writes.Count > 0 && p.Writes.P50 > 0 {
		s.write = smooth(s.write, s.server(p.Writes.P50, s.rtt.least(s.primary)), s.sampleWeight(p.Writes.Count))
	}
	s.wrate = float64(p.Writes.Count) / length.Seconds()
	s.forget()
	var total float64
	for _, r := range s.rate {
		total += r
	}
	s.probe = s.cfg.ProbeShare
	if s.cfg.ProbeRate > 0 && total > 0 {
		s.probe = min(s.cfg.ProbeShare, s.cfg.ProbeRate/total)
	}
}

// forget drops the state of every member that no input has named for the
// last RTTWindow periods: no poll listed it (a poll lists every member of
// the set's configuration, down or not) and no period measured it (reads or
// a ping; a period listing a member with neither is no sign of it, as the
// router lists every member it has ever served). So a long-running router
// whose replica set changes members keeps state for the current ones only,
// while a member missed by a failed poll or two keeps its history rather
// than being measured again from nothing. After RTTWindow its round-trip
// window is empty anyway, and a latency average that old is no better than
// the first median a newcomer starts from.
func (s *Spillway) forget() {
	for h, last := range s.seen {
		if s.periods-last >= s.rtt.n {
			delete(s.seen, h)
			delete(s.lat, h)
			delete(s.rate, h)
			delete(s.gain, h)
			delete(s.lastErr, h)
			s.rtt.forget(h)
		}
	}
}

// sampleWeight is how much a period's median of n reads moves an average:
// Smoothing from MinSamples reads on, in proportion below, so a member on
// its probe share at a low read rate is still measured, slowly.
func (s *Spillway) sampleWeight(n int) float64 {
	return s.cfg.Smoothing * min(1, float64(n)/float64(s.cfg.MinSamples))
}

// server is a median latency less the round trip, floored, in seconds.
func (s *Spillway) server(d, rtt time.Duration) float64 {
	return max(d-rtt, s.cfg.LatencyFloor).Seconds()
}

func smooth(old, v, alpha float64) float64 {
	if old == 0 {
		return v
	}
	return old + alpha*(v-old)
}

func seconds(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }

// describe says what a decision saw.
func (s *Spillway) describe(mp, ms float64) string {
	var b strings.Builder
	f := func(v float64) string { return fmt.Sprintf("%.2fms", v*1000) }
	fmt.Fprintf(&b, "primary marginal %s (reads %s, writes %s) vs secondaries' %s", f(mp), f(s.lat[s.primary]), f(s.write), f(ms))
	for _, h := range s.fresh {
		m, _ := s.marginal(h)
		fmt.Fprintf(&b, ", %s %s (marginal %s)", h, f(s.lat[h]), f(m))
	}
	return b.String()
}
