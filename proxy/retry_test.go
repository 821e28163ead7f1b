package proxy

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestRetryable(t *testing.T) {
	reply := func(doc bsoncore.Document) []byte { return wire.AppendMsg(nil, 1, 1, 0, doc) }
	for _, tc := range []struct {
		name  string
		reply []byte
		err   error
		want  bool
	}{
		{"a result", reply(bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).Build()), nil, false},
		{"ShutdownInProgress", reply(errorDoc(91, "shutting down")), nil, true},
		{"InterruptedAtShutdown", reply(errorDoc(11600, "interrupted")), nil, true},
		{"InterruptedDueToReplStateChange", reply(errorDoc(11602, "interrupted")), nil, true},
		{"NotPrimaryOrSecondary", reply(errorDoc(13436, "recovering")), nil, true},
		{"NotPrimaryNoSecondaryOk", reply(errorDoc(13435, "not primary")), nil, true},
		{"NotWritablePrimary", reply(errorDoc(10107, "not primary")), nil, true},
		{"PrimarySteppedDown", reply(errorDoc(189, "stepped down")), nil, true},
		{"LegacyNotPrimary", reply(errorDoc(10058, "not master")), nil, true},
		{"another error: the client's", reply(errorDoc(codeBadValue, "bad")), nil, false},
		{"ok 1 with a state-change code", reply(bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).AppendInt32("code", 91).Build()), nil, false},
		{"no reply: a connection error", nil, upstream.ErrConnection, true},
		{"no reply: the member unavailable", nil, upstream.ErrUnavailable, true},
		{"the request's deadline", nil, context.DeadlineExceeded, false},
		{"the client went away", nil, context.Canceled, false},
		{"the proxy is closing", nil, upstream.ErrClosed, false},
	} {
		if got := retryable(tc.reply, tc.err) != ""; got != tc.want {
			t.Errorf("%s: retryable %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRoutedReadRetriedElsewhere: a routed read that meets a secondary's
// state-change error (failCommand set directly on that secondary) or its
// closed connection is answered by another member the read preference
// allows: the primary for secondaryPreferred, the other secondary for
// secondary. The client sees no error, so its driver never clears its pool
// to the proxy.
func TestRoutedReadRetriedElsewhere(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	prim, err := rs.Primary(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var secs []string
	var failing, failingHost string
	for _, m := range rs.Members() {
		if m.Name != prim.Name {
			secs = append(secs, m.Host)
			if failing == "" {
				failing, failingHost = m.Name, m.Host
			}
		}
	}
	pol, err := balancer.ParseWeights(failing + "=1")
	if err != nil {
		t.Fatal(err)
	}
	s, addr := serveProxy(t, Config{URI: rs.URI(), Policy: pol, Logger: slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil))})
	testutil.Eventually(t, 30*time.Second, func() bool {
		w, _ := s.Router().Weights()
		return len(w.Secondaries) == 1
	}, "the router never routed to the secondary")
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/").SetRetryReads(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := client.Database("proxy_retry")
	testutil.DropAtCleanup(t, db)
	direct := testutil.Connect(t, rs.URI())
	if _, err := direct.Database("proxy_retry").Collection("c").InsertOne(ctx(t), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	testutil.WaitReplicated(t, direct)
	off := func() {
		if err := rs.SetFailPoint(context.Background(), failing, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(off)
	for _, fail := range []struct {
		name string
		data bson.D
	}{
		{"ShutdownInProgress", bson.D{{Key: "errorCode", Value: 91}}},
		{"InterruptedAtShutdown", bson.D{{Key: "errorCode", Value: 11600}}},
		{"a closed connection", bson.D{{Key: "closeConnection", Value: true}}},
	} {
		fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"},
			{Key: "data", Value: append(bson.D{{Key: "failCommands", Value: bson.A{"find"}}}, fail.data...)}}
		for _, tc := range []struct {
			rp   *readpref.ReadPref
			want []string // who may answer
		}{
			{readpref.SecondaryPreferred(), []string{prim.Host}},
			{readpref.Secondary(), secs[1:]},
		} {
			t.Run(fail.name+" "+tc.rp.Mode().String(), func(t *testing.T) {
				// The failing secondary is one in the proxy's view (a
				// failure marks it down there until its next heartbeat),
				// so the first read is sent to it.
				off()
				testutil.Eventually(t, time.Minute, func() bool { return isSecondary(s.pool.Members(), failingHost) }, "the failing member to be a secondary again")
				if err := rs.SetFailPoint(ctx(t), failing, fp); err != nil {
					t.Fatal(err)
				}
				c := db.Collection("c", options.Collection().SetReadPreference(tc.rp))
				before := s.Stats()
				const n = 10
				for range n {
					var doc bson.M
					if err := c.FindOne(ctx(t), bson.D{{Key: "_id", Value: 1}}).Decode(&doc); err != nil {
						t.Fatalf("read through the proxy: %v; want it answered elsewhere", err)
					}
				}
				got := readsSince(s, before)
				total := int64(0)
				for _, h := range tc.want {
					total += got[h]
				}
				if total != n {
					t.Fatalf("reads by member %v, want all %d by %v", got, n, tc.want)
				}
				if r := s.Stats().Retried - before.Retried; r < 1 {
					t.Fatalf("%d reads retried, want the first at least", r)
				}
			})
		}
	}
	off()
}
