package bench_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	_ "github.com/decongestant/decongestant/workload/ycsb"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

func options(t *testing.T, uri string, policies ...string) bench.Options {
	t.Helper()
	gen, err := workload.New("ycsb", map[string]string{"workload": "b", "records": "500"})
	if err != nil {
		t.Fatal(err)
	}
	return bench.Options{
		URI: uri, Database: "benchtest", Generator: gen, Records: 500, Clients: 4,
		Duration: 3 * time.Second, Period: time.Second, Policies: policies,
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
	onDisk, err := bench.ReadResults(o.Out)
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
		if run.Policy == "primary" && s.StalenessMaxMS != 0 {
			t.Errorf("primary policy measured staleness %v ms: second reads went to a secondary", s.StalenessMaxMS)
		}
	}
}

func TestPhasesSwitchMixAndClients(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary")
	o.Phases = []bench.Phase{{At: 1500 * time.Millisecond, Mix: "c", Clients: 2}}
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

func TestInterruptKeepsCompletedPeriods(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "primary", "secondary")
	o.Duration = 30 * time.Second
	o.SkipLoad = false
	ctx, cancel := context.WithCancel(context.Background())
	o.OnPeriod = func(_ context.Context, policy string, p bench.Period, _ *router.Router) {
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
	onDisk, err := bench.ReadResults(o.Out)
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

// TestPausedReplicationNoBoundViolations pauses replication on every
// secondary mid-run: decongestant must drop to fraction 0 at the lag poll
// that sees the bound crossed, and the S probe must see no violation.
func TestPausedReplicationNoBoundViolations(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	o := options(t, rs.URI(), "decongestant")
	o.Duration = 12 * time.Second
	o.Settings.Decongestant.Bound = balancer.Bound{Max: 2 * time.Second}
	o.Settings.Decongestant.Interval = time.Second
	var once sync.Once
	o.OnPeriod = func(ctx context.Context, _ string, p bench.Period, r *router.Router) {
		if p.TS >= 3 {
			once.Do(func() { testutil.PauseSecondaries(t, rs) })
		}
	}
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	var exceeded bool
	for _, e := range run.Events {
		exceeded = exceeded || e.Kind == "bound-exceeded"
	}
	if !exceeded {
		t.Fatalf("lag never exceeded the 2s bound: events %v, periods %+v", run.Events, run.Periods)
	}
	if v := run.Summary.BoundViolations; v != 0 {
		t.Fatalf("%d S-probe reads exceeded the bound", v)
	}
	lastP := run.Periods[len(run.Periods)-1]
	if lastP.BalanceFraction != 0 || lastP.SecondaryPct != 0 {
		t.Fatalf("last period while paused: fraction %v, secondary %v%%, want 0 and 0", lastP.BalanceFraction, lastP.SecondaryPct)
	}
}

func TestBadOptions(t *testing.T) {
	gen, _ := workload.New("ycsb", nil)
	base := bench.Options{URI: "mongodb://x/?replicaSet=rs0", Generator: gen, Clients: 1, Duration: time.Second,
		Period: time.Second, Policies: []string{"primary"}, Settings: balancer.DefaultSettings()}
	tests := map[string]func(*bench.Options){
		"no uri":          func(o *bench.Options) { o.URI = "" },
		"zero clients":    func(o *bench.Options) { o.Clients = 0 },
		"negative period": func(o *bench.Options) { o.Period = -time.Second },
		"warmup too long": func(o *bench.Options) { o.Warmup = time.Second },
		"unknown policy":  func(o *bench.Options) { o.Policies = []string{"fastest"} },
		"late phase":      func(o *bench.Options) { o.Phases = []bench.Phase{{At: 5 * time.Second, Clients: 2}} },
		"period too long": func(o *bench.Options) { o.Period = time.Minute },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			o := base
			mutate(&o)
			if _, err := bench.Execute(context.Background(), o); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
