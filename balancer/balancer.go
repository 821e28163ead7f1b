package balancer

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Side is where a routed read is sent (read preference primary or
// secondary), and the role of a replica-set member: the one enum of
// primary/secondary in the project. The zero value is neither: a member that
// is not readable (down, recovering, an arbiter) or of unknown role.
type Side uint8

const (
	// Primary: the read was sent with read preference primary; the member
	// is the primary.
	Primary Side = iota + 1
	// Secondary: the read was sent with read preference secondary; the
	// member is a readable secondary.
	Secondary
)

// String returns "primary" or "secondary".
func (s Side) String() string {
	switch s {
	case Primary:
		return "primary"
	case Secondary:
		return "secondary"
	case 0:
		return "other"
	}
	return fmt.Sprintf("side(%d)", uint8(s))
}

// Stats summarises the latency of one side's reads in a period: by default the
// time their commands spent on a checked-out connection (send to reply), or the
// Decongestant paper's client-observed latency (router.WithLatencySource).
type Stats struct {
	Count int
	P50   time.Duration
}

// Period is what a policy observes at the end of a balancing period.
type Period struct {
	// Primary and Secondary are the latencies (see Stats) of the reads sent
	// with each read preference during the period.
	Primary, Secondary Stats
	// PrimaryRTT and SecondaryRTT estimate the network round trip to the
	// primary and to the secondaries (all secondaries' pings pooled): by
	// default the period's minimum ping; the Decongestant paper (§3.3.1) used
	// the median (router.WithRTTQuantile). Zero when unknown.
	PrimaryRTT, SecondaryRTT time.Duration
	// Length is the period's length; 0 when unknown.
	Length time.Duration
	// Writes are the period's writes (insert, update, delete,
	// findAndModify) the primary answered, by the same latency source.
	Writes Stats
	// Members are the period's reads per member, by the member that
	// served them (for every policy; Weighted policies use them).
	Members []MemberStats
}

// Lag is one poll of the secondaries' staleness, as the primary sees it.
type Lag struct {
	// Max is the largest staleness estimate of any secondary.
	Max time.Duration
	// Known is false when the poll failed (no primary, timeout) or a member
	// the driver may read from could not be vouched for; policies that
	// bound staleness treat an unknown lag as exceeding the bound.
	Known bool
	// Horizon is how long the observation stands: from the moment it was
	// asked for until the next one is due (the poll interval plus the poll's
	// round trip). A secondary's staleness grows by at most Horizon before
	// the policy hears again, so AutoHeadroom adds it to Max. Zero when the
	// observer does not know it.
	Horizon time.Duration
	// Members are the members of the poll. A member the router cannot
	// vouch for (the driver sees it as a secondary, the primary does not
	// report it as SECONDARY yet) has Role 0.
	Members []MemberLag
}

// Lag polling. A bound is only as good as the polls that enforce it: a
// secondary's staleness can grow by one poll interval before the next poll
// reports it, so the interval must be well below the bound.
const (
	// DefaultLagInterval is the Decongestant paper's once per second, used for
	// bounds of 5 s and more and for unbounded policies.
	DefaultLagInterval = time.Second
	// MinLagInterval is the shortest interval LagIntervalFor chooses; each
	// poll is a replSetGetStatus on the primary.
	MinLagInterval = 50 * time.Millisecond
	// PollsPerBound is how many lag polls LagIntervalFor fits into a bound.
	PollsPerBound = 5
)

// LagIntervalFor returns the lag poll interval a bound needs: a fifth of the
// bound, between MinLagInterval and DefaultLagInterval (a 500 ms bound is
// polled every 100 ms, a 10 s bound once per second as in the Decongestant
// paper).
func LagIntervalFor(b Bound) time.Duration {
	if b.Unbounded || b.Max == 0 {
		return DefaultLagInterval
	}
	return min(DefaultLagInterval, max(MinLagInterval, b.Max/PollsPerBound))
}

// Bounded is a policy that keeps secondary reads within a staleness bound.
// The router polls lag at LagIntervalFor(Bound()) unless told otherwise, and
// refuses an interval the policy cannot work with.
type Bounded interface {
	Policy
	Bound() Bound
	// CheckLagInterval reports an error when lag polls every d could never
	// allow a secondary read under the bound.
	CheckLagInterval(d time.Duration) error
}

// Decision is the outcome of a period end, for reporting.
type Decision struct {
	// Fraction is the balance fraction in force after the decision.
	Fraction float64
	// Ratio is the latency ratio the decision was based on; NaN when
	// undefined (a side had too few samples, or the policy uses no ratio).
	Ratio float64
	// Reason names the branch taken, e.g. "primary-congested".
	Reason string
	// Detail says what the decision saw, for the record (e.g. Spillway's
	// capacity estimates); "" when Ratio says it all.
	Detail string
}

// Mode says how a policy's reads are routed.
type Mode uint8

const (
	// Split: each read flips a coin with the policy's fraction and is sent
	// with read preference secondary (heads) or primary (tails).
	Split Mode = iota + 1
	// SecondaryPreferred: every read uses the driver's secondaryPreferred.
	SecondaryPreferred
	// Nearest: every read uses the driver's nearest.
	Nearest
	// MaxStaleness: every read uses the driver's secondary read preference
	// with maxStalenessSeconds.
	MaxStaleness
	// PerMember: each read is sent to one member chosen with the policy's
	// Weights (the policy implements Weighted).
	PerMember
)

// String returns the mode's name.
func (m Mode) String() string {
	switch m {
	case Split:
		return "split"
	case SecondaryPreferred:
		return "secondarypreferred"
	case Nearest:
		return "nearest"
	case MaxStaleness:
		return "maxstaleness"
	case PerMember:
		return "per-member"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Selection is how a policy wants its reads selected by the router.
type Selection struct {
	Mode Mode
	// LeastLoaded (PerMember): each read meant for a secondary goes to the
	// less loaded of two different secondaries drawn by their shares (by
	// reads in flight per unit of share, the read counted on the second),
	// which absorbs a member's stalls within milliseconds; without it, each
	// read goes to the member drawn.
	LeastLoaded bool
	// MaxStaleness is the driver's maxStalenessSeconds (Mode MaxStaleness).
	MaxStaleness time.Duration
	// LocalThreshold (Mode Nearest) replaces the driver's localThresholdMS
	// (15 ms), the window of heartbeat round trips within which it takes
	// members as candidates; 0 keeps the driver's (or the URI's).
	LocalThreshold time.Duration
	// Choice (PerMember) is the rule that picks each read's member among
	// those the policy's Weights admit; the zero Choice draws by share.
	Choice Choice
}

// Policy decides what fraction of reads goes to the secondaries. A Policy is
// a deterministic state machine: observations go in, a fraction comes out. It
// reads no clock and does no I/O, and it is not safe for concurrent use — the
// router serialises calls.
type Policy interface {
	// Name is the policy's canonical spec, e.g. "decongestant" or "fixed:0.5".
	Name() string
	// Selection says whether reads are split by fraction or left to a
	// driver read preference.
	Selection() Selection
	// Interval is the balancing period; 0 means the policy never changes
	// its fraction at period ends.
	Interval() time.Duration
	// Fraction is the current balance fraction in [0, 1].
	Fraction() float64
	// EndPeriod observes a finished period and returns the decision.
	EndPeriod(p Period) Decision
	// ObserveLag observes one lag poll and returns the fraction in force.
	ObserveLag(l Lag) float64
}

// ErrInvalidPolicy is wrapped by every policy parsing and validation error.
var ErrInvalidPolicy = errors.New("invalid policy")

// A SettingError is a policy setting out of its range, from a config's
// Validate. Setting names the config field ("Delta", "Headroom"), so that a
// caller can say which of its own inputs (a flag, an option) was wrong. It
// wraps ErrInvalidPolicy.
type SettingError struct {
	Setting string // the config field
	Reason  string // what is wrong, e.g. "delta 2 must be in (0, 1]"
}

func (e *SettingError) Error() string { return ErrInvalidPolicy.Error() + ": " + e.Reason }

// Unwrap returns ErrInvalidPolicy.
func (e *SettingError) Unwrap() error { return ErrInvalidPolicy }

// invalid returns a *SettingError for the config field setting.
func invalid(setting, format string, args ...any) error {
	return &SettingError{Setting: setting, Reason: fmt.Sprintf(format, args...)}
}

// Bound is a client-set limit on data staleness.
type Bound struct {
	// Max is the largest acceptable staleness; 0 means no stale data at all.
	Max time.Duration
	// Unbounded disables the limit (any staleness is acceptable).
	Unbounded bool
}

// Exceeded reports whether a lag observation breaks the bound. An unknown
// lag breaks any finite bound.
func (b Bound) Exceeded(l Lag) bool {
	if b.Unbounded {
		return false
	}
	return b.Max == 0 || !l.Known || l.Max > b.Max
}

// String formats the bound as a duration or "none".
func (b Bound) String() string {
	if b.Unbounded {
		return "none"
	}
	return b.Max.String()
}

// ParseBound parses "10s", "500ms", "0" or "none".
func ParseBound(s string) (Bound, error) {
	switch s {
	case "none", "inf", "unbounded":
		return Bound{Unbounded: true}, nil
	case "0":
		return Bound{}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Bound{}, fmt.Errorf("max staleness %q: want a duration such as 10s or 500ms, 0, or none: %w", s, err)
	}
	if d < 0 {
		return Bound{}, fmt.Errorf("max staleness %q: must not be negative", s)
	}
	return Bound{Max: d}, nil
}

// serverSide is the Decongestant paper's server-side latency, P50(latency) -
// RTT estimate (the Decongestant paper: P50(client) - P50(RTT); by default here
// P50(command time) - the period's minimum ping), floored so the ratio stays
// finite and positive.
func serverSide(client, rtt, floor time.Duration) time.Duration {
	return max(client-rtt, floor)
}

func ratioOf(num, den time.Duration) float64 {
	return float64(num) / float64(den)
}

func nan() float64 { return math.NaN() }
