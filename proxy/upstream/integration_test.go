package upstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// clientID is the requestID of every message the tests send, as a client
// would: replies must answer it.
const clientID = 4242

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// opMsg builds a client's OP_MSG with body d.
func opMsg(t *testing.T, flags wiremessage.MsgFlag, d bson.D) []byte {
	t.Helper()
	return wire.AppendMsg(nil, clientID, 0, flags, doc(t, d))
}

// answer checks that reply answers clientID and returns its body.
func answer(t *testing.T, reply []byte) bson.Raw {
	t.Helper()
	m, err := wire.Parse(reply)
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	if m.Header.ResponseTo != clientID {
		t.Fatalf("reply answers request %d, want %d", m.Header.ResponseTo, clientID)
	}
	if m.Flags&wiremessage.MoreToCome != 0 {
		t.Fatalf("reply has moreToCome")
	}
	return bson.Raw(m.Body)
}

// run sends d to addr and returns the reply's body; a failed command
// (ok:0) is returned as is.
func run(ctx context.Context, t *testing.T, p *Pool, addr string, d bson.D) bson.Raw {
	t.Helper()
	reply, err := p.RoundTrip(ctx, addr, opMsg(t, 0, d))
	if err != nil {
		t.Fatalf("%v to %s: %v", d[0].Key, addr, err)
	}
	return answer(t, reply)
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func okOf(body bson.Raw) bool {
	v, err := body.LookupErr("ok")
	return err == nil && v.AsFloat64() == 1
}

var secondaryPreferred = bson.E{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}}

// helloMe asks addr who it is through the pool.
func helloMe(ctx context.Context, p *Pool, addr string) (string, error) {
	body, _ := bson.Marshal(bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
	reply, err := p.RoundTrip(ctx, addr, wire.AppendMsg(nil, clientID, 0, 0, body))
	if err != nil {
		return "", err
	}
	m, err := wire.Parse(reply)
	if err != nil {
		return "", err
	}
	me, _ := bson.Raw(m.Body).Lookup("me").StringValueOK()
	return me, nil
}

func newPool(t *testing.T, uri string) *Pool {
	t.Helper()
	p, err := New(ctxFor(t, 2*time.Minute), uri)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// waitMembers waits until the pool knows a primary and want secondaries.
func waitMembers(t *testing.T, p *Pool, want int) []Member {
	t.Helper()
	var ms []Member
	testutil.Eventually(t, time.Minute, func() bool {
		ms = p.Members()
		var prim, sec int
		for _, m := range ms {
			switch m.Role {
			case RolePrimary:
				prim++
			case RoleSecondary:
				sec++
			}
		}
		return prim == 1 && sec == want
	}, fmt.Sprintf("a primary and %d secondaries", want))
	return ms
}

// roles returns the set's primary and secondaries as the cluster sees them.
func roles(ctx context.Context, t *testing.T, rs *cluster.Cluster) (primary cluster.Member, secondaries []cluster.Member) {
	t.Helper()
	primary, err := rs.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rs.Members() {
		if m.Name != primary.Name {
			secondaries = append(secondaries, m)
		}
	}
	return primary, secondaries
}

// TestMembersDescribeTheSet: every member with its role, the set's name, its
// tag, and the limits a mongod 6+ announces.
func TestMembersDescribeTheSet(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 2*time.Minute)
	p := newPool(t, rs.URI())
	ms := waitMembers(t, p, 2)
	primary, _ := roles(ctx, t, rs)
	if len(ms) != 3 {
		t.Fatalf("members %+v, want 3", ms)
	}
	hello := run(ctx, t, p, primary.Host, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
	maxWire := hello.Lookup("maxWireVersion").Int32()
	for _, m := range ms {
		cm := rs.Members()[slices.IndexFunc(rs.Members(), func(c cluster.Member) bool { return c.Host == m.Addr })]
		want := RoleSecondary
		if m.Addr == primary.Host {
			want = RolePrimary
		}
		if m.Role != want || m.SetName != rs.ReplSet() || m.MaxWireVersion != maxWire || m.MaxBSONObjectSize != 16*1024*1024 ||
			m.MaxMessageSizeBytes != 48_000_000 || m.MaxWriteBatchSize != 100_000 || m.SessionTimeoutMinutes != 30 ||
			len(m.Tags) != 1 || m.Tags["node"] != cm.Name || m.Err != nil {
			t.Errorf("member %+v; want role %v, set %s, maxWireVersion %d, the 16 MiB/48 MB/100000 limits, 30-minute sessions, tag node:%s",
				m, want, rs.ReplSet(), maxWire, cm.Name)
		}
	}
}

// TestRoundTripReachesTheMember: a raw hello and a raw find sent to each
// member by address are answered by that member, under the client's
// request id. A find without a $readPreference is refused by a secondary:
// the proxy must send one that allows secondaries.
func TestRoundTripReachesTheMember(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 2*time.Minute)
	p := newPool(t, rs.URI())
	waitMembers(t, p, 2)
	primary, secondaries := roles(ctx, t, rs)
	for _, m := range append(secondaries, primary) {
		if me, err := helloMe(ctx, p, m.Host); err != nil || me != m.Host {
			t.Errorf("hello to %s: me %q, %v", m.Host, me, err)
		}
		// The member's own startup_log records the port it listens on.
		body := run(ctx, t, p, m.Host, bson.D{{Key: "find", Value: "startup_log"}, {Key: "sort", Value: bson.D{{Key: "startTime", Value: -1}}},
			{Key: "limit", Value: 1}, {Key: "singleBatch", Value: true}, {Key: "$db", Value: "local"}, secondaryPreferred})
		port, ok := body.Lookup("cursor", "firstBatch", "0", "cmdLine", "net", "port").AsInt64OK()
		if !okOf(body) || !ok || port != int64(m.Port) {
			t.Errorf("find on %s's local.startup_log: port %d (%v), want %d: %v", m.Host, port, ok, m.Port, body)
		}
	}
	// (The local database is readable on a secondary without one.)
	body := run(ctx, t, p, secondaries[0].Host, bson.D{{Key: "find", Value: "c"}, {Key: "$db", Value: "upstream_readpref"}})
	if code, _ := body.Lookup("code").Int32OK(); okOf(body) || code != 13435 {
		t.Errorf("find without $readPreference on a secondary: %v, want NotPrimaryNoSecondaryOk (13435)", body)
	}
}

// TestGetMoreOverAnotherConnection: a cursor belongs to the member, not to
// the connection that opened it: a getMore over another connection to the
// same member continues it (with the find's session, as drivers send it, or
// without one); on another member the cursor does not exist.
func TestGetMoreOverAnotherConnection(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 2*time.Minute)
	client := testutil.Connect(t, rs.URI())
	db := client.Database("upstream_getmore")
	testutil.DropAtCleanup(t, db)
	docs := []any{bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "_id", Value: 4}}}
	if _, err := db.Collection("c").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	testutil.WaitReplicated(t, client)
	p := newPool(t, rs.URI())
	waitMembers(t, p, 2)
	_, secondaries := roles(ctx, t, rs)
	addr, other := secondaries[0].Host, secondaries[1].Host
	mp, err := p.member(addr)
	if err != nil {
		t.Fatal(err)
	}
	a, err := mp.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mp.put(a, false)
	b, err := mp.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer mp.put(b, false)
	if ida, idb := a.ServerConnectionID(), b.ServerConnectionID(); ida == nil || idb == nil || *ida == *idb {
		t.Fatalf("server connection ids %d and %d: want two connections", deref(ida), deref(idb))
	}

	uuid := make([]byte, 16)
	_, _ = rand.Read(uuid)
	lsid := bson.E{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: uuid}}}}
	for _, session := range []bool{true, false} {
		withSession := func(d bson.D) bson.D {
			if session {
				return append(d, lsid)
			}
			return d
		}
		send := func(conn int, d bson.D) bson.Raw {
			t.Helper()
			c := a
			if conn == 1 {
				c = b
			}
			msg := opMsg(t, 0, withSession(d))
			req, _ := readRequest(msg)
			reply, err := p.exchange(ctx, mp, c, addr, msg, req)
			if err != nil {
				t.Fatal(err)
			}
			return answer(t, reply)
		}
		body := send(0, bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "batchSize", Value: 2},
			{Key: "$db", Value: db.Name()}, secondaryPreferred})
		var got []int32
		batch := "firstBatch"
		for i := 1; ; i++ {
			if !okOf(body) {
				t.Fatalf("session %v, batch %d: %v", session, i, body)
			}
			vals, _ := body.Lookup("cursor", batch).Array().Values()
			for _, v := range vals {
				got = append(got, v.Document().Lookup("_id").Int32())
			}
			id := body.Lookup("cursor", "id").Int64()
			if id == 0 {
				break
			}
			if i == 1 {
				// The cursor does not exist on the other secondary.
				reply, err := p.RoundTrip(ctx, other, opMsg(t, 0, withSession(bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"},
					{Key: "$db", Value: db.Name()}})))
				if err != nil {
					t.Fatal(err)
				}
				if nf := answer(t, reply); nf.Lookup("code").Int32() != 43 {
					t.Errorf("getMore on the other secondary %s: %v, want CursorNotFound (43)", other, nf)
				}
			}
			batch = "nextBatch"
			body = send(i%2, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 2}, {Key: "$db", Value: db.Name()}})
		}
		if !slices.Equal(got, []int32{0, 1, 2, 3, 4}) {
			t.Errorf("session %v: ids %v over two connections, want 0..4", session, got)
		}
	}
}

// TestExhaustAllowedIsNotForwarded: a getMore with exhaustAllowed gets one
// reply without moreToCome, and the cursor goes on with the next getMore.
func TestExhaustAllowedIsNotForwarded(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 2*time.Minute)
	client := testutil.Connect(t, rs.URI())
	db := client.Database("upstream_exhaust")
	testutil.DropAtCleanup(t, db)
	if _, err := db.Collection("c").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, rs.URI())
	primary, _ := roles(ctx, t, rs)
	body := run(ctx, t, p, primary.Host, bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "batchSize", Value: 1}, {Key: "$db", Value: db.Name()}})
	id := body.Lookup("cursor", "id").Int64()
	for want := int32(1); want <= 2; want++ {
		msg := opMsg(t, wiremessage.ExhaustAllowed, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}, {Key: "$db", Value: db.Name()}})
		orig := bytes.Clone(msg)
		reply, err := p.RoundTrip(ctx, primary.Host, msg)
		if err != nil {
			t.Fatalf("getMore with exhaustAllowed: %v", err)
		}
		body := answer(t, reply)
		vals, _ := body.Lookup("cursor", "nextBatch").Array().Values()
		if len(vals) != 1 || vals[0].Document().Lookup("_id").Int32() != want {
			t.Errorf("getMore %d: %v, want the document with _id %d", want, body, want)
		}
		if !bytes.Equal(msg, orig) {
			t.Errorf("RoundTrip left the client's message changed")
		}
	}
}

// TestUnacknowledgedWrite: an insert with w:0 and moreToCome is written and
// RoundTrip returns without a reply (a member sends none: waiting for one
// would last until the context's deadline), and the document arrives.
func TestUnacknowledgedWrite(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	db := client.Database("upstream_w0")
	testutil.DropAtCleanup(t, db)
	p := newPool(t, rs.URI())
	primary, _ := roles(ctxFor(t, time.Minute), t, rs)
	ctx := ctxFor(t, 20*time.Second)
	msg := opMsg(t, wiremessage.MoreToCome, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: "w0"}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 0}}}, {Key: "$db", Value: db.Name()}})
	orig := bytes.Clone(msg)
	reply, err := p.RoundTrip(ctx, primary.Host, msg)
	if reply != nil || err != nil {
		t.Fatalf("RoundTrip of a moreToCome insert: %d bytes, %v; want no reply, no error", len(reply), err)
	}
	if !bytes.Equal(msg, orig) {
		t.Errorf("RoundTrip left the client's message changed")
	}
	testutil.Eventually(t, 20*time.Second, func() bool {
		n, err := db.Collection("c").CountDocuments(ctx, bson.D{{Key: "_id", Value: "w0"}})
		return err == nil && n == 1
	}, "the unacknowledged insert's document")
	// The connection it went over is clean: the next request gets its own reply.
	if me, err := helloMe(ctx, p, primary.Host); err != nil || me != primary.Host {
		t.Errorf("hello after the w:0 insert: %q, %v", me, err)
	}
}

// TestMemberDown: a stopped member gives an error naming it at once (not at
// the context's deadline), the driver marks it unknown, and requests reach
// it again once it is back.
func TestMemberDown(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 3*time.Minute)
	p := newPool(t, rs.URI())
	waitMembers(t, p, 2)
	_, secondaries := roles(ctx, t, rs)
	m := secondaries[0]
	if me, err := helloMe(ctx, p, m.Host); err != nil || me != m.Host {
		t.Fatalf("hello to %s: %q, %v", m.Host, me, err)
	}
	stopped := true
	t.Cleanup(func() {
		if stopped {
			_ = rs.RestartMember(context.Background(), m.Name)
		}
	})
	if err := rs.StopMember(ctx, m.Name); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // over the pooled connection, then with the pool cleared
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := helloMe(rctx, p, m.Host)
		cancel()
		if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), m.Host) ||
			!(errors.Is(err, ErrUnavailable) || errors.Is(err, ErrConnection)) {
			t.Errorf("request %d to the stopped %s: %v; want ErrUnavailable or ErrConnection naming it, before the deadline", i, m.Host, err)
		}
	}
	testutil.Eventually(t, time.Minute, func() bool {
		i := slices.IndexFunc(p.Members(), func(x Member) bool { return x.Addr == m.Host })
		return i >= 0 && p.Members()[i].Role == RoleUnknown
	}, "the stopped member unknown")
	if err := rs.RestartMember(ctx, m.Name); err != nil {
		t.Fatal(err)
	}
	stopped = false
	testutil.Eventually(t, time.Minute, func() bool {
		me, err := helloMe(ctx, p, m.Host)
		return err == nil && me == m.Host
	}, "the restarted member answering through the pool")
}

// TestMemberHangs: a member that stops answering (SIGSTOP) gives an error
// naming it at the context's deadline, not a hang; once it runs again, the
// next request gets its own reply, not the late one.
func TestMemberHangs(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 2*time.Minute)
	p := newPool(t, rs.URI())
	waitMembers(t, p, 2)
	_, secondaries := roles(ctx, t, rs)
	m, err := rs.Member(secondaries[1].Name)
	if err != nil {
		t.Fatal(err)
	}
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", m.PID)); err != nil || !bytes.Contains(cmd, []byte(m.DBPath)) {
		t.Fatalf("pid %d is not %s's mongod: %v", m.PID, m.Name, err)
	}
	if me, err := helloMe(ctx, p, m.Host); err != nil || me != m.Host {
		t.Fatalf("hello to %s: %q, %v", m.Host, me, err)
	}
	if err := syscall.Kill(m.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(m.PID, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	// The signal stops each thread when it is next scheduled: wait for all.
	testutil.Eventually(t, time.Minute, func() bool { return allStopped(m.PID) }, "every thread of the member stopped")
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = helloMe(rctx, p, m.Host)
	cancel()
	resume()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), m.Host) ||
		!(errors.Is(err, ErrUnavailable) || errors.Is(err, ErrConnection)) {
		t.Errorf("request to the stopped process %s: %v; want the deadline, naming it", m.Host, err)
	}
	testutil.Eventually(t, time.Minute, func() bool {
		me, err := helloMe(ctx, p, m.Host)
		return err == nil && me == m.Host
	}, "the resumed member answering through the pool")
	if err := rs.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}

// allStopped reports whether every thread of process pid is stopped (state
// T in /proc/pid/task/*/stat).
func allStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		// pid (comm) state ...: comm may hold spaces, the state follows its ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) || stat[i+2] != 'T' {
			return false
		}
	}
	return true
}

// TestAuthAndTLS: on a set with access control and TLS, as `cluster up
// --auth --tls` starts it, the pool authenticates as the application user
// (its reads work, another database is refused) over TLS; a wrong password
// fails New at once with ErrAuthentication, naming the user and neither
// password; without the CA, New fails on the certificate.
func TestAuthAndTLS(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.StartReplicaSet(t, cluster.Config{Members: 2, Auth: true, TLS: true})
	ctx := ctxFor(t, 3*time.Minute)
	appURI, err := rs.AppURI()
	if err != nil {
		t.Fatal(err)
	}
	p := newPool(t, appURI)
	waitMembers(t, p, 1)
	for _, m := range rs.Members() {
		body := run(ctx, t, p, m.Host, bson.D{{Key: "find", Value: "c"}, {Key: "$db", Value: cluster.DefaultAppDB}, secondaryPreferred})
		if !okOf(body) {
			t.Errorf("find as the application user on %s: %v", m.Host, body)
		}
		body = run(ctx, t, p, m.Host, bson.D{{Key: "find", Value: "c"}, {Key: "$db", Value: "other"}, secondaryPreferred})
		if code, _ := body.Lookup("code").Int32OK(); code != 13 {
			t.Errorf("find on another database on %s: %v, want Unauthorized (13)", m.Host, body)
		}
	}

	userinfo, _, _ := strings.Cut(strings.TrimPrefix(appURI, "mongodb://"), "@")
	user, pw, _ := strings.Cut(userinfo, ":")
	wrong := "wrong-" + pw
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	bad, err := New(actx, strings.Replace(appURI, ":"+pw+"@", ":"+wrong+"@", 1))
	if err == nil {
		_ = bad.Close(ctx)
		t.Fatal("New with a wrong password succeeded")
	}
	if !errors.Is(err, ErrAuthentication) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), user+"@") {
		t.Errorf("New with a wrong password: %v; want ErrAuthentication naming %s, before the deadline", err, user)
	}
	if strings.Contains(err.Error(), pw) {
		t.Errorf("the error quotes a password: %v", err)
	}

	u, err := url.Parse(appURI)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Del("tlsCAFile")
	q.Set("serverSelectionTimeoutMS", "2000")
	u.RawQuery = q.Encode()
	noCA := u.String()
	if bad, err := New(actx, noCA); err == nil {
		_ = bad.Close(ctx)
		t.Error("New without the CA succeeded")
	} else if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), pw) {
		t.Errorf("New without the CA: %v; want ErrUnavailable on the certificate, without the password", err)
	}
}

// TestStateChangeErrorClearsPool: a reply saying the member is shutting
// down reaches the caller unchanged and, as in the driver's own operations,
// clears that member's pool before RoundTrip returns; a heartbeat makes it
// usable again.
func TestStateChangeErrorClearsPool(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, 2*time.Minute)
	var mu sync.Mutex
	cleared := map[string]int{}
	mon := &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		if e.Type == event.ConnectionPoolCleared {
			mu.Lock()
			cleared[e.Address]++
			mu.Unlock()
		}
	}}
	const app = "upstream-state-change"
	p, err := New(ctx, rs.URI(), WithClientOptions(options.Client().SetAppName(app).SetPoolMonitor(mon)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	waitMembers(t, p, 2)
	_, secondaries := roles(ctx, t, rs)
	m := secondaries[0]
	t.Cleanup(func() {
		_ = rs.SetFailPoint(context.Background(), m.Name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
	})
	if err := rs.SetFailPoint(ctx, m.Name, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find"}}, {Key: "errorCode", Value: 91}, {Key: "appName", Value: app}}}}); err != nil {
		t.Fatal(err)
	}
	body := run(ctx, t, p, m.Host, bson.D{{Key: "find", Value: "c"}, {Key: "$db", Value: "upstream_state"}, secondaryPreferred})
	if code, _ := body.Lookup("code").Int32OK(); okOf(body) || code != 91 {
		t.Errorf("find under the fail point: %v, want ShutdownInProgress (91)", body)
	}
	mu.Lock()
	n := cleared[m.Host]
	mu.Unlock()
	if n != 1 {
		t.Errorf("%s's pool cleared %d times, want once", m.Host, n)
	}
	testutil.Eventually(t, time.Minute, func() bool {
		me, err := helloMe(ctx, p, m.Host)
		return err == nil && me == m.Host
	}, "the member answering again after a heartbeat")
}

// TestUnknownAndClosed: an address that is no member, and any address once
// the pool is closed, fail without sending, naming the address.
func TestUnknownAndClosed(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	p, err := New(ctx, rs.URI())
	if err != nil {
		t.Fatal(err)
	}
	primary, _ := roles(ctx, t, rs)
	ping := opMsg(t, 0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if _, err := p.RoundTrip(ctx, "127.0.0.1:1", ping); !errors.Is(err, ErrUnknownMember) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("RoundTrip to a non-member: %v, want ErrUnknownMember naming it", err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.RoundTrip(ctx, primary.Host, ping); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), primary.Host) {
		t.Errorf("RoundTrip after Close: %v, want ErrClosed naming %s", err, primary.Host)
	}
	if err := p.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
