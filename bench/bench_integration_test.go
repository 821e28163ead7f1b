package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	mongooptions "go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"golang.org/x/sync/errgroup"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	_ "github.com/decongestant/decongestant/workload/ycsb"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// withSettings changes the settings and parses the policies again with them.
func withSettings(t *testing.T, o *bench.Options, mutate func(*balancer.Settings)) {
	t.Helper()
	mutate(&o.Settings)
	var names []string
	for _, p := range o.Policies {
		names = append(names, p.String())
	}
	specs, err := balancer.ParseSpecs(strings.Join(names, ","), o.Settings)
	if err != nil {
		t.Fatal(err)
	}
	o.Policies = specs
}

func options(t *testing.T, uri string, policies ...string) bench.Options {
	t.Helper()
	gen, err := workload.Configure("ycsb", workload.Shared{Seed: 1}, "--workload", "b", "--records", "500")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := balancer.ParseSpecs(strings.Join(policies, ","), balancer.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	return bench.Options{
		URI: uri, Database: "benchtest", Generator: gen, Records: 500, Clients: 4,
		Duration: 3 * time.Second, Period: time.Second, Policies: specs,
		Settings: balancer.DefaultSettings(), SProbe: true,
		Monitor: monitor.Config{RTTInterval: 100 * time.Millisecond, LagInterval: 200 * time.Millisecond},
		Out:     filepath.Join(t.TempDir(), "results.json"),
	}
}

func TestRunRecordsCountedSplitPerPolicy(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary", "secondary", "fixed:0.5")
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := results.Read(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk.Runs) != 3 || len(res.Runs) != 3 {
		t.Fatalf("runs: %d in memory, %d on disk, want 3", len(res.Runs), len(onDisk.Runs))
	}
	want := map[string]float64{"primary": 0, "secondary": 100, "fixed:0.5": 50}
	for _, run := range res.Runs {
		if len(run.Periods) != 3 {
			t.Fatalf("%s: %d periods, want 3", run.Policy, len(run.Periods))
		}
		s := run.Summary
		if s.ReadOps == 0 || s.ReadTput <= 0 || s.WriteOps == 0 {
			t.Fatalf("%s: no work recorded: %+v", run.Policy, s)
		}
		if s.Errors != 0 {
			t.Errorf("%s: %d errors (%v)", run.Policy, s.Errors, run.Extra["last_error"])
		}
		tol := 0.0
		if run.Policy == "fixed:0.5" {
			tol = 10 // a few hundred reads: generous binomial tolerance
		}
		if math.Abs(s.SecondaryPct-want[run.Policy]) > tol {
			t.Errorf("%s: counted secondary %.1f%%, want %.0f±%.0f", run.Policy, s.SecondaryPct, want[run.Policy], tol)
		}
		if s.Probes == 0 {
			t.Errorf("%s: the S probe took no samples", run.Policy)
		}
		var opened int64
		for _, n := range run.Periods[0].ConnsOpened {
			opened += n
		}
		if opened < int64(o.Clients)/2 {
			t.Errorf("%s: the first period opened %d connections for %d clients (%v)", run.Policy, opened, o.Clients, run.Periods[0].ConnsOpened)
		}
		if run.Policy == "primary" && s.StalenessMaxMS != 0 {
			t.Errorf("primary policy measured staleness %v ms: second reads went to a secondary", s.StalenessMaxMS)
		}
	}
}

func TestPhasesSwitchMixAndClients(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary")
	// The switch is due at a period boundary: the runner applies it before
	// closing the period, and waits for the stopped clients, so not one of
	// workload B's writes may land in the last period.
	o.Phases = []bench.Phase{{At: 2 * time.Second, Mix: "c", Clients: 2}}
	o.SkipLoad = false
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Runs[0].Periods
	if ps[0].Clients != 4 || ps[0].Mix != "b" {
		t.Errorf("first period %d clients mix %s, want 4 and b", ps[0].Clients, ps[0].Mix)
	}
	last := ps[len(ps)-1]
	if last.Clients != 2 || last.Mix != "c" || last.WriteOps != 0 {
		t.Errorf("last period %d clients mix %s writes %d, want 2, c (read-only), 0", last.Clients, last.Mix, last.WriteOps)
	}
	found := false
	for _, e := range res.Runs[0].Events {
		found = found || e.Kind == "phase"
	}
	if !found {
		t.Errorf("no phase event in %v", res.Runs[0].Events)
	}
}

// TestRateHoldsTheClientsTogether: with --rate 40, four closed-loop
// clients that could do hundreds of operations a second do at most 40 a
// second between them; a phase's rate=0 lifts the limit.
func TestRateHoldsTheClientsTogether(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary")
	o.SProbe = false
	o.Rate = 40
	o.Phases = []bench.Phase{{At: 2 * time.Second, Rate: new(float64)}}
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Runs[0].Periods
	if len(ps) != 3 {
		t.Fatalf("%d periods, want 3", len(ps))
	}
	limited := ps[0].ReadOps + ps[0].WriteOps + ps[1].ReadOps + ps[1].WriteOps
	if limited > 2*40+4 || limited == 0 {
		t.Errorf("first 2 s at 40/s: %d operations, want 1 to %d", limited, 2*40+4)
	}
	if free := ps[2].ReadOps + ps[2].WriteOps; free <= 2*40 {
		t.Errorf("last second without a limit: %d operations, want more than the limit allowed (%d)", free, 2*40)
	}
	if c := res.Config; c.RatePerS != 40 || len(c.Phases) != 1 || c.Phases[0].Rate == nil || *c.Phases[0].Rate != 0 {
		t.Errorf("config rate %v, phases %+v", c.RatePerS, c.Phases)
	}
}

// TestClientSweepRunsEachCount: a sweep runs the policy at each count, in
// order, and each run's periods are driven by that many clients.
func TestClientSweepRunsEachCount(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary")
	o.Clients, o.Sweep = 0, []int{2, 6}
	var progress strings.Builder
	o.Progress = &progress
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Config; c.Clients != 2 || len(c.ClientsSweep) != 2 || c.ClientsSweep[1] != 6 {
		t.Errorf("config clients %d sweep %v, want 2 and [2 6]", c.Clients, c.ClientsSweep)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(res.Runs))
	}
	for i, want := range o.Sweep {
		run := res.Runs[i]
		if run.Clients != want || run.Policy != "primary" {
			t.Errorf("run %d: %s with %d clients, want primary with %d", i, run.Policy, run.Clients, want)
		}
		for _, p := range run.Periods {
			if p.Clients != want {
				t.Errorf("run %d (%d clients): period at %vs has %d clients", i, want, p.TS, p.Clients)
			}
		}
		if run.Summary.ReadOps == 0 {
			t.Errorf("run %d: no reads", i)
		}
		if !strings.Contains(progress.String(), fmt.Sprintf("policy primary at %d clients", want)) {
			t.Errorf("progress does not name run %d's count:\n%s", i, progress.String())
		}
	}
}

func TestInterruptKeepsCompletedPeriods(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary", "secondary")
	o.Duration = 30 * time.Second
	o.SkipLoad = false
	ctx, cancel := context.WithCancel(context.Background())
	o.OnPeriod = func(_ context.Context, policy string, p results.Period, _ *router.Router) {
		if p.TS >= 2 {
			cancel()
		}
	}
	start := time.Now()
	res, err := bench.Execute(ctx, o)
	if !errors.Is(err, bench.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Fatalf("interruption took %v", time.Since(start))
	}
	onDisk, err := results.Read(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !onDisk.Interrupted || len(onDisk.Runs) != 1 || len(onDisk.Runs[0].Periods) < 2 {
		t.Fatalf("on disk: interrupted %v, %d runs, want the completed periods of run 1", onDisk.Interrupted, len(onDisk.Runs))
	}
	if len(res.Runs[0].Periods) != len(onDisk.Runs[0].Periods) {
		t.Fatalf("periods in memory %d, on disk %d", len(res.Runs[0].Periods), len(onDisk.Runs[0].Periods))
	}
}

// lagTrace records the router's lag events of a run with the fraction in
// force after each.
type lagTrace struct {
	mu     sync.Mutex
	events []router.Event
}

func (l *lagTrace) on(_ string, e router.Event) {
	if e.Kind == router.EventLag {
		l.mu.Lock()
		l.events = append(l.events, e)
		l.mu.Unlock()
	}
}

func (l *lagTrace) all() []router.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]router.Event(nil), l.events...)
}

// checkBoundEnforced fails the test if a lag poll whose lag plus horizon was
// over the bound (or unknown) left secondary reads allowed, or one within it
// forbade them.
func checkBoundEnforced(t *testing.T, events []router.Event, bound time.Duration) {
	t.Helper()
	for _, e := range events {
		over := !e.Lag.Known || e.Lag.Max+e.Lag.Horizon > bound
		if over && e.Fraction != 0 {
			t.Errorf("poll at %s: lag %v + horizon %v (known %v) over the bound %v, but the fraction stayed %v",
				e.At.Format("15:04:05.000"), e.Lag.Max, e.Lag.Horizon, e.Lag.Known, bound, e.Fraction)
		}
		if !over && e.Fraction == 0 {
			t.Errorf("poll at %s: lag %v + horizon %v within the bound %v, but the fraction was 0", e.At.Format("15:04:05.000"), e.Lag.Max, e.Lag.Horizon, bound)
		}
	}
}

// TestPausedReplicationNoBoundViolations pauses replication on every
// secondary mid-run: decongestant must read from the secondaries before the
// pause, drop to fraction 0 at the first lag poll whose lag plus horizon is
// over the bound, and the S probe must see no violation. Sub-second bounds
// work because the lag poll interval scales with the bound (500 ms: every
// 100 ms). The heartbeat, which a user with readWrite only gets, keeps a
// 500 ms bound (a healthy secondary reads as a quarter interval behind);
// hello, which a user who may not write gets, a 2 s bound (its whole-second
// resolution leaves too little of a 500 ms bound for secondary reads before
// the pause).
func TestPausedReplicationNoBoundViolations(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	for _, tt := range []struct {
		bound       time.Duration
		asked, used monitor.LagSource
	}{
		{2 * time.Second, monitor.SourceAuto, monitor.SourceReplSetGetStatus},
		{500 * time.Millisecond, monitor.SourceAuto, monitor.SourceReplSetGetStatus},
		{2 * time.Second, monitor.SourceHello, monitor.SourceHello},
		{500 * time.Millisecond, monitor.SourceHeartbeat, monitor.SourceHeartbeat},
	} {
		bound := tt.bound
		t.Run(bound.String()+"/"+tt.asked.String(), func(t *testing.T) {
			o := options(t, rs.URI(), "decongestant")
			o.Duration = 8 * time.Second
			withSettings(t, &o, func(s *balancer.Settings) {
				s.Decongestant.Bound = balancer.Bound{Max: bound}
				s.Decongestant.Interval = time.Second
				s.Decongestant.LowBal = 0.5 // plenty of secondary reads before the pause
			})
			o.Monitor.LagInterval = 0 // derived from the bound
			o.Monitor.LagSource = tt.asked
			var trace lagTrace
			o.OnEvent = trace.on
			var pausedAt time.Time
			var once sync.Once
			o.OnPeriod = func(ctx context.Context, _ string, p results.Period, r *router.Router) {
				if p.TS >= 3 {
					once.Do(func() {
						if got, want := r.LagInterval(), balancer.LagIntervalFor(o.Settings.Decongestant.Bound); got != want {
							t.Errorf("lag polled every %v, want %v for a %v bound", got, want, bound)
						}
						pausedAt = time.Now()
						testutil.PauseSecondaries(t, rs)
					})
				}
			}
			res, err := bench.Execute(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			run := res.Runs[0]
			if run.Summary.LagSource != tt.used.String() || res.Config.Balancer["lag_source"] != tt.asked.String() {
				t.Fatalf("lag source %q in the summary, %v in the config; want %v and %v", run.Summary.LagSource, res.Config.Balancer["lag_source"], tt.used, tt.asked)
			}
			var before float64
			for _, p := range run.Periods[:3] {
				before += p.SecondaryPct
			}
			if before == 0 {
				t.Fatalf("no secondary reads before the pause: %+v", run.Periods[:3])
			}
			if v := run.Summary.BoundViolations; v != 0 {
				t.Fatalf("%d S-probe reads exceeded the bound; events %v", v, run.Events)
			}
			events := trace.all()
			checkBoundEnforced(t, events, bound)
			var dropped bool
			for _, e := range events {
				if e.At.After(pausedAt) && e.Fraction == 0 {
					dropped = true
				}
			}
			if !dropped {
				t.Fatalf("the fraction never dropped to 0 after the pause; events %v", run.Events)
			}
			lastP := run.Periods[len(run.Periods)-1]
			if lastP.BalanceFraction != 0 || lastP.SecondaryPct != 0 {
				t.Fatalf("last period while paused: fraction %v, secondary %v%%, want 0 and 0; events %v", lastP.BalanceFraction, lastP.SecondaryPct, run.Events)
			}
		})
	}
}

// TestFailoverRejoinAndPauseKeepTheBound is the failover run:
// decongestant with a 2 s bound and the S probe; the primary is killed, the
// set elects another, the old primary restarts and rejoins far behind, then
// replication is paused and resumed. No S-probe read may exceed the bound,
// and from the first poll after the old primary rejoins (and the moment the
// driver sees it as a secondary) the fraction must be 0 until it catches up;
// the test holds the rejoined member's replication for 3 s, so it is behind
// the bound for several polls however fast it would catch up.
//
// It runs with each lag source: auto (replSetGetStatus on this set, a poll
// it does not answer in time taken by the heartbeat), the heartbeat, and
// hello (its whole seconds are within a 2 s bound).
//
// The run and the faults run on goroutines of their own; each returns its
// error for the test's goroutine to report, and the first to fail stops the
// other.
func TestFailoverRejoinAndPauseKeepTheBound(t *testing.T) {
	for _, src := range []monitor.LagSource{monitor.SourceAuto, monitor.SourceHeartbeat, monitor.SourceHello} {
		t.Run(src.String(), func(t *testing.T) { testFailoverRejoinAndPause(t, src) })
	}
}

func testFailoverRejoinAndPause(t *testing.T, src monitor.LagSource) {
	rs := testutil.ReplicaSet(t)
	const bound = 2 * time.Second
	o := options(t, rs.URI(), "decongestant")
	o.Duration = 45 * time.Second
	o.Monitor.LagSource = src
	withSettings(t, &o, func(s *balancer.Settings) {
		s.Decongestant.Bound = balancer.Bound{Max: bound}
		s.Decongestant.Interval = time.Second
		s.Decongestant.LowBal = 0.5
	})
	o.Monitor.LagInterval = 0
	var trace lagTrace
	o.OnEvent = trace.on
	ctx := context.Background()
	old, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Leave the shared set whole for the next test.
		if err := rs.RestartMember(ctx, old.Name); err != nil {
			t.Errorf("restart %s: %v", old.Name, err)
		}
	})
	client := testutil.Connect(t, rs.URI())
	// The faults start once the run has measured 3 periods, and must end
	// before its last one closes.
	start := make(chan struct{})
	var startOnce sync.Once
	var lastPeriod, runStart time.Time
	o.OnPeriod = func(_ context.Context, _ string, p results.Period, _ *router.Router) {
		if runStart.IsZero() {
			runStart = time.Now().Add(-time.Duration(p.TS * float64(time.Second)))
		}
		if p.TS >= 3 {
			startOnce.Do(func() { close(start) })
		}
		lastPeriod = time.Now()
	}
	f := failoverFaults{rs: rs, client: client, old: old, bound: bound, trace: &trace}
	g, gctx := errgroup.WithContext(ctx)
	var res *results.Results
	runDone := make(chan struct{})
	g.Go(func() error {
		defer close(runDone)
		var err error
		res, err = bench.Execute(gctx, o)
		return err
	})
	g.Go(func() error {
		select {
		case <-start:
		case <-runDone:
			return errors.New("the run ended before its third period")
		case <-gctx.Done():
			return nil // the run failed: its error is the one to report
		}
		return f.run(gctx)
	})
	if err := g.Wait(); err != nil {
		t.Fatalf("%v (faults: %v)", err, &f)
	}
	run := res.Runs[0]
	if v := run.Summary.BoundViolations; v != 0 {
		// The verdict and the stale reads first (a long log is cut in the
		// middle), then the polls around each stale read.
		t.Errorf("%d S-probe reads exceeded the %v bound (faults: %v); run started about %s; events %v",
			v, bound, &f, runStart.Format("15:04:05.000"), notDecisions(run.Events))
		logPollsAround(t, trace.all(), runStart, run.Events)
		t.FailNow()
	}
	if !f.resumed.Before(lastPeriod) {
		t.Fatalf("the fault schedule ended at %s, after the run's last period closed at %s",
			f.resumed.Format("15:04:05.000"), lastPeriod.Format("15:04:05.000"))
	}
	events := trace.all()
	checkBoundEnforced(t, events, bound)

	// The old primary's rejoin, as the polls and the driver saw it: either
	// the driver saw it as a secondary before the primary did (no poll could
	// vouch for it), or a poll saw it behind the bound; either way the
	// fraction was 0 (checkBoundEnforced), and restored once it caught up.
	var rejoin, restored bool
	for _, e := range events {
		if e.At.Before(f.killed) || e.At.After(f.paused) {
			continue
		}
		if !e.Lag.Known && e.Lag.Err != nil && strings.Contains(e.Lag.Err.Error(), old.Host) {
			rejoin = true
		}
		for _, m := range e.Lag.Members {
			if m.Host == old.Host && m.Role == balancer.Secondary && m.Lag > bound {
				rejoin = true
			}
		}
		if rejoin && e.Lag.Known && e.Fraction > 0 {
			restored = true
		}
	}
	if !rejoin {
		t.Fatalf("no poll saw %s rejoin behind the bound, and the driver never saw it first; rejoined %s, caught up %s; events %v",
			old.Host, f.rejoined.Format("15:04:05.000"), f.caughtUp.Format("15:04:05.000"), run.Events)
	}
	if !restored {
		t.Fatalf("secondary reads were not restored after %s caught up; events %v", old.Host, run.Events)
	}
}

// logPollsAround logs, for each of the first stale-read events, the lag
// polls from 1.5 s before the read to 0.5 s after it (the read's time is
// the period's, to a few ms): what the policy knew when it let the read go
// to a secondary.
func logPollsAround(t *testing.T, polls []router.Event, runStart time.Time, events []results.Event) {
	t.Helper()
	shown := 0
	for _, ev := range events {
		if ev.Kind != "stale-read" || shown == 3 {
			continue
		}
		shown++
		at := runStart.Add(time.Duration(ev.TS * float64(time.Second)))
		t.Logf("stale read at about %s: %s", at.Format("15:04:05.000"), ev.Detail)
		for _, e := range polls {
			if e.At.After(at.Add(-1500*time.Millisecond)) && e.At.Before(at.Add(500*time.Millisecond)) {
				t.Logf("  poll %s primary %s known %v max %v horizon %v frac %v members %+v err %v", e.At.Format("15:04:05.000"), e.Lag.Primary, e.Lag.Known, e.Lag.Max, e.Lag.Horizon, e.Fraction, e.Lag.Members, e.Lag.Err)
			}
		}
	}
}

// notDecisions drops the policy's per-period decisions from a run's events.
func notDecisions(events []results.Event) []results.Event {
	return slices.DeleteFunc(slices.Clone(events), func(e results.Event) bool { return e.Kind == "decision" })
}

// failoverFaults is TestFailoverRejoinAndPauseKeepTheBound's fault schedule.
// It runs on a goroutine of its own, so it returns its errors instead of
// ending the test, and undoes what it paused on the way out.
type failoverFaults struct {
	rs     *cluster.Cluster
	client *mongo.Client
	old    cluster.Member // the primary at the start
	bound  time.Duration
	trace  *lagTrace
	// When each step was done.
	killed, rejoined, caughtUp, paused, resumed time.Time
}

func (f *failoverFaults) run(ctx context.Context) (err error) {
	rs, old := f.rs, f.old
	f.killed = time.Now()
	if err := rs.KillMember(ctx, old.Name); err != nil {
		return err
	}
	if err := testutil.Until(ctx, 30*time.Second, func() bool {
		p, err := rs.Primary(ctx)
		return err == nil && p.Name != old.Name
	}, "no new primary after the kill"); err != nil {
		return err
	}
	// A write on the new primary that the old one lacks (besides the
	// workload's), acknowledged by the two members up.
	majority := f.client.Database("decongestant_test").Collection("failover",
		mongooptions.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := majority.InsertOne(ctx, bson.D{{Key: "at", Value: time.Now()}}); err != nil {
		return fmt.Errorf("write on the new primary: %w", err)
	}
	if err := rs.RestartMember(ctx, old.Name); err != nil {
		return err
	}
	f.rejoined = time.Now()
	// Keep the rejoined member behind for a while, so polls see it over the
	// bound whether or not it caught up before the first one (a fast
	// catch-up would leave nothing to check). The 3 s hold is the
	// experiment, not a wait for a condition.
	if err := f.pause(ctx, old.Name); err != nil {
		return err
	}
	defer f.resumeOnError(old.Name, &err)
	if err := sleep(ctx, 3*time.Second); err != nil {
		return err
	}
	if err := f.resume(ctx, old.Name); err != nil {
		return err
	}
	f.caughtUp = time.Now()
	// Secondary reads come back once a poll sees every member within the
	// bound again.
	if err := testutil.Until(ctx, 30*time.Second, func() bool {
		return f.polled(f.caughtUp, func(e router.Event) bool { return e.Lag.Known && e.Fraction > 0 })
	}, "secondary reads not restored after "+old.Name+" caught up"); err != nil {
		return err
	}
	// Pause every secondary until a poll sees the lag over the bound (and
	// the fraction 0), then resume them.
	prim, err := rs.Primary(ctx)
	if err != nil {
		return err
	}
	f.paused = time.Now()
	var secondaries []string
	for _, m := range rs.Members() {
		if m.Name == prim.Name {
			continue
		}
		if err := f.pause(ctx, m.Name); err != nil {
			return err
		}
		defer f.resumeOnError(m.Name, &err)
		secondaries = append(secondaries, m.Name)
	}
	if err := testutil.Until(ctx, 30*time.Second, func() bool {
		return f.polled(f.paused, func(e router.Event) bool {
			return (!e.Lag.Known || e.Lag.Max+e.Lag.Horizon > f.bound) && e.Fraction == 0
		})
	}, "no poll saw the paused secondaries over the bound"); err != nil {
		return err
	}
	if err := f.resume(ctx, secondaries...); err != nil {
		return err
	}
	f.resumed = time.Now()
	return nil
}

// polled reports whether a lag poll after since satisfied cond.
func (f *failoverFaults) polled(since time.Time, cond func(router.Event) bool) bool {
	for _, e := range f.trace.all() {
		if e.At.After(since) && cond(e) {
			return true
		}
	}
	return false
}

func (f *failoverFaults) pause(ctx context.Context, name string) error {
	if err := f.rs.PauseReplication(ctx, name); err != nil {
		return fmt.Errorf("pause replication on %s: %w", name, err)
	}
	return nil
}

// resume resumes replication on the members named and waits until every
// member has caught up.
func (f *failoverFaults) resume(ctx context.Context, names ...string) error {
	for _, name := range names {
		if err := f.rs.ResumeReplication(ctx, name); err != nil {
			return fmt.Errorf("resume replication on %s: %w", name, err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := testutil.Replicated(wctx, f.client); err != nil {
		return fmt.Errorf("catch-up after resuming %s: %w (members: %s)", strings.Join(names, ", "), err, f.members())
	}
	return nil
}

// members says each member's state and last applied optime, for an error.
func (f *failoverFaults) members() string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := f.rs.Status(ctx)
	var parts []string
	for _, m := range st {
		parts = append(parts, fmt.Sprintf("%s %s optime %v", m.Name, m.State, m.OpTime))
	}
	if err != nil {
		parts = append(parts, err.Error())
	}
	return strings.Join(parts, ", ")
}

// String is the schedule's timeline, for a failure.
func (f *failoverFaults) String() string {
	at := func(t time.Time) string { return t.Format("15:04:05.000") }
	return fmt.Sprintf("killed %s, rejoined %s, caught up %s, paused %s, resumed %s",
		at(f.killed), at(f.rejoined), at(f.caughtUp), at(f.paused), at(f.resumed))
}

// resumeOnError resumes replication on member name when the schedule
// fails (*err set), so the shared set is not left paused; resuming a member
// that runs freely does nothing.
func (f *failoverFaults) resumeOnError(name string, err *error) {
	if *err == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if rerr := f.rs.ResumeReplication(ctx, name); rerr != nil {
		*err = errors.Join(*err, fmt.Errorf("resume replication on %s: %w", name, rerr))
	}
}

// sleep waits d, or less if ctx is done first.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func TestBadOptions(t *testing.T) {
	gen, _ := workload.Configure("ycsb", workload.Shared{Seed: 1})
	primary, _ := balancer.ParseSpec("primary", balancer.DefaultSettings())
	sub := balancer.DefaultSettings()
	sub.Decongestant.Bound = balancer.Bound{Max: 500 * time.Millisecond}
	bounded, _ := balancer.ParseSpec("decongestant", sub)
	base := bench.Options{URI: "mongodb://x/?replicaSet=rs0", Generator: gen, Clients: 1, Duration: time.Second,
		Period: time.Second, Policies: []balancer.Spec{primary}, Settings: balancer.DefaultSettings()}
	tests := map[string]func(*bench.Options){
		"no uri":                             func(o *bench.Options) { o.URI = "" },
		"no workload":                        func(o *bench.Options) { o.Generator = nil },
		"zero clients":                       func(o *bench.Options) { o.Clients = 0 },
		"negative period":                    func(o *bench.Options) { o.Period = -time.Second },
		"warmup too long":                    func(o *bench.Options) { o.Warmup = time.Second },
		"no policies":                        func(o *bench.Options) { o.Policies = nil },
		"unparsed policy":                    func(o *bench.Options) { o.Policies = []balancer.Spec{{}} },
		"late phase":                         func(o *bench.Options) { o.Phases = []bench.Phase{{At: 5 * time.Second, Clients: 2}} },
		"period too long":                    func(o *bench.Options) { o.Period = time.Minute },
		"settings differ from the policies'": func(o *bench.Options) { o.Settings = sub },
		"sweep of one count":                 func(o *bench.Options) { o.Clients, o.Sweep = 0, []int{4} },
		"sweep and clients":                  func(o *bench.Options) { o.Sweep = []int{4, 8} },
		"sweep with zero":                    func(o *bench.Options) { o.Clients, o.Sweep = 0, []int{4, 0} },
		"sweep with a repeated count":        func(o *bench.Options) { o.Clients, o.Sweep = 0, []int{4, 8, 4} },
		"sweep with a clients phase": func(o *bench.Options) {
			o.Clients, o.Sweep = 0, []int{4, 8}
			o.Duration, o.Phases = 2*time.Second, []bench.Phase{{At: time.Second, Clients: 2}}
		},
		"bound under the lag interval": func(o *bench.Options) {
			o.Policies, o.Settings = []balancer.Spec{bounded}, sub
			o.Monitor.LagInterval = time.Second
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			o := base
			mutate(&o)
			if _, err := bench.Execute(context.Background(), o); !errors.Is(err, bench.ErrBadOptions) {
				t.Fatalf("err %v, want ErrBadOptions", err)
			}
		})
	}
}

// TestRunRecordsMembers checks periods[].members[]: every member's served
// reads add up to the period's served_by, per-member policies record their
// weights and the driver-selected ones none, and a weights: split lands on
// the members it names.
func TestRunRecordsMembers(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	prim, err := rs.Primary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sec cluster.Member
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			sec = m
			break
		}
	}
	o := options(t, rs.URI(), "secondary", "spillway", "weights:primary=0.5,"+sec.Name+"=0.5")
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		perMember := run.Policy != "secondary"
		served := map[string]int64{}
		var probes int64
		for _, p := range run.Periods {
			if len(p.Members) == 0 {
				t.Fatalf("%s: period %v has no members", run.Policy, p.TS)
			}
			for _, m := range p.Members {
				if m.Served != p.ServedBy[m.Host] {
					t.Errorf("%s at %v: member %s served %d, served_by says %d", run.Policy, p.TS, m.Host, m.Served, p.ServedBy[m.Host])
				}
				if (m.Weight != nil) != perMember {
					t.Errorf("%s: member %s weight %v, want one only for per-member policies", run.Policy, m.Host, m.Weight)
				}
				served[m.Host] += m.Served
			}
			probes += p.SProbeSecondaryProbes
		}
		// The probe's second read goes where the policy sends reads: to a
		// secondary with a share, for the per-member policies too.
		if probes == 0 {
			t.Errorf("%s: no S-probe read went to a secondary", run.Policy)
		}
		if strings.HasPrefix(run.Policy, "weights:") {
			total := served[prim.Host] + served[sec.Host]
			if other := run.Summary.ReadOps - total; total == 0 || math.Abs(float64(served[sec.Host])/float64(total)-0.5) > 0.15 {
				t.Errorf("%s: %s served %d and %s %d (other %d), want about half each", run.Policy, prim.Name, served[prim.Host], sec.Name, served[sec.Host], other)
			}
		}
	}
}

// TestUnknownWeightsMemberRefused: a weights: split naming a member the
// replica set does not have is refused before anything is loaded.
func TestUnknownWeightsMemberRefused(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "weights:primary=0.5,n9=0.5")
	o.Database = "benchweights"
	_, err := bench.Execute(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "no member n9 in the replica set (members: primary, n1 (") {
		t.Fatalf("error %v, want one naming n9 and listing the members", err)
	}
	checkNotLoaded(t, rs, o.Database)
}

// TestSoakFieldsAndReadsCheck: a short run records the process's heap and
// goroutines in every period, judges them after the warm-up, times the
// policy's decisions, and the routed reads its clients made are exactly
// the ones the router counted (YCSB: one read command per routed call; the
// S probe's reads are its own).
func TestSoakFieldsAndReadsCheck(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "spillway")
	o.Clients, o.Duration, o.Warmup = 20, 5*time.Second, time.Second
	var run results.Run
	for attempt := 1; ; attempt++ {
		res, err := bench.Execute(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		run = res.Runs[0]
		// A read command the driver had to retry (the shared set's members
		// still settling after an earlier test's faults) leaves the counts
		// rightly uncompared; that run says nothing either way, so run again.
		rc := run.Summary.ReadsCheck
		if attempt == 2 || rc == nil || rc.Match != nil || rc.FailedCommands == 0 || rc.Failed > 0 || rc.Cancelled > 0 {
			break
		}
		t.Logf("attempt %d not comparable (%s, %v); running again", attempt, rc.Note, run.Extra["last_error"])
	}
	for _, p := range run.Periods {
		if p.HeapMB <= 0 || p.Goroutines < o.Clients {
			t.Errorf("period %v: heap %v MB, %d goroutines; want a heap and a goroutine per client at least", p.TS, p.HeapMB, p.Goroutines)
		}
	}
	if last := run.Periods[len(run.Periods)-1]; last.HeapLiveMB <= 0 {
		t.Errorf("last period: live heap %v MB", last.HeapLiveMB)
	}
	s := run.Summary
	if s.Soak == nil || s.Soak.Periods != 4 || s.Soak.HeapGrowthPct == nil || s.Soak.GoroutineGrowthPct == nil || s.Soak.Flat != nil {
		t.Errorf("soak %+v: want the growths over the 4 periods after the warm-up, and no verdict over 4 s", s.Soak)
	} else if first, _ := json.Marshal(run.Periods[0]); s.Soak.RecordsQ2MB*(1<<20) < float64(len(first)) || s.Soak.RecordsQ4MB <= s.Soak.RecordsQ2MB {
		// By the second quarter the run holds two periods at least.
		t.Errorf("soak %+v: want the run's own results counted (the first period alone is %d bytes of JSON), growing", s.Soak, len(first))
	}
	if s.ReadErrors+s.WriteErrors != s.Errors {
		t.Errorf("errors %d, read %d + write %d", s.Errors, s.ReadErrors, s.WriteErrors)
	}
	rc := s.ReadsCheck
	switch {
	case rc == nil:
		t.Fatal("no reads check")
	case rc.Match == nil:
		t.Fatalf("reads not compared: %+v (%v)", rc, run.Extra["last_error"])
	case !*rc.Match || rc.Routed != rc.Served || rc.Routed < s.ReadOps:
		t.Fatalf("reads check %+v: the clients made %d routed reads, the router counted %d (%d in the measured periods)",
			rc, rc.Routed, rc.Served, s.ReadOps)
	}
	if d := s.Decisions; d == nil || d.IntervalMS != 1000 || d.Count < 3 || d.LateMaxMS <= 0 {
		t.Errorf("decisions %+v: want spillway's, one a second over the 4 s measured", d)
	}
}
