package proxy

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// failCmd is configureFailPoint "failCommand" with mode and data.
func failCmd(mode any, data bson.D) bson.D {
	return bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}, {Key: "data", Value: data}, {Key: "$db", Value: "admin"}}
}

func mustDoc(t *testing.T, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFailPointModes: which commands fire, in order, for each mode.
func TestFailPointModes(t *testing.T) {
	data := bson.D{{Key: "failCommands", Value: bson.A{"insert", "find"}}, {Key: "errorCode", Value: 91}}
	withApp := append(slices.Clone(data), bson.E{Key: "appName", Value: "app1"})
	type call struct{ cmd, app string }
	calls := []call{{"insert", ""}, {"ping", ""}, {"find", "other"}, {"insert", "app1"}, {"find", "app1"}, {"insert", ""}}
	for _, tc := range []struct {
		name  string
		mode  any
		data  bson.D
		fired []bool // per call
	}{
		{"alwaysOn", "alwaysOn", data, []bool{true, false, true, true, true, true}},
		{"off", "off", data, []bool{false, false, false, false, false, false}},
		{"times 2", bson.D{{Key: "times", Value: 2}}, data, []bool{true, false, true, false, false, false}},
		{"times 0", bson.D{{Key: "times", Value: 0}}, data, []bool{false, false, false, false, false, false}},
		{"skip 2", bson.D{{Key: "skip", Value: 2}}, data, []bool{false, false, false, true, true, true}},
		{"appName, times 1", bson.D{{Key: "times", Value: int64(1)}}, withApp, []bool{false, false, false, true, false, false}},
		{"appName, alwaysOn", "alwaysOn", withApp, []bool{false, false, false, true, true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &failPoint{}
			if r := bson.Raw(f.configure(mustDoc(t, failCmd(tc.mode, tc.data)))); r.Lookup("ok").Double() != 1 {
				t.Fatalf("configure: %v", r)
			}
			for i, c := range calls {
				if got := f.check(c.cmd, c.app).fire; got != tc.fired[i] {
					t.Errorf("call %d (%s from %q): fired %v, want %v", i, c.cmd, c.app, got, tc.fired[i])
				}
			}
			if f.check("configureFailPoint", "").fire {
				t.Error("configureFailPoint itself failed")
			}
		})
	}
	var disabled *failPoint
	if disabled.check("insert", "").fire {
		t.Error("a disabled fail point fired")
	}
}

func TestFailPointRefusesBadInput(t *testing.T) {
	ok := bson.D{{Key: "failCommands", Value: bson.A{"find"}}}
	for _, tc := range []struct {
		name string
		cmd  bson.D
		want string
	}{
		{"no mode", bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "data", Value: ok}}, "no mode"},
		{"unknown mode", failCmd("sometimes", ok), `mode "sometimes"`},
		{"activationProbability", failCmd(bson.D{{Key: "activationProbability", Value: 0.5}}, ok), "activationProbability is not supported"},
		{"negative times", failCmd(bson.D{{Key: "times", Value: -1}}, ok), "non-negative integer"},
		{"two keys", failCmd(bson.D{{Key: "times", Value: 1}, {Key: "skip", Value: 1}}, ok), "exactly one"},
		{"no data", bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"}}, "no data"},
		{"no commands", failCmd("alwaysOn", bson.D{{Key: "errorCode", Value: 2}}), "names no command"},
		{"commands not strings", failCmd("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{1}}}), "data.failCommands is a array"},
		{"errorCode a string", failCmd("alwaysOn", append(slices.Clone(ok), bson.E{Key: "errorCode", Value: "x"})), "data.errorCode is a string"},
		{"blockTimeMS negative", failCmd("alwaysOn", append(slices.Clone(ok), bson.E{Key: "blockTimeMS", Value: -5})), "data.blockTimeMS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &failPoint{}
			r := bson.Raw(f.configure(mustDoc(t, tc.cmd)))
			if r.Lookup("ok").Double() != 0 || !strings.Contains(r.Lookup("errmsg").StringValue(), tc.want) {
				t.Fatalf("reply %v, want an error saying %q", r, tc.want)
			}
			if f.check("find", "").fire {
				t.Fatal("a refused configuration fired")
			}
		})
	}
}

// TestFailPointThroughHandle: a client configures the fail point on the
// proxy, which then fails its own commands (ping, answered locally) as
// the data says; a disabled proxy does not take configureFailPoint.
func TestFailPointThroughHandle(t *testing.T) {
	s := &Server{cfg: Config{}.withDefaults(), log: slog.New(slog.DiscardHandler), cursors: newCursors(time.Hour), failPoint: &failPoint{}}
	cc := &clientConn{id: 1}
	// The handshake fails too (this Server has no members to describe).
	do(t, s, cc, failCmd(bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"hello"}}, {Key: "errorCode", Value: 2}}))
	hello := bson.D{{Key: "hello", Value: 1}, {Key: "client", Value: bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: "app1"}}}}}, {Key: "$db", Value: "admin"}}
	if r := do(t, s, cc, hello); r.Lookup("code").Int32() != 2 {
		t.Fatalf("hello: %v, want the fail point's error", r)
	}
	if cc.appName != "app1" {
		t.Fatalf("appName %q after the handshake, want app1", cc.appName)
	}
	ping := bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}
	r := do(t, s, cc, failCmd(bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"ping"}},
		{Key: "errorCode", Value: 91}, {Key: "errorLabels", Value: bson.A{}}, {Key: "appName", Value: "app1"}}))
	if r.Lookup("ok").Double() != 1 {
		t.Fatalf("configureFailPoint: %v", r)
	}
	r = do(t, s, cc, ping)
	if r.Lookup("ok").Double() != 0 || r.Lookup("code").Int32() != 91 || r.Lookup("codeName").StringValue() != "ShutdownInProgress" || labelsOf(r) != nil {
		t.Fatalf("failed ping: %v; want ShutdownInProgress without labels (errorLabels: [])", r)
	}
	if r = do(t, s, cc, ping); r.Lookup("ok").Double() != 1 {
		t.Fatalf("second ping: %v; want ok (times 1)", r)
	}
	do(t, s, cc, failCmd("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "closeConnection", Value: true}}))
	body := mustDoc(t, ping)
	if _, err := s.handle(context.Background(), cc, wire.AppendMsg(nil, 1, 0, 0, body)); !errors.Is(err, errFailPointClose) {
		t.Fatalf("ping with closeConnection: %v, want the connection closed", err)
	}
	do(t, s, cc, failCmd("off", bson.D{}))
	if r = do(t, s, cc, ping); r.Lookup("ok").Double() != 1 {
		t.Fatalf("ping after off: %v", r)
	}
	s.failPoint = nil
	c := wire.Class{Command: "configureFailPoint", Database: "admin"}
	if _, ok := s.configureFailPoint(&c, mustDoc(t, failCmd("alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}}}))); ok {
		t.Fatal("a proxy without EnableTestCommands answered configureFailPoint itself")
	}
}

// TestCodeLabels: the labels a mongos gives a fail point's error code.
func TestCodeLabels(t *testing.T) {
	txn := wire.Session{HasTxnNumber: true, InTransaction: true}
	insert := wire.Class{Command: "insert", Session: txn}
	commit := wire.Class{Command: "commitTransaction", Session: txn}
	abort := wire.Class{Command: "abortTransaction", Session: txn}
	retryable := wire.Class{Command: "insert", Session: wire.Session{HasTxnNumber: true}}
	plain := wire.Class{Command: "find"}
	for _, tc := range []struct {
		name   string
		code   int32
		c      wire.Class
		stream bool
		want   []string
	}{
		{"transaction's insert, retriable", 91, insert, false, []string{"TransientTransactionError"}},
		{"transaction's insert, WriteConflict", 112, insert, false, []string{"TransientTransactionError"}},
		{"transaction's insert, NoSuchTransaction", 251, insert, false, []string{"TransientTransactionError"}},
		{"transaction's insert, DuplicateKey", 11000, insert, false, nil},
		{"commit, retriable", 10107, commit, false, []string{"RetryableWriteError"}},
		{"commit, NoSuchTransaction", 251, commit, false, []string{"TransientTransactionError"}},
		{"commit, WriteConflict", 112, commit, false, []string{"TransientTransactionError"}},
		{"commit, LockTimeout", 24, commit, false, []string{"TransientTransactionError"}},
		{"commit, DuplicateKey", 11000, commit, false, nil},
		{"abort, retriable", 189, abort, false, []string{"RetryableWriteError"}},
		{"retryable write, retriable", 11600, retryable, false, []string{"RetryableWriteError"}},
		{"retryable write, not retriable", 2, retryable, false, nil},
		{"read", 91, plain, false, nil},
		{"change stream, retriable", 6, plain, true, []string{"ResumableChangeStreamError"}},
		{"change stream, FailedToSatisfyReadPreference", 133, plain, true, []string{"ResumableChangeStreamError"}},
		{"change stream, fatal", 280, plain, true, nil},
	} {
		if got := codeLabels(tc.code, &tc.c, tc.stream); !slices.Equal(got, tc.want) {
			t.Errorf("%s: codeLabels(%d) = %v, want %v", tc.name, tc.code, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		code int32
		c    wire.Class
		want []string
	}{
		{"commit", 91, commit, []string{"RetryableWriteError"}},
		{"commit, WriteConcernFailed", 64, commit, nil},
		{"retryable write", 11600, retryable, []string{"RetryableWriteError"}},
		{"plain write", 91, wire.Class{Command: "insert"}, nil},
	} {
		if got := wcLabels(tc.code, &tc.c); !slices.Equal(got, tc.want) {
			t.Errorf("%s: wcLabels(%d) = %v, want %v", tc.name, tc.code, got, tc.want)
		}
	}
}

// TestWithWriteConcernError: the command ran; its reply gets the data's
// writeConcernError in place of its own, and the labels.
func TestWithWriteConcernError(t *testing.T) {
	reply := wire.AppendMsg(nil, 7, 3, 0, mustDoc(t, bson.D{{Key: "n", Value: 1}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: 1}}}, {Key: "ok", Value: 1.0}}))
	wce := bson.D{{Key: "code", Value: 91}, {Key: "errmsg", Value: "Replication is being shut down"}}
	c := wire.Class{Command: "insert", Session: wire.Session{HasTxnNumber: true}}
	for _, tc := range []struct {
		name string
		data bson.D
		want []string
	}{
		{"computed labels", bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "writeConcernError", Value: wce}}, []string{"RetryableWriteError"}},
		{"given labels", bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "writeConcernError", Value: wce}, {Key: "errorLabels", Value: bson.A{"X"}}}, []string{"X"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := mustDoc(t, tc.data)
			d, err := parseFailData(buf)
			if err != nil {
				t.Fatal(err)
			}
			clear(buf) // the connection reads its next message into the same buffer
			out, err := d.withWriteConcernError(reply, &c)
			if err != nil {
				t.Fatal(err)
			}
			m, err := wire.Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			r := bson.Raw(m.Body)
			if m.Header.ResponseTo != 3 || r.Lookup("n").Int32() != 1 || r.Lookup("ok").Double() != 1 ||
				r.Lookup("writeConcernError", "code").Int32() != 91 || !slices.Equal(labelsOf(r), tc.want) {
				t.Fatalf("reply %v (responseTo %d); want n 1, ok 1, writeConcernError 91, labels %v", r, m.Header.ResponseTo, tc.want)
			}
			if n := strings.Count(r.String(), "writeConcernError"); n != 1 {
				t.Fatalf("reply %v has %d writeConcernError fields", r, n)
			}
		})
	}
}

// TestFailBeforeBlock: blockConnection waits blockTimeMS, then answers the
// errorCode or lets the command run; the connection's end ends the wait.
func TestFailBeforeBlock(t *testing.T) {
	s := &Server{cursors: newCursors(time.Hour)}
	c := wire.Class{Command: "find"}
	parse := func(data bson.D) failData {
		t.Helper()
		d, err := parseFailData(mustDoc(t, append(bson.D{{Key: "failCommands", Value: bson.A{"find"}}}, data...)))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := parse(bson.D{{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 1}, {Key: "errorCode", Value: 50}})
	if doc, err := s.failBefore(context.Background(), &d, &c); err != nil || bson.Raw(doc).Lookup("codeName").StringValue() != "MaxTimeMSExpired" {
		t.Fatalf("blocked then failed: %v, %v; want MaxTimeMSExpired", bson.Raw(doc), err)
	}
	d = parse(bson.D{{Key: "blockTimeMS", Value: 1}, {Key: "blockConnection", Value: true}})
	if doc, err := s.failBefore(context.Background(), &d, &c); doc != nil || err != nil {
		t.Fatalf("blocked then run: %v, %v; want the command to run", bson.Raw(doc), err)
	}
	d = parse(bson.D{{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: int64(3_600_000)}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.failBefore(ctx, &d, &c); !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked on a closed connection: %v, want context.Canceled", err)
	}
	// A change stream's getMore failed by the fail point is not resumable
	// (mongod's rule reads the cursor's aggregate, not found yet); the
	// aggregate opening one is.
	s.cursors.add("a:1", 9, time.Now())
	s.cursors.markStream("a:1", 9)
	d = parse(bson.D{{Key: "failCommands", Value: bson.A{"getMore", "aggregate"}}, {Key: "errorCode", Value: 6}})
	getMore := wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: 9}
	if doc, _ := s.failBefore(context.Background(), &d, &getMore); labelsOf(bson.Raw(doc)) != nil {
		t.Fatalf("a change stream's getMore failed by the fail point: %v, want no labels", bson.Raw(doc))
	}
	agg := wire.Class{Kind: wire.KindRead, Command: "aggregate", ChangeStream: true}
	if doc, _ := s.failBefore(context.Background(), &d, &agg); !slices.Equal(labelsOf(bson.Raw(doc)), []string{"ResumableChangeStreamError"}) {
		t.Fatalf("a change stream's aggregate failed by the fail point: %v, want ResumableChangeStreamError", bson.Raw(doc))
	}
	d = parse(bson.D{{Key: "blockTimeMS", Value: 5000}})
	if d.blockFor() != 0 {
		t.Fatalf("blockTimeMS without blockConnection blocks %v, want 0", d.blockFor())
	}
}
