package proxysoak

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/internal/clock"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/proxy"
	"github.com/decongestant/decongestant/workload/sprobe"
)

// soakUser is the proxy user the clients authenticate as.
const soakUser = "soak"

// changeStreamGrace is how long the change stream may take, after the
// clients stopped, to report the last acknowledged inserts.
const changeStreamGrace = time.Minute

// Run runs one soak and returns its results, judged (Result.Pass). The
// error says the soak could not run; a failed target is in the result.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dir := o.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "decongestant-soak-")
		if err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	logf, err := os.Create(filepath.Join(dir, "proxy.log"))
	if err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	defer logf.Close()
	log := &lockedFile{f: logf}

	cl, err := setCluster(ctx, &o, dir)
	if err != nil {
		return nil, err
	}
	if o.ClusterDir == "" {
		defer func() {
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_ = cl.Down(dctx)
		}()
	}
	if o.ProxyURI != "" {
		return soakRunning(ctx, &o, cl, dir)
	}
	usersFile, password, err := writeUsers(dir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Progress, "soak: starting the proxy (%s)\n", o.ProxyCommand[0])
	px, err := startProxy(ctx, o.ProxyCommand, o.ProxyArgs, cl.URI(), usersFile, o.Bound, log)
	if err != nil {
		return nil, err
	}
	defer px.stop()
	proxyURI := fmt.Sprintf("mongodb://%s:%s@%s/?authSource=admin", soakUser, url.QueryEscape(password), px.addr)
	uriFile := filepath.Join(dir, "proxy-uri")
	if err := os.WriteFile(uriFile, []byte(proxyURI), 0o600); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	t := target{uri: proxyURI, uriFile: uriFile, addr: px.addr, pid: px.pid(), metrics: px.metrics,
		exited: func() string {
			if gone, err := px.exited(); gone {
				return fmt.Sprintf("the proxy exited during the soak: %v; its last output: %s", err, px.log.tail())
			}
			return ""
		}}
	return soak(ctx, &o, cl, t, dir)
}

// target is the proxy under soak: how clients reach it, and how it is
// watched.
type target struct {
	uri, uriFile string
	addr         string // host:port, for the hostile connections
	pid          int    // 0: not sampled
	metrics      string // host:port of its profiles; "": no live heap
	exited       func() string
}

// soakRunning soaks the proxy o.ProxyURI names.
func soakRunning(ctx context.Context, o *Options, cl *cluster.Cluster, dir string) (*Result, error) {
	cs, err := connstring.ParseAndValidate(o.ProxyURI)
	if err != nil || len(cs.Hosts) != 1 {
		return nil, fmt.Errorf("soak: the proxy's URI %s: want one host:port", redact.URI(o.ProxyURI))
	}
	uriFile := filepath.Join(dir, "proxy-uri")
	if err := os.WriteFile(uriFile, []byte(o.ProxyURI), 0o600); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	t := target{uri: o.ProxyURI, uriFile: uriFile, addr: cs.Hosts[0], pid: o.ProxyPID, metrics: o.ProxyMetrics,
		exited: func() string {
			if o.ProxyPID != 0 && !processExists(o.ProxyPID) {
				return fmt.Sprintf("process %d is gone", o.ProxyPID)
			}
			return ""
		}}
	return soak(ctx, o, cl, t, dir)
}

func processExists(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

// setCluster opens o.ClusterDir, or starts a 3-member set in dir/rs.
func setCluster(ctx context.Context, o *Options, dir string) (*cluster.Cluster, error) {
	if o.ClusterDir != "" {
		cl, err := cluster.Open(o.ClusterDir)
		if err != nil {
			return nil, fmt.Errorf("soak: --cluster-dir: %w", err)
		}
		if cl.Security().Auth {
			return nil, fmt.Errorf("soak: the cluster in %s has access control: the soak needs one without (its proxy connects with a bare URI)", o.ClusterDir)
		}
		return cl, nil
	}
	fmt.Fprintf(o.Progress, "soak: starting a 3-member replica set in %s\n", filepath.Join(dir, "rs"))
	cl, err := cluster.Start(ctx, cluster.Config{Dir: filepath.Join(dir, "rs"), Mongod: o.Mongod, DieWithParent: true, Progress: o.Progress})
	if err != nil {
		return nil, fmt.Errorf("soak: start the replica set: %w", err)
	}
	return cl, nil
}

// writeUsers writes a users file with the soak user and a random password.
func writeUsers(dir string) (file, password string, err error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("soak: %w", err)
	}
	password = hex.EncodeToString(b)
	creds := &proxy.Credentials{}
	if _, err := creds.SetPassword(soakUser, "admin", password, 0); err != nil {
		return "", "", fmt.Errorf("soak: %w", err)
	}
	file = filepath.Join(dir, "users.json")
	if err := creds.WriteFile(file); err != nil {
		return "", "", fmt.Errorf("soak: %w", err)
	}
	return file, password, nil
}

// secondaryReads is the S probe's view of routing: every probe's second
// read is sent with secondaryPreferred, which the proxy routes (spillway)
// within its bound.
type secondaryReads struct{}

func (secondaryReads) Fraction() float64 { return 1 }
func (secondaryReads) ReadPref(balancer.Side) *readpref.ReadPref {
	return readpref.SecondaryPreferred()
}

func soak(ctx context.Context, o *Options, cl *cluster.Cluster, t target, dir string) (*Result, error) {
	proxyURI, uriFile := t.uri, t.uriFile
	if _, pyN := o.split(); pyN > 0 {
		if err := checkPymongo(ctx, o.Python); err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
	}
	r := &Result{Version: FormatVersion, Started: time.Now().UTC(), Settings: o.shape(), BaselineP99MS: o.BaselineP99MS}
	r.Settings["hostile"] = fmt.Sprint(!o.NoHostile)
	r.Settings["replica_set"] = redact.URI(cl.URI())
	r.Settings["proxy_args"] = fmt.Sprint(o.ProxyArgs)
	direct, err := mongo.Connect(options.Client().ApplyURI(cl.URI()))
	if err != nil {
		return nil, fmt.Errorf("soak: connect to the replica set: %w", err)
	}
	defer direct.Disconnect(context.Background())
	db := direct.Database(dbName)
	if err := db.Drop(ctx); err != nil {
		return nil, fmt.Errorf("soak: drop the soak database: %w", err)
	}
	w, cs, err := newWatcher(ctx, proxyURI)
	if err != nil {
		return nil, err
	}
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	watched := make(chan struct{})
	go func() { defer close(watched); w.run(watchCtx, cs) }()
	defer func() { stopWatch(); <-watched }()

	probe, err := sprobe.Start(ctx, proxyURI, secondaryReads{}, sprobe.Config{Database: dbName,
		WriteInterval: 50 * time.Millisecond, ProbeInterval: 250 * time.Millisecond})
	if err != nil {
		return nil, fmt.Errorf("soak: S probe through the proxy: %w", err)
	}
	probeStopped := false
	defer func() {
		if !probeStopped {
			probe.Stop()
		}
	}()

	start := time.Now()
	bounds, names := phaseBounds(o.Schedule)
	rec := newRecorder(start, bounds)
	smp := &sampler{pid: t.pid, metrics: t.metrics, start: start, client: &http.Client{}, warmup: warmup(o.Duration)}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() { defer close(sampled); smp.run(sampleCtx, o.SampleInterval) }()
	defer func() { stopSampling(); <-sampled }()

	var evMu sync.Mutex
	runner := faults.Start(ctx, cl, len(o.Schedule), start, func(ts float64, kind, detail string) {
		evMu.Lock()
		defer evMu.Unlock()
		r.Faults = append(r.Faults, fmt.Sprintf("t=%.1fs %s: %s", ts, kind, detail))
	}, &faults.LockedWriter{W: o.Progress}, "soak")
	finished := false
	defer func() {
		if !finished { // the soak failed or was interrupted: restore the set all the same
			_ = runner.Finish(ctx)
		}
	}()

	runCtx, stopRun := context.WithTimeout(ctx, o.Duration)
	defer stopRun()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); schedule(runCtx, o.Schedule, cl, runner, start) }()
	var hs *hostile
	if !o.NoHostile {
		hs = &hostile{addr: t.addr, cfg: o.Hostile}
		wg.Add(1)
		go func() { defer wg.Done(); _ = hs.run(runCtx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); progress(runCtx, o, rec, smp, start) }()
	goN, pyN := o.split()
	fmt.Fprintf(o.Progress, "soak: %d Go and %d pymongo connections for %v through %s, hostile connections %v\n",
		goN, pyN, o.Duration, t.addr, !o.NoHostile)
	var clientErrs [2]error
	wg.Add(2)
	go func() { defer wg.Done(); clientErrs[0] = goClients(runCtx, o, proxyURI, goN, rec) }()
	go func() {
		defer wg.Done()
		if pyN > 0 {
			clientErrs[1] = pyClients(runCtx, o, uriFile, dir, pyN, rec)
		}
	}()
	wg.Wait()
	end := time.Since(start)
	if err := errors.Join(clientErrs[:]...); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("soak: interrupted: %w", ctx.Err())
	}
	fmt.Fprintf(o.Progress, "soak: clients stopped after %.0fs; restoring the cluster and checking\n", end.Seconds())
	finished = true
	if err := runner.Finish(ctx); err != nil {
		fmt.Fprintf(o.Progress, "soak: %v\n", err)
	}
	probe.Stop()
	probeStopped = true
	r.Reads = judgeProbes(probe.Drain(), o.Bound)
	if n, err := probe.Errors(); n > 0 {
		r.Reads.ProbeErrors, r.Reads.LastProbeErr = n, err.Error()
	}
	r.Reads.RoutedReadOps = rec.attempts["read"]
	if o.AfterClients != nil {
		if err := o.AfterClients(ctx, db, slices.Sorted(maps.Keys(rec.acked))); err != nil {
			return nil, fmt.Errorf("soak: %w", err)
		}
	}
	if r.Writes, err = checkWrites(ctx, db, rec.acked); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	r.Writes.Attempts = rec.attempts["insert"]
	if r.Transactions, err = checkCounters(ctx, db, rec.committed); err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	missed := w.missing(rec.acked)
	for deadline := time.Now().Add(changeStreamGrace); len(missed) > 0 && time.Now().Before(deadline); missed = w.missing(rec.acked) {
		clock.Sleep(ctx, time.Second)
	}
	slices.Sort(missed)
	r.ChangeStream = w.stats(rec.acked, missed)
	stopSampling()
	<-sampled
	r.Proxy = smp.usage()
	r.ProxyExited = t.exited()
	r.DurationS = end.Seconds()
	r.Phases, r.Overall = rec.phases(names, end)
	r.Errors = rec.kinds
	if hs != nil {
		r.Hostile = hs.stats()
	}
	Judge(r)
	return r, nil
}

// schedule hands each fault step's actions to the runner when it is due,
// picking the members by their roles then.
func schedule(ctx context.Context, steps []FaultStep, cl *cluster.Cluster, runner *faults.Runner, start time.Time) {
	for _, s := range steps {
		if !clock.Sleep(ctx, time.Until(start.Add(s.At))) {
			return
		}
		var primary string
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if p, err := cl.Primary(pctx); err == nil {
			primary = p.Name
		}
		cancel()
		var secs []string
		for _, m := range cl.Members() {
			if m.Name != primary {
				secs = append(secs, m.Name)
			}
		}
		runner.Enqueue(s.Actions(primary, secs))
	}
}

// warmup is the start of a run the live heap is not judged over: a tenth,
// at most a minute.
func warmup(d time.Duration) time.Duration { return min(d/10, time.Minute) }

// judgeProbes counts the S probe's reads beyond the bound.
func judgeProbes(samples []sprobe.Sample, bound time.Duration) Reads {
	rd := Reads{BoundMS: float64(bound.Milliseconds()), Probes: int64(len(samples))}
	for _, s := range samples {
		rd.MaxStaleMS = max(rd.MaxStaleMS, float64(s.Staleness.Milliseconds()))
		if s.Secondary && s.Staleness > bound {
			rd.BeyondBound++
		}
	}
	return rd
}

// progress prints a line every 30s.
func progress(ctx context.Context, o *Options, rec *recorder, smp *sampler, start time.Time) {
	for clock.Sleep(ctx, 30*time.Second) {
		rec.mu.Lock()
		var ops, errs int64
		for i, xs := range rec.lat {
			ops += int64(len(xs))
			errs += rec.errs[i]
		}
		rec.mu.Unlock()
		u := smp.usage()
		var rss float64
		if n := len(u.Samples); n > 0 {
			rss = u.Samples[n-1].RSSMB
		}
		fmt.Fprintf(o.Progress, "soak: t=%4.0fs Go operations %d (%d failed; pymongo reports at the end), proxy RSS %.0f MB (peak %.0f), fds %d\n",
			time.Since(start).Seconds(), ops, errs, rss, u.PeakRSSMB, u.FDsMax)
	}
}
