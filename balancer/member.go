package balancer

import (
	"fmt"
	"strings"
	"time"
)

// MemberStats are one replica-set member's routed reads in a period.
type MemberStats struct {
	// Host is the member's address as the driver knows it; Name its
	// decongestant name (the "node" tag: n1, n2...), "" when untagged.
	Host, Name string
	// Role is the member's role at the period end.
	Role Side
	// Count is the number of routed units it served.
	Count int
	// P50, Mean and Min are the latency (see Stats) of those units.
	P50, Mean, Min time.Duration
	// RTT is the period's minimum ping to the member; 0 when unknown.
	RTT time.Duration
}

// MemberLag is one member in a lag poll.
type MemberLag struct {
	Host, Name string
	// Role is the member's state as the primary reports it: Primary,
	// Secondary, or 0 (DOWN, RECOVERING, STARTUP2, not vouched for).
	Role Side
	// Lag is a Secondary's staleness estimate.
	Lag time.Duration
}

// HostWeight is the share of reads routed to one secondary.
type HostWeight struct {
	Host   string
	Weight float64
}

// Weights is a per-member routing: the share of reads sent to whichever
// member is primary (read preference primary, so an election never sends
// them to a stepped-down member) and the shares sent to named secondaries.
// The shares sum to 1.
type Weights struct {
	Primary     float64
	Secondaries []HostWeight
}

// Secondary returns the summed share of the secondaries.
func (w Weights) Secondary() float64 {
	var s float64
	for _, h := range w.Secondaries {
		s += h.Weight
	}
	return s
}

// Of returns host's share (0 when absent).
func (w Weights) Of(host string) float64 {
	for _, h := range w.Secondaries {
		if h.Host == host {
			return h.Weight
		}
	}
	return 0
}

// String formats the weights as "primary=0.2,h1=0.4,h2=0.4".
func (w Weights) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "primary=%.3g", w.Primary)
	for _, h := range w.Secondaries {
		fmt.Fprintf(&b, ",%s=%.3g", h.Host, h.Weight)
	}
	return b.String()
}

// PrimaryOnly routes every read to the primary.
func PrimaryOnly() Weights { return Weights{Primary: 1} }

// Weighted is a policy that routes per member (Selection().Mode ==
// PerMember): the router reads Weights after every EndPeriod and ObserveLag
// and sends each read to one member with those probabilities. Fraction is
// the secondaries' summed share.
type Weighted interface {
	Policy
	Weights() Weights
}

// Estimator is a per-member policy whose per-read rule (Selection().Choice)
// needs its estimates of each member's speed; the router reads them with
// Weights.
type Estimator interface {
	Weighted
	// Estimate returns the time (s) one more operation in flight adds to
	// a read on host ("" is the primary); 0 when not measured yet.
	Estimate(host string) float64
	// NeedsProbe reports whether host needs probe reads (Choice.ProbeEvery)
	// to keep its estimate current.
	NeedsProbe(host string) bool
}
