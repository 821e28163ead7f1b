package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
)

// A target is where a measurement's clients connect and how they read.
type target struct {
	Name  string // direct, proxy-primary, proxy-routed, relay, relay-splice; "-unix" appended over a Unix socket, "-procsN" at GOMAXPROCS=N
	relay string // through proxyload's relay to the primary copying this way (rw or splice), not the proxy; "" for none
	variant
	pref *readpref.ReadPref
}

// A variant is one proxy (and relay) process: the network its clients
// reach it on (tcp or unix; "" for direct, which needs none) and its
// GOMAXPROCS (0: Go's default).
type variant struct {
	via   string
	procs int
}

// suffix names the variant in a target's name: "-unix" over a Unix
// socket, "-procsN" at GOMAXPROCS=N.
func (v variant) suffix() string {
	s := ""
	if v.via != "tcp" {
		s = "-" + v.via
	}
	if v.procs > 0 {
		s += "-procs" + strconv.Itoa(v.procs)
	}
	return s
}

// variantsOf is every pairing of vias (the networks the clients reach the
// proxy on) with procs (its GOMAXPROCS values), networks first.
func variantsOf(vias []string, procs []int) []variant {
	var vs []variant
	for _, via := range vias {
		for _, n := range procs {
			vs = append(vs, variant{via, n})
		}
	}
	return vs
}

// targetsOf is direct, then for each variant proxy-primary (through the
// proxy, not routed), proxy-routed (routed by the proxy's policy) and a
// relay for each of floor's ways to copy (bytes copied to the primary: the
// floor under any user-space proxy): relay (rw), relay-splice.
func targetsOf(vs []variant, floor []string) []target {
	ts := []target{{Name: "direct", pref: readpref.Primary()}}
	for _, v := range vs {
		ts = append(ts, target{Name: "proxy-primary" + v.suffix(), variant: v, pref: readpref.Primary()},
			target{Name: "proxy-routed" + v.suffix(), variant: v, pref: readpref.SecondaryPreferred()})
		for _, cp := range floor {
			name := "relay"
			if cp != "rw" {
				name += "-" + cp
			}
			ts = append(ts, target{Name: name + v.suffix(), variant: v, relay: cp, pref: readpref.Primary()})
		}
	}
	return ts
}

// measurement is one target's closed loop at one connection count.
type measurement struct {
	Target      string  `json:"target"`
	Conns       int     `json:"conns"`
	Rep         int     `json:"rep"`
	Ops         int64   `json:"ops"`
	Errors      int64   `json:"errors"`
	Seconds     float64 `json:"seconds"`
	OpsPerS     float64 `json:"ops_per_s"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	ClientCPUus float64 `json:"client_cpu_us_per_op"` // this process (the Go driver's goroutines included) per op
	// ServedBy counts the reads the proxy routed, by member, over the
	// measured time (its decongestant_member_reads_total); proxied targets
	// only: the reads kept on the primary (proxy-primary) are not routed.
	ServedBy map[string]int64 `json:"served_by,omitempty"`
	// Primary is the member the proxy took for the primary at the end of
	// the measurement (its decongestant_member_info), proxied targets only.
	Primary    string  `json:"primary,omitempty"`
	ProxyCPUus float64 `json:"proxy_cpu_us_per_op"` // the proxy (or relay) process per op (a proxy's idle work only, for direct)
}

// opsLoad drives one closed loop of conns clients: point reads by _id
// (writes: that share of updates by _id instead), each client one
// connection, for warmup then d.
type opsLoad struct {
	db, coll string
	records  int
	writes   float64
	// rate, when positive, paces the clients to that many operations a
	// second over all of them (each every conns/rate seconds): every
	// target then does the same work, so their CPU per operation compares
	// at the same load. 0: closed loops, each target as fast as it goes.
	rate     float64
	warmup   time.Duration
	duration time.Duration
	proxyPID int
	// profile, when set, is where the proxy's CPU profile over the
	// measured time is saved (by proxy).
	profile string
	proxy   *proxyProc
}

// run measures t at conns connections; uri is the replica set's or the
// proxy's.
func (l opsLoad) run(ctx context.Context, uri string, t target, conns, rep int) (measurement, error) {
	m := measurement{Target: t.Name, Conns: conns, Rep: rep}
	opts := options.Client().ApplyURI(uri).SetMaxPoolSize(uint64(conns)).SetMinPoolSize(uint64(conns)).
		SetReadPreference(t.pref)
	client, err := mongo.Connect(opts)
	if err != nil {
		return m, err
	}
	defer client.Disconnect(context.Background())
	coll := client.Database(l.db).Collection(l.coll)
	if err := client.Ping(ctx, readpref.Primary()); err != nil {
		return m, fmt.Errorf("%s: %w", t.Name, err)
	}
	var (
		tl tally
		wg sync.WaitGroup
	)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	for i := range conns {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), uint64(rep)))
			w := worker{t: &tl}
			defer w.done()
			pace := newPacer(interval(l.rate, conns), r, time.Now())
			for pace.wait(lctx) == nil {
				k := r.IntN(l.records)
				start := time.Now()
				var err error
				if l.writes > 0 && r.Float64() < l.writes {
					_, err = coll.UpdateOne(lctx, bson.D{{Key: "_id", Value: k}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
				} else {
					err = coll.FindOne(lctx, bson.D{{Key: "_id", Value: k}}).Err()
				}
				w.record(time.Since(start), err, lctx.Err() != nil)
			}
		})
	}
	if err := sleep(ctx, l.warmup); err != nil {
		return m, err
	}
	profiled := make(chan error, 1)
	if l.profile != "" {
		go func() { profiled <- l.proxy.profile(l.duration, l.profile) }()
	} else {
		profiled <- nil
	}
	var served0 map[string]float64
	if t.via != "" && t.relay == "" {
		if served0, _, err = l.proxy.memberReads(); err != nil {
			return m, err
		}
	}
	cpu0, pcpu0, t0 := selfCPU(), mustCPU(l.proxyPID), time.Now()
	tl.measuring.Store(true)
	err = sleep(ctx, l.duration)
	tl.measuring.Store(false)
	if perr := <-profiled; perr != nil && err == nil {
		err = fmt.Errorf("profiling the proxy: %w", perr)
	}
	cpu1, pcpu1, t1 := selfCPU(), mustCPU(l.proxyPID), time.Now()
	if served0 != nil && err == nil {
		served1, primary, serr := l.proxy.memberReads()
		if serr != nil {
			err = serr
		}
		m.ServedBy, m.Primary = map[string]int64{}, primary
		for member, n := range served1 {
			if d := int64(n - served0[member]); d > 0 {
				m.ServedBy[member] = d
			}
		}
	}
	stop()
	wg.Wait()
	if err != nil {
		return m, err
	}
	m.Ops, m.Errors, m.Seconds = tl.ops.Load(), tl.errs.Load(), t1.Sub(t0).Seconds()
	if m.Ops == 0 {
		return m, fmt.Errorf("%s at %d connections: no operation succeeded (%d errors)", t.Name, conns, m.Errors)
	}
	m.OpsPerS = round1(float64(m.Ops) / m.Seconds)
	m.P50us, m.P99us = tl.quantilesUS()
	m.ClientCPUus = round1(float64((cpu1 - cpu0).Microseconds()) / float64(m.Ops))
	if l.proxyPID > 0 {
		m.ProxyCPUus = round1(float64((pcpu1 - pcpu0).Microseconds()) / float64(m.Ops))
	}
	return m, nil
}

// load makes sure records documents _id 0..records-1 exist, through the
// replica set's URI.
func (l opsLoad) load(ctx context.Context, uri string) error {
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())
	coll := client.Database(l.db).Collection(l.coll)
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil {
		return err
	}
	if n == int64(l.records) {
		return nil
	}
	if err := coll.Drop(ctx); err != nil {
		return err
	}
	const batch = 1000
	payload := make([]byte, 100)
	for start := 0; start < l.records; start += batch {
		docs := make([]any, 0, batch)
		for k := start; k < min(start+batch, l.records); k++ {
			docs = append(docs, bson.D{{Key: "_id", Value: k}, {Key: "n", Value: 0}, {Key: "payload", Value: payload}})
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			return err
		}
	}
	return nil
}

// profileTarget is the target -profile profiles: the first routed one.
func profileTarget(ts []target) string {
	for _, t := range ts {
		if t.via != "" && t.relay == "" && t.pref.Mode() == readpref.SecondaryPreferredMode {
			return t.Name
		}
	}
	return ""
}

func mustCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	d, _ := procCPU(pid)
	return d
}

func quantileUS(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := min(int(q*float64(len(sorted))), len(sorted)-1)
	return round1(float64(sorted[i].Nanoseconds()) / 1e3)
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errors.Join(ctx.Err())
	}
}

// runOps measures every target at every count, reps times, with one proxy
// per variant (all running throughout; each target's proxy CPU is its own
// proxy's, direct's the first proxy's idle work) and one relay per variant
// and way to copy in floor.
func runOps(ctx context.Context, uri, bin string, extra []string, vs []variant, floor []string, counts []int, reps int, profile string, l opsLoad) ([]measurement, error) {
	type server interface {
		URI() string
		PID() int
		stop()
	}
	type relayKey struct {
		variant
		copy string
	}
	proxies, relays := map[variant]*proxyProc{}, map[relayKey]*relayProc{}
	defer func() {
		for _, p := range proxies {
			p.stop()
		}
		for _, r := range relays {
			r.stop()
		}
	}()
	primary := ""
	if len(floor) > 0 {
		var err error
		if primary, err = primaryOf(ctx, uri); err != nil {
			return nil, fmt.Errorf("the primary, for the relay: %w", err)
		}
	}
	for _, v := range vs {
		p, err := startProxy(ctx, bin, uri, v.via, v.procs, extra)
		if err != nil {
			return nil, err
		}
		proxies[v] = p
		for _, cp := range floor {
			r, err := startRelay(ctx, v.via, primary, cp, v.procs)
			if err != nil {
				return nil, err
			}
			relays[relayKey{v, cp}] = r
		}
	}
	targets := targetsOf(vs, floor)
	profiled := profileTarget(targets)
	var out []measurement
	for _, n := range counts {
		for rep := range reps {
			for i := range targets {
				t := targets[(i+rep)%len(targets)]
				lt, u := l, uri
				var srv server = proxies[vs[0]]
				switch {
				case t.relay != "":
					srv = relays[relayKey{t.variant, t.relay}]
				case t.via != "":
					srv = proxies[t.variant]
					lt.proxy = proxies[t.variant]
				}
				if t.via != "" {
					u = srv.URI()
				}
				lt.proxyPID = srv.PID()
				fmt.Fprintf(os.Stderr, "proxyload: %s, %d connections, repetition %d/%d\n", t.Name, n, rep+1, reps)
				if profile != "" && rep == 0 && t.Name == profiled && n == slices.Max(counts) {
					lt.profile = profile
				}
				m, err := lt.run(ctx, u, t, n, rep+1)
				if err != nil {
					return out, err
				}
				out = append(out, m)
			}
		}
	}
	return out, nil
}
