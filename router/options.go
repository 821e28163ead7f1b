package router

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/monitor"
)

type config struct {
	policy         balancer.Policy
	monitor        monitor.Config
	clientOpts     []*options.ClientOptions
	onEvent        func(Event)
	connectTimeout time.Duration
	rttQuantile    float64
	latency        LatencySource
	hints          *hints.Config
	logger         *slog.Logger
	external       bool
	ryw            bool
}

// Option configures a Router.
type Option func(*config) error

// WithPolicy sets the routing policy (default: leastwait with its defaults and a
// 10 s staleness bound; the Decongestant paper's Algorithm 1 is
// balancer.NewDecongestant).
func WithPolicy(p balancer.Policy) Option {
	return func(c *config) error {
		if p == nil {
			return errors.New("router: nil policy")
		}
		c.policy = p
		return nil
	}
}

// WithMonitor sets the RTT and lag polling intervals, timeouts and the lag
// source: by default (monitor.SourceAuto) each poll asks replSetGetStatus,
// else the heartbeat, else every member's hello, among those the user is
// authorized for (monitor.LagSource). The heartbeat writes one small
// document every poll in Heartbeat's namespace (default: the URI's
// database, else "decongestant", collection "decongestant_heartbeat"): give
// the database your application's user may write (readWrite on it is
// enough), the one your collections are in. A zero LagInterval is derived
// from the policy's staleness bound (balancer.LagIntervalFor: a fifth of the
// bound, at most 1 s).
func WithMonitor(m monitor.Config) Option {
	return func(c *config) error { c.monitor = m; return nil }
}

// WithClientOptions adds driver options (credentials, TLS, pool sizes,
// your own monitors, which are chained) applied after the URI.
func WithClientOptions(opts ...*options.ClientOptions) Option {
	return func(c *config) error { c.clientOpts = append(c.clientOpts, opts...); return nil }
}

// WithEvents registers a callback for lag polls and period decisions. It
// must return quickly and must not call Close or the driver: it may run
// inside the driver's topology update.
func WithEvents(f func(Event)) Option {
	return func(c *config) error { c.onEvent = f; return nil }
}

// WithRTTQuantile sets which quantile of a period's ping RTTs estimates the
// network round trip subtracted from read latency: 0.5 is the Decongestant
// paper's median, 0 the minimum (the default; see DESIGN.md: on CPU-starved
// members a ping waits for the CPU like a read does, and its median absorbs the
// very congestion the ratio must see).
func WithRTTQuantile(q float64) Option {
	return func(c *config) error {
		if q < 0 || q > 1 || q != q {
			return fmt.Errorf("router: RTT quantile %v must be in [0, 1]", q)
		}
		c.rttQuantile = q
		return nil
	}
}

// WithLatencySource sets which latency of a read the policy sees:
// CommandLatency (the default) or the Decongestant paper's ClientLatency.
func WithLatencySource(s LatencySource) Option {
	return func(c *config) error {
		if s != CommandLatency && s != ClientLatency {
			return fmt.Errorf("router: invalid latency source %v", s)
		}
		c.latency = s
		return nil
	}
}

// WithReadYourWrites says where a per-member policy sends the reads of a
// causally consistent session that has written (or read) at an operation
// time: on, only to members the router has seen apply that time (lag polls,
// replies), else to the primary, so the read never waits on a lagging
// secondary; off (the default, the papers' behaviour: the Decongestant
// paper's TPC-C reads wait on the secondary they were sent to), where the
// shares say, where the member waits until it has applied it
// (afterClusterTime: causality holds either way). ReadYourWrites counts the
// reads and the ones kept on the primary.
func WithReadYourWrites(on bool) Option {
	return func(c *config) error { c.ryw = on; return nil }
}

// WithConnectTimeout bounds how long Connect waits for the replica set
// (default 10 s).
func WithConnectTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("router: connect timeout %v must be positive", d)
		}
		c.connectTimeout = d
		return nil
	}
}
