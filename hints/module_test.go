package hints

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

// fakeReplayer records the keys replayed per host.
type fakeReplayer struct {
	mu   sync.Mutex
	keys map[string]int
}

func (f *fakeReplayer) Replay(_ context.Context, host string, r Replay) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[host] += r.Keys
	return nil
}

func (f *fakeReplayer) got(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.keys[host]
}

func TestModuleShipsToTheMembersThatDidNotServe(t *testing.T) {
	members := []Member{{Host: "p", Primary: true, LagKnown: true}, {Host: "s1", LagKnown: true}, {Host: "s2", LagKnown: true}}
	for _, tt := range []struct {
		targets     Targets
		p, s1, s2   int
		description string
	}{
		{All, 0, 50, 50, "all: both secondaries get every read the primary served"},
		{One, 0, 50, 0, "one: only the first secondary"},
	} {
		t.Run(tt.targets.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Interval = 5 * time.Millisecond
			cfg.Targets = tt.targets
			rep := &fakeReplayer{keys: map[string]int{}}
			m, err := New(cfg, rep, func() []Member { return members }, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 50 { // one batch: a target never falls a batch behind
				m.Capture("p", findCmd(t, "c", byID(i)))
			}
			m.Start()
			defer m.Close()
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) && (rep.got("s1") < tt.s1 || rep.got("s2") < tt.s2) {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // anything more would show now
			if rep.got("p") != tt.p || rep.got("s1") != tt.s1 || rep.got("s2") != tt.s2 {
				t.Fatalf("%s: replayed p %d s1 %d s2 %d", tt.description, rep.got("p"), rep.got("s1"), rep.got("s2"))
			}
			st := m.Stats()
			if st.Captured != 50 || st.Distinct != 50 {
				t.Fatalf("stats %+v: want 50 captured and distinct", st)
			}
		})
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Apply = 0
	if _, err := New(cfg, &fakeReplayer{}, func() []Member { return nil }, nil); err == nil {
		t.Fatal("apply 0 accepted")
	}
	if _, err := New(DefaultConfig(), nil, nil, nil); err == nil {
		t.Fatal("no replayer accepted")
	}
}

// TestShipProbesAMemberWhoseHintsAreOff checks that a batch is planned for
// each target with its switch's fraction: all of it for a member whose hints
// are on, the probe fraction for one whose hints are off.
func TestShipProbesAMemberWhoseHintsAreOff(t *testing.T) {
	cfg := DefaultConfig() // apply 1, probe apply 0.02
	members := []Member{{Host: "p", Primary: true, LagKnown: true}, {Host: "s1", LagKnown: true}, {Host: "s2", LagKnown: true}}
	rep := &fakeReplayer{keys: map[string]int{}}
	m, err := New(cfg, rep, func() []Member { return members }, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer m.wg.Wait() // the replay workers ship starts
	defer cancel()

	tg := m.target(ctx, "s1")
	m.mu.Lock()
	for range cfg.Overload.Hold {
		tg.sw.Observe(Load{Behind: true})
	}
	on := tg.sw.On()
	m.mu.Unlock()
	if on {
		t.Fatal("the switch is still on")
	}
	const n = 1000
	var cmds [][]byte
	for i := range n {
		cmds = append(cmds, findCmd(t, "c", byID(i)))
		m.Capture("p", cmds[i])
	}
	// The keys a probe of the same batch samples (a key's hash is the same
	// in every capture of this process).
	c := NewCapture(n)
	for _, cmd := range cmds {
		c.Add("p", cmd)
	}
	probe := 0
	for _, rp := range Plan(Summarise(c.Swap()), "s1", cfg.Overload.ProbeApply, 1, cfg) {
		probe += rp.Keys
	}
	if probe == 0 || probe > n/10 {
		t.Fatalf("a probe of %d reads at %v samples %d", n, cfg.Overload.ProbeApply, probe)
	}

	m.ship(ctx, 1)
	testutil.Eventually(t, 5*time.Second, func() bool { return rep.got("s2") == n && rep.got("s1") >= probe },
		"s2 did not get the whole batch or s1 not its probe")
	if got := rep.got("s1"); got != probe {
		t.Fatalf("s1, whose hints are off, got %d keys, want the %d of its probe", got, probe)
	}
	if got := rep.got("p"); got != 0 {
		t.Fatalf("p got %d keys, want none: it served them", got)
	}
}
