package main

import (
	"strings"
	"testing"
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
