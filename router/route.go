package router

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/balancer"
)

// LatencySource says which latency of a routed read the policy sees.
type LatencySource uint8

const (
	// CommandLatency (the default) is the time the read's commands spent on
	// a checked-out connection: from sending each command to its reply, as
	// the driver's command monitoring measures it, summed over the commands
	// of a unit. Waiting for server selection and for a pooled connection
	// is left out: those are client-side queues, not the server's speed
	// (see DESIGN.md, "Server-side latency").
	CommandLatency LatencySource = iota + 1
	// ClientLatency is the Decongestant paper's client-observed latency: the
	// whole call, from before server selection to the result.
	ClientLatency
)

// String returns "command" or "client".
func (s LatencySource) String() string {
	switch s {
	case CommandLatency:
		return "command"
	case ClientLatency:
		return "client"
	}
	return fmt.Sprintf("latency-source(%d)", uint8(s))
}

// ParseLatencySource accepts "command" and "client".
func ParseLatencySource(s string) (LatencySource, error) {
	switch s {
	case "command":
		return CommandLatency, nil
	case "client":
		return ClientLatency, nil
	}
	return 0, fmt.Errorf("unknown latency source %q (want command or client)", s)
}

// routedKey marks a routed read's context so the command monitor counts only
// routed reads (not writes, not the application's unrouted reads).
type routedKey struct{}

// routedCtx carries the routing decision through the driver to the command
// monitor, and the time the unit's commands spent on the wire back. One
// allocation per routed read.
type routedCtx struct {
	context.Context
	side uint8
	// wire is the summed duration of the unit's commands (ns) and cmds how
	// many there were, as reported by command monitoring.
	wire atomic.Int64
	cmds atomic.Int32
	// host is the member that served the unit's first read command.
	host atomic.Pointer[hostStats]
	// t is the per-member target the unit was sent to (nil otherwise),
	// whose reads in flight it counts in until recorded.
	t *target
}

// assign counts the unit in t's reads in flight (t may be nil).
func (c *routedCtx) assign(t *target) {
	if t != nil {
		c.t = t
		t.inflight.Add(1)
	}
}

func (c *routedCtx) Value(k any) any {
	if k == (routedKey{}) {
		return c
	}
	return c.Context.Value(k)
}

// routedFrom returns the routed context ctx derives from, or nil.
func routedFrom(ctx context.Context) *routedCtx {
	rc, _ := ctx.Value(routedKey{}).(*routedCtx)
	return rc
}

// addCommand adds one finished command's duration.
func (c *routedCtx) addCommand(d time.Duration) {
	c.wire.Add(int64(d))
	c.cmds.Add(1)
}

// pick flips the biased coin: Secondary with probability Fraction(). For
// driver-selected policies it always returns Secondary, whose read
// preference is the policy's.
func (r *Router) pick() balancer.Side {
	if r.sel.Mode != balancer.Split {
		return balancer.Secondary
	}
	f := math.Float64frombits(r.frac.Load())
	switch {
	case f <= 0:
		return balancer.Primary
	case f >= 1:
		return balancer.Secondary
	case rand.Float64() < f:
		return balancer.Secondary
	}
	return balancer.Primary
}

// mark returns a context that marks the reads made with it as routed to
// side, so they are counted by the member that serves them and their
// command time is collected.
func (r *Router) mark(ctx context.Context, s balancer.Side) *routedCtx {
	return &routedCtx{Context: ctx, side: uint8(s)}
}

// record adds a routed unit's latencies to its side's samples: the
// client-observed d, and the command time collected in rc when any command
// finished. Reads cancelled by their caller are not samples of the server's
// speed and are dropped.
func (r *Router) record(s balancer.Side, rc *routedCtx, d time.Duration, err error) {
	if rc.t != nil {
		rc.t.inflight.Add(-1)
	}
	if err != nil && errors.Is(err, context.Canceled) {
		return
	}
	r.lat[s].client.Record(d)
	wire, cmds := time.Duration(rc.wire.Load()), rc.cmds.Load()
	if cmds > 0 {
		r.lat[s].command.Record(wire)
	}
	if h := rc.host.Load(); h != nil {
		h.client.Record(d)
		if cmds > 0 {
			h.wire.Record(wire)
		}
	}
}

// choose picks where a unit of reads goes: a side for split and
// driver-selected policies (t nil), a target for per-member ones. A read in
// a transaction stays on the primary.
func (r *Router) choose(ctx context.Context) (balancer.Side, *target) {
	if r.sel.Mode != balancer.PerMember {
		return r.pick(), nil
	}
	tb := r.tab.Load()
	if inTransaction(ctx) || r.external {
		return balancer.Primary, r.primaryT
	}
	var t *target
	if after := causalAfter(ctx); r.rywOn && !after.IsZero() && len(tb.secs) > 0 {
		// Read-your-writes in a causal session: only members that have
		// applied the session's operation time, so the read does not wait
		// (afterClusterTime stays the safety net).
		t = tb.pickWhere(r.view().filter(ReadSpec{After: after}, tb))
		r.ryw.reads.Add(1)
		if t == tb.primary {
			r.ryw.held.Add(1)
		}
	} else {
		t = tb.pick()
	}
	if t == r.primaryT {
		return balancer.Primary, t
	}
	return balancer.Secondary, t
}

// Read is one routed unit of work (a query, or a read-only transaction made
// of several queries) started by Begin and finished by Done.
type Read struct {
	r  *Router
	rc *routedCtx
	t  *target
	br *bridge
	// Side is where the unit's reads go.
	Side balancer.Side
	// Host is the member a per-member policy chose ("" for the primary and
	// for the other policies, whose secondary the driver picks).
	Host string
	// Ctx must be used for every query of the unit. When the context given
	// to Begin carries a causally consistent session and the unit goes to
	// a member's own pool, Ctx carries a session of that pool advanced to
	// the application session's times, and Done advances the application
	// session past the unit's reads.
	Ctx   context.Context
	start time.Time
}

// Begin picks where a unit of reads goes. Use Database for handles with the
// unit's routing, and Ctx for every call.
func (r *Router) Begin(ctx context.Context) Read {
	s, t := r.choose(ctx)
	rc := r.mark(ctx, s)
	rd := Read{r: r, rc: rc, t: t, Side: s, Ctx: rc, start: time.Now()}
	if t != nil {
		rd.Host = t.host
		bctx, br, err := bridgeSession(rc, t)
		if err != nil {
			rd.t, rd.Side, rd.Host, rc.side = r.primaryT, balancer.Primary, "", uint8(balancer.Primary)
		}
		rd.Ctx, rd.br = bctx, br
		rc.assign(rd.t)
	}
	return rd
}

// Database returns the database handle for the unit's reads.
func (rd Read) Database(name string) *mongo.Database {
	return rd.r.Database(name).handle(rd.Side, rd.t)
}

// Done records the unit's latency under its side and member and returns the
// client-observed latency.
func (rd Read) Done(err error) time.Duration {
	d := time.Since(rd.start)
	rd.br.done()
	rd.r.record(rd.Side, rd.rc, d, err)
	return d
}
