package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// runCLI runs the command in-process and returns its error and output.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err = run(ctx, args, &o, &e)
	return o.String(), e.String(), err
}

func TestBadInputIsRejectedClearly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	good := []string{"bench", "ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--out", out}
	tpccArgs := []string{"bench", "tpcc", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--out", out}
	tests := []struct {
		name string
		args []string
		want string // substring of the error
	}{
		{"no command", []string{}, "usage"},
		{"unknown command", []string{"fly"}, `unknown command "fly"`},
		{"bench without workload", []string{"bench"}, "usage: decongestant bench tpcc|ycsb"},
		{"unknown bench workload", []string{"bench", "tpcx"}, `unknown workload "tpcx"`},
		{"missing uri", []string{"bench", "ycsb"}, "--uri is required"},
		{"malformed uri", []string{"bench", "ycsb", "--uri", "mongodb://"}, "invalid --uri"},
		{"not a mongodb uri", []string{"bench", "ycsb", "--uri", "http://localhost"}, "invalid --uri"},
		{"negative duration", append(good, "--duration", "-5s"), "--duration -5s must not be negative"},
		{"unparsable duration", append(good, "--duration", "soon"), `invalid value "soon"`},
		{"unknown policy", append(good, "--policies", "primary,fastest"), `"fastest": unknown policy`},
		{"maxstaleness below 90s", append(good, "--policies", "maxstaleness:10s"), "maxStalenessSeconds >= 90s"},
		{"bad fixed", append(good, "--policies", "fixed:2"), "fixed:<fraction>"},
		{"weights not summing to 1", append(good, "--policies", "weights:primary=0.5,n2=0.4"), "shares sum to 0.9, not 1"},
		{"weights without shares", append(good, "--policies", "weights:"), "is not member=share"},
		{"weights naming a member twice", append(good, "--policies", "weights:n2=0.5,N2=0.5"), `member "N2" is given twice`},
		{"bad spillway allowance", append(good, "--allowance", "0.5"), "allowance 0.5 must be at least 1"},
		{"bad spillway gain", append(good, "--spillway-gain", "0"), "gain 0 must be in (0, 2]"},
		{"unknown ycsb workload", append(good, "--workload", "z"), "workload"},
		{"bad phase syntax", append(good, "--phases", "620s"), "invalid phases"},
		{"bad phase key", append(good, "--phases", "10s:speed=3"), `unknown key "speed"`},
		{"fault action without a cluster", append(good, "--phases", "10s:pause=n3;20s:resume=n3"),
			"fault actions (pause=n3, resume=n3) need a cluster started by `decongestant cluster up`: give its --cluster-dir"},
		{"fault action on no member", append(good, "--phases", "10s:kill"), "kill needs a member: kill=n2 or kill=primary"},
		{"fault action on a bad name", append(good, "--phases", "10s:pause=node2", "--cluster-dir", "/nonexistent"), `member "node2" is not a member name`},
		{"restart=primary without a kill", append(good, "--phases", "10s:restart=primary", "--cluster-dir", "/nonexistent"), "no earlier kill=primary"},
		{"negative staleness", append(good, "--max-staleness", "-1s"), "must not be negative"},
		{"bound not above the lag poll interval", append(good, "--max-staleness", "40ms"), "poll more often (e.g. every 8ms"},
		{"sub-second bound with seed 000's 1s polls", append(good, "--max-staleness", "500ms", "--lag-interval", "1s"), "--max-staleness 500ms with --lag-interval 1s"},
		{"bad lag headroom", append(good, "--lag-headroom", "soon"), `--lag-headroom "soon"`},
		{"headroom at the bound", append(good, "--max-staleness", "500ms", "--lag-headroom", "500ms"), "not below the staleness bound"},
		{"bad latency source", append(good, "--latency-source", "server"), `--latency-source: unknown latency source "server"`},
		{"bad lag estimate", append(good, "--lag-estimate", "median"), `--lag-estimate: unknown lag estimate "median"`},
		{"bad lag source", append(good, "--lag-source", "serverstatus"), `--lag-source: unknown lag source "serverstatus"`},
		{"zero clients", append(good, "--clients", "0"), "clients 0 must be at least 1"},
		{"empty sweep item", append(good, "--clients", "20,,60"), `invalid client counts: "20,,60": item 2 is empty`},
		{"non-integer sweep item", append(good, "--clients", "20,many"), `"many" is not a whole number`},
		{"zero in a sweep", append(good, "--clients", "20,0"), "clients 0 must be at least 1"},
		{"repeated sweep count", append(good, "--clients", "20,60,20"), "clients 20 appears twice"},
		{"sweep with a clients phase", append(good, "--clients", "20,60", "--phases", "10s:clients=5"),
			"sets clients=5, which would override the sweep's client count in every run"},
		{"warmup longer than run", append(good, "--duration", "10s", "--warmup", "20s"), "warmup"},
		{"bad write concern", append(good, "--write-concern", "all"), "--write-concern"},
		{"bad balancer constant", append(good, "--high-ratio", "0.5"), "ratios"},
		{"report without files", []string{"report"}, "usage: decongestant report"},
		{"tpcc zero warehouses", append(tpccArgs, "--warehouses", "0"), "--warehouses 0 must be at least 1"},
		{"tpcc unknown mix", append(tpccArgs, "--mix", "heavy"), `unknown mix "heavy"`},
		{"tpcc weights not 100", append(tpccArgs, "--mix", "no=50,pay=40"), "sum to 90, not 100"},
		{"tpcc unknown weight", append(tpccArgs, "--mix", "no=50,foo=50"), `mix weight "foo=50"`},
		{"tpcc zero clients", append(tpccArgs, "--clients", "0"), "clients 0 must be at least 1"},
		{"tpcc unknown schema", append(tpccArgs, "--schema", "flat"), `unknown schema "flat"`},
		{"tpcc unknown scale", append(tpccArgs, "--scale", "huge"), `--scale "huge"`},
		{"tpcc bad phase mix", append(tpccArgs, "--phases", "10s:workload=b"), "unknown mix"},
		{"tpcc bad stock-level read concern", append(tpccArgs, "--stock-level-read-concern", "snapshot"), `--stock-level-read-concern: tpcc: stock-level read concern "snapshot": want local or majority`},
		{"tpcc without subcommand", []string{"tpcc"}, "usage: decongestant tpcc"},
		{"tpcc check without uri", []string{"tpcc", "check"}, "--uri is required"},
		{"tpcc load zero warehouses", []string{"tpcc", "load", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--warehouses", "0"}, "--warehouses 0"},
		{"report missing file", []string{"report", filepath.Join(t.TempDir(), "none.json")}, "no such file"},
		{"cpu caps for another member count", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--cpu", "0.35,0.15"},
			`--cpu "0.35,0.15" lists 2 caps for 3 members`},
		{"cpu caps for fewer members", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--members", "1", "--cpu", "0.35,0.15"},
			"lists 2 caps for 1 members"},
		{"cpu cap too small", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--cpu", "0.35,0.35,0.001"},
			"member n3: cpu 0.001 below the smallest cap"},
		{"cpu cap not a number", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--cpu", "0.35,x,0.1"}, `cap "x" is not a number`},
		{"demo cpu caps for another member count", []string{"demo", "--cpu", "0.35,0.15", "--out-dir", t.TempDir()}, `--cpu "0.35,0.15" lists 2 caps for 3 members`},
		{"cap without a cluster", []string{"cluster", "cap", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n1", "--cpu", "0.2"}, "no cluster in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runCLI(t, tt.args...)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a rejected run left %s behind (%v)", out, err)
	}
}

func TestReportRejectsNonResults(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(f, []byte(`{"hello": 1}`), 0o644)
	html := filepath.Join(t.TempDir(), "r.html")
	if _, _, err := runCLI(t, "report", f, "--out", html); err == nil || !strings.Contains(err.Error(), "not a results file") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(html); !os.IsNotExist(err) {
		t.Fatal("report written for bad input")
	}
}

func TestUnreachableHostsAreNamedAndCredentialsRedacted(t *testing.T) {
	start := time.Now()
	_, stderr, err := runCLI(t, "bench", "ycsb", "--uri", "mongodb://alice:s3cret@127.0.0.1:1/?replicaSet=rs0",
		"--connect-timeout", "1s", "--out", filepath.Join(t.TempDir(), "r.json"))
	if err == nil {
		t.Fatal("accepted")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("error does not name the unreachable host: %v", err)
	}
	if strings.Contains(err.Error()+stderr, "s3cret") {
		t.Fatalf("password leaked: %v / %s", err, stderr)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("took %v for a 1s connect timeout", d)
	}
}

func TestStandaloneIsNotAReplicaSet(t *testing.T) {
	testutil.SkipIfShort(t)
	bin, err := cluster.FindMongod(context.Background(), "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	port := testutil.FreePort(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind_ip", "127.0.0.1", "--dbpath", dir,
		"--logpath", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	uri := "mongodb://127.0.0.1:" + strconv.Itoa(port)
	_, _, err = runCLI(t, "bench", "ycsb", "--uri", uri, "--out", filepath.Join(t.TempDir(), "r.json"))
	if err == nil || !strings.Contains(err.Error(), "standalone") {
		t.Fatalf("err %v, want a standalone error", err)
	}
}

// TestLagSourceFlag: --lag-source reaches the monitor; auto by default.
func TestLagSourceFlag(t *testing.T) {
	tests := []struct {
		args []string
		want monitor.LagSource
	}{
		{nil, monitor.SourceAuto},
		{[]string{"--lag-source", "hello"}, monitor.SourceHello},
		{[]string{"--lag-source", "replsetgetstatus"}, monitor.SourceReplSetGetStatus},
	}
	for _, tt := range tests {
		o, _, err := benchOptions(append([]string{"ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0"}, tt.args...), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if o.Monitor.LagSource != tt.want {
			t.Errorf("%v: lag source %v, want %v", tt.args, o.Monitor.LagSource, tt.want)
		}
	}
}

// TestSubSecondBoundPollsFaster: a 500 ms bound is polled every 100 ms with
// the headroom taken from each poll; an explicit interval and headroom win.
func TestSubSecondBoundPollsFaster(t *testing.T) {
	tests := []struct {
		args     []string
		interval time.Duration
		headroom time.Duration
	}{
		{[]string{"--max-staleness", "500ms"}, 100 * time.Millisecond, balancer.AutoHeadroom},
		{[]string{"--max-staleness", "10s"}, time.Second, balancer.AutoHeadroom},
		{[]string{"--max-staleness", "2s", "--lag-interval", "250ms", "--lag-headroom", "0"}, 250 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		o, _, err := benchOptions(append([]string{"ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0"}, tt.args...), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if o.Monitor.LagInterval != tt.interval || o.Settings.Decongestant.Headroom != tt.headroom {
			t.Errorf("%v: lag interval %v headroom %v, want %v and %v", tt.args, o.Monitor.LagInterval, o.Settings.Decongestant.Headroom, tt.interval, tt.headroom)
		}
	}
}
