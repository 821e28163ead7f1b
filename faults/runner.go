package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/decongestant/decongestant/cluster"
)

// Cluster is what fault actions need of a cluster; *cluster.Cluster
// has it, and the unit tests a fake.
type Cluster interface {
	Members() []cluster.Member
	Primary(ctx context.Context) (cluster.Member, error)
	PauseReplication(ctx context.Context, name string) error
	ResumeReplication(ctx context.Context, name string) error
	IsolateMember(ctx context.Context, name string) error
	RejoinMember(ctx context.Context, name string) error
	SlowReads(ctx context.Context, name string, delay time.Duration) error
	UnslowReads(ctx context.Context, name string) error
	StepDown(ctx context.Context) (cluster.Member, error)
	KillMember(ctx context.Context, name string) error
	StopMember(ctx context.Context, name string) error
	RestartMember(ctx context.Context, name string) error
	WaitHealthy(ctx context.Context) error
}

var _ Cluster = (*cluster.Cluster)(nil)

const (
	// actionTimeout bounds one fault action (a restart waits for the
	// member to be SECONDARY again; a stepdown for a new primary).
	actionTimeout = 2 * time.Minute
	// restoreTimeout bounds the restore at the end of a run.
	restoreTimeout = 3 * time.Minute
)

// Runner applies a run's fault actions one at a time, in order, on a
// goroutine of its own, so the clients and the runner's loop never wait for
// the cluster. Each action is two events, "fault": when it started, and when
// it was done or failed (a failure does not stop the run). At the end of the
// run, finish undoes what the actions left (members down, replication
// paused, reads slowed) and waits for a healthy set.
type Runner struct {
	c        Cluster
	start    time.Time
	record   func(ts float64, kind, detail string)
	progress io.Writer
	label    string
	jobs     chan []Action
	done     chan struct{}
	once     sync.Once

	// Owned by the worker until done is closed, then by finish.
	paused      map[string]bool // members paused and not resumed since
	isolated    map[string]bool // members isolated and not rejoined since
	slowed      map[string]bool // members whose reads are slowed and not unslowed since
	down        map[string]bool // members killed or stopped and not restarted since
	primaryDown string          // the member the latest kill/stop=primary took down
	acted       bool            // an action ran: finish waits for a healthy set
}

// Start starts the worker for a run with steps phases that hold fault
// actions, on ctx (the run's: an interruption cancels the action under
// way); nil when there are none. record gets every event (seconds since
// start, "fault" or "fault-restore", what happened); progress a line for
// each, labelled.
func Start(ctx context.Context, c Cluster, steps int, start time.Time,
	record func(ts float64, kind, detail string), progress io.Writer, label string) *Runner {
	if c == nil || steps == 0 {
		return nil
	}
	n := steps
	f := &Runner{c: c, start: start, record: record, progress: progress, label: label,
		jobs: make(chan []Action, n), done: make(chan struct{}), paused: map[string]bool{}, isolated: map[string]bool{}, slowed: map[string]bool{}, down: map[string]bool{}}
	go f.work(ctx)
	return f
}

// Enqueue hands a phase's actions to the worker; it never blocks (the queue
// holds every phase of the run).
func (f *Runner) Enqueue(actions []Action) {
	if f != nil && len(actions) > 0 {
		f.jobs <- actions
	}
}

func (f *Runner) work(ctx context.Context) {
	defer close(f.done)
	for actions := range f.jobs {
		for _, a := range actions {
			f.apply(ctx, a)
		}
	}
}

// event records an event at the time since the run's start and prints it.
func (f *Runner) event(kind, detail string) {
	ts := time.Since(f.start).Seconds()
	f.record(ts, kind, detail)
	fmt.Fprintf(f.progress, "  [%s] t=%4.0fs %s: %s\n", f.label, ts, kind, detail)
}

// apply runs one action and records its start and its outcome.
func (f *Runner) apply(ctx context.Context, a Action) {
	if ctx.Err() != nil {
		f.event("fault", a.String()+": not run: the run was interrupted")
		return
	}
	f.acted = true
	f.event("fault", a.String()+": started")
	actx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	began := time.Now()
	targets, note, err := f.do(actx, a)
	f.event("fault", outcome(a.String(), targets, note, time.Since(began), err))
}

// outcome describes a finished action: what, on which members (name and
// host), how long it took, and its error.
func outcome(what string, targets []cluster.Member, note string, took time.Duration, err error) string {
	var b strings.Builder
	b.WriteString(what)
	for i, m := range targets {
		sep := ", "
		if i == 0 {
			sep = " "
		}
		fmt.Fprintf(&b, "%s%s (%s)", sep, m.Name, m.Host)
	}
	if err != nil {
		fmt.Fprintf(&b, ": failed after %.3fs: %v", took.Seconds(), err)
		return b.String()
	}
	fmt.Fprintf(&b, ": done in %.3fs", took.Seconds())
	if note != "" {
		b.WriteString(", " + note)
	}
	return b.String()
}

// do carries an action out and returns the members it acted on.
func (f *Runner) do(ctx context.Context, a Action) ([]cluster.Member, string, error) {
	switch a.Kind {
	case Pause, Resume, Isolate, Rejoin, Slow, Unslow:
		return f.failPoints(ctx, a)
	case StepDown:
		old, err := f.c.Primary(ctx)
		if err != nil {
			return nil, "", err
		}
		next, err := f.c.StepDown(ctx)
		if err != nil {
			return []cluster.Member{old}, "", err
		}
		return []cluster.Member{old}, fmt.Sprintf("new primary %s (%s)", next.Name, next.Host), nil
	case Kill, Stop, Restart:
		return f.process(ctx, a)
	}
	return nil, "", fmt.Errorf("unknown action %v", a.Kind)
}

// failPoints pauses or resumes replication, isolates or rejoins, or slows
// or unslows the reads of, the action's members.
func (f *Runner) failPoints(ctx context.Context, a Action) ([]cluster.Member, string, error) {
	targets, err := f.failPointTargets(ctx, a)
	if err != nil {
		return nil, "", err
	}
	var errs []error
	for _, m := range targets {
		var err error
		switch a.Kind {
		case Pause:
			f.paused[m.Name] = true // even if it fails: resuming is harmless
			err = f.c.PauseReplication(ctx, m.Name)
		case Resume:
			delete(f.paused, m.Name)
			err = f.c.ResumeReplication(ctx, m.Name)
		case Isolate:
			f.isolated[m.Name] = true
			err = f.c.IsolateMember(ctx, m.Name)
		case Rejoin:
			delete(f.isolated, m.Name)
			err = f.c.RejoinMember(ctx, m.Name)
		case Slow:
			f.slowed[m.Name] = true
			err = f.c.SlowReads(ctx, m.Name, a.slowDelay())
		case Unslow:
			delete(f.slowed, m.Name)
			err = f.c.UnslowReads(ctx, m.Name)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return targets, "", errors.Join(errs...)
}

// failPointTargets: one member; for pause=all, isolate=all and slow=all
// every member but the primary, for resume=all, rejoin=all and unslow=all
// every member the run has not taken down.
func (f *Runner) failPointTargets(ctx context.Context, a Action) ([]cluster.Member, error) {
	members := f.c.Members()
	if a.Member != AllMembers {
		return memberNamed(members, a.Member)
	}
	skip := f.down
	if a.Kind == Pause || a.Kind == Isolate || a.Kind == Slow {
		p, err := f.c.Primary(ctx)
		if err != nil {
			return nil, err
		}
		skip = map[string]bool{p.Name: true}
	}
	return slices.DeleteFunc(members, func(m cluster.Member) bool { return skip[m.Name] }), nil
}

// process kills, stops or restarts the action's member.
func (f *Runner) process(ctx context.Context, a Action) ([]cluster.Member, string, error) {
	name := a.Member
	switch {
	case a.Member == PrimaryMember && a.Kind == Restart:
		if name = f.primaryDown; name == "" {
			return nil, "", errors.New("no earlier kill=primary or stop=primary took a member down")
		}
	case a.Member == PrimaryMember:
		p, err := f.c.Primary(ctx)
		if err != nil {
			return nil, "", err
		}
		name = p.Name
	}
	target, err := memberNamed(f.c.Members(), name)
	if err != nil {
		return nil, "", err
	}
	switch a.Kind {
	case Restart:
		err = f.restart(ctx, name)
	case Kill, Stop:
		f.down[name] = true // even if it fails: restarting is harmless
		if a.Member == PrimaryMember {
			f.primaryDown = name
		}
		if a.Kind == Kill {
			err = f.c.KillMember(ctx, name)
		} else {
			err = f.c.StopMember(ctx, name)
		}
	}
	return target, "", err
}

// restart restarts a member, which also clears its fail points.
func (f *Runner) restart(ctx context.Context, name string) error {
	err := f.c.RestartMember(ctx, name)
	if err == nil {
		delete(f.down, name)
		delete(f.paused, name)
		delete(f.isolated, name)
		delete(f.slowed, name)
		if f.primaryDown == name {
			f.primaryDown = ""
		}
	}
	return err
}

func memberNamed(members []cluster.Member, name string) ([]cluster.Member, error) {
	for _, m := range members {
		if m.Name == name {
			return []cluster.Member{m}, nil
		}
	}
	return nil, fmt.Errorf("no member %s", name)
}

// Finish waits for the action under way (the queue is closed: no phase is
// due after the run), then leaves the cluster usable for the next run:
// restarts every member the run took down and did not restart, resumes
// replication wherever it paused it and did not resume, rejoins what it
// isolated, lets the reads it slowed run at once again, and waits until the
// set is healthy, each step a "fault-restore" event. It runs on a context of
// its own, so it also restores after an interruption. The error says the set
// did not become healthy.
func (f *Runner) Finish(ctx context.Context) error {
	if f == nil {
		return nil
	}
	f.once.Do(func() { close(f.jobs) })
	<-f.done
	if !f.acted {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	var steps []string
	for _, name := range slices.Sorted(maps.Keys(f.down)) {
		steps = append(steps, "restart "+name)
	}
	for _, name := range slices.Sorted(maps.Keys(f.paused)) {
		steps = append(steps, "resume "+name)
	}
	for _, name := range slices.Sorted(maps.Keys(f.isolated)) {
		steps = append(steps, "rejoin "+name)
	}
	for _, name := range slices.Sorted(maps.Keys(f.slowed)) {
		steps = append(steps, "unslow "+name)
	}
	fmt.Fprintf(f.progress, "  [%s] restoring the cluster after the run's fault actions: %s\n",
		f.label, strings.Join(append(steps, "wait for a healthy set"), ", "))
	for _, name := range slices.Sorted(maps.Keys(f.down)) {
		f.restore("restart", name, func() error { return f.restart(rctx, name) })
	}
	for _, name := range slices.Sorted(maps.Keys(f.paused)) {
		f.restore("resume", name, func() error { return f.c.ResumeReplication(rctx, name) })
	}
	for _, name := range slices.Sorted(maps.Keys(f.isolated)) {
		f.restore("rejoin", name, func() error { return f.c.RejoinMember(rctx, name) })
	}
	for _, name := range slices.Sorted(maps.Keys(f.slowed)) {
		f.restore("unslow", name, func() error { return f.c.UnslowReads(rctx, name) })
	}
	began := time.Now()
	if err := f.c.WaitHealthy(rctx); err != nil {
		f.event("fault-restore", fmt.Sprintf("wait for a healthy set: failed after %.3fs: %v", time.Since(began).Seconds(), err))
		return fmt.Errorf("after the run's fault actions: %w", err)
	}
	f.event("fault-restore", fmt.Sprintf("wait for a healthy set: done in %.3fs", time.Since(began).Seconds()))
	return nil
}

// restore runs one restore step and records its outcome.
func (f *Runner) restore(what, name string, step func() error) {
	began := time.Now()
	err := step()
	if what == "resume" && err == nil {
		delete(f.paused, name)
	}
	if what == "rejoin" && err == nil {
		delete(f.isolated, name)
	}
	if what == "unslow" && err == nil {
		delete(f.slowed, name)
	}
	targets, _ := memberNamed(f.c.Members(), name)
	f.event("fault-restore", outcome(what, targets, "", time.Since(began), err))
}

// LockedWriter serialises writes to the progress writer: fault actions
// report from their own goroutine while the runner reports periods.
type LockedWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.W.Write(p)
}
