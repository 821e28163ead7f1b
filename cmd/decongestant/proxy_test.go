package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		in, network, addr, err string
	}{
		{"127.0.0.1:27018", "tcp", "127.0.0.1:27018", ""},
		{"[::1]:0", "tcp", "[::1]:0", ""},
		{"localhost:1", "tcp", "localhost:1", ""},
		{"unix:/tmp/p.sock", "unix", "/tmp/p.sock", ""},
		{"0.0.0.0:27018", "", "", "not a loopback address: client authentication and TLS are not implemented yet"},
		{"10.1.2.3:27018", "", "", "not a loopback address"},
		{":27018", "", "", "not a loopback address"},
		{"example.com:27018", "", "", "not a loopback address"},
		{"unix:", "", "", "needs a socket path"},
		{"127.0.0.1", "", "", "missing port"},
	} {
		network, addr, err := listenAddr(tc.in)
		if network != tc.network || addr != tc.addr || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("listenAddr(%q) = %q, %q, %v; want %q, %q, %q", tc.in, network, addr, err, tc.network, tc.addr, tc.err)
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

// The proxy command serves a driver on a unix socket and shuts down cleanly
// when its context ends (Ctrl-C): run returns nil, the socket is gone and an
// open client connection is closed.
func TestProxyCLI(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	sock := filepath.Join(t.TempDir(), "p.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"proxy", "--uri", rs.URI(), "--listen", "unix:" + sock}, &stdout, &stderr)
	}()
	testutil.Eventually(t, time.Minute, func() bool { _, err := os.Stat(sock); return err == nil }, "the proxy to listen")
	client := testutil.Connect(t, "mongodb://"+url.PathEscape(sock))
	pctx, pcancel := context.WithTimeout(context.Background(), time.Minute)
	defer pcancel()
	if err := client.Ping(pctx, nil); err != nil {
		t.Fatal(err)
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
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("proxy: %v\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the proxy did not stop")
	}
	if !strings.Contains(stdout.String(), "decongestant proxy: "+sock) {
		t.Errorf("stdout: %q", stdout.String())
	}
	raw.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := raw.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a client connection outlived the proxy: %v", err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("the socket %s outlived the proxy", sock)
	}
}
