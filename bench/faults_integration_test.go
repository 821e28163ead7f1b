package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
)

// secondaries returns the set's current secondaries, and registers a
// cleanup that resumes their replication, so a failing test does not leave
// the shared set paused.
func secondaries(t *testing.T, rs *cluster.Cluster) []cluster.Member {
	t.Helper()
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []cluster.Member
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			out = append(out, m)
		}
	}
	t.Cleanup(func() {
		for _, m := range out {
			_ = rs.ResumeReplication(ctx, m.Name)
		}
	})
	return out
}

func mustPhases(t *testing.T, s string) []bench.Phase {
	t.Helper()
	phases, err := bench.ParsePhases(s)
	if err != nil {
		t.Fatal(err)
	}
	return phases
}

// faultEvents returns the run's fault and fault-restore events as
// "kind: detail".
func faultEvents(run results.Run) []string {
	var out []string
	for _, e := range run.Events {
		if strings.HasPrefix(e.Kind, "fault") {
			out = append(out, e.Kind+": "+e.Detail)
		}
	}
	return out
}

// hasEvents reports whether, in order, an event starts with each of the prefixes.
func hasEvents(events []string, prefixes ...string) bool {
	i := 0
	for _, e := range events {
		if i < len(prefixes) && strings.HasPrefix(e, prefixes[i]) {
			i++
		}
	}
	return i == len(prefixes)
}

// TestFaultPhasesPauseAndResume pauses one secondary at 1 s and resumes it
// at 4 s while pausing the other, which the run leaves paused: the actions
// are events naming member and host, each paused member's lag grows while
// it is paused (to about 3 s; unpaused members of this loaded machine's set
// lag up to about 1 s), and at the end the runner has resumed replication
// on both.
func TestFaultPhasesPauseAndResume(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	secs := secondaries(t, rs)
	a, b := secs[0], secs[1]
	o := options(t, rs.URI(), "secondary")
	o.Duration = 7 * time.Second
	o.ClusterDir = rs.Dir() // as the CLI's --cluster-dir
	o.Phases = mustPhases(t, "1s:pause="+a.Name+";4s:resume="+a.Name+",pause="+b.Name)
	var trace lagTrace
	o.OnEvent = trace.on
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	events := faultEvents(run)
	if !hasEvents(events,
		"fault: pause="+a.Name+": started", "fault: pause="+a.Name+" "+a.Name+" ("+a.Host+"): done in",
		"fault: resume="+a.Name+": started", "fault: resume="+a.Name+" "+a.Name+" ("+a.Host+"): done in",
		"fault: pause="+b.Name+": started", "fault: pause="+b.Name+" "+b.Name+" ("+b.Host+"): done in",
		"fault-restore: resume "+b.Name+" ("+b.Host+"): done in", "fault-restore: wait for a healthy set: done in") {
		t.Fatalf("fault events:\n%s", strings.Join(events, "\n"))
	}
	if got := res.Config.Phases[1].Actions; !slices.Equal(got, []string{"resume=" + a.Name, "pause=" + b.Name}) {
		t.Errorf("results config phases %+v", res.Config.Phases)
	}
	for _, m := range []cluster.Member{a, b} {
		if lag := maxLag(trace.all(), m.Host); lag < 2*time.Second {
			t.Errorf("%s: max lag %v while paused for 3 s, want over 2 s: replication was not paused", m.Name, lag)
		}
	}
	// Replication runs again on every member: a write acknowledged by all
	// of them returns (it would wait forever on a paused one).
	testutil.WaitReplicated(t, testutil.Connect(t, rs.URI()))
}

// maxLag is the largest lag any poll reported for host.
func maxLag(events []router.Event, host string) time.Duration {
	var most time.Duration
	for _, e := range events {
		for _, m := range e.Lag.Members {
			if m.Host == host {
				most = max(most, m.Lag)
			}
		}
	}
	return most
}

// TestFaultPhasesStepDown steps the primary down 1 s into the run: another
// member becomes primary, the event names both, and the run completes every
// period with the clients still reading.
func TestFaultPhasesStepDown(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	ctx := context.Background()
	old, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, rs.URI(), "primary")
	o.Duration = 6 * time.Second
	o.Cluster = rs
	o.Phases = mustPhases(t, "1s:stepdown")
	res, err := bench.Execute(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	now, err := rs.Primary(ctx)
	if err != nil || now.Name == old.Name {
		t.Fatalf("primary after the run: %s, %v; want another than %s", now.Name, err, old.Name)
	}
	run := res.Runs[0]
	events := faultEvents(run)
	if !hasEvents(events, "fault: stepdown: started",
		"fault: stepdown "+old.Name+" ("+old.Host+"): done in", "fault-restore: wait for a healthy set: done in") ||
		!strings.Contains(strings.Join(events, "\n"), ", new primary ") {
		t.Fatalf("fault events:\n%s", strings.Join(events, "\n"))
	}
	if len(run.Periods) != 6 || run.Periods[5].ReadOps == 0 {
		t.Fatalf("%d periods, last %+v: want 6, still reading after the stepdown", len(run.Periods), run.Periods[len(run.Periods)-1])
	}
}

// TestFaultPhasesKilledMemberIsRestarted kills a secondary and leaves it
// down: the runner restarts it at the end of the run, and the set is
// healthy before the next policy's run starts. While it is down it has no
// server counters.
func TestFaultPhasesKilledMemberIsRestarted(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	victim := secondaries(t, rs)[0]
	o := options(t, rs.URI(), "primary", "secondary")
	o.Duration = 3 * time.Second
	o.Cluster = rs // the runner restarts the member through the handle that owns it
	o.Phases = mustPhases(t, "1s:kill="+victim.Name)
	res, err := bench.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		if events := faultEvents(run); !hasEvents(events, "fault: kill="+victim.Name+" "+victim.Name+" ("+victim.Host+"): done in",
			"fault-restore: restart "+victim.Name+" ("+victim.Host+"): done in", "fault-restore: wait for a healthy set: done in") {
			t.Fatalf("%s: fault events:\n%s", run.Policy, strings.Join(events, "\n"))
		}
		// Down from 1 s: no server counters in the period ending at 2 s,
		// and an event says why.
		for _, m := range run.Periods[1].Members {
			if m.Host == victim.Host && (m.CPUPct != nil || m.RSSMB != nil || m.CachePagesRequested != nil) {
				t.Errorf("%s: killed %s has server counters: %s", run.Policy, victim.Name, serverLine(run.Periods[1]))
			}
		}
		if !slices.ContainsFunc(run.Events, func(e results.Event) bool {
			return e.Kind == "member-stats-unavailable" && strings.HasPrefix(e.Detail, victim.Host+": ")
		}) {
			t.Errorf("%s: no member-stats-unavailable event for %s in %+v", run.Policy, victim.Host, run.Events)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rs.WaitHealthy(ctx); err != nil {
		t.Fatalf("after the runs: %v", err)
	}
}

// TestFaultPhasesPreflight: a cluster-dir with no cluster, with a dead one,
// of another replica set, or phases naming a member the cluster lacks, are
// refused before anything is loaded.
func TestFaultPhasesPreflight(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	other := testutil.NewReplicaSet(t, 1, 0)
	tests := []struct {
		name, dir, phases string
		is                error
		say               string
	}{
		{"no cluster", t.TempDir(), "1s:pause=n2", cluster.ErrNotRunning, "fault actions need a cluster started by `decongestant cluster up --dir DIR`"},
		{"dead cluster", deadCopy(t, rs), "1s:pause=n2", cluster.ErrNotRunning, "holds no running cluster (n1 DOWN, n2 DOWN, n3 DOWN)"},
		{"another set", other.Dir(), "1s:stepdown", bench.ErrBadOptions, "fault actions would hit another set"},
		{"unknown member", rs.Dir(), "1s:pause=n2;2s:kill=n7", bench.ErrBadPhases, "kill=n7 at 2s: the cluster has no member n7 (members: n1, n2, n3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := options(t, rs.URI(), "primary")
			o.Database = "faultpreflight"
			o.ClusterDir, o.Phases = tt.dir, mustPhases(t, tt.phases)
			_, err := bench.Execute(context.Background(), o)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("err %v; want %v saying %q", err, tt.is, tt.say)
			}
			checkNotLoaded(t, rs, o.Database)
		})
	}
}

// deadCopy writes a state file of rs into a new dir, as if a cluster had
// run there: its pids serve other dbpaths, so none of its members runs.
func deadCopy(t *testing.T, rs *cluster.Cluster) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rs.Dir(), "cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, m := range st["members"].([]any) {
		m := m.(map[string]any)
		m["dbPath"], m["logPath"] = filepath.Join(dir, m["name"].(string)), filepath.Join(dir, m["name"].(string)+".log")
		delete(m, "cgroup")
	}
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkNotLoaded(t *testing.T, rs *cluster.Cluster, db string) {
	t.Helper()
	client := testutil.Connect(t, rs.URI())
	names, err := client.ListDatabaseNames(context.Background(), bson.D{{Key: "name", Value: db}})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) > 0 {
		testutil.DropAtCleanup(t, client.Database(db))
		t.Fatalf("database %s was loaded before the cluster was refused", db)
	}
}
