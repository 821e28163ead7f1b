package proxy

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestFansOut(t *testing.T) {
	for cmd, want := range map[string]bool{
		"endSessions": true, "killSessions": true, "killAllSessions": true, "killAllSessionsByPattern": true,
		"refreshSessions": true, "startSession": false,
	} {
		if got := fansOut(&wire.Class{Kind: wire.KindSessions, Command: cmd}); got != want {
			t.Errorf("fansOut(%s) = %v, want %v", cmd, got, want)
		}
	}
	if fansOut(&wire.Class{Kind: wire.KindPrimary, Command: "endSessions"}) {
		t.Error("fansOut of a command that is not KindSessions")
	}
}

// A session whose read was routed to a secondary is ended there too: the
// driver's endSessions (sent when it disconnects) reaches every secondary,
// counted by each secondary's serverStatus, and the client gets ok.
func TestEndSessionsReachesSecondaries(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	s, addr, _, secs := startRouting(t, rs, Config{})
	endSessions := func(host string) int64 {
		t.Helper()
		c := testutil.Connect(t, "mongodb://"+host+"/?directConnection=true")
		r, err := c.Database("admin").RunCommand(ctx(t), bson.D{{Key: "serverStatus", Value: 1}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		n, ok := r.Lookup("metrics", "commands", "endSessions", "total").AsInt64OK()
		if !ok {
			t.Fatalf("%s: no metrics.commands.endSessions.total in serverStatus", host)
		}
		return n
	}
	before := map[string]int64{}
	for _, h := range secs {
		before[h] = endSessions(h)
	}
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/"))
	if err != nil {
		t.Fatal(err)
	}
	coll := client.Database("proxy_sessions").Collection("c", options.Collection().SetReadPreference(readpref.Secondary()))
	stats := s.Stats()
	err = client.UseSession(ctx(t), func(sc context.Context) error {
		return coll.FindOne(sc, bson.D{}).Err()
	})
	if err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	got, onSecondaries := readsSince(s, stats), int64(0)
	for _, h := range secs {
		onSecondaries += got[h]
	}
	if len(got) != 1 || onSecondaries != 1 {
		t.Fatalf("the session's read was served by %v; want one secondary of %v", got, secs)
	}
	if err := client.Disconnect(ctx(t)); err != nil { // endSessions
		t.Fatal(err)
	}
	for _, h := range secs {
		if after := endSessions(h); after <= before[h] {
			t.Errorf("secondary %s ran endSessions %d times before the client left, %d after; want more", h, before[h], after)
		}
	}
}
