package faults

import (
	"context"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

// fakeCluster records the fault operations it is asked for. Its primary
// moves to the next live member when the primary is stepped down, killed
// or stopped; failing makes an operation on a member fail.
type fakeCluster struct {
	mu        sync.Mutex
	members   []cluster.Member
	primary   string
	down      map[string]bool
	calls     []string
	failing   map[string]error // "kill n2" -> error
	unhealthy error
}

func newFakeCluster() *fakeCluster {
	f := &fakeCluster{primary: "n1", down: map[string]bool{}, failing: map[string]error{}}
	for _, n := range []string{"n1", "n2", "n3"} {
		f.members = append(f.members, cluster.Member{Name: n, Host: "127.0.0.1:1" + n[1:]})
	}
	return f
}

func (f *fakeCluster) Members() []cluster.Member { return append([]cluster.Member(nil), f.members...) }

func (f *fakeCluster) member(name string) cluster.Member {
	m, _ := memberNamed(f.members, name)
	return m[0]
}

func (f *fakeCluster) call(op, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, strings.TrimSpace(op+" "+name))
	if err := f.failing[strings.TrimSpace(op+" "+name)]; err != nil {
		return err
	}
	switch op {
	case "kill", "stop":
		f.down[name] = true
		if name == f.primary {
			f.elect()
		}
	case "restart":
		delete(f.down, name)
	case "stepdown":
		f.elect()
	}
	return nil
}

// elect makes the next live member after the primary primary.
func (f *fakeCluster) elect() {
	for i, m := range f.members {
		if m.Name == f.primary {
			for j := 1; j < len(f.members); j++ {
				if next := f.members[(i+j)%len(f.members)].Name; !f.down[next] {
					f.primary = next
					return
				}
			}
		}
	}
}

func (f *fakeCluster) Primary(context.Context) (cluster.Member, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.member(f.primary), nil
}

func (f *fakeCluster) PauseReplication(_ context.Context, n string) error { return f.call("pause", n) }
func (f *fakeCluster) ResumeReplication(_ context.Context, n string) error {
	return f.call("resume", n)
}
func (f *fakeCluster) IsolateMember(_ context.Context, n string) error { return f.call("isolate", n) }
func (f *fakeCluster) RejoinMember(_ context.Context, n string) error  { return f.call("rejoin", n) }
func (f *fakeCluster) KillMember(_ context.Context, n string) error    { return f.call("kill", n) }
func (f *fakeCluster) StopMember(_ context.Context, n string) error    { return f.call("stop", n) }
func (f *fakeCluster) RestartMember(_ context.Context, n string) error { return f.call("restart", n) }
func (f *fakeCluster) SlowReads(_ context.Context, n string, d time.Duration) error {
	return f.call("slow", n+" "+d.String())
}
func (f *fakeCluster) UnslowReads(_ context.Context, n string) error { return f.call("unslow", n) }

func (f *fakeCluster) StepDown(ctx context.Context) (cluster.Member, error) {
	if err := f.call("stepdown", ""); err != nil {
		return cluster.Member{}, err
	}
	return f.Primary(ctx)
}

func (f *fakeCluster) WaitHealthy(context.Context) error {
	f.call("healthy", "")
	return f.unhealthy
}

// eventLog collects recorded events.
type eventLog struct {
	mu     sync.Mutex
	events []string // "kind: detail"
}

func (l *eventLog) record(_ float64, kind, detail string) {
	l.mu.Lock()
	l.events = append(l.events, kind+": "+detail)
	l.mu.Unlock()
}

// runFaults applies the schedule's actions in order, then finishes.
func runFaults(t *testing.T, ctx context.Context, c *fakeCluster, spec string) ([]string, []string, error) {
	t.Helper()
	steps, err := ParseSchedule(spec)
	if err != nil {
		t.Fatal(err)
	}
	var log eventLog
	f := Start(ctx, c, len(steps), time.Now(), log.record, io.Discard, "test")
	for _, ph := range steps {
		f.Enqueue(ph.Actions)
	}
	err = f.Finish(context.Background())
	return c.calls, log.events, err
}

func TestFaultsApplyAndRestore(t *testing.T) {
	tests := []struct {
		name, phases string
		calls        []string // operations, in order, restore included
	}{
		{"pause then resume", "1s:pause=n2;2s:resume=n2", []string{"pause n2", "resume n2", "healthy"}},
		{"pause left on is resumed", "1s:pause=n3", []string{"pause n3", "resume n3", "healthy"}},
		{"pause all pauses the secondaries", "1s:pause=all", []string{"pause n2", "pause n3", "resume n2", "resume n3", "healthy"}},
		{"resume all skips members taken down", "1s:pause=all,kill=n3;2s:resume=all",
			[]string{"pause n2", "pause n3", "kill n3", "resume n1", "resume n2", "restart n3", "healthy"}},
		{"killed and restarted", "1s:kill=n2;2s:restart=n2", []string{"kill n2", "restart n2", "healthy"}},
		{"stopped, not restarted", "1s:stop=n3", []string{"stop n3", "restart n3", "healthy"}},
		{"a restart clears the pause", "1s:pause=n2;2s:kill=n2", []string{"pause n2", "kill n2", "restart n2", "healthy"}},
		{"stepdown", "1s:stepdown", []string{"stepdown", "healthy"}},
		{"isolate then rejoin", "1s:isolate=n2;2s:rejoin=n2", []string{"isolate n2", "rejoin n2", "healthy"}},
		{"isolate all, left on, is rejoined", "1s:isolate=all", []string{"isolate n2", "isolate n3", "rejoin n2", "rejoin n3", "healthy"}},
		{"the lose nemesis: isolate, kill the primary, rejoin, restart", "1s:isolate=all;2s:kill=primary,rejoin=all;3s:restart=primary",
			[]string{"isolate n2", "isolate n3", "kill n1", "rejoin n2", "rejoin n3", "restart n1", "healthy"}},
		{"a restart clears the isolation", "1s:isolate=n3;2s:kill=n3", []string{"isolate n3", "kill n3", "restart n3", "healthy"}},
		{"restart=primary restarts the member the kill hit", "1s:kill=primary;2s:stepdown;3s:restart=primary",
			[]string{"kill n1", "stepdown", "restart n1", "healthy"}},
		{"slow then unslow", "1s:slow=n3;2s:unslow=n3", []string{"slow n3 200ms", "unslow n3", "healthy"}},
		{"slow left on is unslowed", "1s:slow=n3:150ms", []string{"slow n3 150ms", "unslow n3", "healthy"}},
		{"slow all slows the secondaries", "1s:slow=all:1s", []string{"slow n2 1s", "slow n3 1s", "unslow n2", "unslow n3", "healthy"}},
		{"unslow all skips members taken down", "1s:slow=n2,kill=n3;2s:unslow=all",
			[]string{"slow n2 200ms", "kill n3", "unslow n1", "unslow n2", "restart n3", "healthy"}},
		{"a restart clears the slow", "1s:slow=n2;2s:kill=n2", []string{"slow n2 200ms", "kill n2", "restart n2", "healthy"}},
		{"stop=primary twice", "1s:stop=primary;2s:stop=primary;3s:restart=primary",
			[]string{"stop n1", "stop n2", "restart n2", "restart n1", "healthy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, _, err := runFaults(t, context.Background(), newFakeCluster(), tt.phases)
			if err != nil || !reflect.DeepEqual(calls, tt.calls) {
				t.Fatalf("calls %q, %v; want %q", calls, err, tt.calls)
			}
		})
	}
}

// TestFaultsRecordEvents: each action is a started and a done (or failed)
// event naming the members and hosts; a failure does not stop later
// actions; each restore step is an event.
func TestFaultsRecordEvents(t *testing.T) {
	c := newFakeCluster()
	c.failing["pause n3"] = errors.New("fail point refused")
	_, events, err := runFaults(t, context.Background(), c, "1s:pause=n3;2s:stepdown;3s:kill=primary")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`fault: pause=n3: started`,
		`fault: pause=n3 n3 \(127\.0\.0\.1:13\): failed after \d+\.\d{3}s: fail point refused`,
		`fault: stepdown: started`,
		`fault: stepdown n1 \(127\.0\.0\.1:11\): done in \d+\.\d{3}s, new primary n2 \(127\.0\.0\.1:12\)`,
		`fault: kill=primary: started`,
		`fault: kill=primary n2 \(127\.0\.0\.1:12\): done in`,
		`fault-restore: restart n2 \(127\.0\.0\.1:12\): done in`,
		`fault-restore: resume n3 \(127\.0\.0\.1:13\): done in`,
		`fault-restore: wait for a healthy set: done in`,
	}
	if len(events) != len(want) {
		t.Fatalf("events:\n%s\nwant %d", strings.Join(events, "\n"), len(want))
	}
	for i, w := range want {
		if !regexpMatch(w, events[i]) {
			t.Errorf("event %d: %q, want %q", i, events[i], w)
		}
	}
}

func regexpMatch(pattern, s string) bool {
	return regexp.MustCompile("^" + pattern).MatchString(s)
}

// TestFaultsUndoSlowAfterInterrupt: a run interrupted (Ctrl-C) after a
// slow=n3 still lets n3's reads run at once again at Finish, and records it.
func TestFaultsUndoSlowAfterInterrupt(t *testing.T) {
	c := newFakeCluster()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log eventLog
	f := Start(ctx, c, 2, time.Now(), log.record, io.Discard, "test")
	f.Enqueue([]Action{{Kind: Slow, Member: "n3", Delay: 150 * time.Millisecond}})
	testutil.Eventually(t, 10*time.Second, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.calls) == 1
	}, "slow=n3 applied")
	cancel()
	f.Enqueue([]Action{{Kind: Unslow, Member: "n3"}})
	if err := f.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"slow n3 150ms", "unslow n3", "healthy"}; !reflect.DeepEqual(c.calls, want) {
		t.Fatalf("calls %q, want %q", c.calls, want)
	}
	want := []string{
		`fault: slow=n3:150ms: started`,
		`fault: slow=n3:150ms n3 \(127\.0\.0\.1:13\): done in \d+\.\d{3}s$`,
		`fault: unslow=n3: not run: the run was interrupted`,
		`fault-restore: unslow n3 \(127\.0\.0\.1:13\): done in`,
		`fault-restore: wait for a healthy set: done in`,
	}
	if len(log.events) != len(want) {
		t.Fatalf("events:\n%s\nwant %d", strings.Join(log.events, "\n"), len(want))
	}
	for i, w := range want {
		if !regexpMatch(w, log.events[i]) {
			t.Errorf("event %d: %q, want %q", i, log.events[i], w)
		}
	}
}

func TestFaultsUnhealthyAtTheEnd(t *testing.T) {
	c := newFakeCluster()
	c.unhealthy = errors.New("member n2 is not running")
	_, events, err := runFaults(t, context.Background(), c, "1s:kill=n2")
	if err == nil || !strings.Contains(err.Error(), "after the run's fault actions: member n2 is not running") {
		t.Fatalf("finish: %v, want the health error", err)
	}
	if last := events[len(events)-1]; !strings.HasPrefix(last, "fault-restore: wait for a healthy set: failed") {
		t.Errorf("last event %q", last)
	}
}

func TestFaultsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls, events, err := runFaults(t, ctx, newFakeCluster(), "1s:kill=n2")
	if err != nil || len(calls) != 0 {
		t.Fatalf("calls %v, %v; want none: the run was interrupted before the action", calls, err)
	}
	if len(events) != 1 || !strings.Contains(events[0], "kill=n2: not run") {
		t.Fatalf("events %q", events)
	}
}

func TestNoFaults(t *testing.T) {
	var f *Runner = Start(context.Background(), newFakeCluster(), 0, time.Now(), nil, io.Discard, "")
	if f != nil {
		t.Fatal("a run without actions started a fault worker")
	}
	f.Enqueue([]Action{{Kind: StepDown}}) // nil-safe
	if err := f.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	steps, _ := ParseSchedule("1s:stepdown")
	if Start(context.Background(), nil, len(steps), time.Now(), nil, io.Discard, "") != nil {
		t.Fatal("a fault worker without a cluster")
	}
}
