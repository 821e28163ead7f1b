package router

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/decongestant/decongestant/balancer"
)

// readCommands are the commands a routed read issues first; getMore is left
// out so a cursor counts once.
var readCommands = map[string]bool{"find": true, "aggregate": true, "count": true, "distinct": true}

// served counts routed read commands by the member that answered them and by
// that member's role at the time (from the client's own topology view).
type served struct {
	primary, secondary, other atomic.Int64

	mu     sync.RWMutex
	byHost map[string]*atomic.Int64
	roles  map[string]balancer.Side // host -> role from SDAM events (0: neither)
	// onSecondary is called (without mu) when a host turns secondary.
	onSecondary func()
}

func newServed(onSecondary func()) *served {
	return &served{byHost: map[string]*atomic.Int64{}, roles: map[string]balancer.Side{}, onSecondary: onSecondary}
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
		return
	}
	rc.addCommand(d)
	if readCommands[name] {
		s.count(connID)
	}
}

func (s *served) count(connID string) {
	host := hostOf(connID)
	s.mu.RLock()
	c, ok := s.byHost[host]
	role := s.roles[host]
	s.mu.RUnlock()
	if !ok {
		s.mu.Lock()
		if c, ok = s.byHost[host]; !ok {
			c = new(atomic.Int64)
			s.byHost[host] = c
		}
		s.mu.Unlock()
	}
	c.Add(1)
	switch role {
	case balancer.Primary:
		s.primary.Add(1)
	case balancer.Secondary:
		s.secondary.Add(1)
	default:
		s.other.Add(1)
	}
}

func (s *served) commandMonitor(next *event.CommandMonitor) *event.CommandMonitor {
	return &event.CommandMonitor{
		Started: func(ctx context.Context, e *event.CommandStartedEvent) {
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
		s.roles[host] = role
		s.mu.Unlock()
		if turned && s.onSecondary != nil {
			// The driver publishes the change before selection can see
			// it, so secondary reads stop before one can reach host.
			s.onSecondary()
		}
		if next != nil && next.ServerDescriptionChanged != nil {
			next.ServerDescriptionChanged(e)
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
		out.ByHost[h] = c.Load()
	}
	s.mu.RUnlock()
	return out
}
