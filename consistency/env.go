package consistency

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/workload"
	"github.com/decongestant/decongestant/workload/registers"
)

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
	// inURI gives the concerns (and a driver read preference) in the connection
	// string, with plain handles: the consistency thesis' session-level setup.
	// Otherwise they are set on the handles, per operation.
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
	// Before the driver's parser, whose errors quote option values as written.
	if _, err := monitor.ParseURI(uri); err != nil {
		return registers.Env{}, nil, fmt.Errorf("%w: %w", ErrBadOptions, err)
	}
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
