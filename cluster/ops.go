package cluster

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Member states reported by Status besides the server's own (PRIMARY, SECONDARY, STARTUP2, ...).
const (
	StateDown        = "DOWN"        // the member's process is not running
	StateUnreachable = "UNREACHABLE" // the process runs but does not answer replSetGetStatus
)

const (
	commandTimeout = 5 * time.Second
	pollInterval   = 100 * time.Millisecond
	stepDownSecs   = 10 // the old primary cannot be re-elected for this long
)

// MemberStatus is a member as it reports itself.
type MemberStatus struct {
	Member
	State  string         // PRIMARY, SECONDARY, STARTUP2, ... from the member; DOWN or UNREACHABLE
	Alive  bool           // the member's mongod process is running
	CPU    float64        // CPU cap in cores read back from its cgroup; 0 = none
	Memory int64          // memory cap in bytes read back from its cgroup; 0 = none
	OpTime bson.Timestamp // the member's last applied optime
	Term   int64          // the member's election term
	Err    error          // why the member is UNREACHABLE
}

// replSetStatus is the part of replSetGetStatus this package reads.
type replSetStatus struct {
	Set     string `bson:"set"`
	Term    int64  `bson:"term"`
	Members []struct {
		Name     string  `bson:"name"`
		Health   float64 `bson:"health"`
		StateStr string  `bson:"stateStr"`
		Self     bool    `bson:"self"`
		Optime   struct {
			TS bson.Timestamp `bson:"ts"`
		} `bson:"optime"`
	} `bson:"members"`
}

// conns holds direct connections to members for the length of one operation.
type conns struct {
	// opts carry the TLS config and credentials (see Cluster.clientOptions); err says why there
	// are none, and every run fails with it.
	opts *options.ClientOptions
	err  error

	mu      sync.Mutex
	clients map[string]*mongo.Client
}

// newConns returns connections as the admin user when the cluster runs with auth.
func (c *Cluster) newConns() *conns {
	opts, err := c.clientOptions(false)
	return &conns{opts: opts, err: err, clients: map[string]*mongo.Client{}}
}

// anonConns returns connections without credentials, for the localhost exception.
func (c *Cluster) anonConns() *conns {
	opts, err := c.clientOptions(true)
	return &conns{opts: opts, err: err, clients: map[string]*mongo.Client{}}
}

func (cs *conns) run(ctx context.Context, host string, cmd bson.D, out any) error {
	if cs.err != nil {
		return cs.err
	}
	cs.mu.Lock()
	cl, ok := cs.clients[host]
	if !ok {
		var err error
		cl, err = mongo.Connect(options.Client().
			ApplyURI("mongodb://"+host+"/?directConnection=true").
			SetServerSelectionTimeout(2*time.Second).
			SetConnectTimeout(2*time.Second).
			SetAppName("decongestant-cluster"), cs.opts)
		if err != nil {
			cs.mu.Unlock()
			return err
		}
		cs.clients[host] = cl
	}
	cs.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	res := cl.Database("admin").RunCommand(ctx, cmd)
	if out == nil {
		return res.Err()
	}
	return res.Decode(out)
}

func (cs *conns) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, cl := range cs.clients {
		_ = cl.Disconnect(ctx)
	}
}

func hasCode(err error, code int) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(code)
}

// Server error codes this package handles.
const (
	codeNodeNotFound       = 74 // replSetInitiate quorum check: a member did not answer yet
	codeAlreadyInitialized = 23
	codeNotYetInitialized  = 94
)

type memberView struct {
	status MemberStatus
	rs     *replSetStatus // nil unless the member answered
}

// probe asks every member, concurrently and directly, for its replSetGetStatus.
func (c *Cluster) probe(ctx context.Context, cs *conns) []memberView {
	members := c.Members()
	views := make([]memberView, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() { views[i] = c.probeMember(ctx, cs, m) })
	}
	wg.Wait()
	return views
}

func (c *Cluster) probeMember(ctx context.Context, cs *conns, m Member) memberView {
	s := MemberStatus{Member: m, State: StateDown}
	if m.Cgroup != "" {
		s.CPU = m.CPUCap
		if cpu, err := cgroupCPU(m.Cgroup); err == nil {
			s.CPU = cpu
		}
	}
	if m.MemCgroup != "" {
		s.Memory = m.MemoryCap
		if mem, err := memLimit(m.MemCgroup); err == nil {
			s.Memory = mem
		}
	}
	if !isMemberProcess(m.PID, m.DBPath) {
		return memberView{status: s}
	}
	s.Alive = true
	var rs replSetStatus
	if err := cs.run(ctx, m.Host, bson.D{{Key: "replSetGetStatus", Value: 1}}, &rs); err != nil {
		s.State = StateUnreachable
		if hasCode(err, codeNotYetInitialized) {
			s.State = "STARTUP"
		}
		s.Err = err
		return memberView{status: s}
	}
	s.State, s.Term = "UNKNOWN", rs.Term
	for _, rm := range rs.Members {
		if rm.Self {
			s.State, s.OpTime = rm.StateStr, rm.Optime.TS
		}
	}
	return memberView{status: s, rs: &rs}
}

func summary(views []memberView) string {
	parts := make([]string, len(views))
	for i, v := range views {
		parts[i] = v.status.Name + "=" + v.status.State
	}
	return strings.Join(parts, " ")
}

// Status reports each member's own view of itself; members that are down or do not answer are
// reported as such, not as an error. The error is ctx's when it ended.
func (c *Cluster) Status(ctx context.Context) ([]MemberStatus, error) {
	cs := c.newConns()
	defer cs.close()
	views := c.probe(ctx, cs)
	out := make([]MemberStatus, len(views))
	for i, v := range views {
		out[i] = v.status
	}
	return out, ctx.Err()
}

// healthy reports whether exactly one member is PRIMARY, all others are SECONDARY, and the primary
// sees all of them that way; otherwise it says why.
func healthy(views []memberView) (bool, string) {
	var primary *memberView
	for i, v := range views {
		switch v.status.State {
		case "PRIMARY":
			if primary != nil {
				return false, "two primaries: " + summary(views)
			}
			primary = &views[i]
		case "SECONDARY":
		default:
			return false, summary(views)
		}
	}
	if primary == nil {
		return false, "no primary: " + summary(views)
	}
	for _, rm := range primary.rs.Members {
		if rm.Health != 1 || (rm.StateStr != "PRIMARY" && rm.StateStr != "SECONDARY") {
			return false, fmt.Sprintf("primary %s sees %s as %s", primary.status.Name, rm.Name, rm.StateStr)
		}
	}
	return true, ""
}

// WaitHealthy polls until one member is PRIMARY and all others are SECONDARY. It fails at once,
// with the member's log tail, if a member's process is not running. Without a ctx deadline it
// gives up after two minutes.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	ctx, cancel := withDefaultTimeout(ctx, defaultTimeout)
	defer cancel()
	cs := c.newConns()
	defer cs.close()
	return c.waitHealthy(ctx, cs)
}

func (c *Cluster) waitHealthy(ctx context.Context, cs *conns) error {
	var why string
	return poll(ctx, pollInterval, func() (bool, error) {
		views := c.probe(ctx, cs)
		for _, v := range views {
			if v.status.State == StateDown {
				return false, c.notRunning(v.status.Member)
			}
		}
		ok, w := healthy(views)
		why = w
		return ok, nil
	}, func(err error) error {
		return fmt.Errorf("replica set %s is not healthy (%s): %w", c.st.ReplSet, why, err)
	})
}

func (c *Cluster) notRunning(m Member) error {
	return fmt.Errorf("member %s (pid %d) is not running: %w; last lines of %s:\n%s",
		m.Name, m.PID, ErrNotRunning, m.LogPath, logTail(m.LogPath, 10))
}

// Primary asks the members which of them is primary; if two claim it (briefly, during a failover)
// the one with the higher term wins.
func (c *Cluster) Primary(ctx context.Context) (Member, error) {
	cs := c.newConns()
	defer cs.close()
	return c.primary(ctx, cs)
}

func (c *Cluster) primary(ctx context.Context, cs *conns) (Member, error) {
	views := c.probe(ctx, cs)
	var best *MemberStatus
	for i := range views {
		if s := &views[i].status; s.State == "PRIMARY" && (best == nil || s.Term > best.Term) {
			best = s
		}
	}
	if best == nil {
		return Member{}, fmt.Errorf("replica set %s has no primary (%s)", c.st.ReplSet, summary(views))
	}
	return best.Member, nil
}

// initiate runs replSetInitiate on n1 with members _id 0..N-1 tagged {node: "nK"}, chaining off.
func (c *Cluster) initiate(ctx context.Context, cs *conns) error {
	members := c.Members()
	var ms bson.A
	for i, m := range members {
		ms = append(ms, bson.D{
			{Key: "_id", Value: i},
			{Key: "host", Value: m.Host},
			{Key: "tags", Value: bson.D{{Key: "node", Value: m.Name}}},
		})
	}
	// No chaining: every secondary syncs from the primary, so pausing one secondary's replication
	// lags that member alone (a member chained behind it would stall too, and so would majority writes).
	cmd := bson.D{{Key: "replSetInitiate", Value: bson.D{
		{Key: "_id", Value: c.st.ReplSet},
		{Key: "members", Value: ms},
		{Key: "settings", Value: bson.D{{Key: "chainingAllowed", Value: false}}},
	}}}
	n1 := members[0]
	var last error
	return poll(ctx, 200*time.Millisecond, func() (bool, error) {
		err := cs.run(ctx, n1.Host, cmd, nil)
		switch {
		case err == nil, hasCode(err, codeAlreadyInitialized):
			return true, nil
		case !isMemberProcess(n1.PID, n1.DBPath):
			return false, c.notRunning(n1)
		case hasCode(err, codeNodeNotFound), mongo.IsNetworkError(err), mongo.IsTimeout(err),
			errors.Is(err, context.DeadlineExceeded):
			last = err
			return false, nil
		}
		return false, fmt.Errorf("replSetInitiate on %s: %w", n1.Name, err)
	}, func(err error) error {
		return fmt.Errorf("replSetInitiate on %s: %w (last error: %v)", n1.Name, err, last)
	})
}

// electFirst makes n1 the first primary: as soon as n1 is SECONDARY it asks it to run for election
// with replSetStepUp, repeating until n1 is PRIMARY. All members keep priority 1, so later
// failovers are not undone by priority takeovers.
func (c *Cluster) electFirst(ctx context.Context, cs *conns) error {
	n1 := c.Members()[0]
	var state string
	return poll(ctx, pollInterval, func() (bool, error) {
		v := c.probeMember(ctx, cs, n1)
		state = v.status.State
		switch state {
		case "PRIMARY":
			return true, nil
		case StateDown:
			return false, c.notRunning(n1)
		case "SECONDARY":
			_ = cs.run(ctx, n1.Host, bson.D{{Key: "replSetStepUp", Value: 1}}, nil)
		}
		return false, nil
	}, func(err error) error {
		return fmt.Errorf("make %s primary (it is %s): %w; last lines of %s:\n%s", n1.Name, state, err, n1.LogPath, logTail(n1.LogPath, 10))
	})
}

// StepDown asks the primary to step down (replSetStepDown, ineligible for 10 s) and waits until
// another member is primary.
func (c *Cluster) StepDown(ctx context.Context) (Member, error) {
	ctx, cancel := withDefaultTimeout(ctx, defaultTimeout)
	defer cancel()
	cs := c.newConns()
	defer cs.close()
	old, err := c.primary(ctx, cs)
	if err != nil {
		return Member{}, err
	}
	cmd := bson.D{{Key: "replSetStepDown", Value: stepDownSecs}, {Key: "secondaryCatchUpPeriodSecs", Value: stepDownSecs / 2}}
	if err := cs.run(ctx, old.Host, cmd, nil); err != nil && !mongo.IsNetworkError(err) {
		return Member{}, fmt.Errorf("step down %s: %w", old.Name, err)
	}
	var next Member
	var last error
	err = poll(ctx, pollInterval, func() (bool, error) {
		p, err := c.primary(ctx, cs)
		last = err
		if err == nil && p.Name != old.Name {
			next = p
			return true, nil
		}
		return false, nil
	}, func(err error) error {
		return fmt.Errorf("no member replaced %s as primary: %w (last: %v)", old.Name, err, last)
	})
	if err != nil {
		return Member{}, err
	}
	fmt.Fprintf(c.progress, "%s stepped down; %s is primary\n", old.Name, next.Name)
	return next, nil
}

// StopMember shuts member name down cleanly (SIGTERM) and waits until its process is gone. A
// primary may take a while: it first waits for a secondary to catch up. Stopping a member that is
// not running is not an error.
func (c *Cluster) StopMember(ctx context.Context, name string) error {
	return c.signal(ctx, name, syscall.SIGTERM, stopTimeout)
}

// KillMember SIGKILLs member name and waits until its process is gone. Killing a member that is not
// running is not an error.
func (c *Cluster) KillMember(ctx context.Context, name string) error {
	return c.signal(ctx, name, syscall.SIGKILL, killTimeout)
}

func (c *Cluster) signal(ctx context.Context, name string, sig syscall.Signal, timeout time.Duration) error {
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	if !isMemberProcess(m.PID, m.DBPath) {
		return nil
	}
	if err := syscall.Kill(m.PID, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("member %s (pid %d): %v: %w", name, m.PID, sig, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if !waitGone(ctx, m.PID, m.DBPath, c.child(m.PID)) {
		return fmt.Errorf("member %s (pid %d) still runs after %v: %w", name, m.PID, sig, ctx.Err())
	}
	fmt.Fprintf(c.progress, "member %s (pid %d) stopped by %v\n", name, m.PID, sig)
	return nil
}

// RestartMember starts member name again with the same port, dbpath and cgroups (stopping it
// cleanly first if it runs) and waits until it is SECONDARY or PRIMARY.
func (c *Cluster) RestartMember(ctx context.Context, name string) error {
	return c.restart(ctx, name, nil)
}

// restart is RestartMember; stopped, if not nil, runs while the member is down.
func (c *Cluster) restart(ctx context.Context, name string, stopped func(Member) error) error {
	ctx, cancel := withDefaultTimeout(ctx, defaultTimeout)
	defer cancel()
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	if isMemberProcess(m.PID, m.DBPath) {
		if err := c.StopMember(ctx, name); err != nil {
			return err
		}
	}
	if stopped != nil {
		if err := stopped(m); err != nil {
			return fmt.Errorf("member %s: %w", name, err)
		}
	}
	c.mu.Lock()
	st := c.st
	c.mu.Unlock()
	if m, err = recreateCgroups(m); err != nil {
		return fmt.Errorf("member %s: %w", name, err)
	}
	pid, ch, err := spawn(&st, m, c.dieWithParent)
	if err != nil {
		return err
	}
	m.PID = pid
	c.mu.Lock()
	c.children[pid] = ch
	c.mu.Unlock()
	c.setMember(m)
	fmt.Fprintf(c.progress, "restarted %s (pid %d) on %s\n", name, pid, m.Host)
	if err := c.writeState(); err != nil {
		return err
	}
	if err := c.waitListening(ctx, m); err != nil {
		return err
	}
	cs := c.newConns()
	defer cs.close()
	var state string
	return poll(ctx, pollInterval, func() (bool, error) {
		v := c.probeMember(ctx, cs, m)
		state = v.status.State
		switch state {
		case "PRIMARY", "SECONDARY":
			return true, nil
		case StateDown:
			return false, c.notRunning(m)
		}
		return false, nil
	}, func(err error) error {
		return fmt.Errorf("restarted member %s is %s, not SECONDARY: %w; last lines of %s:\n%s", name, state, err, m.LogPath, logTail(m.LogPath, 10))
	})
}

// SetFailPoint runs a configureFailPoint command on member name over a direct connection. fp is the
// whole command, e.g. {configureFailPoint: "rsSyncApplyStop", mode: "alwaysOn"}; its first key
// must be configureFailPoint.
func (c *Cluster) SetFailPoint(ctx context.Context, name string, fp bson.D) error {
	if len(fp) == 0 || fp[0].Key != "configureFailPoint" {
		return fmt.Errorf("member %s: fail point command must start with configureFailPoint, got %v", name, fp)
	}
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	if !isMemberProcess(m.PID, m.DBPath) {
		return fmt.Errorf("member %s (pid %d): %w", name, m.PID, ErrNotRunning)
	}
	cs := c.newConns()
	defer cs.close()
	if err := cs.run(ctx, m.Host, fp, nil); err != nil {
		return fmt.Errorf("member %s: configureFailPoint %v: %w", name, fp[0].Value, err)
	}
	return nil
}

// PauseReplication stops member name from applying the oplog (fail point rsSyncApplyStop): it keeps
// fetching, but its last applied optime, and so its data, stop advancing and its lag grows.
// It has no effect while the member is primary.
func (c *Cluster) PauseReplication(ctx context.Context, name string) error {
	return c.SetFailPoint(ctx, name, bson.D{{Key: "configureFailPoint", Value: "rsSyncApplyStop"}, {Key: "mode", Value: "alwaysOn"}})
}

// IsolateMember stops member name fetching the oplog (fail point
// stopReplProducer): it receives no new writes at all, as if cut off from
// the primary's, so w:1 writes the primary acknowledges meanwhile exist on
// the primary alone (and are rolled back if it fails). It has no effect
// while the member is primary.
func (c *Cluster) IsolateMember(ctx context.Context, name string) error {
	return c.SetFailPoint(ctx, name, bson.D{{Key: "configureFailPoint", Value: "stopReplProducer"}, {Key: "mode", Value: "alwaysOn"}})
}

// RejoinMember undoes IsolateMember.
func (c *Cluster) RejoinMember(ctx context.Context, name string) error {
	return c.SetFailPoint(ctx, name, bson.D{{Key: "configureFailPoint", Value: "stopReplProducer"}, {Key: "mode", Value: "off"}})
}

// ResumeReplication undoes PauseReplication.
func (c *Cluster) ResumeReplication(ctx context.Context, name string) error {
	return c.SetFailPoint(ctx, name, bson.D{{Key: "configureFailPoint", Value: "rsSyncApplyStop"}, {Key: "mode", Value: "off"}})
}

// SlowReadCommands are the commands SlowReads stalls: the reads the router
// routes (find, aggregate, count, distinct) and the getMore of their cursors.
var SlowReadCommands = []string{"find", "getMore", "aggregate", "count", "distinct"}

// SlowReads makes member name a gray failure (fail point failCommand with
// blockConnection): every read command of a client (SlowReadCommands) waits
// delay before the member runs it, while ping, hello and every other
// command answer at once, so drivers' server selection, which measures its
// round trip with hello, keeps seeing a healthy, near member. Replication's
// own connections are internal clients, which failCommand leaves alone. The
// delay is whole milliseconds, at least 1 ms. A restart clears it.
func (c *Cluster) SlowReads(ctx context.Context, name string, delay time.Duration) error {
	if delay < time.Millisecond || delay%time.Millisecond != 0 {
		return fmt.Errorf("member %s: read delay %v must be whole milliseconds, at least 1ms", name, delay)
	}
	cmds := make(bson.A, len(SlowReadCommands))
	for i, s := range SlowReadCommands {
		cmds[i] = s
	}
	return c.SetFailPoint(ctx, name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: cmds}, {Key: "blockConnection", Value: true},
			{Key: "blockTimeMS", Value: delay.Milliseconds()}}}})
}

// UnslowReads undoes SlowReads (it turns fail point failCommand off).
func (c *Cluster) UnslowReads(ctx context.Context, name string) error {
	return c.SetFailPoint(ctx, name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
}
