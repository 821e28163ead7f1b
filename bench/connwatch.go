package bench

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/decongestant/decongestant/metrics"
)

// connWatch counts the connections the routed client opens per member and
// times every connection checkout (the wait for a pooled connection, which
// the client-observed latency contains and the wire time does not). A period
// that opens many connections to a member is one where reads queued for
// them: the driver opens at most two at a time per member (maxConnecting).
type connWatch struct {
	checkout *metrics.Histogram
	mu       sync.Mutex
	opened   map[string]int64
}

func newConnWatch() *connWatch {
	return &connWatch{checkout: metrics.NewHistogram(), opened: map[string]int64{}}
}

func (p *connWatch) monitor() *event.PoolMonitor {
	return &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		switch e.Type {
		case event.ConnectionCreated:
			p.mu.Lock()
			p.opened[e.Address]++
			p.mu.Unlock()
		case event.ConnectionCheckedOut:
			p.checkout.Record(e.Duration)
		}
	}}
}

// take returns the connections opened per member since the last call.
func (p *connWatch) take() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.opened) == 0 {
		return nil
	}
	out := p.opened
	p.opened = map[string]int64{}
	return out
}
