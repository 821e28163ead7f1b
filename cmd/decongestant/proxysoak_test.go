package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/proxysoak"
)

// TestProxySoakBadFlags: proxy-soak's flags are checked before anything
// starts: a usage error (exit 2) that says what is wrong; a --baseline that
// is missing, or is not a --no-hostile run, fails (exit 1) before a set or a
// proxy starts.
func TestProxySoakBadFlags(t *testing.T) {
	dir := t.TempDir()
	hostileRun := filepath.Join(dir, "hostile.json")
	r := &proxysoak.Result{Version: proxysoak.FormatVersion, Hostile: &proxysoak.HostileStats{}}
	if err := r.WriteFile(hostileRun); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
		exit int
	}{
		{[]string{"--faults", "often"}, `--faults "often": want all, stepdown or none`, 2},
		{[]string{"--no-hostile", "--baseline", "b.json"}, "--baseline judges a run with hostile connections", 2},
		{[]string{"--python-share", "2"}, "python share 2: want 0 to 1", 2},
		{[]string{"--connections", "1"}, "1 connections: at least 2", 2},
		{[]string{"--duration", "5s"}, "duration 5s: at least 10s", 2},
		{[]string{"--max-staleness", "10ms"}, "staleness bound 10ms: at least 1s", 2},
		{[]string{"extra"}, `unexpected arguments ["extra"]`, 2},
		{[]string{"--proxy-uri-file", "u"}, "a running proxy is soaked with the running set behind it", 2},
		{[]string{"--proxy-pid", "12"}, "for a running proxy: give its URI", 2},
		{[]string{"--proxy-uri-file", "u", "--cluster-dir", "d", "--proxy-flags", "--reads all"}, "--proxy-flags are for the proxy it starts", 2},
		{[]string{"--proxy-uri-file", filepath.Join(dir, "none"), "--cluster-dir", dir}, "--proxy-uri-file: open", 1},
		{[]string{"--baseline", filepath.Join(dir, "none.json")}, "--baseline: read soak results", 1},
		{[]string{"--baseline", hostileRun}, "the baseline is a run with hostile connections", 1},
	}
	for _, tt := range tests {
		_, _, err := runCLI(t, append([]string{"proxy-soak", "--out", filepath.Join(dir, "out.json")}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want one containing %q", tt.args, err, tt.want)
		}
		if code := exitCode(err, false); code != tt.exit {
			t.Errorf("%q: exit %d, want %d (%v)", tt.args, code, tt.exit, err)
		}
	}
}
