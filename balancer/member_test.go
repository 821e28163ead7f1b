package balancer

import (
	"fmt"
	"math"
	"time"
)

// The replica set of the per-member policy tests: h1 primary, h2 and h3 secondaries,
// until an election says otherwise.
const (
	h1 = "h1:27017"
	h2 = "h2:27018"
	h3 = "h3:27019"
)

func prim(host string) MemberLag { return MemberLag{Host: host, Role: Primary} }
func sec(host string, lag time.Duration) MemberLag {
	return MemberLag{Host: host, Role: Secondary, Lag: lag}
}

// poll is a known lag poll with the given horizon.
func poll(horizon time.Duration, members ...MemberLag) Lag {
	l := Lag{Known: true, Horizon: horizon, Members: members}
	for _, m := range members {
		if m.Role == Secondary {
			l.Max = max(l.Max, m.Lag)
		}
	}
	return l
}

// freshPoll has h1 primary and h2, h3 100 ms behind, polled every second.
var freshPoll = poll(time.Second, prim(h1), sec(h2, 100*ms), sec(h3, 100*ms))

// served is a member's reads in a period: count reads of the given mean
// latency (ms).
func served(host string, count int, meanMS float64) MemberStats {
	return MemberStats{Host: host, Count: count, Mean: time.Duration(meanMS * float64(ms))}
}

// secPeriod is a one-second period of the given members' reads.
func secPeriod(members ...MemberStats) Period {
	return Period{Length: time.Second, Members: members}
}

// shares flattens w into host -> share, the primary's under "primary".
func shares(w Weights) map[string]float64 {
	out := map[string]float64{"primary": w.Primary}
	for _, h := range w.Secondaries {
		out[h.Host] += h.Weight
	}
	return out
}

// checkWeights asserts w's invariants: shares in [0, 1] summing to 1, no
// host twice.
func checkWeights(w Weights) error {
	sum := w.Primary
	seen := map[string]bool{}
	for _, h := range w.Secondaries {
		if seen[h.Host] {
			return fmt.Errorf("%s listed twice in %v", h.Host, w)
		}
		seen[h.Host] = true
		if h.Weight < 0 || h.Weight > 1 {
			return fmt.Errorf("%s has share %v", h.Host, h.Weight)
		}
		sum += h.Weight
	}
	if w.Primary < 0 || w.Primary > 1 || math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("weights %v sum to %v", w, sum)
	}
	return nil
}
