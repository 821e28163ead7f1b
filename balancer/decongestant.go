package balancer

import (
	"fmt"
	"time"
)

// Config holds Decongestant's constants (the Decongestant paper, Algorithm 1
// and §4.1.2). The zero value is not valid; start from DefaultConfig.
type Config struct {
	// Interval is the balancing period (10 s).
	Interval time.Duration
	// Delta is the one-period change of the balance fraction (10%).
	Delta float64
	// LowBal is the lowest non-zero fraction and the initial one (10%).
	LowBal float64
	// HighBal is the highest fraction (90%).
	HighBal float64
	// LowRatio: a primary/secondary server-side latency ratio below it
	// lowers the fraction (0.75).
	LowRatio float64
	// HighRatio: a ratio above it raises the fraction (1.30).
	HighRatio float64
	// History is how many recent fractions are kept; when all are equal the
	// fraction explores down (4).
	History int
	// MinSamples is the number of reads a side needs in a period for its
	// median to count; fewer and the period is skipped (5). Not in the paper.
	MinSamples int
	// LatencyFloor bounds server-side latency from below so the ratio stays
	// finite when RTT noise exceeds the measured latency (10 µs). Not in the
	// paper.
	LatencyFloor time.Duration
	// Bound is the client's staleness limit (10 s in the Decongestant paper's
	// experiments).
	Bound Bound
	// Headroom is added to every lag observation before comparing it with the
	// bound. A secondary's staleness grows by at most the wall-clock time until
	// the next lag observation, so AutoHeadroom (the default) adds each
	// observation's Lag.Horizon (poll interval plus the poll's round trip),
	// which keeps every read within the bound; a fixed value overrides it, and
	// 0 is Algorithm 1's exact check, which lets staleness overshoot by up to
	// one poll interval (the Decongestant paper, fig. 10). Not in the paper.
	Headroom time.Duration
}

// DefaultConfig returns the Decongestant paper's constants with a 10 s
// staleness bound.
func DefaultConfig() Config {
	return Config{
		Interval:     10 * time.Second,
		Delta:        0.10,
		LowBal:       0.10,
		HighBal:      0.90,
		LowRatio:     0.75,
		HighRatio:    1.30,
		History:      4,
		MinSamples:   5,
		LatencyFloor: 10 * time.Microsecond,
		Bound:        Bound{Max: 10 * time.Second},
		Headroom:     AutoHeadroom,
	}
}

// AutoHeadroom makes the headroom of each lag observation its Lag.Horizon.
const AutoHeadroom time.Duration = -1

// Validate checks the constants once.
func (c Config) Validate() error {
	switch {
	case c.Interval <= 0:
		return invalid("Interval", "balancer interval %v must be positive", c.Interval)
	case c.Delta <= 0 || c.Delta > 1:
		return invalid("Delta", "delta %v must be in (0, 1]", c.Delta)
	case c.LowBal <= 0 || c.LowBal > 1:
		return invalid("LowBal", "low balance fraction %v must be in (0, 1]", c.LowBal)
	case c.HighBal < c.LowBal || c.HighBal > 1:
		return invalid("HighBal", "high balance fraction %v must be in [low %v, 1]", c.HighBal, c.LowBal)
	case c.LowRatio <= 0:
		return invalid("LowRatio", "ratios must satisfy 0 < low (%v) < high (%v)", c.LowRatio, c.HighRatio)
	case c.HighRatio <= c.LowRatio:
		return invalid("HighRatio", "ratios must satisfy 0 < low (%v) < high (%v)", c.LowRatio, c.HighRatio)
	case c.History < 1:
		return invalid("History", "history %d must be at least 1", c.History)
	case c.MinSamples < 1:
		return invalid("MinSamples", "min samples %d must be at least 1", c.MinSamples)
	case c.LatencyFloor <= 0:
		return invalid("LatencyFloor", "latency floor %v must be positive", c.LatencyFloor)
	case c.Headroom < 0 && c.Headroom != AutoHeadroom:
		return invalid("Headroom", "lag headroom %v must not be negative", c.Headroom)
	case !c.Bound.Unbounded && c.Bound.Max < 0:
		return invalid("Bound", "staleness bound %v must not be negative", c.Bound.Max)
	case !c.Bound.Unbounded && c.Bound.Max > 0 && c.Headroom >= c.Bound.Max:
		return invalid("Headroom", "lag headroom %v is not below the staleness bound %v, so no secondary read would ever be allowed: lower the headroom or raise the bound",
			c.Headroom, c.Bound.Max)
	}
	return nil
}

// CheckLagInterval reports an error when lag polls every d could never allow
// a secondary read: with AutoHeadroom every observation adds at least d, so
// a finite bound must be above d.
func (c Config) CheckLagInterval(d time.Duration) error {
	return checkLagInterval(c.Bound, c.Headroom, d)
}

func checkLagInterval(b Bound, headroom, d time.Duration) error {
	if b.Unbounded || b.Max == 0 || headroom != AutoHeadroom || d < b.Max {
		return nil
	}
	return fmt.Errorf("%w: staleness bound %v is not above the lag poll interval %v: a secondary's staleness can grow by a poll interval before the next poll reports it, so no secondary read would ever be allowed; raise the bound, or poll more often (e.g. every %v for a %v bound; each poll is a replSetGetStatus on the primary)",
		ErrInvalidPolicy, b.Max, d, b.Max/PollsPerBound, b.Max)
}

// Decongestant is the Read Balancer of the Decongestant paper (Algorithm 1).
type Decongestant struct {
	cfg    Config
	recent []float64 // ring of the last cfg.History period fractions
	head   int       // index of the latest entry in recent
	bal    float64   // fraction in force
	stale  bool      // the last lag observation broke the bound
	// staleSeen: some lag observation since the last period end broke the
	// bound, so a shortage of samples in the period may be the bound's doing.
	staleSeen bool
}

var _ Bounded = (*Decongestant)(nil)

// NewDecongestant returns a balancer in its initial state: every recent
// fraction is LowBal, and the fraction in force is LowBal unless the bound is
// 0, in which case it is 0.
func NewDecongestant(cfg Config) (*Decongestant, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Decongestant{cfg: cfg, recent: make([]float64, cfg.History)}
	for i := range d.recent {
		d.recent[i] = cfg.LowBal
	}
	d.stale = !cfg.Bound.Unbounded && cfg.Bound.Max == 0
	d.staleSeen = d.stale
	d.bal = d.inForce()
	return d, nil
}

// Name returns "decongestant".
func (d *Decongestant) Name() string { return "decongestant" }

// Selection returns Split.
func (d *Decongestant) Selection() Selection { return Selection{Mode: Split} }

// Interval returns the balancing period.
func (d *Decongestant) Interval() time.Duration { return d.cfg.Interval }

// Fraction returns the fraction in force.
func (d *Decongestant) Fraction() float64 { return d.bal }

// Config returns the constants the balancer runs with.
func (d *Decongestant) Config() Config { return d.cfg }

// Bound returns the staleness bound.
func (d *Decongestant) Bound() Bound { return d.cfg.Bound }

// CheckLagInterval is Config.CheckLagInterval.
func (d *Decongestant) CheckLagInterval(i time.Duration) error { return d.cfg.CheckLagInterval(i) }

// Recent returns the recorded fractions, oldest first.
func (d *Decongestant) Recent() []float64 {
	out := make([]float64, 0, len(d.recent))
	for i := 1; i <= len(d.recent); i++ {
		out = append(out, d.recent[(d.head+i)%len(d.recent)])
	}
	return out
}

func (d *Decongestant) latest() float64 { return d.recent[d.head] }

func (d *Decongestant) push(f float64) {
	d.head = (d.head + 1) % len(d.recent)
	d.recent[d.head] = f
}

func (d *Decongestant) allEqual() bool {
	for _, f := range d.recent {
		if f != d.recent[0] {
			return false
		}
	}
	return true
}

func (d *Decongestant) inForce() float64 {
	if d.stale {
		return 0
	}
	return d.latest()
}

// ObserveLag is Rcv-ServerStatus: a lag that with the headroom added is over
// the bound (or a bound of 0, or an unknown lag) forces the fraction to 0;
// otherwise the latest recorded fraction is restored.
func (d *Decongestant) ObserveLag(l Lag) float64 {
	if d.cfg.Headroom == AutoHeadroom {
		l.Max += l.Horizon
	} else {
		l.Max += d.cfg.Headroom
	}
	d.stale = d.cfg.Bound.Exceeded(l)
	d.staleSeen = d.staleSeen || d.stale
	d.bal = d.inForce()
	return d.bal
}

// EndPeriod is OnPeriodEnd. A period in which either side served fewer than
// MinSamples reads gives no ratio (the Decongestant paper is silent on this
// case):
//   - if the bound forced the fraction to 0 at some lag poll of the period,
//     the shortage is the bound's doing, not evidence about load: the
//     recorded fractions are left as they are and the fraction in force is
//     unchanged ("stale-too-few-samples");
//   - otherwise the load is too light for one side to be measured (at 90%
//     under light load the primary gets a handful of reads): no side is
//     shown to be congested, so the period counts as normal, and after
//     History such periods the fraction explores down as Algorithm 1 does
//     for a normal ratio ("too-few-samples", "too-few-samples-explore-down").
func (d *Decongestant) EndPeriod(p Period) Decision {
	staleSeen := d.staleSeen
	d.staleSeen = d.stale
	last := d.latest()
	var next float64
	var reason string
	ratio := nan()
	switch {
	case p.Primary.Count < d.cfg.MinSamples || p.Secondary.Count < d.cfg.MinSamples:
		if staleSeen {
			d.bal = d.inForce()
			return Decision{Fraction: d.bal, Ratio: ratio, Reason: "stale-too-few-samples"}
		}
		next, reason = last, "too-few-samples"
		if d.allEqual() {
			next, reason = max(last-d.cfg.Delta, d.cfg.LowBal), "too-few-samples-explore-down"
		}
	default:
		ssPrimary := serverSide(p.Primary.P50, p.PrimaryRTT, d.cfg.LatencyFloor)
		ssSecondary := serverSide(p.Secondary.P50, p.SecondaryRTT, d.cfg.LatencyFloor)
		ratio = ratioOf(ssPrimary, ssSecondary)
		switch {
		case ratio > d.cfg.HighRatio:
			next, reason = min(last+d.cfg.Delta, d.cfg.HighBal), "primary-congested"
		case ratio < d.cfg.LowRatio:
			next, reason = max(last-d.cfg.Delta, d.cfg.LowBal), "secondaries-congested"
		case d.allEqual():
			next, reason = max(last-d.cfg.Delta, d.cfg.LowBal), "explore-down"
		default:
			next, reason = last, "balanced"
		}
	}
	// Repeated additions of 0.1 drift (0.1+0.1+0.1 != 0.3); rounding to a
	// millionth keeps "all recent fractions equal" exact.
	next = roundFraction(next)
	d.push(next)
	d.bal = d.inForce()
	return Decision{Fraction: d.bal, Ratio: ratio, Reason: reason}
}

func roundFraction(f float64) float64 {
	const unit = 1e6
	return float64(int64(f*unit+0.5)) / unit
}
