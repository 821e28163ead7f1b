package hints

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/decongestant/decongestant/metrics"
)

// Member is what the module knows of a replica-set member when it ships a
// batch.
type Member struct {
	Host string
	// Name is the member's "node" tag ("" when untagged); Config.One may
	// name a member by it.
	Name    string
	Primary bool
	// Lag is the member's replication lag in the latest poll; LagKnown is
	// false when no poll vouched for it.
	Lag      time.Duration
	LagKnown bool
}

// Replayer sends one replay to host and reads its result to the end,
// discarding it. The module never counts replays as application reads.
type Replayer interface {
	Replay(ctx context.Context, host string, r Replay) error
}

// Event reports a member's hints switched off or on by the overload switch.
type Event struct {
	At   time.Time
	Host string
	On   bool
	// Why is the strain that switched them off ("" when switched on).
	Why string
}

// Module captures routed reads and replays them on the members that did not
// serve them, so their caches hold the read working set (the read-hints
// module of the read-hints paper, done from the client). Capture is the
// only call on the read path.
type Module struct {
	cfg     Config
	cap     *Capture
	rep     Replayer
	members func() []Member
	onEvent func(Event)

	batches, distinct atomic.Int64
	mu                sync.Mutex
	targets           map[string]*target

	life   sync.Mutex         // guards cancel and closed
	cancel context.CancelFunc // set by the first Start
	closed bool
	wg     sync.WaitGroup
}

// target is one member's replay queue, counters and overload switch.
type target struct {
	host   string
	queue  chan []Replay // holds the latest batch not yet taken
	behind atomic.Bool   // a batch was replaced before it was taken
	sw     *Switch       // guarded by Module.mu

	replays, keys, errs, dropped atomic.Int64
	lat                          *metrics.Histogram
	last                         *metrics.Snapshot // at the latest overload check (Module.mu)
}

// New returns a module that replays with rep on the members members()
// returns; onEvent (may be nil) hears every switch. Start starts it.
func New(cfg Config, rep Replayer, members func() []Member, onEvent func(Event)) (*Module, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rep == nil || members == nil {
		return nil, errors.New("hints: a replayer and a members function are required")
	}
	if onEvent == nil {
		onEvent = func(Event) {}
	}
	return &Module{cfg: cfg, cap: NewCapture(cfg.MaxBatch), rep: rep, members: members, onEvent: onEvent,
		targets: map[string]*target{}}, nil
}

// Config returns the settings.
func (m *Module) Config() Config { return m.cfg }

// Capture records a read command (the BSON the driver sent) served by host.
// It copies the command into a preallocated buffer and allocates nothing.
func (m *Module) Capture(host string, cmd []byte) { m.cap.Add(host, cmd) }

// Start starts shipping batches and judging the targets' load. Only the
// first call starts them; a call after Close starts nothing. It is safe to
// call from several goroutines, and with Close.
func (m *Module) Start() {
	m.life.Lock()
	defer m.life.Unlock()
	if m.cancel != nil || m.closed {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.wg.Add(2)
	go m.shipLoop(ctx)
	go m.overloadLoop(ctx)
}

// Close stops the module and waits for its replays to end. Calling it again,
// or without Start, is harmless.
func (m *Module) Close() {
	m.life.Lock()
	cancel := m.cancel
	first := !m.closed
	m.closed = true
	m.life.Unlock()
	if !first || cancel == nil {
		return
	}
	cancel()
	m.wg.Wait()
}

func (m *Module) shipLoop(ctx context.Context) {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.Interval)
	defer t.Stop()
	var seq uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-m.cap.Full:
		}
		seq++
		m.ship(ctx, seq)
	}
}

// ship summarises the filled buffer and queues each target's replays.
func (m *Module) ship(ctx context.Context, seq uint64) {
	bt := m.cap.Swap()
	reads := Summarise(bt)
	m.cap.Release(bt)
	if len(reads) == 0 {
		return
	}
	m.batches.Add(1)
	m.distinct.Add(int64(len(reads)))
	for _, host := range TargetHosts(m.cfg, m.members()) {
		tg := m.target(ctx, host)
		m.mu.Lock()
		apply := tg.sw.Apply(m.cfg.Apply)
		m.mu.Unlock()
		if apply <= 0 {
			continue
		}
		if plan := Plan(reads, host, apply, seq, m.cfg); len(plan) > 0 {
			tg.offer(plan)
		}
	}
}

// TargetHosts returns the hosts that receive hints: every member (All), or the
// one Config.One names, else the first non-primary member in host order
// (One).
func TargetHosts(cfg Config, members []Member) []string {
	var out []string
	for _, mb := range members {
		if cfg.Targets == All || (cfg.One != "" && (mb.Host == cfg.One || mb.Name == cfg.One)) {
			out = append(out, mb.Host)
		}
	}
	if cfg.Targets == One && cfg.One == "" {
		for _, mb := range members {
			if !mb.Primary && (len(out) == 0 || mb.Host < out[0]) {
				out = []string{mb.Host}
			}
		}
	}
	slices.Sort(out)
	return out
}

// target returns host's queue, starting its replay workers on first use.
func (m *Module) target(ctx context.Context, host string) *target {
	m.mu.Lock()
	defer m.mu.Unlock()
	if tg, ok := m.targets[host]; ok {
		return tg
	}
	tg := &target{host: host, queue: make(chan []Replay, 1), sw: NewSwitch(m.cfg.Overload), lat: metrics.NewHistogram()}
	tg.last = tg.lat.Snapshot()
	m.targets[host] = tg
	m.wg.Add(1)
	go m.replayLoop(ctx, tg)
	return tg
}

// offer queues a batch, replacing one not taken yet (the newest reads are
// the ones worth warming).
func (tg *target) offer(plan []Replay) {
	for {
		select {
		case tg.queue <- plan:
			return
		default:
		}
		select {
		case <-tg.queue:
			tg.dropped.Add(1)
			tg.behind.Store(true)
		default:
		}
	}
}

// replayLoop replays each batch with Workers replays in flight.
func (m *Module) replayLoop(ctx context.Context, tg *target) {
	defer m.wg.Done()
	sem := make(chan struct{}, m.cfg.Workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		var plan []Replay
		select {
		case <-ctx.Done():
			return
		case plan = <-tg.queue:
		}
		for _, rp := range plan {
			select {
			case <-ctx.Done():
				return
			case sem <- struct{}{}:
			}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				timeout := m.cfg.Timeout
				if rp.Pipeline != nil {
					timeout = m.cfg.AggTimeout
				}
				rctx, cancel := context.WithTimeout(ctx, timeout)
				start := time.Now()
				err := m.rep.Replay(rctx, tg.host, rp)
				cancel()
				if err != nil {
					if ctx.Err() == nil {
						tg.errs.Add(1)
					}
					return
				}
				tg.lat.Record(time.Since(start))
				tg.replays.Add(1)
				tg.keys.Add(int64(rp.Keys))
			}()
		}
	}
}

func (m *Module) overloadLoop(ctx context.Context) {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.Overload.Period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			m.judge(now)
		}
	}
}

// judge feeds every target's last period to its switch.
func (m *Module) judge(now time.Time) {
	byHost := map[string]Member{}
	for _, mb := range m.members() {
		byHost[mb.Host] = mb
	}
	var events []Event
	m.mu.Lock()
	for host, tg := range m.targets {
		snap := tg.lat.Snapshot()
		period := snap.Sub(tg.last)
		tg.last = snap
		mb := byHost[host]
		l := Load{Lag: mb.Lag, LagKnown: mb.LagKnown || mb.Primary, Behind: tg.behind.Swap(false)}
		if period.Count() > 0 {
			l.Latency = period.Quantile(0.5)
		}
		if changed, why := tg.sw.Observe(l); changed {
			ev := Event{At: now, Host: host, On: tg.sw.On()}
			if !ev.On {
				ev.Why = why
			}
			events = append(events, ev)
		}
	}
	m.mu.Unlock()
	for _, ev := range events {
		m.onEvent(ev)
	}
}

// MemberStats are one member's hints so far.
type MemberStats struct {
	Host string
	// On is false while the overload switch holds the member's hints off.
	On bool
	// Replays are the queries sent, Keys the captured reads they stood
	// for, Errors the replays that failed, DroppedBatches the batches
	// replaced before the member's workers took them.
	Replays, Keys, Errors, DroppedBatches int64
}

// Stats are the module's counters so far.
type Stats struct {
	// Captured reads, Dropped when the buffer was full, Batches shipped,
	// Distinct reads in them after summarising.
	Captured, Dropped, Batches, Distinct int64
	Members                              []MemberStats
}

// Stats returns the counters, members in host order.
func (m *Module) Stats() Stats {
	c, d := m.cap.Counts()
	s := Stats{Captured: c, Dropped: d, Batches: m.batches.Load(), Distinct: m.distinct.Load()}
	m.mu.Lock()
	for host, tg := range m.targets {
		s.Members = append(s.Members, MemberStats{Host: host, On: tg.sw.On(), Replays: tg.replays.Load(), Keys: tg.keys.Load(),
			Errors: tg.errs.Load(), DroppedBatches: tg.dropped.Load()})
	}
	m.mu.Unlock()
	slices.SortFunc(s.Members, func(a, b MemberStats) int { return strings.Compare(a.Host, b.Host) })
	return s
}

// String says what the settings are.
func (c Config) String() string {
	return fmt.Sprintf("%s (every %v or %d reads, targets %v, apply %g)", c.Name(), c.Interval, c.MaxBatch, c.Targets, c.Apply)
}
