package proxy

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
	"github.com/decongestant/decongestant/router"
)

// majorityAfter adds the fence as afterClusterTime to majority reads only,
// and only when it is later than the read's own; on top of a $readPreference
// rewrite when there is one.
func TestMajorityAfter(t *testing.T) {
	fence := wire.Timestamp{T: 100, I: 2}
	for _, tc := range []struct {
		name      string
		rc        bson.D
		fence     wire.Timestamp
		rewritten bool // $readPreference rewritten first
		want      wire.Timestamp
	}{
		{"majority", bson.D{{Key: "level", Value: "majority"}}, fence, false, fence},
		{"majority, rewritten read preference", bson.D{{Key: "level", Value: "majority"}}, fence, true, fence},
		{"majority, earlier own afterClusterTime", bson.D{{Key: "level", Value: "majority"}, {Key: "afterClusterTime", Value: bson.Timestamp{T: 100, I: 1}}}, fence, false, fence},
		{"majority, later own afterClusterTime", bson.D{{Key: "level", Value: "majority"}, {Key: "afterClusterTime", Value: bson.Timestamp{T: 101}}}, fence, false, wire.Timestamp{T: 101}},
		{"majority, no fence", bson.D{{Key: "level", Value: "majority"}}, wire.Timestamp{}, false, wire.Timestamp{}},
		{"local", bson.D{{Key: "level", Value: "local"}}, fence, false, wire.Timestamp{}},
		{"no read concern", nil, fence, false, wire.Timestamp{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bson.D{{Key: "find", Value: "c"}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primary"}}}}
			if tc.rc != nil {
				body = append(body, bson.E{Key: "readConcern", Value: tc.rc})
			}
			raw, err := bson.Marshal(append(body, bson.E{Key: "$db", Value: "db"}))
			if err != nil {
				t.Fatal(err)
			}
			m, err := wire.Parse(wire.AppendMsg(nil, 1, 0, 0, raw))
			if err != nil {
				t.Fatal(err)
			}
			c, err := wire.Classify(&m)
			if err != nil {
				t.Fatal(err)
			}
			var msg []byte
			if tc.rewritten {
				msg = wire.WithReadPreference(nil, &m, wire.SecondaryPreferredMode)
			}
			out := majorityAfter(&m, msg, &c, tc.fence)
			if out == nil {
				out = wire.AppendMsg(nil, 1, 0, 0, raw)
			}
			got, err := wire.Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			gc, err := wire.Classify(&got)
			if err != nil {
				t.Fatal(err)
			}
			if gc.ReadConcern.AfterClusterTime != tc.want && !(tc.want.IsZero() && gc.ReadConcern.AfterClusterTime == c.ReadConcern.AfterClusterTime) {
				t.Errorf("afterClusterTime %v; want %v", gc.ReadConcern.AfterClusterTime, tc.want)
			}
			if wantMode := map[bool]wire.Mode{false: wire.PrimaryMode, true: wire.SecondaryPreferredMode}[tc.rewritten]; gc.ReadPref.Mode != wantMode {
				t.Errorf("read preference %v; want %v", gc.ReadPref.Mode, wantMode)
			}
		})
	}
}

// A majority read routed to a secondary after a write on the same
// connection sees the write, although the secondary's majority-committed
// snapshot lags what it has applied (here frozen by the disableSnapshotting
// fail point until the read is under way): the proxy adds the fence as
// afterClusterTime, and the secondary waits for its snapshot to hold the
// write instead of reading one from before it.
func TestMajorityReadSeesTheWrite(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	s, addr, primary, secs := startRouting(t, rs, Config{})
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/").SetMaxPoolSize(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := client.Database("proxy_majority")
	testutil.DropAtCleanup(t, db)
	if _, err := db.Collection("c").InsertOne(ctx(t), bson.D{{Key: "_id", Value: "warm"}}); err != nil {
		t.Fatal(err)
	}
	testutil.WaitReplicated(t, testutil.Connect(t, rs.URI()))

	snapshots := func(mode string) {
		for _, m := range rs.Members() {
			if m.Host == primary {
				continue
			}
			if err := rs.SetFailPoint(context.Background(), m.Name, bson.D{{Key: "configureFailPoint", Value: "disableSnapshotting"}, {Key: "mode", Value: mode}}); err != nil {
				t.Errorf("disableSnapshotting %s on %s: %v", mode, m.Name, err)
			}
		}
	}
	snapshots("alwaysOn")
	thaw := func() { snapshots("off") }
	t.Cleanup(thaw)

	// The write, in a session that is not causally consistent only to learn
	// its operationTime: the read below is outside it, so nothing but the
	// connection's fence ties the read to the write.
	sess, err := client.StartSession(options.Session().SetCausalConsistency(false))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	if _, err := db.Collection("c").InsertOne(mongo.NewSessionContext(ctx(t), sess), bson.D{{Key: "_id", Value: "mine"}}); err != nil {
		t.Fatal(err)
	}
	wrote := sess.OperationTime()
	// Wait until the router knows a secondary applied the write: the
	// fence then lets the read go there.
	testutil.Eventually(t, 30*time.Second, func() bool {
		rt, err := s.Router().Route(router.ReadSpec{After: *wrote})
		if err != nil {
			t.Fatal(err)
		}
		rt.Done("", 0, nil)
		return rt.Host != ""
	}, "the router never saw a secondary apply the write")

	majority := db.Collection("c", options.Collection().SetReadConcern(readconcern.Majority()).SetReadPreference(readpref.SecondaryPreferred()))
	before := s.Stats()
	done := make(chan error, 1)
	go func() { done <- majority.FindOne(ctx(t), bson.D{{Key: "_id", Value: "mine"}}).Err() }()
	// Thaw the secondaries' snapshots once the read has come back or waits
	// on a secondary.
	var readErr error
	returned := false
	testutil.Eventually(t, time.Minute, func() bool {
		select {
		case readErr = <-done:
			returned = true
			return true
		default:
		}
		for _, h := range secs {
			c := testutil.Connect(t, "mongodb://"+h+"/?directConnection=true")
			var r struct{ Inprog []bson.Raw }
			if err := c.Database("admin").RunCommand(ctx(t), bson.D{{Key: "currentOp", Value: 1}, {Key: "command.find", Value: "c"}, {Key: "command.$db", Value: "proxy_majority"}}).Decode(&r); err != nil {
				t.Fatal(err)
			}
			_ = c.Disconnect(ctx(t))
			if len(r.Inprog) > 0 {
				return true
			}
		}
		return false
	}, "the majority read neither came back nor waited on a secondary")
	thaw()
	if !returned {
		readErr = <-done
	}
	got := readsSince(s, before)
	onSecondaries := int64(0)
	for _, h := range secs {
		onSecondaries += got[h]
	}
	if readErr != nil || onSecondaries != 1 {
		t.Fatalf("majority read after the write: %v, served by %v; want the write seen, on a secondary of %v", readErr, got, secs)
	}
}
