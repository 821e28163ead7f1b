package balancer

import (
	"math"
	"testing"
	"time"
)

func newLeastWait(t *testing.T) *PerRead {
	t.Helper()
	p, err := NewPerRead(LeastWait, DefaultPerReadConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var threeMembers = Lag{Known: true, Members: []MemberLag{{Host: "p", Role: Primary}, {Host: "s1", Role: Secondary}, {Host: "s2", Role: Secondary, Lag: 20 * time.Second}}}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9+1e-6*math.Abs(b) }

// TestPerReadEstimates: a member's per-read time is its mean latency over
// the operations in flight there (reads/s x mean, the primary's writes
// added), at least one; a period moves the average by Smoothing, less
// with fewer than MinSamples reads.
func TestPerReadEstimates(t *testing.T) {
	p := newLeastWait(t)
	p.ObserveLag(threeMembers)
	p.EndPeriod(Period{Length: time.Second, Writes: Stats{Count: 500, P50: 10 * ms},
		Members: []MemberStats{
			{Host: "p", Count: 500, Mean: 10 * ms},   // 5 reads + 5 writes in flight: 1ms
			{Host: "s1", Count: 1000, Mean: 20 * ms}, // 20 in flight: 1ms
			{Host: "s2", Count: 10, Mean: 2 * ms},    // 0.02 in flight: the latency, 2ms
		}})
	for h, want := range map[string]float64{"": 0.001, "p": 0.001, "s1": 0.001, "s2": 0.002} {
		if got := p.Estimate(h); !near(got, want) {
			t.Errorf("%q per-read %v, want %v", h, got, want)
		}
	}
	// s1 slows to 4ms per read: half way (Smoothing 0.5); s2 with one
	// read (MinSamples 2) a quarter of the way to 6ms.
	p.EndPeriod(Period{Length: time.Second, Members: []MemberStats{
		{Host: "s1", Count: 250, Mean: 16 * ms}, // 4 in flight: 4ms
		{Host: "s2", Count: 1, Mean: 6 * ms},
	}})
	if got := p.Estimate("s1"); !near(got, 0.0025) {
		t.Errorf("s1 per-read %v, want 0.0025", got)
	}
	if got := p.Estimate("s2"); !near(got, 0.003) {
		t.Errorf("s2 per-read %v, want 0.003", got)
	}
	if got := p.Estimate("p"); !near(got, 0.001) {
		t.Errorf("p per-read %v after a period without its reads, want 0.001 kept", got)
	}
	// the same member twice in a period (a role change) is one member
	q := newLeastWait(t)
	q.ObserveLag(threeMembers)
	q.EndPeriod(Period{Length: 2 * time.Second, Members: []MemberStats{{Host: "s1", Count: 1000, Mean: 10 * ms}, {Host: "s1", Count: 1000, Mean: 30 * ms}}})
	if got := q.Estimate("s1"); !near(got, 0.001) { // 2000 reads, 20ms mean over 2s: 20 in flight
		t.Errorf("s1 per-read %v from two entries, want 0.001", got)
	}
}

// TestPerReadReadable: only secondaries within the bound are admitted;
// an unknown lag admits none; members a poll no longer lists are
// forgotten; the shares shown are in proportion to speed.
func TestPerReadReadable(t *testing.T) {
	p := newLeastWait(t)
	p.ObserveLag(threeMembers)
	if got := p.Fresh(); len(got) != 1 || got[0] != "s1" {
		t.Fatalf("fresh %v, want s1 alone (s2 is 20s behind a 10s bound)", got)
	}
	p.EndPeriod(Period{Length: time.Second, Members: []MemberStats{{Host: "p", Count: 300, Mean: 10 * ms}, {Host: "s1", Count: 1000, Mean: 10 * ms}}})
	// p: 3 in flight -> 3.33ms; s1: 10 in flight -> 1ms: s1 is 3.33x as fast
	w := p.Weights()
	if !near(w.Of("s1")/w.Primary, 10.0/3) || !near(w.Primary+w.Secondary(), 1) {
		t.Fatalf("weights %v, want s1 at 3.33x the primary's share", w)
	}
	p.ObserveLag(Lag{Known: false, Members: threeMembers.Members})
	if len(p.Fresh()) != 0 || p.Weights().Primary != 1 {
		t.Fatalf("an unknown lag left %v readable, weights %v", p.Fresh(), p.Weights())
	}
	p.ObserveLag(Lag{Known: true, Members: []MemberLag{{Host: "p", Role: Primary}, {Host: "s2", Role: Secondary}}})
	if p.Estimate("s1") != 0 {
		t.Fatal("s1, gone from the poll, kept its estimate")
	}
	if p.Estimate("p") == 0 {
		t.Fatal("the primary lost its estimate")
	}
}

func TestPerReadConfigValidate(t *testing.T) {
	bad := []func(*PerReadConfig){
		func(c *PerReadConfig) { c.Interval = 0 },
		func(c *PerReadConfig) { c.PrimaryFloor = -1 },
		func(c *PerReadConfig) { c.ProbeEvery = -1 },
		func(c *PerReadConfig) { c.Smoothing = 0 },
		func(c *PerReadConfig) { c.MinSamples = 0 },
		func(c *PerReadConfig) { c.LatencyFloor = 0 },
		func(c *PerReadConfig) { c.QRIF = 1.5 },
		func(c *PerReadConfig) { c.Bound = Bound{Max: -time.Second} },
	}
	for i, f := range bad {
		c := DefaultPerReadConfig()
		f(&c)
		if _, err := NewPerRead(LeastWait, c); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
	if _, err := NewPerRead(ByShare, DefaultPerReadConfig()); err == nil {
		t.Error("a per-read policy by share accepted")
	}
}

// TestPerReadPrimaryByItsWrites: a primary that served no read in a
// period is estimated from its writes, and needs no probe while they are
// timed; the secondaries always do.
func TestPerReadPrimaryByItsWrites(t *testing.T) {
	p := newLeastWait(t)
	p.ObserveLag(threeMembers)
	if !p.NeedsProbe("") || !p.NeedsProbe("p") || !p.NeedsProbe("s1") {
		t.Fatal("before any write, a member needs no probe")
	}
	// 400 writes/s at 20ms: 8 in flight, 2.5ms each
	p.EndPeriod(Period{Length: time.Second, Writes: Stats{Count: 400, P50: 20 * ms}, Members: []MemberStats{{Host: "s1", Count: 100, Mean: ms}}})
	if got := p.Estimate(""); !near(got, 0.0025) {
		t.Fatalf("primary per-read %v from its writes alone, want 0.0025", got)
	}
	if p.NeedsProbe("") || p.NeedsProbe("p") || !p.NeedsProbe("s1") {
		t.Fatal("with writes timed: want the primary unprobed, the secondary probed")
	}
	p.EndPeriod(Period{Length: time.Second})
	if !p.NeedsProbe("") {
		t.Fatal("a period without writes left the primary unprobed")
	}
}
