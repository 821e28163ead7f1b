// Package sprobe measures how stale the reads a policy routes are, with the
// Decongestant paper's S workload (§4.1.5): one writer keeps writing the
// current time to a dedicated document; one reader probes periodically with
// two reads, one from the primary and one sent where the application's
// policy currently allows secondary reads.
//
// A probe's staleness is how long the member that served the second read had
// been missing an acknowledged write when the read was sent (see history): the
// writer records when each write was acknowledged, and which writes a failover
// lost. The Decongestant paper's measure, the primary's value minus the second
// read's, is kept as Sample.ValueGap; it counts a pause in the writes (an
// election) as staleness.
//
//	p, err := sprobe.Start(ctx, uri, router, sprobe.Config{})
//	defer p.Stop()
//	samples := p.Drain()
package sprobe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/clock"
)

// Policy is the view of the application's routing the probe needs: whether
// secondary reads are currently allowed, and with which read preference.
// *router.Router satisfies it.
type Policy interface {
	Fraction() float64
	ReadPref(balancer.Side) *readpref.ReadPref
}

// MemberRouter is a Policy that chooses the member of every read (a
// per-member policy): the probe's second read goes to a secondary it
// weights, on that member's own pool. *router.Router satisfies it.
type MemberRouter interface {
	// Weights returns the shares in force, and whether the policy routes
	// per member at all.
	Weights() (balancer.Weights, bool)
	// SecondaryCollection returns a collection on a secondary drawn by
	// the shares in force, and its host; ok is false when no secondary
	// has a share.
	SecondaryCollection(db, coll string) (c *mongo.Collection, host string, ok bool)
}

// Config tunes the probe. Zero values take the defaults.
type Config struct {
	// WriteInterval is the pause between the writer's writes (5 ms): the
	// writer must be at least as fast as the reader. Each write costs the
	// primary (and each secondary, replicating it): 200 a second took a
	// third of a member capped at 0.35 CPU, so a capped set wants fewer.
	WriteInterval time.Duration
	// ProbeInterval is the pause between probes (100 ms).
	ProbeInterval time.Duration
	// Database and Collection hold the probe document
	// ("decongestant"."sprobe"; bench puts it in the workload's database,
	// so a user with readWrite on that database only can run it).
	Database, Collection string
	// ID is the probe document's _id ("sprobe").
	ID string
	// Window is how long the writer's acknowledgements are kept (10 min):
	// a read staler than that is measured against the oldest one kept.
	Window time.Duration
	// ClientOptions are applied after the URI (credentials, TLS).
	ClientOptions []*options.ClientOptions
}

// The default pauses between the writer's writes and between probes.
const (
	DefaultWriteInterval = 5 * time.Millisecond
	DefaultProbeInterval = 100 * time.Millisecond
)

func (c *Config) defaults() {
	if c.WriteInterval <= 0 {
		c.WriteInterval = DefaultWriteInterval
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.Database == "" {
		c.Database = "decongestant"
	}
	if c.Collection == "" {
		c.Collection = "sprobe"
	}
	if c.ID == "" {
		c.ID = "sprobe"
	}
	if c.Window <= 0 {
		c.Window = 10 * time.Minute
	}
}

// Sample is one probe.
type Sample struct {
	// At is when the second read was sent.
	At time.Time
	// Staleness is how long the member had been missing an acknowledged,
	// not lost, write when the second read was sent (0: it had them all).
	Staleness time.Duration
	// ValueGap is the Decongestant paper's measure: the primary read's value
	// minus the second read's (>= 0).
	ValueGap time.Duration
	// Secondary is true when the second read was sent with a read
	// preference that allows a secondary.
	Secondary bool
	// Host is the member that served the second read.
	Host string
}

// probe is a taken probe awaiting judgement (see history.settled).
type probe struct {
	at        time.Time
	primary   int64
	second    int64
	secondary bool
	host      string
}

// Probe runs the writer and the reader until Stop.
type Probe struct {
	cfg    Config
	pol    Policy
	client *mongo.Client
	coll   *mongo.Collection
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// first is the value of the probe's first write: a secondary that does
	// not have the document yet is at least as stale as that write.
	first int64

	mu      sync.Mutex
	hist    history
	pending []probe
	stopped bool
	errs    int64
	lastErr error
}

// Start connects, writes the first value, and starts the writer and reader.
func Start(ctx context.Context, uri string, pol Policy, cfg Config) (*Probe, error) {
	cfg.defaults()
	co := append([]*options.ClientOptions{options.Client().ApplyURI(uri).SetAppName("decongestant-sprobe")}, cfg.ClientOptions...)
	// The writer must keep the primary's value moving while secondaries
	// lag, so it never waits for them: w:1 whatever the server's default.
	co = append(co, options.Client().SetWriteConcern(&writeconcern.WriteConcern{W: 1}),
		options.Client().SetMonitor(hostMonitor()))
	client, err := mongo.Connect(co...)
	if err != nil {
		return nil, fmt.Errorf("sprobe: connect: %w", err)
	}
	p := &Probe{cfg: cfg, pol: pol, client: client, hist: history{window: cfg.Window},
		coll: client.Database(cfg.Database).Collection(cfg.Collection)}
	first, err := p.write(ctx)
	if err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("sprobe: first write: %w", err)
	}
	p.first = first
	runCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.wg.Add(2)
	go p.writer(runCtx)
	go p.reader(runCtx)
	return p, nil
}

// Stop ends the probe and disconnects. Samples not drained yet are judged
// with what the writer saw and returned by the next Drain.
func (p *Probe) Stop() error {
	p.cancel()
	p.wg.Wait()
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	return p.client.Disconnect(context.Background())
}

// Drain returns the probes judged since the previous call: those for which
// a write issued after them has been acknowledged (a failover's lost writes
// are known by then), all of them after Stop. The others wait for the next
// call, normally a few milliseconds.
func (p *Probe) Drain() []Sample {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Sample
	keep := p.pending[:0]
	for _, pr := range p.pending {
		if !p.stopped && !p.hist.settled(pr.at) {
			keep = append(keep, pr)
			continue
		}
		out = append(out, Sample{At: pr.at, Staleness: p.hist.staleness(pr.second, pr.at),
			ValueGap:  time.Duration(max(pr.primary-pr.second, 0)) * time.Microsecond,
			Secondary: pr.secondary, Host: pr.host})
	}
	p.pending = keep
	return out
}

// LostWrites returns how many acknowledged probe writes were lost so far
// (rolled back in a failover: the writer uses w:1).
func (p *Probe) LostWrites() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hist.lostWrites()
}

// Errors returns the number of failed probes and writes, and the last error.
func (p *Probe) Errors() (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.errs, p.lastErr
}

func (p *Probe) fail(err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	p.mu.Lock()
	p.errs++
	p.lastErr = err
	p.mu.Unlock()
}

// write stores the current time (µs) in the probe document, records the
// acknowledgement with the value it replaced, and returns the value.
func (p *Probe) write(ctx context.Context) (int64, error) {
	now := time.Now().UnixMicro()
	var before struct {
		T int64 `bson:"t"`
	}
	err := p.coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: p.cfg.ID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: now}}}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.Before)).Decode(&before)
	if errors.Is(err, mongo.ErrNoDocuments) {
		err = nil // created by this write
	}
	if err != nil {
		return now, err
	}
	ack := time.Now()
	p.mu.Lock()
	p.hist.acked(now, before.T, ack)
	p.mu.Unlock()
	return now, nil
}

func (p *Probe) writer(ctx context.Context) {
	defer p.wg.Done()
	for ctx.Err() == nil {
		if _, err := p.write(ctx); err != nil {
			p.fail(fmt.Errorf("sprobe: write: %w", err))
		}
		clock.Sleep(ctx, p.cfg.WriteInterval)
	}
}

// read returns the probe document's value and the member that served it.
func (p *Probe) read(ctx context.Context, rp *readpref.ReadPref) (int64, string, error) {
	var doc struct {
		T int64 `bson:"t"`
	}
	var host string
	coll := p.coll.Database().Collection(p.cfg.Collection, options.Collection().SetReadPreference(rp))
	err := coll.FindOne(context.WithValue(ctx, hostKey{}, &host), bson.D{{Key: "_id", Value: p.cfg.ID}}).Decode(&doc)
	return doc.T, host, err
}

type hostKey struct{}

// hostMonitor stores the host that answered a find into the *string a
// read's context carries under hostKey.
func hostMonitor() *event.CommandMonitor {
	return &event.CommandMonitor{Succeeded: func(ctx context.Context, e *event.CommandSucceededEvent) {
		if h, ok := ctx.Value(hostKey{}).(*string); ok && e.CommandName == "find" {
			*h, _, _ = strings.Cut(e.ConnectionID, "[")
		}
	}}
}

// secondRead reads the probe document where the application's next read
// would go: a secondary the policy weights (per-member policies), the
// policy's secondary read preference while its fraction is above 0, else
// the primary.
func (p *Probe) secondRead(ctx context.Context) (v int64, host string, secondary bool, err error) {
	if mr, ok := p.pol.(MemberRouter); ok && perMember(mr) {
		if c, h, ok := mr.SecondaryCollection(p.cfg.Database, p.cfg.Collection); ok {
			var doc struct {
				T int64 `bson:"t"`
			}
			err := c.FindOne(ctx, bson.D{{Key: "_id", Value: p.cfg.ID}}).Decode(&doc)
			return doc.T, h, true, err
		}
		v, host, err := p.read(ctx, readpref.Primary())
		return v, host, false, err
	}
	if p.pol.Fraction() > 0 {
		v, host, err := p.read(ctx, p.pol.ReadPref(balancer.Secondary))
		return v, host, true, err
	}
	v, host, err = p.read(ctx, readpref.Primary())
	return v, host, false, err
}

func perMember(mr MemberRouter) bool {
	_, ok := mr.Weights()
	return ok
}

func (p *Probe) reader(ctx context.Context) {
	defer p.wg.Done()
	primary := readpref.Primary()
	for ctx.Err() == nil {
		clock.Sleep(ctx, p.cfg.ProbeInterval)
		if ctx.Err() != nil {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v1, _, err := p.read(rctx, primary)
		if err != nil {
			cancel()
			p.fail(fmt.Errorf("sprobe: primary read: %w", err))
			continue
		}
		at := time.Now()
		v2, host, secondary, err := p.secondRead(rctx)
		cancel()
		if errors.Is(err, mongo.ErrNoDocuments) {
			// The member has not replicated the probe document yet.
			v2, err = p.first-1, nil
		}
		if err != nil {
			p.fail(fmt.Errorf("sprobe: second read: %w", err))
			continue
		}
		p.mu.Lock()
		p.pending = append(p.pending, probe{at: at, primary: v1, second: v2, secondary: secondary, host: host})
		p.mu.Unlock()
	}
}
