// Package monitor is the I/O edge that feeds the balancer: it measures the
// round-trip time to every replica-set member over direct connections, and
// polls for lag (once per second by default; the router polls faster for
// bounds under 5 s) from one of three sources (LagSource): the primary's
// replSetGetStatus, which needs the clusterMonitor role; a heartbeat
// document the monitor writes on the primary and reads on every secondary,
// which needs readWrite on its one collection; or every member's hello,
// which any user may run. By default (SourceAuto) each poll asks them in
// that order, among those the user is authorized for, and takes the next
// when one fails or is late. From each it estimates every secondary's
// staleness as the primary's clock sees it (the conservative view of the
// Decongestant paper, §2.3). Every sample carries its horizon: if the next
// poll has not answered by then, an unknown sample follows.
//
//	m, err := monitor.Start(ctx, uri, monitor.Config{OnLag: func(s monitor.LagSample) { ... }})
//	defer m.Close(context.Background())
//	rtts := m.DrainRTT() // per host, since the last drain
package monitor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/balancer"
)

// MemberLag is one member's state in a lag poll.
type MemberLag struct {
	Host  string
	State string
	// Role is the member's role as the poll reports it (replSetGetStatus:
	// the primary's view; hello: the member's own); 0 for any state but
	// PRIMARY and SECONDARY (DOWN, RECOVERING, STARTUP2..., a member that
	// did not answer hello or answered without lastWrite).
	Role balancer.Side
	// Lag is the member's staleness estimate (see LagEstimate); 0 for
	// members that are not SECONDARY.
	Lag time.Duration
	// Applied is the optime timestamp of the member's last applied write
	// (replSetGetStatus: the primary's view of it; hello: the member's
	// lastWrite), zero when the poll did not report it. A read on the
	// member sees every write up to it: read-your-writes routing compares
	// it with a write's operationTime.
	Applied bson.Timestamp
}

// LagSample is one lag poll.
type LagSample struct {
	// At is when the poll was sent: the state it reports is no older.
	At time.Time
	// Source is the lag source that took the sample.
	Source LagSource
	// RTT is how long the poll took to answer (under SourceAuto, from the
	// preferred source's send to the answer of the one that took it).
	RTT time.Duration
	// Horizon is how long the sample stands (see Horizon); 0 for samples
	// that are not Known.
	Horizon time.Duration
	// Primary is the primary's host, "" when the poll failed (or, for the
	// heartbeat, which does not need it, when the primary did not answer).
	Primary string
	// Fallback says why the sources SourceAuto prefers to Source did not
	// take this sample ("" when the first did, and for explicit sources).
	Fallback string
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
	// LagInterval is how often the primary is asked for lag (1 s, the
	// Decongestant paper; the router derives it from the policy's staleness
	// bound when unset).
	LagInterval time.Duration
	// LagEstimate is how staleness is estimated (SinceApplied).
	LagEstimate LagEstimate
	// LagSource is where lag comes from (SourceAuto).
	LagSource LagSource
	// Heartbeat is the namespace of the heartbeat document (SourceHeartbeat,
	// and SourceAuto's second choice): DB defaults to the URI's database,
	// else DefaultHeartbeatDB; Coll to DefaultHeartbeatColl. Give the
	// database the application's user may write (a router's callers know
	// it: bench gives the workload's).
	Heartbeat Namespace
	// Timeout bounds each ping and poll (2 s).
	Timeout time.Duration
	// OnLag, when set, is called after every lag poll from the monitor's
	// goroutine.
	OnLag func(LagSample)
	// ClientOptions are applied to every client the monitor opens (TLS,
	// credentials); the URI's own options are applied first.
	ClientOptions []*options.ClientOptions
}

func (c *Config) defaults(uri string) {
	if c.Heartbeat.DB == "" {
		c.Heartbeat.DB = DefaultHeartbeatDB
		if cs, err := ParseURI(uri); err == nil && cs.Database != "" {
			c.Heartbeat.DB = cs.Database
		}
	}
	if c.Heartbeat.Coll == "" {
		c.Heartbeat.Coll = DefaultHeartbeatColl
	}
	if c.RTTInterval <= 0 {
		c.RTTInterval = time.Second
	}
	if c.LagInterval <= 0 {
		c.LagInterval = time.Second
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Second
	}
	if c.LagEstimate == 0 {
		c.LagEstimate = SinceApplied
	}
	if c.LagSource == 0 {
		c.LagSource = SourceAuto
	}
}

// Monitor measures RTT and lag until closed. Its methods are safe for
// concurrent use.
type Monitor struct {
	cfg Config
	uri string
	who identity      // for explaining a refusal
	set *mongo.Client // replica-set client: follows the primary
	// run is the context of the pingers (and of the lag loop); Close
	// cancels it.
	run    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// sources are the lag sources in use, in order of preference (one
	// unless SourceAuto), decided by Start, and why.
	sources   []source
	sourceWhy string
	// beat writes the heartbeat while SourceHeartbeat is usable.
	beat *beater

	// rtts are the round trips of the last polls, slack how long the
	// latest known sample's horizon leaves a poll beyond the interval,
	// helloHosts and beatHosts the members the primary named in the
	// latest hello and heartbeat polls (only polls touch them; polls never
	// overlap, and the sources of one poll run in turn).
	rtts       [10]time.Duration
	nrtt       int
	slack      time.Duration
	helloHosts []string
	beatHosts  []string

	mu      sync.Mutex
	pingers map[string]*pinger // by host
	rtt     map[string][]time.Duration
	roles   map[string]balancer.Side
	last    LagSample
}

type pinger struct {
	client *mongo.Client
	cancel context.CancelFunc
}

// Start connects, checks that uri is a replica set (CheckURI,
// CheckReplicaSet: errors wrap ErrBadURI, ErrNotReplicaSet or
// ErrUnreachable), decides the lag source and takes one lag poll
// synchronously (so the caller's first routing decision rests on a real lag
// measurement), and starts the background pollers.
func Start(ctx context.Context, uri string, cfg Config) (*Monitor, error) {
	cfg.defaults(uri)
	if cfg.LagSource > SourceHeartbeat {
		return nil, fmt.Errorf("monitor: invalid lag source %v", cfg.LagSource)
	}
	co := append([]*options.ClientOptions{options.Client().SetAppName("decongestant-monitor").
		SetReadPreference(readpref.Primary())}, cfg.ClientOptions...)
	set, err := Connect(ctx, uri, cfg.Timeout, co...)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	m := &Monitor{cfg: cfg, uri: uri, who: identityOf(uri, cfg.ClientOptions), set: set, run: runCtx, cancel: cancel,
		slack: cfg.LagInterval / 2, pingers: map[string]*pinger{}, rtt: map[string][]time.Duration{}, roles: map[string]balancer.Side{}}
	m.beat = &beater{m: m}
	var first LagSample
	var own time.Duration
	m.sources, first, own, m.sourceWhy = startSources(ctx, cfg.LagSource, cfg.Heartbeat, m.slack,
		m.pollStatus, m.pollHeartbeat, m.pollHello, m.beat.probe)
	if first.Err != nil {
		_ = m.Close(context.Background())
		return nil, first.Err
	}
	first = m.afterPoll(first, own)
	m.apply(first)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		lagLoop(runCtx, cfg.LagInterval, first, m.poll, m.apply)
	}()
	return m, nil
}

// LagSource returns the lag source in force: the one asked for, or the one
// SourceAuto prefers among those the user may use (a poll may still be
// taken by the next: LagSample.Source).
func (m *Monitor) LagSource() LagSource { return m.sources[0].src }

// LagSources returns the lag sources in use in order of preference: the
// one asked for, or those SourceAuto found the user may use.
func (m *Monitor) LagSources() []LagSource {
	out := make([]LagSource, len(m.sources))
	for i, s := range m.sources {
		out[i] = s.src
	}
	return out
}

// LagSourceReason says why the sources in use are: "asked for", or
// SourceAuto's order and the authorization errors that ruled sources out.
func (m *Monitor) LagSourceReason() string { return m.sourceWhy }

// Heartbeat returns the heartbeat's namespace (Config.Heartbeat with its
// defaults), used when LagSources holds SourceHeartbeat.
func (m *Monitor) Heartbeat() Namespace { return m.cfg.Heartbeat }

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
func (m *Monitor) Roles() map[string]balancer.Side {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]balancer.Side, len(m.roles))
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

// apply records a sample, starts pingers for new members and reports it.
func (m *Monitor) apply(s LagSample) {
	m.mu.Lock()
	m.last = s
	if s.Err == nil {
		m.roles = make(map[string]balancer.Side, len(s.Members))
		for _, mem := range s.Members {
			m.roles[mem.Host] = mem.Role
			if _, ok := m.pingers[mem.Host]; !ok {
				_ = m.startPinger(mem.Host) // retried on the next poll
			}
		}
	}
	m.mu.Unlock()
	if m.cfg.OnLag != nil {
		m.cfg.OnLag(s)
	}
}
