package proxy

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// startSecureProxy starts a proxy in front of the shared replica set whose
// clients authenticate as creds' users, on a loopback TLS listener with
// certs' server certificate. Its log records debug lines too.
func startSecureProxy(t *testing.T, creds *Credentials, certs testutil.Certs) (*Server, string, *testutil.SyncBuffer) {
	t.Helper()
	rs := testutil.ReplicaSet(t)
	logs := &testutil.SyncBuffer{}
	s, err := New(Config{URI: rs.URI(), Users: creds, RequestTimeout: time.Minute,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	served := make(chan error, 1)
	go func() {
		served <- s.Serve(context.Background(), tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s, addr, logs
}

// pct percent-encodes every byte but RFC 3986's unreserved ones, for a
// URI's user name and password.
func pct(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// secureURI is a URI of the proxy at addr with TLS trusting ca, as user
// (with password) when user is not "".
func secureURI(addr, ca, user, password string) string {
	userinfo := ""
	if user != "" {
		userinfo = pct(user) + ":" + pct(password) + "@"
	}
	return "mongodb://" + userinfo + addr + "/?authSource=admin&tls=true&tlsCAFile=" + url.QueryEscape(ca)
}

const alicePassword = "pa55 w@rd:/é%"

// The Go driver through a proxy that requires SCRAM-SHA-256 and TLS: with
// the right password it works as with a mongos, and the proxy knows who it
// is; a wrong password fails with AuthenticationFailed, logged without
// any password; without credentials a find is Unauthorized; without TLS
// nothing gets through.
func TestAuthTLSGoDriver(t *testing.T) {
	testutil.SkipIfShort(t)
	var creds Credentials
	if _, err := creds.SetPassword("alice", "admin", alicePassword, 0); err != nil {
		t.Fatal(err)
	}
	certs := testutil.NewCerts(t)
	_, addr, logs := startSecureProxy(t, &creds, certs)
	ctx := ctxFor(t, 3*time.Minute)

	t.Run("right password", func(t *testing.T) {
		var kind atomic.Value
		client, err := mongo.Connect(options.Client().ApplyURI(secureURI(addr, certs.CA, "alice", alicePassword)).
			SetServerMonitor(&event.ServerMonitor{TopologyDescriptionChanged: func(e *event.TopologyDescriptionChangedEvent) {
				kind.Store(e.NewDescription.Kind)
			}}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { client.Disconnect(context.Background()) }) // after the drop
		if err := client.Ping(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if k := fmt.Sprint(kind.Load()); k != "Sharded" {
			t.Fatalf("the driver sees a %s topology, want Sharded", k)
		}
		db := client.Database("proxytest")
		testutil.DropAtCleanup(t, db)
		coll := db.Collection("auth")
		if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}); err != nil {
			t.Fatal(err)
		}
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(1))
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil || len(got) != 3 {
			t.Fatalf("find: %v, %v; want 3 documents", got, err)
		}
		var st struct {
			AuthInfo struct{ AuthenticatedUsers []struct{ User, DB string } } `bson:"authInfo"`
		}
		if err := db.RunCommand(ctx, bson.D{{Key: "connectionStatus", Value: 1}}).Decode(&st); err != nil {
			t.Fatal(err)
		}
		if u := st.AuthInfo.AuthenticatedUsers; len(u) != 1 || u[0].User != "alice" || u[0].DB != "admin" {
			t.Fatalf("connectionStatus users %+v, want alice of admin", u)
		}
		l := logs.String()
		if !strings.Contains(l, "client authenticated") || !strings.Contains(l, "user=alice") {
			t.Errorf("no authentication in the proxy's log:\n%s", l)
		}
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			t.Errorf("proxy log:\n%s", l)
		}
	})

	t.Run("wrong password", func(t *testing.T) {
		const wrong = "pa55 w@rd:/è%"
		before := strings.Count(logs.String(), "client authentication failed")
		client, err := mongo.Connect(options.Client().ApplyURI(secureURI(addr, certs.CA, "alice", wrong)))
		if err != nil {
			t.Fatal(err)
		}
		defer client.Disconnect(context.Background())
		err = client.Ping(ctx, nil)
		if err == nil || !strings.Contains(err.Error(), "AuthenticationFailed") {
			t.Fatalf("ping with a wrong password: %v; want AuthenticationFailed", err)
		}
		l := logs.String()
		if n := strings.Count(l, "client authentication failed"); n != before+1 || !strings.Contains(l, `reason="wrong password"`) {
			t.Fatalf("want one failed authentication more in the proxy's log, saying why:\n%s", l)
		}
		for _, secret := range []string{alicePassword, wrong, pct(alicePassword), pct(wrong), "pa55"} {
			if strings.Contains(l, secret) {
				t.Fatalf("the proxy's log holds %q:\n%s", secret, l)
			}
		}
	})

	t.Run("no credentials", func(t *testing.T) {
		client := testutil.Connect(t, secureURI(addr, certs.CA, "", ""))
		if err := client.Ping(ctx, nil); err != nil {
			t.Fatalf("ping needs no authentication: %v", err)
		}
		coll := client.Database("proxytest").Collection("auth")
		err := coll.FindOne(ctx, bson.D{}).Err()
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(codeUnauthorized) || !strings.Contains(err.Error(), "command find requires authentication") {
			t.Fatalf("unauthenticated find: %v; want Unauthorized", err)
		}
		_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "anon"}})
		if !errors.As(err, &se) || !se.HasErrorCode(codeUnauthorized) {
			t.Fatalf("unauthenticated insert: %v; want Unauthorized", err)
		}
	})

	t.Run("no TLS", func(t *testing.T) {
		c := dialRaw(t, addr)
		body, _ := bson.Marshal(bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
		if _, err := c.nc.Write(wire.AppendMsg(nil, 1, 0, 0, body)); err != nil {
			t.Fatal(err)
		}
		if !c.closed() {
			t.Fatal("the proxy answered a client without TLS")
		}
		testutil.Eventually(t, time.Minute, func() bool {
			return strings.Contains(logs.String(), "first record does not look like a TLS handshake")
		}, "the refused handshake in the log")
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://alice:" + pct(alicePassword) + "@" + addr + "/?authSource=admin&serverSelectionTimeoutMS=2000"))
		if err != nil {
			t.Fatal(err)
		}
		defer client.Disconnect(context.Background())
		if err := client.Ping(ctx, nil); err == nil {
			t.Fatal("a driver without TLS got through")
		}
	})
}

// Keys mongod derived for a user (its admin.system.users document's
// credentials) work in a users file as they are.
func TestAuthSystemUsersKeys(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	direct := testutil.Connect(t, rs.URI())
	ctx := ctxFor(t, 2*time.Minute)
	admin := direct.Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "createUser", Value: "carol"}, {Key: "pwd", Value: "from mongod"}, {Key: "roles", Value: bson.A{}}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-256"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.RunCommand(context.Background(), bson.D{{Key: "dropUser", Value: "carol"}}) })
	var u struct {
		Credentials bson.Raw `bson:"credentials"`
	}
	if err := admin.Collection("system.users").FindOne(ctx, bson.D{{Key: "_id", Value: "admin.carol"}}).Decode(&u); err != nil {
		t.Fatal(err)
	}
	credJSON, err := bson.MarshalExtJSON(u.Credentials, false, false)
	if err != nil {
		t.Fatal(err)
	}
	file, _ := json.Marshal(map[string]any{"users": []any{map[string]any{"user": "carol", "db": "admin", "credentials": json.RawMessage(credJSON)}}})
	path := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	creds, err := LoadCredentials(path)
	if err != nil {
		t.Fatalf("%v:\n%s", err, file)
	}
	certs := testutil.NewCerts(t)
	_, addr, _ := startSecureProxy(t, creds, certs)
	client := testutil.Connect(t, secureURI(addr, certs.CA, "carol", "from mongod"))
	if err := client.Database("proxytest").Collection("auth").FindOne(ctx, bson.D{}).Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatalf("find as carol: %v", err)
	}
	bad := testutil.Connect(t, secureURI(addr, certs.CA, "carol", "not from mongod"))
	if err := bad.Ping(ctx, nil); err == nil || !strings.Contains(err.Error(), "AuthenticationFailed") {
		t.Fatalf("a wrong password for carol: %v", err)
	}
}

// pymongo authenticates over TLS with the same kind of URI, and runs the
// proxy's pymongo workload (cursors, a transaction, w:0) authenticated; a
// wrong password is AuthenticationFailed, an unauthenticated find
// Unauthorized.
func TestAuthTLSPymongo(t *testing.T) {
	needPymongo(t)
	var creds Credentials
	if _, err := creds.SetPassword("alice", "admin", alicePassword, 0); err != nil {
		t.Fatal(err)
	}
	certs := testutil.NewCerts(t)
	_, addr, logs := startSecureProxy(t, &creds, certs)
	good := secureURI(addr, certs.CA, "alice", alicePassword)
	out, err := exec.CommandContext(ctxFor(t, 3*time.Minute), "python3", "testdata/pymongo_client.py", addr, good).CombinedOutput()
	if err != nil {
		t.Fatalf("pymongo through the proxy: %v\n%s", err, out)
	}
	for _, want := range []string{"topology Sharded", "find 50", "transaction ok", "w0 ok"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = exec.CommandContext(ctxFor(t, 3*time.Minute), "python3", "testdata/pymongo_auth.py",
		good, secureURI(addr, certs.CA, "alice", "Wr0ng-Secret"), secureURI(addr, certs.CA, "", "")).CombinedOutput()
	if err != nil {
		t.Fatalf("pymongo_auth.py: %v\n%s", err, out)
	}
	for _, want := range []string{"authenticated admin alice", "find 3", "wrong password 18", "unauthenticated 13 command find requires authentication"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if l := logs.String(); strings.Contains(l, "Wr0ng-Secret") || strings.Contains(l, pct(alicePassword)) || !strings.Contains(l, `reason="wrong password"`) {
		t.Errorf("proxy log:\n%s", l)
	}
}
