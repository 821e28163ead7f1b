package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
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
		{"bench without workload", []string{"bench"}, "usage: decongestant bench ycsb|tpcc|tpch"},
		{"unknown bench workload", []string{"bench", "tpcx"}, `unknown workload "tpcx"`},
		{"missing uri", []string{"bench", "ycsb"}, "--uri is required"},
		{"malformed uri", []string{"bench", "ycsb", "--uri", "mongodb://"}, "invalid --uri"},
		{"not a mongodb uri", []string{"bench", "ycsb", "--uri", "http://localhost"}, "invalid --uri"},
		{"uri with a secret option's value miswritten", []string{"bench", "ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0&authMechanismProperties=AWS_SESSION_TOKEN:tok3n&proxyPassword=s3c%zzret"},
			"invalid --uri: invalid connection string: mongodb://127.0.0.1:1/?replicaSet=rs0&authMechanismProperties=REDACTED&proxyPassword=REDACTED: the value of an option that holds a credential"},
		{"tpcc uri with a secret option's value miswritten", []string{"tpcc", "load", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0&authMechanismProperties=AWS_SESSION_TOKEN:tok3n&proxyPassword=s3c%zzret"},
			"invalid --uri: invalid connection string: mongodb://127.0.0.1:1/?replicaSet=rs0&authMechanismProperties=REDACTED&proxyPassword=REDACTED: the value of an option that holds a credential"},
		{"negative duration", append(good, "--duration", "-5s"), "--duration -5s must not be negative"},
		{"unparsable duration", append(good, "--duration", "soon"), `invalid value "soon"`},
		{"unknown policy", append(good, "--policies", "primary,fastest"), `"fastest": unknown policy`},
		{"maxstaleness below 90s", append(good, "--policies", "maxstaleness:10s"), "maxStalenessSeconds >= 90s"},
		{"bad fixed", append(good, "--policies", "fixed:2"), "fixed:<fraction>"},
		{"weights not summing to 1", append(good, "--policies", "weights:primary=0.5,n2=0.4"), "shares sum to 0.9, not 1"},
		{"weights without shares", append(good, "--policies", "weights:"), "is not member=share"},
		{"weights naming a member twice", append(good, "--policies", "weights:n2=0.5,N2=0.5"), `member "N2" is given twice`},
		{"bad spillway primary floor", append(good, "--primary-floor", "-1ms"), "--primary-floor: invalid policy: primary floor -1ms must not be negative"},
		{"bad spillway gain", append(good, "--spillway-gain", "0"), "--spillway-gain: invalid policy: gain 0 must be in (0, 2]"},
		{"bad spillway deadband", append(good, "--deadband", "1.5"), "--deadband: invalid policy: deadband 1.5"},
		{"bad spillway probe share", append(good, "--probe-share", "0.5"), "--probe-share: invalid policy: probe share 0.5"},
		{"bad spillway period", append(good, "--spillway-period", "0s"), "--spillway-period: invalid policy: spillway interval 0s"},
		{"bad delta", append(good, "--delta", "2"), "--delta: invalid policy: delta 2 must be in (0, 1]"},
		{"bad low-bal", append(good, "--low-bal", "0"), "--low-bal: invalid policy: low balance fraction 0"},
		{"high-bal below low-bal", append(good, "--low-bal", "0.5", "--high-bal", "0.4"), "--high-bal: invalid policy: high balance fraction 0.4"},
		{"bad low-ratio", append(good, "--low-ratio", "0"), "--low-ratio: invalid policy: ratios must satisfy"},
		{"high-ratio not above low-ratio", append(good, "--low-ratio", "2", "--high-ratio", "2"), "--high-ratio: invalid policy: ratios must satisfy"},
		{"bad history", append(good, "--history", "0"), "--history: invalid policy: history 0"},
		{"bad min samples", append(good, "--min-samples", "0"), "--min-samples: invalid policy: min samples 0"},
		{"bad balancer period", append(good, "--balancer-period", "0s"), "--balancer-period: invalid policy: balancer interval 0s"},
		{"bad rpm exploration", append(good, "--rpm-exploration", "0.5"), "--rpm-exploration: invalid policy: rpm exploration 0.5"},
		{"bad rpm threshold", append(good, "--rpm-threshold", "0"), "--rpm-threshold: invalid policy: rpm threshold 0"},
		{"bad rpm period", append(good, "--rpm-period", "0s"), "--rpm-period: invalid policy: rpm interval 0s"},
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
		{"sub-second bound with the Decongestant paper's 1s polls", append(good, "--max-staleness", "500ms", "--lag-interval", "1s"), "--max-staleness 500ms with --lag-interval 1s"},
		{"bad lag headroom", append(good, "--lag-headroom", "soon"), `--lag-headroom "soon"`},
		{"headroom at the bound", append(good, "--max-staleness", "500ms", "--lag-headroom", "500ms"), "--lag-headroom: invalid policy: lag headroom 500ms is not below the staleness bound"},
		{"bad latency source", append(good, "--latency-source", "server"), `--latency-source: unknown latency source "server"`},
		{"bad lag estimate", append(good, "--lag-estimate", "median"), `--lag-estimate: unknown lag estimate "median"`},
		{"S probe writes slower than its probes", append(good, "--sprobe-write-interval", "200ms"), "--sprobe-write-interval 200ms must be positive and at most --sprobe-interval (100ms)"},
		{"S probe writes never", append(good, "--sprobe-write-interval", "0s"), "--sprobe-write-interval 0s must be positive"},
		{"bad rate", append(good, "--rate", "-5"), "rate -5 must be a number of operations a second"},
		{"hints apply 0", append(good, "--hints", "off,hints:apply=0"), "apply fraction 0 must be in (0, 1]"},
		{"hints apply over 1", append(good, "--hints", "hints:apply=1.5"), "apply fraction 1.5 must be in (0, 1]"},
		{"hints batch interval 0", append(good, "--hints", "hints:interval=0s"), "batch interval 0s must be positive"},
		{"hints unknown setting", append(good, "--hints", "hints:speed=3"), `unknown setting "speed"`},
		{"hints unknown variant", append(good, "--hints", "maybe"), `"maybe" (want off, on, or hints:key=value`},
		{"reads phase with a policy that cannot move reads", append(good, "--phases", "60s:reads=n2", "--policies", "primary"),
			"phase reads=n2 moves reads between members, which only weights: policies take"},
		{"ycsb readkeys beyond the records", append(good, "--readkeys", "200000"), "readkeys 200000 must be 0 (all keys) or below the record count 100000"},
		{"read window of a workload without one", []string{"bench", "tpcc", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0", "--phases", "60s:readoffset=5"},
			"phase readoffset=5 moves the reads' key window, which workload tpcc does not have"},
		{"read window moved without readkeys", append(good, "--phases", "60s:readoffset=500"), "phase readoffset=500: ycsb: moving the reads' key window needs --readkeys"},
		{"read window beyond the records", append(good, "--readkeys", "1000", "--phases", "60s:readoffset=99500"), "a read window of 1000 keys at 99500 does not fit in the 100000 loaded keys"},
		{"cold start without a cluster", append(good, "--cold-start"), "--cold-start restarts members, which needs a cluster started by `decongestant cluster up`"},
		{"bad lag source", append(good, "--lag-source", "serverstatus"), `--lag-source: unknown lag source "serverstatus"`},
		{"bad heartbeat namespace", append(good, "--heartbeat-ns", "nodot"), `--heartbeat-ns: namespace "nodot": want db.collection`},
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
		{"memory caps for another member count", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--memory", "600M,1G"},
			`--memory "600M,1G" lists 2 caps for 3 members`},
		{"memory cap not a size", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--memory", "600M,lots,1G"},
			`--memory "600M,lots,1G": size "lots" is not bytes or a number with K, M or G`},
		{"memory cap in decimal units", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--memory", "600MB"}, `size "600MB" is not bytes`},
		{"negative memory cap", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--memory", "-600M"}, `size "-600M" must not be negative`},
		{"memory cap below the minimum", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--memory", "300M"},
			"memory 300M is below the 512M (536870912 bytes) a member needs: its 0.25 GB WiredTiger cache + 256M"},
		{"memory cap below a larger cache's minimum", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--cache-gb", "1", "--memory", "1G"},
			"memory 1G is below the 1280M (1342177280 bytes) a member needs: its 1 GB WiredTiger cache + 256M"},
		{"one member's memory cap below the minimum", []string{"cluster", "up", "--dir", filepath.Join(t.TempDir(), "rs"), "--memory", "600M,600M,100M"},
			"member n3: memory 100M is below the 512M"},
		{"memory cap without a cluster", []string{"cluster", "cap", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n1", "--memory", "800M"}, "no cluster in"},
		{"slow delay not whole milliseconds", []string{"cluster", "slow", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n3", "--delay", "1500us"},
			"cluster slow: --delay 1.5ms must be whole milliseconds from 1ms to 1h"},
		{"slow delay zero", []string{"cluster", "slow", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n3", "--delay", "0s"}, "--delay 0s must be whole milliseconds"},
		{"unslow delay", []string{"cluster", "unslow", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n3", "--delay", "1s"}, "flag provided but not defined: -delay"},
		{"slow without a cluster", []string{"cluster", "slow", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n3"}, "no cluster in"},
		{"slow phase with a bad delay", append(good, "--phases", "10s:slow=n3:fast"), `slow's delay "fast" must be whole milliseconds`},
		{"cold kill", []string{"cluster", "kill", "--dir", filepath.Join(t.TempDir(), "none"), "--member", "n1", "--cold"}, "flag provided but not defined: -cold"},
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
			if strings.Contains(err.Error(), "s3c") || strings.Contains(err.Error(), "tok3n") {
				t.Fatalf("error %q quotes a secret", err)
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

// TestStandaloneIsNotAReplicaSet: bench refuses a mongod that is not a
// replica set member. (testutil.Standalone starts it without a Unix
// socket: killed at cleanup, a mongod leaves its socket file in /tmp.)
func TestStandaloneIsNotAReplicaSet(t *testing.T) {
	uri := "mongodb://" + testutil.Standalone(t)
	_, _, err := runCLI(t, "bench", "ycsb", "--uri", uri, "--out", filepath.Join(t.TempDir(), "r.json"))
	if err == nil || !strings.Contains(err.Error(), "standalone") {
		t.Fatalf("err %v, want a standalone error", err)
	}
}

// TestLagSourceFlag: --lag-source reaches the monitor, auto by default;
// --heartbeat-ns names the heartbeat's namespace, by default --db's
// decongestant_heartbeat.
func TestLagSourceFlag(t *testing.T) {
	tests := []struct {
		args []string
		want monitor.LagSource
		ns   monitor.Namespace
	}{
		{nil, monitor.SourceAuto, monitor.Namespace{DB: "ycsb", Coll: "decongestant_heartbeat"}},
		{[]string{"--lag-source", "hello"}, monitor.SourceHello, monitor.Namespace{DB: "ycsb", Coll: "decongestant_heartbeat"}},
		{[]string{"--lag-source", "replsetgetstatus"}, monitor.SourceReplSetGetStatus, monitor.Namespace{DB: "ycsb", Coll: "decongestant_heartbeat"}},
		{[]string{"--lag-source", "heartbeat", "--db", "app"}, monitor.SourceHeartbeat, monitor.Namespace{DB: "app", Coll: "decongestant_heartbeat"}},
		{[]string{"--lag-source", "heartbeat", "--heartbeat-ns", "ops.beat.v1"}, monitor.SourceHeartbeat, monitor.Namespace{DB: "ops", Coll: "beat.v1"}},
	}
	for _, tt := range tests {
		o, _, err := benchOptions(append([]string{"ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0"}, tt.args...), io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if o.Monitor.LagSource != tt.want || o.Monitor.Heartbeat != tt.ns {
			t.Errorf("%v: lag source %v, heartbeat %v; want %v, %v", tt.args, o.Monitor.LagSource, o.Monitor.Heartbeat, tt.want, tt.ns)
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

// TestMemberStatsAndReconfigFlags: member stats and runtime stats are on
// unless --member-stats=false or --runtime-stats=false; --reconfig-at takes
// a list of durations.
func TestMemberStatsAndReconfigFlags(t *testing.T) {
	tests := []struct {
		args       []string
		skip       bool
		quiet      bool // no runtime stats in the progress lines
		reconfigAt []time.Duration
		err        string
	}{
		{args: nil},
		{args: []string{"--member-stats=false", "--reconfig-at", "30s, 1m"}, skip: true, reconfigAt: []time.Duration{30 * time.Second, time.Minute}},
		{args: []string{"--runtime-stats=false"}, quiet: true},
		{args: []string{"--reconfig-at", "30"}, err: `--reconfig-at: "30" is not a duration`},
	}
	for _, tt := range tests {
		o, _, err := benchOptions(append([]string{"ycsb", "--uri", "mongodb://127.0.0.1:1/?replicaSet=rs0"}, tt.args...), io.Discard)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: err %v, want %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tt.args, err)
		case o.SkipMemberStats != tt.skip || o.RuntimeStats == tt.quiet || !slices.Equal(o.ReconfigAt, tt.reconfigAt):
			t.Errorf("%v: skip member stats %v, runtime stats %v, reconfig at %v; want %v, %v, %v", tt.args,
				o.SkipMemberStats, o.RuntimeStats, o.ReconfigAt, tt.skip, !tt.quiet, tt.reconfigAt)
		}
	}
}
