package router

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/metrics"
)

// readCommands are the commands a routed read issues first; getMore is left
// out so a cursor counts once.
var readCommands = map[string]bool{"find": true, "aggregate": true, "count": true, "distinct": true}

// writeCommands are the writes whose time on the primary per-member
// policies weigh with its reads.
var writeCommands = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true}

// served counts routed read commands by the member that answered them and by
// that member's role at the time (from the client's own topology view), and
// keeps each member's latencies.
type served struct {
	primary, secondary, other atomic.Int64
	// writes are the wire times of the writes sent on the routed client,
	// and writing how many are in flight (a per-read rule counts them on
	// the primary).
	writes  *metrics.Histogram
	writing atomic.Int64

	mu     sync.RWMutex
	byHost map[string]*hostStats
	roles  map[string]balancer.Side     // host -> role from SDAM events (0: neither)
	names  map[string]string            // host -> its "node" tag
	tags   map[string]map[string]string // host -> its tags
	turned map[string]time.Time         // host -> when the driver last saw it turn secondary
	// onSecondary is called (without mu) when a host turns secondary;
	// onMember when a host turns primary or secondary (to open its pool)
	// and onRemoved when it leaves the topology.
	onSecondary         func()
	onMember, onRemoved func(host string)
	// capture (read hints on) receives every routed find and aggregate as sent and the
	// member it went to.
	capture func(host string, cmd []byte)
}

func newServed(onSecondary func()) *served {
	return &served{writes: metrics.NewHistogram(), byHost: map[string]*hostStats{}, roles: map[string]balancer.Side{}, names: map[string]string{}, tags: map[string]map[string]string{},
		turned: map[string]time.Time{}, onSecondary: onSecondary}
}

// hostStats are one member's routed reads: units served and their client
// and wire latencies, and the member's pings (cumulative).
type hostStats struct {
	n                 atomic.Int64
	client, wire, rtt *metrics.Histogram
}

func newHostStats() *hostStats {
	return &hostStats{client: metrics.NewHistogram(), wire: metrics.NewHistogram(), rtt: metrics.NewHistogram()}
}

// stats returns host's stats, created on first use.
func (s *served) stats(host string) *hostStats {
	s.mu.RLock()
	h, ok := s.byHost[host]
	s.mu.RUnlock()
	if ok {
		return h
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, ok = s.byHost[host]; !ok {
		h = newHostStats()
		s.byHost[host] = h
	}
	return h
}

// role returns the driver's view of host's role.
func (s *served) role(host string) balancer.Side {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.roles[host]
}

// turnedAfter reports whether the driver saw host turn secondary after t.
func (s *served) turnedAfter(host string, t time.Time) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	at, ok := s.turned[host]
	return ok && at.After(t)
}

// name returns host's "node" tag, "" when untagged.
func (s *served) name(host string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.names[host]
}

// tagsOf returns host's tags as the driver last described it (do not
// modify).
func (s *served) tagsOf(host string) map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tags[host]
}

// members returns the hosts the driver currently sees as primary or
// secondary, in no particular order.
func (s *served) members() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for h, r := range s.roles {
		if r != 0 {
			out = append(out, h)
		}
	}
	return out
}

// selectable returns the hosts the driver currently sees as secondaries.
func (s *served) selectable() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for h, r := range s.roles {
		if r == balancer.Secondary {
			out = append(out, h)
		}
	}
	return out
}

// hostOf strips the driver's connection suffix: "127.0.0.1:27017[-5]".
func hostOf(connID string) string {
	if i := strings.IndexByte(connID, '['); i >= 0 {
		return connID[:i]
	}
	return connID
}

// finished records a finished command of a routed read: its duration on the
// unit's context, and the read under its member when it is a read's first
// command.
func (s *served) finished(ctx context.Context, name, connID string, d time.Duration) {
	rc := routedFrom(ctx)
	if rc == nil {
		if writeCommands[name] {
			s.writes.Record(d)
			s.writing.Add(-1)
		}
		return
	}
	rc.addCommand(d)
	if readCommands[name] {
		rc.host.Store(s.count(connID))
	}
}

func (s *served) count(connID string) *hostStats {
	host := hostOf(connID)
	h := s.stats(host)
	h.n.Add(1)
	switch s.role(host) {
	case balancer.Primary:
		s.primary.Add(1)
	case balancer.Secondary:
		s.secondary.Add(1)
	default:
		s.other.Add(1)
	}
	return h
}

func (s *served) commandMonitor(next *event.CommandMonitor) *event.CommandMonitor {
	return &event.CommandMonitor{
		Started: func(ctx context.Context, e *event.CommandStartedEvent) {
			if writeCommands[e.CommandName] && routedFrom(ctx) == nil {
				s.writing.Add(1)
			}
			if s.capture != nil && (e.CommandName == "find" || e.CommandName == "aggregate") && routedFrom(ctx) != nil {
				s.capture(hostOf(e.ConnectionID), e.Command)
			}
			if next != nil && next.Started != nil {
				next.Started(ctx, e)
			}
		},
		Succeeded: func(ctx context.Context, e *event.CommandSucceededEvent) {
			s.finished(ctx, e.CommandName, e.ConnectionID, e.Duration)
			if next != nil && next.Succeeded != nil {
				next.Succeeded(ctx, e)
			}
		},
		Failed: func(ctx context.Context, e *event.CommandFailedEvent) {
			s.finished(ctx, e.CommandName, e.ConnectionID, e.Duration)
			if next != nil && next.Failed != nil {
				next.Failed(ctx, e)
			}
		},
	}
}

// serverMonitor keeps the host -> role map current from the driver's own
// server descriptions, so a read is attributed to the role its server had
// when it answered, across elections, and reports hosts turning secondary.
func (s *served) serverMonitor(next *event.ServerMonitor) *event.ServerMonitor {
	m := &event.ServerMonitor{}
	if next != nil {
		*m = *next
	}
	m.ServerDescriptionChanged = func(e *event.ServerDescriptionChangedEvent) {
		var role balancer.Side
		switch e.NewDescription.Kind {
		case "RSPrimary":
			role = balancer.Primary
		case "RSSecondary":
			role = balancer.Secondary
		}
		s.mu.Lock()
		host := e.Address.String()
		turned := role == balancer.Secondary && s.roles[host] != balancer.Secondary
		if turned {
			s.turned[host] = time.Now()
		}
		s.roles[host] = role
		tags := make(map[string]string, len(e.NewDescription.Tags))
		for _, t := range e.NewDescription.Tags {
			tags[t.Name] = t.Value
			if t.Name == "node" {
				s.names[host] = t.Value
			}
		}
		s.tags[host] = tags
		s.mu.Unlock()
		if role != 0 && s.onMember != nil {
			s.onMember(host)
		}
		if turned && s.onSecondary != nil {
			// The driver publishes the change before selection can see
			// it, so secondary reads stop before one can reach host.
			s.onSecondary()
		}
		if next != nil && next.ServerDescriptionChanged != nil {
			next.ServerDescriptionChanged(e)
		}
	}
	m.ServerClosed = func(e *event.ServerClosedEvent) {
		host := e.Address.String()
		s.mu.Lock()
		s.roles[host] = 0
		s.mu.Unlock()
		if s.onRemoved != nil {
			s.onRemoved(host)
		}
		if next != nil && next.ServerClosed != nil {
			next.ServerClosed(e)
		}
	}
	return m
}

// Served is a snapshot of the routed read commands counted by the member
// that served them.
type Served struct {
	Primary   int64
	Secondary int64
	// Other counts reads served by a member of unknown role (rare: during
	// an election).
	Other  int64
	ByHost map[string]int64
}

// Total returns all counted reads.
func (s Served) Total() int64 { return s.Primary + s.Secondary + s.Other }

// SecondaryPct is the counted share of reads served by secondaries, in %.
func (s Served) SecondaryPct() float64 {
	if t := s.Total(); t > 0 {
		return 100 * float64(s.Secondary) / float64(t)
	}
	return 0
}

// Sub returns the reads counted between prev and s.
func (s Served) Sub(prev Served) Served {
	d := Served{Primary: s.Primary - prev.Primary, Secondary: s.Secondary - prev.Secondary,
		Other: s.Other - prev.Other, ByHost: map[string]int64{}}
	for h, n := range s.ByHost {
		if n -= prev.ByHost[h]; n != 0 {
			d.ByHost[h] = n
		}
	}
	return d
}

func (s *served) snapshot() Served {
	out := Served{Primary: s.primary.Load(), Secondary: s.secondary.Load(), Other: s.other.Load(),
		ByHost: map[string]int64{}}
	s.mu.RLock()
	for h, c := range s.byHost {
		out.ByHost[h] = c.n.Load()
	}
	s.mu.RUnlock()
	return out
}
