// Package monitor is the I/O edge that feeds the balancer: it measures the
// round-trip time to every replica-set member over direct connections, and
// polls the primary's replSetGetStatus once per second for each secondary's
// lastAppliedWallTime, from which it derives replication lag as the primary
// sees it (the conservative view of seed 000 §2.3).
//
//	m, err := monitor.Start(ctx, uri, monitor.Config{OnLag: func(s monitor.LagSample) { ... }})
//	defer m.Close(context.Background())
//	rtts := m.DrainRTT() // per host, since the last drain
package monitor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// Role is a member's replica-set state as the primary reports it.
type Role uint8

const (
	// Unknown: any state other than PRIMARY or SECONDARY (DOWN, RECOVERING...).
	Unknown Role = iota
	// RolePrimary is the primary.
	RolePrimary
	// RoleSecondary is a readable secondary.
	RoleSecondary
)

// String returns the role's name.
func (r Role) String() string {
	switch r {
	case RolePrimary:
		return "PRIMARY"
	case RoleSecondary:
		return "SECONDARY"
	}
	return "OTHER"
}

// MemberLag is one member's state in a lag poll.
type MemberLag struct {
	Host  string
	State string
	Role  Role
	// Lag is the primary's lastAppliedWallTime minus this member's.
	Lag time.Duration
}

// LagSample is one poll of replSetGetStatus on the primary.
type LagSample struct {
	At time.Time
	// Primary is the primary's host, "" when the poll failed.
	Primary string
	// Max is the largest lag over the SECONDARY members.
	Max time.Duration
	// Known is false when the poll failed or no member is SECONDARY.
	Known   bool
	Members []MemberLag
	Err     error
}

// Config tunes the monitor. Zero values take the defaults.
type Config struct {
	// RTTInterval is the mean pause between pings of each member (1 s: ten
	// samples per 10 s balancing period). Each pause is drawn uniformly from
	// [0.5, 1.5) x RTTInterval so pings cannot alias with periodic server
	// activity (a CPU quota's 100 ms window, checkpoints).
	RTTInterval time.Duration
	// LagInterval is how often the primary is asked for lag (1 s, seed 000).
	LagInterval time.Duration
	// Timeout bounds each ping and poll (2 s).
	Timeout time.Duration
	// OnLag, when set, is called after every lag poll from the monitor's
	// goroutine.
	OnLag func(LagSample)
	// ClientOptions are applied to every client the monitor opens (TLS,
	// credentials); the URI's own options are applied first.
	ClientOptions []*options.ClientOptions
}

func (c *Config) defaults() {
	if c.RTTInterval <= 0 {
		c.RTTInterval = time.Second
	}
	if c.LagInterval <= 0 {
		c.LagInterval = time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Second
	}
}

// Monitor measures RTT and lag until closed. Its methods are safe for
// concurrent use.
type Monitor struct {
	cfg    Config
	uri    string
	set    *mongo.Client // replica-set client: follows the primary
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	pingers map[string]*pinger // by host
	rtt     map[string][]time.Duration
	roles   map[string]Role
	last    LagSample
}

type pinger struct {
	client *mongo.Client
	cancel context.CancelFunc
}

// ErrNotReplicaSet is returned when the URI points at something that has no
// replica-set status (a standalone mongod or a mongos).
var ErrNotReplicaSet = errors.New("not a replica set")

// Start connects, checks that uri is a replica set, takes one lag poll
// synchronously (so the caller's first routing decision rests on a real lag
// measurement), and starts the background pollers.
func Start(ctx context.Context, uri string, cfg Config) (*Monitor, error) {
	cfg.defaults()
	co := append([]*options.ClientOptions{options.Client().ApplyURI(uri).
		SetAppName("decongestant-monitor").SetReadPreference(readpref.Primary())}, cfg.ClientOptions...)
	set, err := mongo.Connect(co...)
	if err != nil {
		return nil, fmt.Errorf("monitor: connect: %w", err)
	}
	m := &Monitor{cfg: cfg, uri: uri, set: set, pingers: map[string]*pinger{},
		rtt: map[string][]time.Duration{}, roles: map[string]Role{}}
	first := m.poll(ctx)
	if first.Err != nil {
		_ = set.Disconnect(context.Background())
		return nil, first.Err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.apply(runCtx, first)
	m.wg.Add(1)
	go m.lagLoop(runCtx)
	return m, nil
}

// Close stops every poller and disconnects every client.
func (m *Monitor) Close(ctx context.Context) error {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := []error{m.set.Disconnect(ctx)}
	for _, p := range m.pingers {
		errs = append(errs, p.client.Disconnect(ctx))
	}
	m.pingers = map[string]*pinger{}
	return errors.Join(errs...)
}

// Last returns the latest lag sample.
func (m *Monitor) Last() LagSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// Roles returns each known member's role as of the latest successful poll.
func (m *Monitor) Roles() map[string]Role {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Role, len(m.roles))
	for h, r := range m.roles {
		out[h] = r
	}
	return out
}

// DrainRTT returns the RTT samples per host since the previous call.
func (m *Monitor) DrainRTT() map[string][]time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.rtt
	m.rtt = make(map[string][]time.Duration, len(out))
	return out
}

// RTTByRole splits drained samples by the members' current roles and returns
// the q-quantile of the RTT samples to the primary and of all secondaries'
// samples pooled (seed 000 §3.3.1 uses the median, q = 0.5; q = 0 is the
// minimum).
func RTTByRole(samples map[string][]time.Duration, roles map[string]Role, q float64) (primary, secondary time.Duration) {
	var p, s []time.Duration
	for host, v := range samples {
		switch roles[host] {
		case RolePrimary:
			p = append(p, v...)
		case RoleSecondary:
			s = append(s, v...)
		}
	}
	return Quantile(p, q), Quantile(s, q)
}

// Quantile returns the nearest-rank q-quantile of ds (q = 0: the minimum,
// 0.5: the upper median), or 0 for no samples.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	c := append([]time.Duration(nil), ds...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	i := int(q * float64(len(c)))
	return c[max(0, min(i, len(c)-1))]
}

func (m *Monitor) lagLoop(ctx context.Context) {
	defer m.wg.Done()
	t := time.NewTicker(m.cfg.LagInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s := m.poll(ctx)
			if ctx.Err() != nil {
				return
			}
			m.apply(ctx, s)
		}
	}
}

// apply records a sample, starts pingers for new members and reports it.
func (m *Monitor) apply(ctx context.Context, s LagSample) {
	m.mu.Lock()
	m.last = s
	if s.Err == nil {
		m.roles = make(map[string]Role, len(s.Members))
		for _, mem := range s.Members {
			m.roles[mem.Host] = mem.Role
			if _, ok := m.pingers[mem.Host]; !ok {
				m.startPinger(ctx, mem.Host)
			}
		}
	}
	m.mu.Unlock()
	if m.cfg.OnLag != nil {
		m.cfg.OnLag(s)
	}
}

// startPinger opens a direct connection to host and pings it every
// RTTInterval. Called with m.mu held.
func (m *Monitor) startPinger(ctx context.Context, host string) {
	co := append([]*options.ClientOptions{options.Client().ApplyURI(m.uri)}, m.cfg.ClientOptions...)
	co = append(co, options.Client().SetHosts([]string{host}).SetDirect(true).
		SetReplicaSet("").SetAppName("decongestant-rtt"))
	c, err := mongo.Connect(co...)
	if err != nil {
		return // retried on the next poll
	}
	pctx, cancel := context.WithCancel(ctx)
	m.pingers[host] = &pinger{client: c, cancel: cancel}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		ping := bson.D{{Key: "ping", Value: 1}}
		for {
			pause := time.Duration((0.5 + rand.Float64()) * float64(m.cfg.RTTInterval))
			t := time.NewTimer(pause)
			select {
			case <-pctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			cctx, ccancel := context.WithTimeout(pctx, m.cfg.Timeout)
			start := time.Now()
			err := c.Database("admin").RunCommand(cctx, ping).Err()
			d := time.Since(start)
			ccancel()
			if err != nil {
				continue
			}
			m.mu.Lock()
			m.rtt[host] = append(m.rtt[host], d)
			m.mu.Unlock()
		}
	}()
}

type statusReply struct {
	Members []struct {
		Name                string    `bson:"name"`
		StateStr            string    `bson:"stateStr"`
		Self                bool      `bson:"self"`
		LastAppliedWallTime time.Time `bson:"lastAppliedWallTime"`
		OptimeDate          time.Time `bson:"optimeDate"`
	} `bson:"members"`
}

// poll asks the primary for replSetGetStatus and computes each secondary's
// lag from lastAppliedWallTime (millisecond precision).
func (m *Monitor) poll(ctx context.Context) LagSample {
	s := LagSample{At: time.Now()}
	cctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	res := m.set.Database("admin").RunCommand(cctx, bson.D{{Key: "replSetGetStatus", Value: 1}})
	var reply statusReply
	if err := res.Err(); err != nil {
		s.Err = fmt.Errorf("monitor: replSetGetStatus on the primary of %s: %w", Redact(m.uri), classify(err))
		return s
	}
	if err := res.Decode(&reply); err != nil {
		s.Err = fmt.Errorf("monitor: decode replSetGetStatus: %w", err)
		return s
	}
	return lagFrom(s, reply)
}

func lagFrom(s LagSample, reply statusReply) LagSample {
	var primary time.Time
	for _, mem := range reply.Members {
		if mem.StateStr == "PRIMARY" {
			s.Primary = mem.Name
			primary = wall(mem.LastAppliedWallTime, mem.OptimeDate)
		}
	}
	if s.Primary == "" {
		s.Err = fmt.Errorf("monitor: no PRIMARY in replSetGetStatus")
		return s
	}
	for _, mem := range reply.Members {
		ml := MemberLag{Host: mem.Name, State: mem.StateStr}
		switch mem.StateStr {
		case "PRIMARY":
			ml.Role = RolePrimary
		case "SECONDARY":
			ml.Role = RoleSecondary
			ml.Lag = max(primary.Sub(wall(mem.LastAppliedWallTime, mem.OptimeDate)), 0)
			s.Max = max(s.Max, ml.Lag)
			s.Known = true
		}
		s.Members = append(s.Members, ml)
	}
	return s
}

// wall prefers lastAppliedWallTime and falls back to the optime's date
// (1 s granularity) for servers that do not report it.
func wall(applied, optime time.Time) time.Time {
	if !applied.IsZero() {
		return applied
	}
	return optime
}

// classify marks the errors that mean "not a replica set": a standalone
// mongod answers NoReplicationEnabled (76), a mongos CommandNotFound (59).
func classify(err error) error {
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		return err
	}
	switch ce.Code {
	case 76:
		return fmt.Errorf("%w: %v", ErrNotReplicaSet, err)
	case 59:
		return fmt.Errorf("%w (is this a mongos? point decongestant at the replica set itself): %v", ErrNotReplicaSet, err)
	}
	return err
}

// Redact returns uri with its user information (user name and password)
// replaced by REDACTED, for logs and reports. It is purely textual: it never
// resolves anything, and a string it cannot read as a URI loses everything
// before its last '@'.
func Redact(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		if at := strings.LastIndexByte(uri, '@'); at >= 0 {
			return "REDACTED@" + uri[at+1:]
		}
		return uri
	}
	if at := lastAt(rest); at >= 0 {
		return scheme + "://REDACTED@" + rest[at+1:]
	}
	return uri
}

func lastAt(s string) int {
	// The authority ends at the first '/' (or '?'); the userinfo ends at the
	// last '@' before it.
	end := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '?' {
			end = i
			break
		}
	}
	for i := end - 1; i >= 0; i-- {
		if s[i] == '@' {
			return i
		}
	}
	return -1
}
