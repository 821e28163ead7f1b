package consistency

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/faults"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/registers"
)

// Files a check writes into CheckOptions.Out.
const (
	HistoryFile       = "history.jsonl"
	VerdictFile       = "verdict.json"
	VisualizationFile = "linearizability.html"
)

// finalTimeout bounds the final read, majority write included.
const finalTimeout = 2 * time.Minute

// Event is a fault action's start or outcome during a run.
type Event struct {
	TS     float64 `json:"t_s"`
	Kind   string  `json:"kind"`
	Detail string  `json:"detail"`
}

// Check records a history under o's concerns and faults, writes it, checks
// it and writes the verdict (and, on a linearizability violation, the
// visualisation). The error is a failure to run or to write, not a
// violation: violations are in the verdict.
func Check(ctx context.Context, o CheckOptions) (*Verdict, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	env, closeEnv, err := connect(ctx, &o)
	if err != nil {
		return nil, err
	}
	defer closeEnv()
	final := registers.FinalCollection(env.Client, o.Registers.Database, o.Registers.Collection)

	histPath := filepath.Join(o.Out, HistoryFile)
	sink, err := newHistoryFile(histPath, env.Header)
	if err != nil {
		return nil, err
	}
	defer sink.abort()
	env.Sink = sink.w
	env.Tick = func(elapsed time.Duration, ops int) {
		fmt.Fprintf(o.Progress, "  t=%4.0fs %7d operations\n", elapsed.Seconds(), ops)
	}

	start := time.Now()
	var events []Event
	record := func(ts float64, kind, detail string) {
		events = append(events, Event{TS: ts, Kind: kind, Detail: detail})
	}
	fr := faults.Start(ctx, o.Cluster, len(o.Faults), start, record, o.Progress, "check")
	schedCtx, stopSched := context.WithCancel(ctx)
	schedDone := schedule(schedCtx, fr, o.Faults, start)
	h, runErr := registers.Run(ctx, o.Registers, env, start)
	stopSched()
	<-schedDone
	if err := fr.Finish(ctx); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil {
		// Faults undone and the set healthy: the registers' final state.
		fctx, cancel := context.WithTimeout(ctx, finalTimeout)
		h.Final, runErr = registers.ReadFinal(fctx, final, h.Header.Keys)
		cancel()
	}
	if runErr != nil && ctx.Err() == nil {
		// Keep the history, unchecked for lost writes.
		fmt.Fprintf(o.Progress, "check: %v\n", runErr)
	}
	if err := sink.finish(h.Final); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted after %d operations (history in %s): %w", len(h.Ops), histPath, ctx.Err())
	}
	fmt.Fprintf(o.Progress, "check: %d operations recorded in %s; checking\n", len(h.Ops), histPath)
	bound, bounded := o.Bound()
	v := Verify(h, VerifyOptions{Bound: bound, Bounded: bounded, Timeout: o.CheckTimeout})
	v.Events = events
	if err := v.WriteFiles(o.Out); err != nil {
		return v, err
	}
	return v, runErr
}

// schedule enqueues each step's actions on fr at its time; the returned
// channel is closed when it stops (ctx done or every step enqueued).
func schedule(ctx context.Context, fr *faults.Runner, steps []faults.Step, start time.Time) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, st := range steps {
			t := time.NewTimer(time.Until(start.Add(st.At)))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			fr.Enqueue(st.Actions)
		}
	}()
	return done
}

// connect opens the clients a check uses, with its concerns on the handles.
func connect(ctx context.Context, o *CheckOptions) (registers.Env, func(), error) {
	c := o.Concerns
	header := history.Header{Version: history.FormatVersion, Started: time.Now().UTC(), Settings: map[string]string{
		"w": c.W, "rc": c.RC, "read": c.Read, "uri": redact.URI(o.URI),
		"writers": fmt.Sprint(o.Registers.Writers), "readers": fmt.Sprint(o.Registers.Readers),
		"doc_size": fmt.Sprint(o.Registers.DocSize), "sessions": fmt.Sprint(o.Registers.Sessions)}}
	if b, ok := o.Bound(); ok {
		header.Settings["bound"] = b.String()
	}
	return openEnv(ctx, envSpec{uri: o.URI, concerns: c, settings: o.Settings,
		db: o.Registers.Database, coll: o.Registers.Collection, header: header})
}

// envSpec is where a run's operations go and how its concerns are given.
type envSpec struct {
	uri      string
	concerns Concerns
	settings balancer.Settings
	// inURI gives the concerns (and a driver read preference) in the
	// connection string, with plain handles: seed 003's session-level
	// setup. Otherwise they are set on the handles, per operation.
	inURI    bool
	db, coll string
	header   history.Header
}

// openEnv opens the clients a run uses: one client for driver read
// preferences; a router for a policy (its routed client takes the writes
// and the sessions, so causal sessions are bridged to its member pools).
// A router's routed handles take no options of their own: with the
// concerns on the handles, its read concern is a client option.
func openEnv(ctx context.Context, s envSpec) (registers.Env, func(), error) {
	c := s.concerns
	uri := s.uri
	wc, err := c.writeConcern()
	if err != nil {
		return registers.Env{}, nil, err
	}
	writesDB := options.Database().SetWriteConcern(wc)
	readsDB := options.Database().SetReadConcern(c.readConcern())
	if s.inURI {
		if uri, err = withConcerns(s.uri, c); err != nil {
			return registers.Env{}, nil, err
		}
		writesDB, readsDB = options.Database(), options.Database()
	}
	if c.IsPolicy() {
		sp, err := balancer.ParseSpec(c.Read, s.settings)
		if err != nil {
			return registers.Env{}, nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
		}
		co := options.Client().SetMonitor(registers.MemberMonitor())
		if !s.inURI {
			co.SetReadConcern(c.readConcern())
		}
		rt, err := router.Connect(ctx, uri, router.WithPolicy(sp.New()), router.WithClientOptions(co))
		if err != nil {
			return registers.Env{}, nil, fmt.Errorf("connect to %s: %w", redact.URI(s.uri), err)
		}
		client := rt.Client()
		env := registers.Env{Client: client, Header: s.header,
			Writes: client.Database(s.db, writesDB).Collection(s.coll),
			Reads:  rt.Database(s.db).Collection(s.coll)}
		return env, func() { _ = rt.Close(context.Background()) }, nil
	}
	if !s.inURI {
		rp, err := c.readPref()
		if err != nil {
			return registers.Env{}, nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
		}
		readsDB.SetReadPreference(rp)
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetMonitor(registers.MemberMonitor()).
		SetServerSelectionTimeout(10 * time.Second).SetAppName("decongestant-consistency"))
	if err != nil {
		return registers.Env{}, nil, fmt.Errorf("connect to %s: %w", redact.URI(s.uri), err)
	}
	if err := client.Ping(ctx, nil); err != nil {
		_ = client.Disconnect(context.Background())
		return registers.Env{}, nil, fmt.Errorf("connect to %s: %w", redact.URI(s.uri), err)
	}
	var reads workload.ReadCollection = client.Database(s.db, readsDB).Collection(s.coll)
	env := registers.Env{Client: client, Header: s.header, Reads: reads,
		Writes: client.Database(s.db, writesDB).Collection(s.coll)}
	return env, func() { _ = client.Disconnect(context.Background()) }, nil
}

// uriReadPrefs are the driver's read preference modes as connection
// strings spell them.
var uriReadPrefs = map[string]string{"primary": "primary", "primarypreferred": "primaryPreferred",
	"secondary": "secondary", "secondarypreferred": "secondaryPreferred", "nearest": "nearest"}

// withConcerns returns uri with c's write concern and read concern (and,
// for a driver read preference, the read preference) as connection string
// options, replacing any the URI gives.
func withConcerns(uri string, c Concerns) (string, error) {
	base, query, _ := strings.Cut(uri, "?")
	scheme, rest, ok := strings.Cut(base, "://")
	if !ok || rest == "" {
		return "", fmt.Errorf("%w: connection string %q has no scheme and hosts", ErrBadOptions, redact.URI(uri))
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("%w: options of %s: %w", ErrBadOptions, redact.URI(uri), err)
	}
	pref, isPref := uriReadPrefs[strings.ToLower(c.Read)]
	for k := range q {
		switch strings.ToLower(k) {
		case "w", "readconcernlevel":
			delete(q, k)
		case "readpreference", "readpreferencetags", "maxstalenessseconds":
			if isPref {
				delete(q, k)
			}
		}
	}
	q.Set("w", c.W)
	q.Set("readConcernLevel", c.RC)
	if isPref {
		q.Set("readPreference", pref)
	}
	if !strings.Contains(rest, "/") {
		rest += "/"
	}
	return scheme + "://" + rest + "?" + q.Encode(), nil
}

// historyFile streams a history to a temporary file renamed into place when
// finished, so a history file on disk is always complete.
type historyFile struct {
	f    *os.File
	path string
	w    *history.Writer
	done bool
}

func newHistoryFile(path string, h history.Header) (*historyFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".history-*.jsonl")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, err
	}
	return &historyFile{f: f, path: path, w: history.NewWriter(f, h)}, nil
}

func (hf *historyFile) finish(finals []history.Final) error {
	err := errors.Join(hf.w.Finish(finals), hf.f.Sync(), hf.f.Close())
	if err == nil {
		err = os.Rename(hf.f.Name(), hf.path)
	}
	hf.done = err == nil
	return err
}

// abort removes the temporary file unless finish renamed it.
func (hf *historyFile) abort() {
	if !hf.done {
		_ = hf.f.Close()
		_ = os.Remove(hf.f.Name())
	}
}
