package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy"
	"github.com/decongestant/decongestant/proxy/wire"
)

// The deadline and cap flags: checked before the proxy connects anywhere;
// 0 turns a bound off (negative in proxy.Config); the defaults are
// proxy's.
func TestProxyLifecycleFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--idle-timeout", "-1s"}, "proxy: --idle-timeout -1s: want a duration of 0 or more"},
		{[]string{"--drain-timeout", "-1s"}, "proxy: --drain-timeout -1s: want a duration of 0 or more"},
		{[]string{"--max-connections", "-5"}, "proxy: --max-connections -5: want 0 (no cap) or more"},
		{[]string{"--write-timeout", "soon"}, `invalid value "soon" for flag -write-timeout`},
	} {
		var out, errb strings.Builder
		err := run(t.Context(), append([]string{"proxy", "--uri", "mongodb://127.0.0.1:1"}, tc.args...), &out, &errb)
		if err == nil || !strings.Contains(err.Error()+errb.String(), tc.want) {
			t.Errorf("proxy %q: %v; want %q", tc.args, err, tc.want)
		}
	}
	tests := []struct {
		args []string
		want proxy.Config
	}{
		{nil, proxy.Config{HandshakeTimeout: proxy.DefaultHandshakeTimeout, AuthTimeout: proxy.DefaultAuthTimeout,
			WriteTimeout: proxy.DefaultWriteTimeout, MaxConnections: proxy.DefaultMaxConnections}},
		{[]string{"--handshake-timeout", "0", "--auth-timeout", "0", "--write-timeout", "0", "--max-connections", "0", "--idle-timeout", "0"},
			proxy.Config{HandshakeTimeout: -1, AuthTimeout: -1, WriteTimeout: -1, MaxConnections: -1}},
		{[]string{"--idle-timeout", "10m", "--max-connections", "50", "--write-timeout", "5s"},
			proxy.Config{HandshakeTimeout: proxy.DefaultHandshakeTimeout, AuthTimeout: proxy.DefaultAuthTimeout,
				WriteTimeout: 5 * time.Second, IdleTimeout: 10 * time.Minute, MaxConnections: 50}},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
		l := defineLifecycle(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		var got proxy.Config
		if err := l.apply(&got); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if got.HandshakeTimeout != tt.want.HandshakeTimeout || got.AuthTimeout != tt.want.AuthTimeout || got.WriteTimeout != tt.want.WriteTimeout ||
			got.IdleTimeout != tt.want.IdleTimeout || got.MaxConnections != tt.want.MaxConnections {
			t.Errorf("%q: %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

// drainRun is the proxy command serving a raw client whose getMore on a
// tailable cursor waits in the proxy (a request in flight) for the
// document release inserts.
type drainRun struct {
	p       *cliRun
	metrics string
	busy    net.Conn
	release func()
}

func startDrainRun(t *testing.T, extra ...string) *drainRun {
	rs := testutil.ReplicaSet(t)
	addr := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
	metrics := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
	p := startCLI(t, append([]string{"proxy", "--uri", rs.URI(), "--listen", addr, "--metrics-addr", metrics}, extra...)...)
	testutil.Eventually(t, time.Minute, func() bool { code, _ := getURL("http://" + metrics + "/readyz"); return code == http.StatusOK }, "/readyz to answer 200")
	if code, body := getURL("http://" + metrics + "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	client := testutil.Connect(t, rs.URI())
	db := client.Database(fmt.Sprintf("drain_cli_%d", time.Now().UnixNano()))
	testutil.DropAtCleanup(t, db)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	if err := db.CreateCollection(ctx, "c", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<16)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })
	reply := roundTrip(t, busy, bson.D{{Key: "find", Value: "c"}, {Key: "tailable", Value: true}, {Key: "awaitData", Value: true}, {Key: "$db", Value: db.Name()}})
	id := reply.Lookup("cursor", "id").Int64()
	write(t, busy, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "maxTimeMS", Value: 30_000}, {Key: "$db", Value: db.Name()}})
	testutil.Eventually(t, time.Minute, func() bool {
		cur, err := client.Database("admin").Aggregate(ctx, bson.A{
			bson.D{{Key: "$currentOp", Value: bson.D{}}},
			bson.D{{Key: "$match", Value: bson.D{{Key: "ns", Value: db.Name() + ".c"}, {Key: "command.getMore", Value: bson.D{{Key: "$exists", Value: true}}}}}},
		})
		if err != nil {
			return false
		}
		defer cur.Close(ctx)
		return cur.Next(ctx)
	}, "the getMore to wait on the primary")
	return &drainRun{p: p, metrics: metrics, busy: busy, release: func() {
		if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			t.Error(err)
		}
	}}
}

// draining cancels the command's context (the first signal) and waits
// for /readyz to say it drains.
func (d *drainRun) draining(t *testing.T) {
	t.Helper()
	d.p.cancel()
	testutil.Eventually(t, time.Minute, func() bool {
		code, body := getURL("http://" + d.metrics + "/readyz")
		return code == http.StatusServiceUnavailable && body == "not ready: proxy draining\n"
	}, "/readyz to answer 503 draining")
}

func getURL(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func write(t *testing.T, c net.Conn, d bson.D) {
	t.Helper()
	body, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(wire.AppendMsg(nil, 5, 0, 0, body)); err != nil {
		t.Fatal(err)
	}
}

func read(c net.Conn) (bson.Raw, error) {
	c.SetReadDeadline(time.Now().Add(time.Minute))
	msg, err := wire.ReadMessage(c, 0)
	if err != nil {
		return nil, err
	}
	m, err := wire.Parse(msg)
	if err != nil {
		return nil, err
	}
	return bson.Raw(m.Body), nil
}

func roundTrip(t *testing.T, c net.Conn, d bson.D) bson.Raw {
	t.Helper()
	write(t, c, d)
	r, err := read(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lookup("ok").Double() != 1 {
		t.Fatalf("%v: %v", d, r)
	}
	return r
}

// The first signal drains: /readyz turns 503, the request in flight gets
// its reply, and the command ends without an error once it has.
func TestProxyDrainsOnSignal(t *testing.T) {
	d := startDrainRun(t)
	d.draining(t)
	d.release()
	r, err := read(d.busy)
	if err != nil || r.Lookup("ok").Double() != 1 {
		t.Fatalf("the request in flight: %v, %v", r, err)
	}
	d.p.stop(t)
	if !strings.Contains(d.p.stderr.String(), "proxy: draining: requests in flight have up to 30s (--drain-timeout)") {
		t.Errorf("stderr:\n%s", d.p.stderr.String())
	}
}

// A second signal during the drain closes the remaining connections at
// once: the request in flight gets no reply, and the command says why.
func TestProxySecondSignalStopsTheDrain(t *testing.T) {
	defer func(s []os.Signal) { drainSignals = s }(drainSignals)
	drainSignals = []os.Signal{syscall.SIGUSR1}
	d := startDrainRun(t)
	d.draining(t)
	// The drain is under way: the command catches its signals now (here
	// SIGUSR1: testutil.Main ends the test binary on SIGINT and SIGTERM).
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d.p.done:
		if err == nil || !strings.Contains(err.Error(), "drain cut short, the remaining connections closed: a second signal") {
			t.Fatalf("the command: %v, want the drain cut short by a second signal", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not stop at the second signal")
	}
	if r, err := read(d.busy); err == nil {
		t.Fatalf("a reply after the second signal: %v", r)
	}
}

// A standalone mongod is refused at start, with every policy (without
// one, every command used to wait 30 s for a primary).
func TestProxyRefusesStandalone(t *testing.T) {
	host := testutil.Standalone(t)
	for _, policy := range []string{"primary", "spillway"} {
		var out, errb strings.Builder
		err := run(t.Context(), []string{"proxy", "--uri", "mongodb://" + host, "--policy", policy, "--listen", "127.0.0.1:0"}, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), host+" is a standalone mongod") {
			t.Errorf("--policy %s: %v; want a standalone error", policy, err)
		}
	}
}
