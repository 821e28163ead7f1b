package router

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// target is where a per-member read goes: the primary (client nil: the
// routed client with read preference primary, so an election never leaves a
// read on a stepped-down member) or one member over its own direct
// connection pool.
type target struct {
	host   string        // "" for the primary
	client *mongo.Client // nil for the primary
	// inflight counts the routed units on the target now.
	inflight atomic.Int64
	// last is when a per-read rule last sent it a read (Unix ns), for
	// probing (balancer.Choice.ProbeEvery).
	last atomic.Int64
}

// memberPools are the direct clients of the members, one per host, opened
// when the routed client first sees a host as primary or secondary and
// closed a while after the host leaves the replica set. Only per-member
// policies open them.
type memberPools struct {
	open func(host string) (*mongo.Client, error)
	// grace is how long a removed member's pool stays open, so reads
	// already routed to it finish.
	grace time.Duration

	mu      sync.Mutex
	byHost  map[string]*target
	closing map[string]*time.Timer
	closed  bool
	wg      sync.WaitGroup
	// changed is called (without mu) when the set of pools changes.
	changed func()
}

func newMemberPools(open func(string) (*mongo.Client, error), changed func()) *memberPools {
	return &memberPools{open: open, grace: 30 * time.Second, byHost: map[string]*target{},
		closing: map[string]*time.Timer{}, changed: changed}
}

// memberClientOptions are the routed client's options pointed at one host
// over a direct connection, with the router's command and pool monitors.
func memberClientOptions(base []*options.ClientOptions, host string) []*options.ClientOptions {
	return append(base, options.Client().SetHosts([]string{host}).SetDirect(true).
		SetReadPreference(readpref.Primary()))
}

// ensure opens host's pool unless it exists; a pending close is cancelled.
func (p *memberPools) ensure(host string) {
	p.mu.Lock()
	if t, ok := p.closing[host]; ok {
		t.Stop()
		delete(p.closing, host)
	}
	if _, ok := p.byHost[host]; ok || p.closed {
		p.mu.Unlock()
		return
	}
	c, err := p.open(host)
	if err != nil {
		p.mu.Unlock()
		return // the next description change retries
	}
	p.byHost[host] = &target{host: host, client: c}
	p.mu.Unlock()
	p.changed()
}

// remove closes host's pool after the grace period.
func (p *memberPools) remove(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byHost[host]; !ok || p.closed {
		return
	}
	if _, ok := p.closing[host]; ok {
		return
	}
	p.closing[host] = time.AfterFunc(p.grace, func() { p.closeNow(host) })
}

func (p *memberPools) closeNow(host string) {
	p.mu.Lock()
	t, ok := p.byHost[host]
	delete(p.byHost, host)
	delete(p.closing, host)
	p.mu.Unlock()
	if ok {
		p.changed()
		if t.client != nil {
			_ = t.client.Disconnect(context.Background())
		}
	}
}

// get returns host's pool, nil when there is none.
func (p *memberPools) get(host string) *target {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byHost[host]
}

// closeAll disconnects every pool; no pool opens afterwards.
func (p *memberPools) closeAll(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	for _, t := range p.closing {
		t.Stop()
	}
	all := p.byHost
	p.byHost = map[string]*target{}
	p.mu.Unlock()
	var first error
	for _, t := range all {
		if t.client == nil {
			continue
		}
		if err := t.client.Disconnect(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}
