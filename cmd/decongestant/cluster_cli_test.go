package main

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

func TestClusterCommandsEndToEnd(t *testing.T) {
	testutil.SkipIfShort(t)
	dir := filepath.Join(t.TempDir(), "rs")
	stdout, stderr, err := runCLI(t, "cluster", "up", "--dir", dir)
	if err != nil {
		t.Fatalf("up: %v\n%s", err, stderr)
	}
	t.Cleanup(func() { runCLI(t, "cluster", "down", "--dir", dir) })
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	uri := lines[len(lines)-1]
	if !strings.HasPrefix(uri, "mongodb://") || !strings.Contains(uri, "replicaSet=") {
		t.Fatalf("last stdout line is not a URI: %q", uri)
	}
	c, err := cluster.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, m := range c.Members() {
		pids = append(pids, m.PID)
	}

	out, _, err := runCLI(t, "cluster", "status", "--dir", dir)
	if err != nil || !strings.Contains(out, "PRIMARY") || !strings.HasSuffix(strings.TrimSpace(out), uri) {
		t.Fatalf("status: %v\n%s", err, out)
	}
	for _, op := range []string{"pause", "resume"} {
		out, _, err := runCLI(t, "cluster", op, "--dir", dir, "--member", "all")
		if err != nil || strings.Count(out, op+" done") != 2 {
			t.Fatalf("%s all: %v\n%s", op, err, out)
		}
	}
	// A gray failure on every secondary, then on n3 alone, then off everywhere.
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"slow", "--member", "all", "--delay", "150ms"}, []string{": slow (reads wait 150ms) done", ": slow (reads wait 150ms) done"}},
		{[]string{"slow", "--member", "n3"}, []string{"n3: slow (reads wait 200ms) done"}},
		{[]string{"unslow", "--member", "all"}, []string{"n1: unslow done", "n2: unslow done", "n3: unslow done"}},
	} {
		out, _, err := runCLI(t, append(append([]string{"cluster"}, tt.args...), "--dir", dir)...)
		if got := strings.Split(strings.TrimSpace(out), "\n"); err != nil || len(got) != len(tt.want) {
			t.Fatalf("%v: %v\n%s", tt.args, err, out)
		} else {
			for i, w := range tt.want {
				if !strings.HasSuffix(got[i], w) {
					t.Errorf("%v: line %q, want it to end %q", tt.args, got[i], w)
				}
			}
		}
	}
	if _, _, err := runCLI(t, "cluster", "kill", "--dir", dir, "--member", "n9"); err == nil || !strings.Contains(err.Error(), "n1, n2, n3") {
		t.Fatalf("unknown member: %v", err)
	}
	// Caps on members started uncapped need writable cgroups: a subtest that skips without them (a
	// failure under DECONGESTANT_REQUIRE_CGROUPS=1), while the rest runs either way.
	var capped, memCapped string // the cgroups down must remove
	if !t.Run("caps", func(t *testing.T) {
		// A CPU cap: n3 gets a cgroup with its mongod in it, and status shows it.
		out, _, err := runCLI(t, "cluster", "cap", "--dir", dir, "--member", "n3", "--cpu", "0.5")
		testutil.SkipWithoutCgroups(t, err)
		if err != nil || !regexp.MustCompile(`(?m)^n3 .* 0\.50 +- +-$`).MatchString(out) || !regexp.MustCompile(`(?m)^n2 .* - +- +-$`).MatchString(out) {
			t.Fatalf("cap n3: %v\n%s", err, out)
		}
		reopened, err := cluster.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		capped = reopened.Members()[2].Cgroup
		if procs, err := os.ReadFile(filepath.Join(capped, "cgroup.procs")); err != nil || !strings.Contains(string(procs), strconv.Itoa(pids[2])) {
			t.Fatalf("n3's cgroup %q holds %q (%v), want pid %d", capped, procs, err, pids[2])
		}
		if _, _, err := runCLI(t, "cluster", "cap", "--dir", dir, "--member", "n3"); err == nil || !strings.Contains(err.Error(), "--cpu (cores) or --memory (size)") {
			t.Fatalf("cap without --cpu or --memory: %v", err)
		}
		// A memory cap on a member started uncapped, then a cap it cannot start under.
		out, _, err = runCLI(t, "cluster", "cap", "--dir", dir, "--member", "n2", "--memory", "800M")
		testutil.SkipWithoutCgroups(t, err)
		if err != nil || !regexp.MustCompile(`(?m)^n2 .* - +800M +-$`).MatchString(out) || !regexp.MustCompile(`(?m)^n3 .* 0\.50 +- +-$`).MatchString(out) {
			t.Fatalf("cap n2 --memory 800M: %v\n%s", err, out)
		}
		reopened, err = cluster.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		memCapped = reopened.Members()[1].MemCgroup
		if procs, err := os.ReadFile(filepath.Join(memCapped, "cgroup.procs")); err != nil || !strings.Contains(string(procs), strconv.Itoa(pids[1])) {
			t.Fatalf("n2's memory cgroup %q holds %q (%v), want pid %d", memCapped, procs, err, pids[1])
		}
		if _, _, err := runCLI(t, "cluster", "cap", "--dir", dir, "--member", "n2", "--memory", "256M"); err == nil || !strings.Contains(err.Error(), "below the 512M (536870912 bytes)") {
			t.Fatalf("cap below the minimum: %v", err)
		}
		// A cold restart keeps the cap: the new mongod is in the cgroup.
		if out, _, err := runCLI(t, "cluster", "restart", "--dir", dir, "--member", "n2", "--cold"); err != nil || !strings.Contains(out, "n2: cold restart done") {
			t.Fatalf("restart --cold: %v\n%s", err, out)
		}
		reopened, err = cluster.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		n2 := reopened.Members()[1]
		if n2.PID == pids[1] {
			t.Fatalf("restart --cold: n2 still has pid %d", n2.PID)
		}
		if procs, err := os.ReadFile(filepath.Join(memCapped, "cgroup.procs")); err != nil || !strings.Contains(string(procs), strconv.Itoa(n2.PID)) {
			t.Fatalf("after restart --cold n2's memory cgroup holds %q (%v), want pid %d", procs, err, n2.PID)
		}
		pids = append(pids, n2.PID) // down must stop it too
	}) {
		t.FailNow()
	}
	if out, _, err := runCLI(t, "cluster", "stepdown", "--dir", dir); err != nil || !strings.Contains(out, "new primary") {
		t.Fatalf("stepdown: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "cluster", "up", "--dir", dir); err == nil || !strings.Contains(err.Error(), "down --dir") {
		t.Fatalf("second up on a running dir: %v", err)
	}

	if _, stderr, err := runCLI(t, "cluster", "down", "--dir", dir); err != nil {
		t.Fatalf("down: %v\n%s", err, stderr)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			if cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); strings.Contains(string(cmd), dir) {
				t.Errorf("mongod pid %d still running after down", pid)
			}
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("down left %s behind (%v)", dir, err)
	}
	for _, cg := range []string{capped, memCapped} {
		if _, err := os.Stat(cg); cg != "" && !os.IsNotExist(err) {
			t.Errorf("down left the cgroup %s behind (%v)", cg, err)
		}
	}
}

// TestClusterStatusShowsSecurityRedacted: status of a cluster with auth and TLS (here one whose
// member is down, so no mongod is needed) names the users with their URIs, passwords redacted,
// where the credentials are, and the CA; the last line is still the URI, without credentials.
func TestClusterStatusShowsSecurityRedacted(t *testing.T) {
	dir := t.TempDir()
	const pw = "s3cr%40t" // as written in the URIs
	state := `{"version": 1, "replSet": "rs0", "mongod": "/bin/false", "cacheSizeGB": 0.25,
		"members": [{"name": "n1", "host": "127.0.0.1:1", "port": 1, "pid": 0, "dbPath": "DIR/n1", "logPath": "DIR/n1.log"}],
		"auth": true, "keyFile": "DIR/keyfile", "credentials": "DIR/credentials.json", "appDB": "bench",
		"tls": true, "caFile": "DIR/ca.pem", "memberCert": "DIR/member.pem"}`
	tail := "@127.0.0.1:1/?replicaSet=rs0&authSource=admin&tls=true&tlsCAFile=" + url.QueryEscape(filepath.Join(dir, "ca.pem"))
	// Secret options too (a credentials file edited by hand, say): their values go.
	const opts, redactedOpts = "&proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n", "&proxyPassword=REDACTED&authMechanismProperties=REDACTED"
	creds := `{"admin": {"user": "admin", "password": "s3cr@t", "roles": ["root@admin"], "uri": "mongodb://admin:` + pw + tail + opts + `"},
		"app": {"user": "app", "password": "s3cr@t", "roles": ["readWrite@bench"], "uri": "mongodb://app:` + pw + tail + opts + `"}}`
	for name, content := range map[string]string{"cluster.json": state, "credentials.json": creds} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.ReplaceAll(content, "DIR", dir)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCLI(t, "cluster", "status", "--dir", dir)
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	for _, want := range []string{
		"auth: user admin (root):                  mongodb://admin:REDACTED" + tail + redactedOpts + "\n",
		"auth: user app (readWrite on bench only): mongodb://app:REDACTED" + tail + redactedOpts + "\n",
		"auth: passwords and URIs in " + filepath.Join(dir, "credentials.json") + " (0600)",
		"tls: members require TLS; clients trust the CA " + filepath.Join(dir, "ca.pem"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cr") || strings.Contains(out, "tok3n") {
		t.Errorf("a password or token in the status:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; last != "mongodb://127.0.0.1:1/?replicaSet=rs0&tls=true&tlsCAFile="+url.QueryEscape(filepath.Join(dir, "ca.pem")) {
		t.Errorf("last line %q, want the URI without credentials", last)
	}
}
