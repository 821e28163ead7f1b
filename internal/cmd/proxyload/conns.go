package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// connsResult is one run with n raw client connections: through a fresh
// proxy, or (direct) straight to the primary, where the memory, CPU and
// threads, the proxy's, are not measured.
type connsResult struct {
	Target           string  `json:"target"` // proxy or direct
	Conns            int     `json:"conns"`
	IdleBytesPerConn float64 `json:"idle_bytes_per_conn"`    // resident memory the idle connections added, per connection
	IdleGoPerConn    float64 `json:"idle_go_bytes_per_conn"` // Go heap and stacks in use they added (after a GC), per connection
	RSSIdleMB        float64 `json:"rss_idle_mb"`
	Ops              int64   `json:"ops"`
	Errors           int64   `json:"errors"`
	FirstError       string  `json:"first_error,omitempty"`
	OpsPerS          float64 `json:"ops_per_s"`
	P50us            float64 `json:"p50_us"`
	P99us            float64 `json:"p99_us"`
	ProxyCPUus       float64 `json:"proxy_cpu_us_per_op"`
	PeakRSSMB        float64 `json:"peak_rss_mb"` // VmHWM over the whole run
	Threads          int     `json:"threads"`
}

// connsLoad opens n raw connections to a proxy (each says hello, as
// drivers do), measures the memory they hold idle, then sends a fixed total
// rate of operations spread over all of them: point reads routed
// (secondaryPreferred) and that share of updates. The rate is the same at
// every n, so latency shows what the connections cost, not a longer queue.
type connsLoad struct {
	db, coll string
	records  int
	writes   float64
	rate     float64 // operations a second over all connections
	idle     time.Duration
	duration time.Duration
}

// run measures n connections through p, or straight to the member at
// direct when p is nil.
func (l connsLoad) run(ctx context.Context, p *proxyProc, direct string, n int) (connsResult, error) {
	res := connsResult{Target: "proxy", Conns: n}
	network, addr := "tcp", direct
	if p == nil {
		res.Target = "direct"
	} else {
		network, addr = p.Network, p.Addr
		if err := sleep(ctx, 2*time.Second); err != nil { // the proxy's router settles
			return res, err
		}
	}
	var before procMemory
	var goBefore int64
	if p != nil {
		var err error
		if before, err = readMemory(p.PID()); err != nil {
			return res, err
		}
		if goBefore, err = p.runtimeMemory(); err != nil {
			return res, err
		}
	}
	conns, err := dialAll(ctx, network, addr, n)
	defer func() {
		for _, c := range conns {
			c.nc.Close()
		}
	}()
	if err != nil {
		return res, err
	}
	if err := sleep(ctx, l.idle); err != nil {
		return res, err
	}
	if p != nil {
		idle, err := readMemory(p.PID())
		if err != nil {
			return res, err
		}
		res.IdleBytesPerConn = float64(idle.RSS-before.RSS) / float64(n)
		goIdle, err := p.runtimeMemory()
		if err != nil {
			return res, err
		}
		res.IdleGoPerConn = float64(goIdle-goBefore) / float64(n)
		res.RSSIdleMB = mb(idle.RSS)
	}

	var (
		tl tally
		wg sync.WaitGroup
	)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	every := interval(l.rate, n)
	for i, c := range conns {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			w := worker{t: &tl}
			defer w.done()
			pace := newPacer(every, r, time.Now())
			for lctx.Err() == nil {
				if pace.wait(lctx) != nil {
					break
				}
				k := r.IntN(l.records)
				write := r.Float64() < l.writes
				start := time.Now()
				err := c.roundTrip(l.request(k, write))
				w.record(time.Since(start), err, lctx.Err() != nil)
			}
		})
	}
	// A warm-up of one interval, so every connection has sent once.
	if err := sleep(ctx, every+time.Second); err != nil {
		return res, err
	}
	pid := 0
	if p != nil {
		pid = p.PID()
	}
	pcpu0, t0 := mustCPU(pid), time.Now()
	tl.measuring.Store(true)
	err = sleep(ctx, l.duration)
	tl.measuring.Store(false)
	pcpu1, t1 := mustCPU(pid), time.Now()
	stop()
	wg.Wait()
	if err != nil {
		return res, err
	}
	res.Ops, res.Errors, res.FirstError = tl.ops.Load(), tl.errs.Load(), tl.firstError()
	res.OpsPerS = round1(float64(res.Ops) / t1.Sub(t0).Seconds())
	res.P50us, res.P99us = tl.quantilesUS()
	if p == nil {
		return res, nil
	}
	end, err := readMemory(pid)
	if err != nil {
		return res, err
	}
	if res.Ops > 0 {
		res.ProxyCPUus = round1(float64((pcpu1 - pcpu0).Microseconds()) / float64(res.Ops))
	}
	res.PeakRSSMB, res.Threads = mb(end.HWM), end.Threads
	return res, nil
}

// request is the body of a routed point read of key k, or of an update of
// it.
func (l connsLoad) request(k int, write bool) bsoncore.Document {
	var d bson.D
	if write {
		d = bson.D{{Key: "update", Value: l.coll}, {Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: k}}},
			{Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}}}}},
			{Key: "$db", Value: l.db}}
	} else {
		d = bson.D{{Key: "find", Value: l.coll}, {Key: "filter", Value: bson.D{{Key: "_id", Value: k}}},
			{Key: "limit", Value: 1}, {Key: "singleBatch", Value: true}, {Key: "$db", Value: l.db},
			{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}}}
	}
	b, _ := bson.Marshal(d)
	return b
}

// rawConn is one client connection speaking OP_MSG itself.
type rawConn struct {
	nc  net.Conn
	ids int32
}

// dialAll opens n connections to addr, 64 at a time, each saying hello.
func dialAll(ctx context.Context, network, addr string, n int) ([]*rawConn, error) {
	conns := make([]*rawConn, n)
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first atomic.Value
	)
	hello, _ := bson.Marshal(bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
	for range 64 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				nc, err := net.DialTimeout(network, addr, 10*time.Second)
				if err != nil {
					first.CompareAndSwap(nil, fmt.Errorf("connection %d: %w", i, err))
					return
				}
				c := &rawConn{nc: nc}
				conns[i] = c
				if err := c.roundTrip(hello); err != nil {
					first.CompareAndSwap(nil, fmt.Errorf("hello on connection %d: %w", i, err))
					return
				}
			}
		})
	}
	wg.Wait()
	out := slices.DeleteFunc(conns, func(c *rawConn) bool { return c == nil })
	if err, ok := first.Load().(error); ok {
		return out, err
	}
	return out, ctx.Err()
}

// roundTrip sends body as an OP_MSG and reads the reply, which must say
// ok: 1.
func (c *rawConn) roundTrip(body bsoncore.Document) error {
	c.ids++
	if err := c.nc.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return err
	}
	if _, err := c.nc.Write(wire.AppendMsg(nil, c.ids, 0, 0, body)); err != nil {
		return err
	}
	b, err := wire.ReadMessage(c.nc, 0)
	if err != nil {
		return err
	}
	m, err := wire.Parse(b)
	if err != nil {
		return err
	}
	if ok, err := okOf(m.Body); !ok {
		return err
	}
	return nil
}

// okOf reads a reply's ok field; not ok comes with the reply's errmsg.
func okOf(doc bsoncore.Document) (bool, error) {
	v, err := doc.LookupErr("ok")
	if err != nil {
		return false, errors.New("a reply without ok")
	}
	var ok bool
	switch v.Type {
	case bsoncore.TypeDouble:
		ok = v.Double() == 1
	case bsoncore.TypeInt32:
		ok = v.Int32() == 1
	case bsoncore.TypeInt64:
		ok = v.Int64() == 1
	}
	if ok {
		if _, err := doc.LookupErr("writeErrors"); err == nil {
			return false, fmt.Errorf("write errors: %s", doc.Lookup("writeErrors"))
		}
		return true, nil
	}
	msg, _ := doc.Lookup("errmsg").StringValueOK()
	return false, fmt.Errorf("not ok: %s", msg)
}

func mb(b int64) float64 { return round1(float64(b) / (1 << 20)) }

// runConns runs the raw-connection load at every count, each on a fresh
// proxy listening on via (tcp or unix) and, at counts up to directMax, the
// same load straight to the primary after it (directMax 0: never).
func runConns(ctx context.Context, uri, bin, via string, procs int, extra []string, counts []int, directMax int, l connsLoad) ([]connsResult, error) {
	primary := ""
	if directMax > 0 {
		var err error
		if primary, err = primaryOf(ctx, uri); err != nil {
			return nil, fmt.Errorf("the primary, for -direct: %w", err)
		}
	}
	var out []connsResult
	for _, n := range counts {
		fmt.Fprintf(os.Stderr, "proxyload: %d raw connections through the proxy\n", n)
		p, err := startProxy(ctx, bin, uri, via, procs, extra)
		if err != nil {
			return out, err
		}
		r, err := l.run(ctx, p, "", n)
		p.stop()
		if err != nil {
			return out, fmt.Errorf("%d connections: %w", n, err)
		}
		out = append(out, r)
		switch {
		case directMax == 0:
			continue
		case n > directMax:
			out = append(out, connsResult{Target: "direct", Conns: n, FirstError: fmt.Sprintf("skipped: more than -direct-max %d connections straight to one member", directMax)})
			continue
		}
		fmt.Fprintf(os.Stderr, "proxyload: %d raw connections straight to the primary\n", n)
		if r, err = l.run(ctx, nil, primary, n); err != nil {
			if ctx.Err() != nil {
				return out, err
			}
			// The member refusing that many connections is the baseline's
			// result, not the measurement's failure (a mongod serves each
			// connection with a thread of its own).
			r = connsResult{Target: "direct", Conns: n, FirstError: err.Error()}
		}
		out = append(out, r)
	}
	return out, nil
}
