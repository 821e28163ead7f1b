package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/router"
)

// TestMetricsAddrFlag: --metrics-addr is off by default and must be
// host:port.
func TestMetricsAddrFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
		err  string
	}{
		{args: nil},
		{args: []string{"--metrics-addr", "127.0.0.1:9464"}, want: "127.0.0.1:9464"},
		{args: []string{"--metrics-addr", ":9464"}, want: ":9464"},
		{args: []string{"--metrics-addr", "9464"}, err: `--metrics-addr "9464": want host:port`},
	}
	for _, tt := range tests {
		_, b, _, err := parseBench(append([]string{"ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0"}, tt.args...), io.Discard)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: err %v, want %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tt.args, err)
		case b.metricsAddr != tt.want:
			t.Errorf("%v: metrics addr %q, want %q", tt.args, b.metricsAddr, tt.want)
		}
	}
}

// TestMetricsServer: the server listens at once (a taken address fails
// before anything runs), serves /metrics with no series before a run,
// passes each run's router on to an earlier OnRouter, and is gone after
// close; off, it does nothing.
func TestMetricsServer(t *testing.T) {
	var stderr bytes.Buffer
	m, err := startMetrics("127.0.0.1:0", false, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + m.addr.String() + "/metrics"
	if !strings.Contains(stderr.String(), url) {
		t.Fatalf("stderr %q does not say where", stderr.String())
	}
	if _, err := startMetrics(m.addr.String(), false, io.Discard); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("second server on %s: err %v, want --metrics-addr's", m.addr, err)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), "decongestant_") {
		t.Fatalf("before a run: status %d, body %q; want 200 and no router series", resp.StatusCode, body)
	}
	for _, series := range []string{"go_goroutines ", "go_memstats_stack_inuse_bytes ", "process_resident_memory_bytes ", "process_cpu_seconds_total "} {
		if !strings.Contains(string(body), "\n"+series) {
			t.Errorf("no %s series (the Go runtime's and the process's)", series)
		}
	}
	if code, _ := get(t, "http://"+m.addr.String()+"/debug/pprof/heap"); code != http.StatusNotFound {
		t.Fatalf("profiles without --pprof: status %d, want 404", code)
	}
	var seen []string
	o := bench.Options{OnRouter: func(policy string, r *router.Router) { seen = append(seen, policy) }}
	m.attach(&o)
	o.OnRouter("primary", nil)
	if len(seen) != 1 || seen[0] != "primary" {
		t.Fatalf("the earlier OnRouter saw %v", seen)
	}
	if err := m.close(); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(url); err == nil {
		resp.Body.Close()
		t.Fatalf("%s still answers after close", url)
	}

	off, err := startMetrics("", true, io.Discard)
	if off != nil || err != nil {
		t.Fatalf("off: %v %v", off, err)
	}
	o = bench.Options{}
	off.attach(&o)
	if o.OnRouter != nil || off.close() != nil {
		t.Fatal("an unset --metrics-addr hooked the runner")
	}
}

// get returns a GET's status and body.
func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// TestPprof: --pprof needs --metrics-addr; with it, the metrics server also
// answers /debug/pprof/ with the heap profile (gzipped protobuf, as go tool
// pprof reads it) and the goroutines, but not the command line, which may
// hold a URI's password.
func TestPprof(t *testing.T) {
	uri := "mongodb://127.0.0.1:1/?replicaSet=rs0"
	if _, _, _, err := parseBench([]string{"ycsb", "--uri", uri, "--pprof"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("--pprof alone: err %v, want one naming --metrics-addr", err)
	}
	_, b, _, err := parseBench([]string{"ycsb", "--uri", uri, "--pprof", "--metrics-addr", "127.0.0.1:9464"}, io.Discard)
	if err != nil || !b.pprof {
		t.Fatalf("--pprof --metrics-addr: pprof %v, err %v", b.pprof, err)
	}

	var stderr bytes.Buffer
	m, err := startMetrics("127.0.0.1:0", true, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	base := "http://" + m.addr.String()
	if !strings.Contains(stderr.String(), base+"/debug/pprof/") {
		t.Errorf("stderr %q does not say where the profiles are", stderr.String())
	}
	code, body := get(t, base+"/debug/pprof/heap")
	// A gzip stream starts with 0x1f 0x8b.
	if code != http.StatusOK || len(body) < 2 || body[0] != 0x1f || body[1] != 0x8b {
		t.Errorf("/debug/pprof/heap: status %d, %d bytes; want 200 and a gzipped profile", code, len(body))
	}
	if code, body := get(t, base+"/debug/pprof/goroutine?debug=1"); code != http.StatusOK || !strings.Contains(string(body), "goroutine profile:") {
		t.Errorf("/debug/pprof/goroutine?debug=1: status %d, body %.80q", code, body)
	}
	if code, _ := get(t, base+"/debug/pprof/cmdline"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/cmdline: status %d, want 404", code)
	}
	if code, _ := get(t, base+"/metrics"); code != http.StatusOK {
		t.Errorf("/metrics beside the profiles: status %d", code)
	}
}
