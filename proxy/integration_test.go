package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// startProxy starts a proxy in front of the shared replica set on a free
// loopback port; it returns the server, its address and its log.
func startProxy(t *testing.T) (*Server, string, *testutil.SyncBuffer) {
	t.Helper()
	rs := testutil.ReplicaSet(t)
	logs := &testutil.SyncBuffer{}
	s, addr := startProxyLogging(t, rs.URI(), logs)
	return s, addr, logs
}

func startBenchProxy(t testing.TB, uri string) (*Server, string) {
	return startProxyLogging(t, uri, &testutil.SyncBuffer{})
}

func startProxyLogging(t testing.TB, uri string, logs *testutil.SyncBuffer) (*Server, string) {
	t.Helper()
	return serveProxy(t, Config{URI: uri, Logger: slog.New(slog.NewTextHandler(logs, nil)), RequestTimeout: time.Minute})
}

// serveProxy starts a proxy with cfg on a free loopback port, closed (and
// its Serve checked) at cleanup; it returns the server and its address.
func serveProxy(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), ln) }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		// ErrClosed: the test ended before the goroutine got to Serve.
		if err := <-served; err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return s, ln.Addr().String()
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// rawConn is a client speaking the wire protocol by hand.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	id int32
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(2 * time.Minute))
	return &rawConn{t: t, nc: nc, id: 100}
}

// command sends body as an OP_MSG and returns the reply's body.
func (c *rawConn) command(d bson.D) bson.Raw {
	c.t.Helper()
	body, err := bson.Marshal(d)
	if err != nil {
		c.t.Fatal(err)
	}
	c.id++
	if _, err := c.nc.Write(wire.AppendMsg(nil, c.id, 0, 0, body)); err != nil {
		c.t.Fatal(err)
	}
	return c.reply(wiremessage.OpMsg)
}

func (c *rawConn) reply(op wiremessage.OpCode) bson.Raw {
	c.t.Helper()
	b, err := wire.ReadMessage(c.nc, 0)
	if err != nil {
		c.t.Fatalf("reading the reply: %v", err)
	}
	h, err := wire.ReadHeader(b, 0)
	if err != nil {
		c.t.Fatal(err)
	}
	if h.ResponseTo != c.id || h.OpCode != op {
		c.t.Fatalf("reply: %+v, want a %v answering %d", h, op, c.id)
	}
	if op == wiremessage.OpReply {
		// flags, cursorID, startingFrom, numberReturned, then the document
		return bson.Raw(b[wire.HeaderLen+20:])
	}
	m, err := wire.Parse(append([]byte(nil), b...))
	if err != nil {
		c.t.Fatal(err)
	}
	return bson.Raw(m.Body)
}

// closed reports whether the proxy closed the connection (EOF or reset).
func (c *rawConn) closed() bool {
	c.nc.SetReadDeadline(time.Now().Add(time.Minute))
	var b [1]byte
	_, err := c.nc.Read(b[:])
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func TestHandshake(t *testing.T) {
	s, addr, _ := startProxy(t)
	// New returns once some member is known; the primary may come a
	// heartbeat later.
	var primaryMax int32
	testutil.Eventually(t, 30*time.Second, func() bool {
		for _, m := range s.pool.Members() {
			if m.Role.String() == "primary" {
				primaryMax = m.MaxWireVersion
			}
		}
		return primaryMax != 0
	}, "no primary among the members")
	c := dialRaw(t, addr)

	t.Run("legacy isMaster over OP_QUERY", func(t *testing.T) {
		q, _ := bson.Marshal(bson.D{{Key: "isMaster", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.u"}})
		c.id++
		msg := wiremessage.AppendHeader(nil, 0, c.id, 0, wiremessage.OpQuery)
		msg = wiremessage.AppendQueryFlags(msg, 0)
		msg = wiremessage.AppendQueryFullCollectionName(msg, "admin.$cmd")
		msg = wiremessage.AppendQueryNumberToSkip(msg, 0)
		msg = wiremessage.AppendQueryNumberToReturn(msg, -1)
		msg = append(msg, q...)
		msg = bsoncore.UpdateLength(msg, 0, int32(len(msg)))
		if _, err := c.nc.Write(msg); err != nil {
			t.Fatal(err)
		}
		r := c.reply(wiremessage.OpReply)
		if !r.Lookup("ismaster").Boolean() || r.Lookup("msg").StringValue() != "isdbgrid" {
			t.Fatalf("isMaster reply %v: want ismaster true, msg isdbgrid", r)
		}
		if got := r.Lookup("maxWireVersion").Int32(); got != primaryMax {
			t.Errorf("maxWireVersion %d, want the primary's %d", got, primaryMax)
		}
		if _, err := r.LookupErr("saslSupportedMechs"); err == nil {
			t.Errorf("saslSupportedMechs advertised: %v", r)
		}
	})
	t.Run("hello over OP_MSG", func(t *testing.T) {
		r := c.command(bson.D{{Key: "hello", Value: 1}, {Key: "helloOk", Value: true}, {Key: "$db", Value: "admin"}})
		for _, f := range []string{"isWritablePrimary", "helloOk"} {
			if !r.Lookup(f).Boolean() {
				t.Errorf("%s not true in %v", f, r)
			}
		}
		if r.Lookup("maxMessageSizeBytes").Int32() != wire.MaxMessageSize || r.Lookup("maxBsonObjectSize").Int32() != 16<<20 ||
			r.Lookup("maxWriteBatchSize").Int32() != 100_000 || r.Lookup("logicalSessionTimeoutMinutes").Int32() != 30 {
			t.Errorf("limits in %v", r)
		}
		// No topologyVersion, so drivers poll rather than stream; a hello
		// that asks to wait anyway (a client that saw one elsewhere) is
		// answered at once.
		if _, err := r.LookupErr("topologyVersion"); err == nil {
			t.Errorf("hello offers streaming: %v", r)
		}
		tv := bson.D{{Key: "processId", Value: bson.NewObjectID()}, {Key: "counter", Value: int64(0)}}
		r2 := c.command(bson.D{{Key: "hello", Value: 1}, {Key: "topologyVersion", Value: tv}, {Key: "maxAwaitTimeMS", Value: int64(60000)}, {Key: "$db", Value: "admin"}})
		if !r2.Lookup("isWritablePrimary").Boolean() {
			t.Errorf("awaitable hello reply %v", r2)
		}
	})
	t.Run("local commands", func(t *testing.T) {
		if r := c.command(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
			t.Errorf("ping: %v", r)
		}
		r := c.command(bson.D{{Key: "whatsmyuri", Value: 1}, {Key: "$db", Value: "admin"}})
		if got := r.Lookup("you").StringValue(); got != c.nc.LocalAddr().String() {
			t.Errorf("whatsmyuri you = %q, want %q", got, c.nc.LocalAddr())
		}
		r = c.command(bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"}, {Key: "payload", Value: []byte("x")}, {Key: "$db", Value: "admin"}})
		if r.Lookup("ok").Double() != 0 || r.Lookup("code").Int32() != 18 || !strings.Contains(r.Lookup("errmsg").StringValue(), "does not authenticate") {
			t.Errorf("saslStart: %v", r)
		}
		// buildInfo is forwarded: the primary's version.
		r = c.command(bson.D{{Key: "buildInfo", Value: 1}, {Key: "$db", Value: "admin"}})
		if r.Lookup("version").StringValue() == "" {
			t.Errorf("buildInfo: %v", r)
		}
	})
}

// connectDriver connects the Go driver to the proxy as to a mongos,
// counting the getMores it sends.
func connectDriver(t *testing.T, addr string, getMores *atomic.Int32) *mongo.Client {
	t.Helper()
	var kind atomic.Value
	opts := options.Client().ApplyURI("mongodb://" + addr).
		SetServerMonitor(&event.ServerMonitor{TopologyDescriptionChanged: func(e *event.TopologyDescriptionChangedEvent) {
			kind.Store(e.NewDescription.Kind)
		}}).
		SetMonitor(&event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if e.CommandName == "getMore" && getMores != nil {
				getMores.Add(1)
			}
		}})
	client, err := mongo.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	if err := client.Ping(ctxFor(t, time.Minute), nil); err != nil {
		t.Fatal(err)
	}
	if k := fmt.Sprint(kind.Load()); k != "Sharded" {
		t.Fatalf("the driver sees a %s topology, want Sharded (a mongos)", k)
	}
	return client
}

func TestGoDriver(t *testing.T) {
	s, addr, logs := startProxy(t)
	var getMores atomic.Int32
	client := connectDriver(t, addr, &getMores)
	ctx := ctxFor(t, 3*time.Minute)
	db := client.Database("proxytest")
	testutil.DropAtCleanup(t, db)
	coll := db.Collection("docs")

	docs := make([]any, 50)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 5}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	t.Run("find in batches of 2", func(t *testing.T) {
		getMores.Store(0)
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(2).SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		if n := s.cursors.len(); n != 1 {
			t.Errorf("after find: %d cursors in the map, want 1", n)
		}
		n := 0
		for cur.Next(ctx) {
			if got := cur.Current.Lookup("_id").Int32(); got != int32(n) {
				t.Fatalf("document %d has _id %d", n, got)
			}
			n++
		}
		if err := cur.Err(); err != nil {
			t.Fatal(err)
		}
		cur.Close(ctx)
		// 2 in the find's batch, 48 in 24 getMores, and a 25th that finds
		// the end (the member does not know it before).
		if n != 50 || getMores.Load() != 25 {
			t.Fatalf("%d documents in %d getMores, want 50 in 25", n, getMores.Load())
		}
		if n := s.cursors.len(); n != 0 {
			t.Errorf("after the last batch: %d cursors in the map, want 0", n)
		}
	})
	t.Run("killCursors", func(t *testing.T) {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(2))
		if err != nil {
			t.Fatal(err)
		}
		if s.cursors.len() != 1 {
			t.Fatalf("%d cursors in the map, want 1", s.cursors.len())
		}
		if err := cur.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if s.cursors.len() != 0 {
			t.Fatalf("after killCursors: %d cursors in the map, want 0", s.cursors.len())
		}
	})
	t.Run("aggregate count distinct", func(t *testing.T) {
		cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "sum", Value: bson.D{{Key: "$sum", Value: "$_id"}}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.M
		if err := cur.All(ctx, &out); err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || out[0]["sum"] != int32(49*50/2) {
			t.Fatalf("aggregate: %v, want sum 1225", out)
		}
		n, err := coll.CountDocuments(ctx, bson.D{{Key: "k", Value: 3}})
		if err != nil || n != 10 {
			t.Fatalf("count = %d, %v; want 10", n, err)
		}
		var ks []int32
		if err := coll.Distinct(ctx, "k", bson.D{}).Decode(&ks); err != nil || len(ks) != 5 {
			t.Fatalf("distinct = %v, %v; want 5 values", ks, err)
		}
	})
	t.Run("transaction", func(t *testing.T) {
		sess, err := client.StartSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.EndSession(ctx)
		_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
			if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: "txn"}}); err != nil {
				return nil, err
			}
			return coll.UpdateOne(sc, bson.D{{Key: "_id", Value: "txn"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "done", Value: true}}}})
		})
		if err != nil {
			t.Fatal(err)
		}
		var got bson.M
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "txn"}}).Decode(&got); err != nil || got["done"] != true {
			t.Fatalf("after the transaction: %v, %v", got, err)
		}
	})
	t.Run("w:0 insert", func(t *testing.T) {
		w0 := db.Collection("docs", options.Collection().SetWriteConcern(writeconcern.Unacknowledged()))
		if _, err := w0.InsertOne(ctx, bson.D{{Key: "_id", Value: "w0"}}); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, time.Minute, func() bool {
			n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: "w0"}})
			return err == nil && n == 1
		}, "the w:0 insert to arrive")
	})
	if l := logs.String(); strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
		t.Errorf("proxy log:\n%s", l)
	}
}

// Garbage, a header announcing 100 MB and a truncated message each close
// their own connection with one log line; a driver on other connections
// keeps working.
func TestMalformedInput(t *testing.T) {
	_, addr, logs := startProxy(t)
	client := connectDriver(t, addr, nil)
	ctx := ctxFor(t, 2*time.Minute)
	coll := client.Database("proxytest").Collection("malformed")
	testutil.DropAtCleanup(t, client.Database("proxytest"))

	big := make([]byte, 16)
	copy(big, []byte{0x00, 0xe1, 0xf5, 0x05}) // 100,000,000
	copy(big[12:], []byte{0xdd, 0x07, 0, 0})  // OP_MSG
	for i, tc := range []struct {
		name, bytes, log string
		halfClose        bool // the client then closes its side
	}{
		{"garbage", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "messageLength 542393671", false}, // "GET " as a length
		{"length below the header", string([]byte{4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 7, 0, 0}), "bad message length", false},
		{"100 MB header", string(big), "messageLength 100000000 is over", false},
		{"unknown opcode", string([]byte{16, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x39, 0x30, 0, 0}), "unsupported", false},
		{"truncated", string([]byte{100, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xdd, 7, 0, 0, 0, 0}), "truncated", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, addr)
			if r := c.command(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
				t.Fatalf("ping before: %v", r)
			}
			if _, err := c.nc.Write([]byte(tc.bytes)); err != nil {
				t.Fatal(err)
			}
			if tc.halfClose {
				c.nc.(*net.TCPConn).CloseWrite()
			}
			if !c.closed() {
				t.Fatal("the proxy kept the connection open")
			}
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
				t.Fatalf("the driver after %s: %v", tc.name, err)
			}
			testutil.Eventually(t, time.Minute, func() bool {
				return strings.Count(logs.String(), "closing client connection") == i+1
			}, "one log line per closed connection")
			if !strings.Contains(logs.String(), tc.log) {
				t.Errorf("log does not say %q:\n%s", tc.log, logs)
			}
		})
	}
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || n != 5 {
		t.Fatalf("count = %d, %v; want 5", n, err)
	}
}

// A cursor outlives the client connection that opened it: drivers continue
// a cursor over any pooled connection (and clear pools routinely), so
// another connection's getMore still reads it. A cursor its member no
// longer has (CursorNotFound) is forgotten.
func TestCursorOutlivesItsConnection(t *testing.T) {
	s, addr, _ := startProxy(t)
	rs := testutil.ReplicaSet(t)
	direct := testutil.Connect(t, rs.URI())
	ctx := ctxFor(t, 2*time.Minute)
	db := direct.Database("proxytest")
	testutil.DropAtCleanup(t, db)
	docs := make([]any, 10)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := db.Collection("open").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	conns := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns)
	}
	c1, c2 := dialRaw(t, addr), dialRaw(t, addr)
	c2.command(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	find := func(c *rawConn) int64 {
		r := c.command(bson.D{{Key: "find", Value: "open"}, {Key: "batchSize", Value: 2}, {Key: "$db", Value: "proxytest"}})
		id := r.Lookup("cursor", "id").Int64()
		if id == 0 {
			t.Fatalf("find: no open cursor: %v", r)
		}
		return id
	}
	id := find(c1)
	c1.nc.Close()
	// The first connection is gone once the proxy forgets it.
	testutil.Eventually(t, time.Minute, func() bool { return conns() == 1 }, "the proxy to see the first connection close")
	r := c2.command(bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "open"}, {Key: "batchSize", Value: 3}, {Key: "$db", Value: "proxytest"}})
	if ok, _ := r.Lookup("ok").AsFloat64OK(); ok != 1 {
		t.Fatalf("getMore over a second connection after the first closed: %v; want the cursor's next batch", r)
	}
	if batch, _ := r.Lookup("cursor", "nextBatch").Array().Values(); len(batch) != 3 {
		t.Fatalf("getMore: %d documents, want 3: %v", len(batch), r)
	}

	// The member loses the cursor (killed behind the proxy's back): its
	// CursorNotFound makes the proxy forget it.
	id = find(c2)
	if n := s.cursors.len(); n != 2 {
		t.Fatalf("%d cursors in the map, want 2", n)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "killCursors", Value: "open"}, {Key: "cursors", Value: bson.A{id}}}).Err(); err != nil {
		t.Fatal(err)
	}
	r = c2.command(bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "open"}, {Key: "$db", Value: "proxytest"}})
	if code, _ := r.Lookup("code").Int32OK(); code != codeCursorNotFound {
		t.Fatalf("getMore of a killed cursor: %v, want CursorNotFound", r)
	}
	if _, ok, _ := s.cursors.owner(id); ok || s.cursors.len() != 1 {
		t.Fatalf("after CursorNotFound: cursor %d still known (%d in the map), want forgotten", id, s.cursors.len())
	}
}

// A member slower than RequestTimeout gets the client a NetworkTimeout
// error reply (a network error drivers retry), not a hang; the connection
// stays usable.
func TestRequestTimeout(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	logs := &testutil.SyncBuffer{}
	s, err := New(Config{URI: rs.URI(), Logger: slog.New(slog.NewTextHandler(logs, nil)), RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(context.Background(), ln)
	t.Cleanup(func() { s.Close() })
	c := dialRaw(t, ln.Addr().String())
	// sleep is a test command (the sets run with enableTestCommands).
	r := c.command(bson.D{{Key: "sleep", Value: 1}, {Key: "secs", Value: 10}, {Key: "lock", Value: "none"}, {Key: "$db", Value: "admin"}})
	if r.Lookup("ok").Double() != 0 || r.Lookup("code").Int32() != codeNetworkTimeout || r.Lookup("codeName").StringValue() != "NetworkTimeout" {
		t.Fatalf("reply %v, want NetworkTimeout", r)
	}
	if r := c.command(bson.D{{Key: "buildInfo", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
		t.Fatalf("buildInfo after the timeout: %v", r)
	}
	if !strings.Contains(logs.String(), "forwarding failed") {
		t.Errorf("no log line for the timeout:\n%s", logs)
	}
}

// A driver given credentials is told the proxy does not authenticate
// clients.
func TestClientCredentialsRefused(t *testing.T) {
	_, addr, _ := startProxy(t)
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://alice:pw@" + addr + "/?serverSelectionTimeoutMS=20000"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	err = client.Ping(ctxFor(t, time.Minute), nil)
	if err == nil || !strings.Contains(err.Error(), "does not authenticate clients") {
		t.Fatalf("ping with credentials: %v", err)
	}
}

// Serve's context stops the listener only: connections already accepted are
// still served (forwarded commands included) until Close.
func TestConnectionsOutliveServe(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	s, err := New(Config{URI: rs.URI(), RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	c := dialRaw(t, ln.Addr().String())
	buildInfo := bson.D{{Key: "buildInfo", Value: 1}, {Key: "$db", Value: "admin"}}
	if r := c.command(buildInfo); r.Lookup("ok").Double() != 1 {
		t.Fatalf("buildInfo: %v", r)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the listener still accepts")
	}
	if r := c.command(buildInfo); r.Lookup("ok").Double() != 1 {
		t.Fatalf("buildInfo after Serve returned: %v", r)
	}
	s.Close()
	if !c.closed() {
		t.Error("Close left a client connection open")
	}
}
