package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/tag"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/router"
)

// startRouting starts a proxy routing with a weights: policy that sends
// every routed read to the secondaries, and returns it, its address, and
// the primary's and the secondaries' hosts.
func startRouting(t *testing.T, rs *cluster.Cluster, cfg Config) (*Server, string, string, []string) {
	t.Helper()
	prim, err := rs.Primary(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var secs, names []string
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			secs = append(secs, m.Host)
			names = append(names, m.Name+"=0.5")
		}
	}
	if cfg.Policy == nil {
		p, err := balancer.ParseWeights(strings.Join(names, ","))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Policy = p
	}
	cfg.URI = rs.URI()
	cfg.Logger = slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil))
	s, addr := serveProxy(t, cfg)
	// The router's table holds the secondaries once a lag poll names them.
	testutil.Eventually(t, 30*time.Second, func() bool {
		w, _ := s.Router().Weights()
		return len(w.Secondaries) == len(secs)
	}, "the router never routed to the secondaries")
	return s, addr, prim.Host, secs
}

func ctx(t *testing.T) context.Context { return ctxFor(t, 2*time.Minute) }

// waitPoll waits for a lag poll sent from now on: the router then knows
// what the members have applied by now (the read-your-writes fence of the
// writes made so far lifts for those that have).
func waitPoll(t *testing.T, s *Server) {
	t.Helper()
	now := time.Now()
	testutil.Eventually(t, 30*time.Second, func() bool {
		// Stats' poll is the one the router has taken in (Lag() is the
		// monitor's, which it may not have yet).
		l := s.Router().Stats().Lag
		return l.Known && l.At.After(now)
	}, "no lag poll came")
}

// readsSince returns the reads each member answered since before.
func readsSince(s *Server, before Stats) map[string]int64 {
	out := map[string]int64{}
	for h, n := range s.Stats().Reads {
		if d := n - before.Reads[h]; d != 0 {
			out[h] = d
		}
	}
	return out
}

// TestReadPreferenceMatrix checks, by the member that answered each read,
// where reads go through the proxy for each read preference, with the
// default opted-in routing and with every read routed.
func TestReadPreferenceMatrix(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	s, addr, primary, secs := startRouting(t, rs, Config{})
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := client.Database("proxy_matrix")
	testutil.DropAtCleanup(t, db)
	// The documents are written directly, not through the proxy: a write
	// through it would fence the connection's reads to members known to
	// have applied it (TestReadYourWrites), which a replSetGetStatus poll
	// reports only after the members' next heartbeat.
	direct := testutil.Connect(t, rs.URI())
	docs := make([]any, 30)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 3}}
	}
	if _, err := direct.Database("proxy_matrix").Collection("c").InsertMany(ctx(t), docs); err != nil {
		t.Fatal(err)
	}
	testutil.WaitReplicated(t, direct)
	secName := map[string]string{}
	for _, m := range rs.Members() {
		secName[m.Host] = m.Name
	}

	const n = 40
	read := func(t *testing.T, rp *readpref.ReadPref) map[string]int64 {
		t.Helper()
		c := db.Collection("c", options.Collection().SetReadPreference(rp))
		before := s.Stats()
		for i := range n {
			switch i % 4 {
			case 0:
				cur, err := c.Find(ctx(t), bson.D{}, options.Find().SetBatchSize(4))
				if err != nil {
					t.Fatal(err)
				}
				var all []bson.M
				if err := cur.All(ctx(t), &all); err != nil || len(all) != 30 {
					t.Fatalf("find through the proxy: %d documents, %v", len(all), err)
				}
			case 1:
				if got, err := c.CountDocuments(ctx(t), bson.D{{Key: "k", Value: 1}}); err != nil || got != 10 {
					t.Fatalf("count: %d, %v", got, err)
				}
			case 2:
				if res := c.Distinct(ctx(t), "k", bson.D{}); res.Err() != nil {
					t.Fatalf("distinct: %v", res.Err())
				}
			case 3:
				cur, err := c.Aggregate(ctx(t), mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "k", Value: 2}}}}})
				if err != nil {
					t.Fatal(err)
				}
				var all []bson.M
				if err := cur.All(ctx(t), &all); err != nil || len(all) != 10 {
					t.Fatalf("aggregate: %d documents, %v", len(all), err)
				}
			}
		}
		return readsSince(s, before)
	}
	onlyOn := func(t *testing.T, got map[string]int64, hosts ...string) {
		t.Helper()
		total := int64(0)
		for h, k := range got {
			total += k
			ok := false
			for _, want := range hosts {
				ok = ok || h == want
			}
			if !ok {
				t.Fatalf("reads by member %v: %s answered %d, want only %v", got, h, k, hosts)
			}
		}
		if total != n {
			t.Fatalf("reads by member %v: %d counted, want %d", got, total, n)
		}
	}

	t.Run("primary stays on the primary", func(t *testing.T) {
		onlyOn(t, read(t, readpref.Primary()), primary)
	})
	t.Run("primaryPreferred stays on the primary while there is one", func(t *testing.T) {
		onlyOn(t, read(t, readpref.PrimaryPreferred()), primary)
	})
	for _, rp := range []*readpref.ReadPref{readpref.SecondaryPreferred(), readpref.Secondary(), readpref.Nearest()} {
		t.Run(rp.Mode().String()+" is routed", func(t *testing.T) {
			got := read(t, rp)
			onlyOn(t, got, secs...)
		})
	}
	t.Run("tags restrict the members", func(t *testing.T) {
		want := secs[1]
		rp := readpref.SecondaryPreferred(readpref.WithTagSets(tag.NewTagSetsFromMaps([]map[string]string{{"node": "nowhere"}, {"node": secName[want]}})...))
		onlyOn(t, read(t, rp), want)
	})
	t.Run("tags no member has: the primary", func(t *testing.T) {
		rp := readpref.SecondaryPreferred(readpref.WithTagSets(tag.NewTagSetsFromMaps([]map[string]string{{"node": "nowhere"}})...))
		onlyOn(t, read(t, rp), primary)
	})
	t.Run("secondary with tags no member has: FailedToSatisfyReadPreference, never the primary", func(t *testing.T) {
		rp := readpref.Secondary(readpref.WithTagSets(tag.NewTagSetsFromMaps([]map[string]string{{"node": "nowhere"}})...))
		before := s.Stats()
		err := db.Collection("c", options.Collection().SetReadPreference(rp)).FindOne(ctx(t), bson.D{}).Err()
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(codeFailedToSatisfyReadPreference) || !strings.Contains(err.Error(), `Could not find host matching read preference { mode: "secondary", tags: [ { node: "nowhere" } ] }`) {
			t.Fatalf("secondary read with unmatched tags: %v; want FailedToSatisfyReadPreference as a mongos words it", err)
		}
		if got := readsSince(s, before); len(got) != 0 {
			t.Fatalf("reads by member %v, want none", got)
		}
	})
	t.Run("secondary with tags: the tagged secondary even when the policy keeps reads on the primary", func(t *testing.T) {
		if err := s.Router().Reweight("primary=1"); err != nil {
			t.Fatal(err)
		}
		defer func() {
			var names []string
			for _, h := range secs {
				names = append(names, secName[h]+"=0.5")
			}
			if err := s.Router().Reweight(strings.Join(names, ",")); err != nil {
				t.Fatal(err)
			}
		}()
		want := secs[0]
		onlyOn(t, read(t, readpref.Secondary(readpref.WithTagSets(tag.NewTagSetsFromMaps([]map[string]string{{"node": secName[want]}})...))), want)
		onlyOn(t, read(t, readpref.Secondary()), secs...)
		onlyOn(t, read(t, readpref.SecondaryPreferred()), primary)
	})
	t.Run("maxStalenessSeconds within the lag: the primary", func(t *testing.T) {
		// The driver refuses less than 90 s; the proxy's own bound (1 ns
		// here) is the tighter one, and no secondary is that fresh.
		s.cfg.MaxStaleness = time.Nanosecond
		defer func() { s.cfg.MaxStaleness = 0 }()
		onlyOn(t, read(t, readpref.SecondaryPreferred(readpref.WithMaxStaleness(90*time.Second))), primary)
	})
	t.Run("reads all: the default preference is routed too", func(t *testing.T) {
		s.cfg.Reads = ReadsAll
		defer func() { s.cfg.Reads = ReadsOptedIn }()
		before := s.Stats().Rewritten
		onlyOn(t, read(t, readpref.Primary()), secs...)
		if got := s.Stats().Rewritten - before; got != n {
			t.Fatalf("%d reads rewritten to secondaryPreferred, want %d", got, n)
		}
	})
	t.Run("the router counts the routed reads by member", func(t *testing.T) {
		st := s.Router().Stats()
		var onSecs int64
		for _, h := range secs {
			onSecs += st.Served.ByHost[h]
		}
		if onSecs < 4*n || st.Served.ByHost[primary] < 2*n {
			t.Fatalf("router served %v: want the routed reads by their members", st.Served.ByHost)
		}
	})
}

// TestReadYourWrites is the planted case: replication is paused on the
// secondaries, a write is acknowledged on a client connection and read
// back on it with secondaryPreferred. With the fence, the read goes to the
// primary and sees the write; without it, to a secondary, which lacks it.
// Once the secondaries have applied the write, the fenced reads go back to
// them.
func TestReadYourWrites(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("read-your-writes %v", on), func(t *testing.T) {
			s, addr, primary, secs := startRouting(t, rs, Config{NoReadYourWrites: !on})
			// One connection, so the write and the reads share it.
			// w:1, as the secondaries will not acknowledge.
			client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/").SetMaxPoolSize(1).SetWriteConcern(writeconcern.W1()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
			db := client.Database("proxy_ryw")
			testutil.DropAtCleanup(t, db)
			coll := db.Collection("c")
			if _, err := coll.InsertOne(ctx(t), bson.D{{Key: "_id", Value: "warm"}}); err != nil {
				t.Fatal(err)
			}
			testutil.WaitReplicated(t, testutil.Connect(t, rs.URI()))
			waitPoll(t, s)
			resume := testutil.PauseSecondaries(t, rs)
			if _, err := coll.InsertOne(ctx(t), bson.D{{Key: "_id", Value: "mine"}}); err != nil {
				t.Fatal(err)
			}
			sp := db.Collection("c", options.Collection().SetReadPreference(readpref.SecondaryPreferred()))
			before, rywBefore := s.Stats(), s.Router().ReadYourWrites()
			const reads = 20
			found := 0
			for range reads {
				err := sp.FindOne(ctx(t), bson.D{{Key: "_id", Value: "mine"}}).Err()
				switch {
				case err == nil:
					found++
				case err != mongo.ErrNoDocuments:
					t.Fatal(err)
				}
			}
			got := readsSince(s, before)
			ryw := s.Router().ReadYourWrites()
			if on {
				if found != reads || got[primary] != reads {
					t.Fatalf("fenced: %d of %d reads saw the write, reads by member %v; want all, on the primary %s", found, reads, got, primary)
				}
				if held := ryw.Held - rywBefore.Held; held != reads {
					t.Fatalf("%d reads held on the primary by the fence, want %d", held, reads)
				}
			} else {
				if found != 0 || got[primary] != 0 {
					t.Fatalf("unfenced: %d of %d reads saw the write, reads by member %v; want none (the secondaries %v have not applied it)", found, reads, got, secs)
				}
				return
			}
			resume()
			// The next lag poll, or any reply of theirs, shows the
			// secondaries past the write: the fenced reads move back.
			testutil.Eventually(t, 30*time.Second, func() bool {
				before := s.Stats()
				for range 10 {
					if err := sp.FindOne(ctx(t), bson.D{{Key: "_id", Value: "mine"}}).Err(); err != nil {
						t.Fatal(err)
					}
				}
				return readsSince(s, before)[primary] == 0
			}, "fenced reads never went back to the secondaries after they applied the write")
		})
	}
}

// TestProxyRouterIsExternal: the proxy's router routes per member without
// pools of its own.
func TestProxyRouterIsExternal(t *testing.T) {
	testutil.SkipIfShort(t)
	s, _, _, _ := startRouting(t, testutil.ReplicaSet(t), Config{})
	if _, err := s.Router().Route(router.ReadSpec{}); err != nil {
		t.Fatalf("the proxy's router must take external reads: %v", err)
	}
}
