// Package sprobe is seed 000's S workload (§4.1.5): one writer keeps writing
// the current time to a dedicated document; one reader probes periodically
// with two reads, one from the primary and one sent where the application's
// policy currently allows secondary reads. The staleness of a probe is the
// primary's value minus the second read's value.
//
//	p, err := sprobe.Start(ctx, uri, router, sprobe.Config{})
//	defer p.Stop()
//	samples := p.Drain()
package sprobe

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
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/balancer"
)

// Policy is the view of the application's routing the probe needs: whether
// secondary reads are currently allowed, and with which read preference.
// *router.Router satisfies it.
type Policy interface {
	Fraction() float64
	ReadPref(balancer.Side) *readpref.ReadPref
}

// Config tunes the probe. Zero values take the defaults.
type Config struct {
	// WriteInterval is the pause between the writer's writes (5 ms): the
	// writer must be at least as fast as the reader.
	WriteInterval time.Duration
	// ProbeInterval is the pause between probes (100 ms).
	ProbeInterval time.Duration
	// Database and Collection hold the probe document
	// ("decongestant"."sprobe").
	Database, Collection string
	// ID is the probe document's _id ("sprobe").
	ID string
	// ClientOptions are applied after the URI (credentials, TLS).
	ClientOptions []*options.ClientOptions
}

func (c *Config) defaults() {
	if c.WriteInterval <= 0 {
		c.WriteInterval = 5 * time.Millisecond
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = 100 * time.Millisecond
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
}

// Sample is one probe.
type Sample struct {
	At time.Time
	// Staleness is the primary's value minus the second read's (>= 0).
	Staleness time.Duration
	// Secondary is true when the second read was sent with a read
	// preference that allows a secondary.
	Secondary bool
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
	samples []Sample
	errs    int64
	lastErr error
}

// Start connects, writes the first value, and starts the writer and reader.
func Start(ctx context.Context, uri string, pol Policy, cfg Config) (*Probe, error) {
	cfg.defaults()
	co := append([]*options.ClientOptions{options.Client().ApplyURI(uri).SetAppName("decongestant-sprobe")}, cfg.ClientOptions...)
	// The writer must keep the primary's value moving while secondaries
	// lag, so it never waits for them: w:1 whatever the server's default.
	co = append(co, options.Client().SetWriteConcern(&writeconcern.WriteConcern{W: 1}))
	client, err := mongo.Connect(co...)
	if err != nil {
		return nil, fmt.Errorf("sprobe: connect: %w", err)
	}
	p := &Probe{cfg: cfg, pol: pol, client: client,
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

// Stop ends the probe and disconnects.
func (p *Probe) Stop() error {
	p.cancel()
	p.wg.Wait()
	return p.client.Disconnect(context.Background())
}

// Drain returns the samples taken since the previous call.
func (p *Probe) Drain() []Sample {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.samples
	p.samples = nil
	return out
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

// write stores the current time (µs) in the probe document and returns it.
func (p *Probe) write(ctx context.Context) (int64, error) {
	now := time.Now().UnixMicro()
	_, err := p.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: p.cfg.ID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: now}}}},
		options.UpdateOne().SetUpsert(true))
	return now, err
}

func (p *Probe) writer(ctx context.Context) {
	defer p.wg.Done()
	for ctx.Err() == nil {
		if _, err := p.write(ctx); err != nil {
			p.fail(fmt.Errorf("sprobe: write: %w", err))
		}
		sleep(ctx, p.cfg.WriteInterval)
	}
}

func (p *Probe) read(ctx context.Context, rp *readpref.ReadPref) (int64, error) {
	var doc struct {
		T int64 `bson:"t"`
	}
	coll := p.coll.Database().Collection(p.cfg.Collection, options.Collection().SetReadPreference(rp))
	err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: p.cfg.ID}}).Decode(&doc)
	return doc.T, err
}

func (p *Probe) reader(ctx context.Context) {
	defer p.wg.Done()
	primary := readpref.Primary()
	for ctx.Err() == nil {
		sleep(ctx, p.cfg.ProbeInterval)
		if ctx.Err() != nil {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v1, err := p.read(rctx, primary)
		if err != nil {
			cancel()
			p.fail(fmt.Errorf("sprobe: primary read: %w", err))
			continue
		}
		second, secondary := primary, false
		if p.pol.Fraction() > 0 {
			second, secondary = p.pol.ReadPref(balancer.Secondary), true
		}
		v2, err := p.read(rctx, second)
		cancel()
		if errors.Is(err, mongo.ErrNoDocuments) {
			// The member has not replicated the probe document yet.
			v2, err = p.first, nil
		}
		if err != nil {
			p.fail(fmt.Errorf("sprobe: second read: %w", err))
			continue
		}
		st := time.Duration(max(v1-v2, 0)) * time.Microsecond
		p.mu.Lock()
		p.samples = append(p.samples, Sample{At: time.Now(), Staleness: st, Secondary: secondary})
		p.mu.Unlock()
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
