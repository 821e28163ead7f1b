package hints

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
	"go.mongodb.org/mongo-driver/v2/bson"
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

// Start is idempotent: a second Start starts no second set of loops (Close, which stops one set,
// would then wait forever), a Start after Close starts nothing, and Start and Close may race.
func TestStartIsIdempotentAndCloseStopsEverything(t *testing.T) {
	members := []Member{{Host: "p", Primary: true, LagKnown: true}, {Host: "s1", LagKnown: true}}
	newModule := func() *Module {
		cfg := DefaultConfig()
		cfg.Interval = time.Millisecond
		m, err := New(cfg, &fakeReplayer{keys: map[string]int{}}, func() []Member { return members }, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	closeWithin := func(m *Module, what string) {
		t.Helper()
		done := make(chan struct{})
		go func() { m.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a hang guard, not a timing assertion
			t.Fatalf("%s: Close did not return: loops were started that it does not stop", what)
		}
	}
	base := runtime.NumGoroutine()
	settled := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > base {
			t.Fatalf("%s: %d goroutines left running, want %d", what, n, base)
		}
	}

	m := newModule()
	m.Start()
	m.Start()
	closeWithin(m, "Start twice")
	settled("Start twice, Close")
	m.Start() // after Close: nothing starts
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("Start after Close started %d goroutines", n-base)
	}
	closeWithin(m, "Close again")

	m = newModule()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() { defer wg.Done(); m.Start() }()
		go func() { defer wg.Done(); m.Close() }()
	}
	raced := make(chan struct{})
	go func() { wg.Wait(); close(raced) }()
	select {
	case <-raced:
	case <-time.After(10 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("racing Start and Close: a Close did not return")
	}
	closeWithin(m, "after the race")
	settled("racing Start and Close")
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

// deadlineReplayer records how long each replay was given, by kind.
type deadlineReplayer struct {
	mu        sync.Mutex
	find, agg time.Duration
}

func (d *deadlineReplayer) Replay(ctx context.Context, _ string, r Replay) error {
	dl, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.Pipeline != nil {
		d.agg = time.Until(dl)
	} else {
		d.find = time.Until(dl)
	}
	return nil
}

// TestReplayTimeouts: a replayed aggregation gets its own, longer timeout
// (a scan such as TPC-H Q1 takes as long as the read it replays, seconds
// on a capped member); a replayed find the short one.
func TestReplayTimeouts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Interval = 5 * time.Millisecond
	rep := &deadlineReplayer{}
	members := []Member{{Host: "p", Primary: true, LagKnown: true}, {Host: "s", LagKnown: true}}
	m, err := New(cfg, rep, func() []Member { return members }, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Capture("p", findCmd(t, "c", byID(1)))
	m.Capture("p", mustMarshal(t, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}},
		{Key: "cursor", Value: bson.D{}}, {Key: "$db", Value: "db"}}))
	m.Start()
	defer m.Close()
	got := func() (time.Duration, time.Duration) {
		rep.mu.Lock()
		defer rep.mu.Unlock()
		return rep.find, rep.agg
	}
	deadline := time.Now().Add(5 * time.Second)
	for f, a := got(); (f == 0 || a == 0) && time.Now().Before(deadline); f, a = got() {
		time.Sleep(5 * time.Millisecond)
	}
	f, a := got()
	if f <= 0 || f > cfg.Timeout || a <= cfg.Timeout || a > cfg.AggTimeout {
		t.Fatalf("a find's replay had %v (want at most %v), an aggregation's %v (want over %v, at most %v)", f, cfg.Timeout, a, cfg.Timeout, cfg.AggTimeout)
	}
}

func TestReplayTimeoutsMustBePositive(t *testing.T) {
	cfg := DefaultConfig()
	cfg.AggTimeout = 0
	if err := cfg.Validate(); err == nil {
		t.Fatal("an aggregation timeout of 0 accepted")
	}
}
