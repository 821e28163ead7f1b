package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestListenAddr(t *testing.T) {
	const needBoth = "--users FILE (users made with decongestant proxy-user) and --tls-cert PEM --tls-key PEM"
	for _, tc := range []struct {
		in                 string
		users, tls         bool
		network, addr, err string
	}{
		{"127.0.0.1:27018", false, false, "tcp", "127.0.0.1:27018", ""},
		{"[::1]:0", false, false, "tcp", "[::1]:0", ""},
		{"localhost:1", false, false, "tcp", "localhost:1", ""},
		{"localhost:1", true, false, "tcp", "localhost:1", ""},
		{"127.0.0.1:1", false, true, "tcp", "127.0.0.1:1", ""},
		{"unix:/tmp/p.sock", false, false, "unix", "/tmp/p.sock", ""},
		{"0.0.0.0:27018", false, false, "", "", "not a loopback address: clients beyond this host must authenticate and use TLS, else anyone who reaches the port uses the replica set with the proxy's credentials: add " + needBoth},
		{"0.0.0.0:27018", true, false, "", "", "use TLS, else anyone who reaches the port uses the replica set with the proxy's credentials: add --tls-cert PEM --tls-key PEM"},
		{"0.0.0.0:27018", false, true, "", "", "credentials: add --users FILE (users made with decongestant proxy-user)"},
		{"0.0.0.0:27018", true, true, "tcp", "0.0.0.0:27018", ""},
		{"10.1.2.3:27018", false, false, "", "", "not a loopback address"},
		{":27018", true, false, "", "", "not a loopback address"},
		{":27018", true, true, "tcp", ":27018", ""},
		{"example.com:27018", false, true, "", "", "not a loopback address"},
		{"unix:", false, false, "", "", "needs a socket path"},
		{"127.0.0.1", false, false, "", "", "missing port"},
	} {
		network, addr, err := listenAddr(tc.in, tc.users, tc.tls)
		if network != tc.network || addr != tc.addr || (err == nil) != (tc.err == "") || (err != nil && !strings.HasSuffix(err.Error(), tc.err) && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("listenAddr(%q, users %v, tls %v) = %q, %q, %v; want %q, %q, %q", tc.in, tc.users, tc.tls, network, addr, err, tc.network, tc.addr, tc.err)
		}
		if err != nil && strings.Contains(tc.err, "add ") && !strings.HasSuffix(err.Error(), tc.err[strings.Index(tc.err, "add "):]) {
			t.Errorf("listenAddr(%q, users %v, tls %v): %v; want it to end %q", tc.in, tc.users, tc.tls, err, tc.err[strings.Index(tc.err, "add "):])
		}
	}
}

func TestProxyNeedsURI(t *testing.T) {
	var out, errb strings.Builder
	err := run(t.Context(), []string{"proxy", "--listen", "0.0.0.0:1"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "--uri is required") {
		t.Fatalf("err = %v", err)
	}
	err = run(t.Context(), []string{"proxy", "--uri", "mongodb://127.0.0.1:1", "--listen", "0.0.0.0:1"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("err = %v", err)
	}
}

// The proxy's client-security flags are checked before it connects
// anywhere (the URI names no server: reaching New would wait 30 s).
func TestProxySecurityFlags(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose.json")
	if err := os.WriteFile(loose, []byte(`{"users": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(loose, 0o644)
	notPEM := filepath.Join(dir, "x.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", notPEM}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-key", notPEM}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-ca", notPEM}, "--tls-ca needs them"},
		{[]string{"--users", filepath.Join(dir, "none.json")}, "proxy: --users: proxy users file " + filepath.Join(dir, "none.json") + " does not exist (create it with `decongestant proxy-user --file"},
		{[]string{"--users", loose}, "has mode 0644: credentials file is accessible by group or others: run chmod 600 " + loose},
		{[]string{"--tls-cert", notPEM, "--tls-key", notPEM}, "proxy: --tls-cert " + notPEM + " / --tls-key " + notPEM + ": tls: failed to find any PEM data in certificate input"},
		{[]string{"--listen", "0.0.0.0:1", "--tls-cert", notPEM, "--tls-key", notPEM}, "add --users FILE"},
		{[]string{"--request-timeout", "-1s"}, "proxy: --request-timeout -1s: want a duration of 0 (none) or more"},
		{[]string{"--request-timeout", "soon"}, `invalid value "soon" for flag -request-timeout`},
	} {
		var out, errb strings.Builder
		err := run(t.Context(), append([]string{"proxy", "--uri", "mongodb://127.0.0.1:1"}, tc.args...), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("proxy %q: %v; want %q", tc.args, err, tc.want)
		}
	}
}

// proxy-user reads the password from stdin, writes a 0600 file of keys a
// SCRAM client with that password agrees with, and sets the password of
// an existing user in place.
func TestProxyUserCLI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.json")
	user := func(stdin string, args ...string) (string, error) {
		var out, errb strings.Builder
		err := dispatch(t.Context(), append([]string{"proxy-user", "--file", file}, args...), strings.NewReader(stdin), &out, &errb)
		return out.String(), err
	}
	out, err := user("first pw\n", "--user", "app")
	if err != nil || out != "added user app (db admin) in "+file+"; clients connect with mongodb://app:PASSWORD@HOST:PORT/?authSource=admin\n" {
		t.Fatalf("proxy-user: %q, %v", out, err)
	}
	if out, err = user("second\r\n", "--user", "r@ot", "--db", "reports", "--iterations", "5000"); err != nil || !strings.Contains(out, "added user r@ot (db reports)") || !strings.Contains(out, "mongodb://r%40ot:PASSWORD@") {
		t.Fatalf("proxy-user: %q, %v", out, err)
	}
	if out, err = user("third", "--user", "app"); err != nil || !strings.HasPrefix(out, "set the password of user app (db admin)") {
		t.Fatalf("proxy-user for an existing user: %q, %v", out, err)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	raw, _ := os.ReadFile(file)
	for _, pw := range []string{"first pw", "second", "third"} {
		if strings.Contains(string(raw), pw) {
			t.Fatalf("the file holds the password %q", pw)
		}
	}
	creds, err := proxy.LoadCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := creds.Users(); !slices.Equal(got, []string{"admin.app", "reports.r@ot"}) {
		t.Fatalf("users %v", got)
	}
	var f struct {
		Users []struct {
			User        string
			Credentials map[string]struct {
				IterationCount int
				Salt           string
				StoredKey      string
			}
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil || len(f.Users) != 2 {
		t.Fatalf("%v: %s", err, raw)
	}
	for i, tc := range []struct {
		password string
		iters    int
	}{{"third", 15000}, {"second", 5000}} {
		k := f.Users[i].Credentials["SCRAM-SHA-256"]
		salt, _ := base64.StdEncoding.DecodeString(k.Salt)
		cl, _ := scram.SHA256.NewClient("x", tc.password, "")
		want := cl.GetStoredCredentials(scram.KeyFactors{Salt: string(salt), Iters: k.IterationCount})
		if k.IterationCount != tc.iters || k.StoredKey != base64.StdEncoding.EncodeToString(want.StoredKey) {
			t.Errorf("user %s: %d iterations, storedKey %s; want %d, the key of %q", f.Users[i].User, k.IterationCount, k.StoredKey, tc.iters, tc.password)
		}
	}

	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"--user", "x"}, "proxy-user: no password on stdin"},
		{"\n", []string{"--user", "x"}, "proxy-user: empty password"},
		{"pw\n", nil, "proxy-user: --file and --user are required"},
		{"pw\n", []string{"--user", "x", "--iterations", "10"}, "10 iterations is below 4096"},
		{"pw\n", []string{"--user", "x", "extra"}, "unexpected arguments"},
	} {
		if _, err := user(tc.stdin, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("proxy-user %q with stdin %q: %v; want %q", tc.args, tc.stdin, err, tc.want)
		}
	}
	os.Chmod(file, 0o640)
	if _, err := user("pw\n", "--user", "x"); err == nil || !strings.Contains(err.Error(), "chmod 600 "+file) {
		t.Fatalf("a loose file: %v", err)
	}
}

// The proxy command serves a driver on a unix socket and shuts down cleanly
// when its context ends (Ctrl-C): run returns nil, the socket is gone and an
// open client connection is closed.
func TestProxyCLI(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	sock := filepath.Join(t.TempDir(), "p.sock")
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
	p := startCLI(t, "proxy", "--uri", rs.URI(), "--listen", "unix:"+sock, "--metrics-addr", metricsAddr,
		"--lag-source", "heartbeat", "--heartbeat-ns", "proxycli.beats")
	testutil.Eventually(t, time.Minute, func() bool { _, err := os.Stat(sock); return err == nil }, "the proxy to listen")
	client := testutil.Connect(t, "mongodb://"+url.PathEscape(sock))
	pctx, pcancel := context.WithTimeout(context.Background(), time.Minute)
	defer pcancel()
	if err := client.Ping(pctx, nil); err != nil {
		t.Fatal(err)
	}
	// --metrics-addr serves the proxy's router (leastwait by default), its
	// lag polled as --lag-source says, the heartbeat written where
	// --heartbeat-ns says.
	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	testutil.Eventually(t, time.Minute, func() bool {
		n, err := client.Database("proxycli").Collection("beats").CountDocuments(pctx, bson.D{})
		return err == nil && n > 0
	}, "the heartbeat in proxycli.beats")
	if !strings.Contains(string(body), `decongestant_router_info{lag_source="heartbeat"`) || !strings.Contains(string(body), `policy="leastwait"`) ||
		!strings.Contains(string(body), "decongestant_read_your_writes_reads_total") {
		t.Fatalf("metrics of the proxy's router missing:\n%s", body)
	}
	raw, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// A round trip first, so the connection is being served, not queued.
	ping, _ := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if _, err := raw.Write(wire.AppendMsg(nil, 1, 0, 0, ping)); err != nil {
		t.Fatal(err)
	}
	if _, err := wire.ReadMessage(raw, 0); err != nil {
		t.Fatal(err)
	}
	p.stop(t)
	if !strings.Contains(p.stdout.String(), "decongestant proxy: "+sock) {
		t.Errorf("stdout: %q", p.stdout.String())
	}
	raw.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := raw.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a client connection outlived the proxy: %v", err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("the socket %s outlived the proxy", sock)
	}
}

// The proxy command with --users, --tls-cert/--tls-key and --tls-ca: a
// driver with a client certificate and the password works; without the
// certificate, or over plain TCP, it gets nowhere.
func TestProxyCLIAuthTLS(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	certs := testutil.NewCerts(t)
	users := filepath.Join(t.TempDir(), "users.json")
	var out, errb strings.Builder
	if err := dispatch(t.Context(), []string{"proxy-user", "--file", users, "--user", "app"}, strings.NewReader("cli secret\n"), &out, &errb); err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(testutil.FreePort(t)))
	p := startCLI(t, "proxy", "--uri", rs.URI(), "--listen", addr, "--users", users,
		"--tls-cert", certs.ServerCert, "--tls-key", certs.ServerKey, "--tls-ca", certs.CA)
	testutil.Eventually(t, time.Minute, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, "the proxy to listen")
	base := "mongodb://app:cli%20secret@" + addr + "/?authSource=admin&tls=true&tlsCAFile=" + url.QueryEscape(certs.CA)
	pctx, pcancel := context.WithTimeout(context.Background(), time.Minute)
	defer pcancel()
	client := testutil.Connect(t, base+"&tlsCertificateKeyFile="+url.QueryEscape(certs.Client))
	var st struct {
		AuthInfo struct{ AuthenticatedUsers []struct{ User, DB string } } `bson:"authInfo"`
	}
	if err := client.Database("admin").RunCommand(pctx, bson.D{{Key: "connectionStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if u := fmt.Sprint(st.AuthInfo.AuthenticatedUsers); u != "[{app admin}]" {
		t.Fatalf("authenticated users %s", u)
	}
	for name, uri := range map[string]string{
		"no client certificate": base + "&serverSelectionTimeoutMS=2000",
		"no TLS":                "mongodb://app:cli%20secret@" + addr + "/?authSource=admin&serverSelectionTimeoutMS=2000",
	} {
		c := testutil.Connect(t, uri)
		if err := c.Ping(pctx, nil); err == nil {
			t.Errorf("%s: the ping got through", name)
		}
	}
	p.stop(t)
	if want := "decongestant proxy: " + addr + " -> " + rs.URI() + ", policy leastwait, reads opted-in, read-your-writes on, clients: SCRAM-SHA-256 (1 user), TLS with client certificates (Ctrl-C stops)\n"; p.stdout.String() != want {
		t.Errorf("stdout %q, want %q", p.stdout.String(), want)
	}
	if strings.Contains(p.stderr.String(), "cli secret") || strings.Contains(p.stderr.String(), "cli%20secret") {
		t.Errorf("the password in the proxy's log:\n%s", p.stderr.String())
	}
}

// TestProxyConfig: the routing flags become the proxy's Config, and bad
// values are refused with the flag's name before anything connects.
func TestProxyConfig(t *testing.T) {
	cfg, err := proxyConfig("mongodb://h/?replicaSet=rs", "spillway", "5s", "all", "off")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Policy == nil || cfg.Policy.Name() != "spillway" || cfg.MaxStaleness != 5*time.Second || cfg.Reads != proxy.ReadsAll || !cfg.NoReadYourWrites {
		t.Fatalf("config %+v", cfg)
	}
	if b, ok := cfg.Policy.(balancer.Bounded); !ok || b.Bound().Max != 5*time.Second {
		t.Fatalf("the policy's bound is not --max-staleness: %v", cfg.Policy)
	}
	cfg, err = proxyConfig("mongodb://h/?replicaSet=rs", "primary", "10s", "opted-in", "on")
	if err != nil || cfg.Policy != nil || cfg.NoReadYourWrites || cfg.Reads != proxy.ReadsOptedIn {
		t.Fatalf("primary: %+v, %v", cfg, err)
	}
	for _, tt := range []struct{ policy, staleness, reads, ryw, want string }{
		{"spillway", "10s", "some", "on", "--reads"},
		{"spillway", "10s", "all", "maybe", "--read-your-writes"},
		{"spillway", "soon", "all", "on", "--max-staleness"},
		{"spillway", "none", "all", "on", "--max-staleness none"},
		{"nope", "10s", "all", "on", "--policy"},
		{"secondary", "10s", "all", "on", "does not choose a member"},
	} {
		if _, err := proxyConfig("mongodb://h/?replicaSet=rs", tt.policy, tt.staleness, tt.reads, tt.ryw); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error naming %q", tt, err, tt.want)
		}
	}
}

// cliRun is a command running in the background (startCLI) until stop,
// which cancels it as Ctrl-C would.
type cliRun struct {
	cancel         context.CancelFunc
	done           chan error
	stdout, stderr bytes.Buffer // read only after stop
}

// startCLI runs the CLI with args on its own goroutine; stop is also
// called at cleanup.
func startCLI(t *testing.T, args ...string) *cliRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &cliRun{cancel: cancel, done: make(chan error, 1)}
	go func() { c.done <- run(ctx, args, &c.stdout, &c.stderr) }()
	t.Cleanup(cancel)
	return c
}

// stop cancels the command and fails the test unless it ends, without an
// error, within a minute.
func (c *cliRun) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("%v\n%s", err, c.stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not stop")
	}
}
