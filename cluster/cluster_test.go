package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

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
	testutil.SkipIfShort(t)
	ctx := ctxFor(t, 2*time.Minute)
	dir := filepath.Join(t.TempDir(), "rs")
	c, err := cluster.Start(ctx, cluster.Config{Dir: dir, Members: 3, DieWithParent: true})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	members := checkLayout(t, c, dir, 3)
	checkFirstRoles(t, ctx, c)
	checkSetConfig(t, ctx, c, members)

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

// checkLayout checks that c has n members n1..nN on 127.0.0.1 with their data in dir and no
// cgroup, and a URI naming them all; it returns the members.
func checkLayout(t *testing.T, c *cluster.Cluster, dir string, n int) []cluster.Member {
	t.Helper()
	members := c.Members()
	if len(members) != n {
		t.Fatalf("members: got %d, want %d", len(members), n)
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
	return members
}

// checkFirstRoles checks that a freshly started 3-member set has n1 as primary, the others as
// secondaries, and every member alive.
func checkFirstRoles(t *testing.T, ctx context.Context, c *cluster.Cluster) {
	t.Helper()
	want := map[string]string{"n1": "PRIMARY", "n2": "SECONDARY", "n3": "SECONDARY"}
	if got := states(t, c); !mapsEqual(got, want) {
		t.Errorf("states: got %v, want %v", got, want)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	for _, s := range st {
		if !s.Alive {
			t.Errorf("member %s: not alive after Start", s.Name)
		}
	}
	p, err := c.Primary(ctx)
	if err != nil || p.Name != "n1" {
		t.Errorf("primary: got %q, %v; want n1", p.Name, err)
	}
}

// checkSetConfig checks the replica set config (tags {node: nK}, chaining off) and that the set
// takes a write through the URI; it disconnects before returning.
func checkSetConfig(t *testing.T, ctx context.Context, c *cluster.Cluster, members []cluster.Member) {
	t.Helper()
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
	if len(cfg.Config.Members) != len(members) {
		t.Fatalf("config members: %d, want %d", len(cfg.Config.Members), len(members))
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
	testutil.SkipIfShort(t)
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
	testutil.SkipIfShort(t)
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

// TestPortInUse starts on a busy base port with the fake mongod: the port is refused before any
// member is spawned (the fake would fail differently), and nothing is left behind.
func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dir := filepath.Join(t.TempDir(), "rs")
	_, err = cluster.Start(ctxFor(t, time.Minute), cluster.Config{Dir: dir, Members: 1, BasePort: port, Mongod: fakeMongod(t, t.TempDir())})
	if !errors.Is(err, cluster.ErrPortInUse) || !strings.Contains(err.Error(), "port "+strconv.Itoa(port)) {
		t.Fatalf("start on a busy port: %v, want ErrPortInUse naming port %d", err, port)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir after failed start: %v, want removed", err)
	}
}

func TestCPUCap(t *testing.T) {
	c := testutil.NewReplicaSet(t, 1, 0.2) // skips without a cgroup (fails under DECONGESTANT_REQUIRE_CGROUPS=1)
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

// checkQuota checks the CFS quota of the cgroup at path against a cap of cpu cores (0 = none),
// in either hierarchy.
func checkQuota(t *testing.T, path string, cpu float64) {
	t.Helper()
	quota := strconv.Itoa(int(cpu*100000 + 0.5))
	file, want := filepath.Join(path, "cpu.cfs_quota_us"), quota
	if cpu == 0 {
		want = "-1"
	}
	if _, err := os.Stat(filepath.Join(path, "cpu.max")); err == nil {
		file, want = filepath.Join(path, "cpu.max"), quota+" 100000"
		if cpu == 0 {
			want = "max 100000"
		}
	}
	if b, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(b)) != want {
		t.Errorf("%s: %q, %v; want %q", file, b, err, want)
	}
}

// TestPerMemberCPUCaps starts a set with a cap per member: each member's cgroup has its own quota
// and holds its mongod, the state file and Status report each cap, SetCPU changes one on the running
// set, and Down removes every cgroup.
func TestPerMemberCPUCaps(t *testing.T) {
	caps := []float64{0.35, 0.35, 0.15}
	c := testutil.StartReplicaSet(t, cluster.Config{CPUs: caps})
	ctx := ctxFor(t, time.Minute)
	members := c.Members()
	for i, m := range members {
		if m.Cgroup == "" || m.CPUCap != caps[i] {
			t.Fatalf("member %s: cgroup %q cap %v, want a cgroup capped at %v", m.Name, m.Cgroup, m.CPUCap, caps[i])
		}
		checkQuota(t, m.Cgroup, caps[i])
		procs, err := os.ReadFile(filepath.Join(m.Cgroup, "cgroup.procs"))
		if err != nil || !slices.Contains(strings.Fields(string(procs)), strconv.Itoa(m.PID)) {
			t.Errorf("member %s: cgroup.procs %q (%v) lacks pid %d", m.Name, procs, err, m.PID)
		}
	}
	opened, err := cluster.Open(c.Dir()) // the state file, as `cluster status` reads it
	if err != nil {
		t.Fatal(err)
	}
	st, err := opened.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range st {
		if s.CPU != caps[i] || s.CPUCap != caps[i] {
			t.Errorf("status %s: cpu %v (state %v), want %v", s.Name, s.CPU, s.CPUCap, caps[i])
		}
	}

	// A cap changed on the running set, then lifted.
	if err := opened.SetCPU("n3", 0.25); err != nil {
		t.Fatal(err)
	}
	checkQuota(t, members[2].Cgroup, 0.25)
	if err := opened.SetCPU("n2", 0); err != nil {
		t.Fatal(err)
	}
	checkQuota(t, members[1].Cgroup, 0)
	if again, err := cluster.Open(c.Dir()); err != nil || again.Members()[2].CPUCap != 0.25 {
		t.Errorf("state after SetCPU: %+v, %v; want n3 capped at 0.25", again.Members(), err)
	}
	if err := opened.SetCPU("n9", 0.2); err == nil || !strings.Contains(err.Error(), "n1, n2, n3") {
		t.Errorf("SetCPU on an unknown member: %v, want an error naming the members", err)
	}

	if err := c.Down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	for _, m := range members {
		if _, err := os.Stat(m.Cgroup); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cgroup %s after Down: %v, want removed", m.Cgroup, err)
		}
	}
}

// checkMemLimit checks the memory cap of the cgroup at path (bytes, 0 = none), in either hierarchy.
func checkMemLimit(t *testing.T, path string, limit int64) {
	t.Helper()
	file, want := filepath.Join(path, "memory.limit_in_bytes"), strconv.FormatInt(limit, 10)
	if _, err := os.Stat(filepath.Join(path, "memory.max")); err == nil {
		file = filepath.Join(path, "memory.max")
	}
	if b, err := os.ReadFile(file); err != nil || strings.TrimSpace(string(b)) != want {
		t.Errorf("%s: %q, %v; want %q", file, b, err, want)
	}
}

// checkInCgroups checks that each of the cgroups at paths holds pid.
func checkInCgroups(t *testing.T, pid int, paths ...string) {
	t.Helper()
	for _, path := range paths {
		procs, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		if err != nil || !slices.Contains(strings.Fields(string(procs)), strconv.Itoa(pid)) {
			t.Errorf("%s/cgroup.procs %q (%v) lacks pid %d", path, procs, err, pid)
		}
	}
}

// checkMemoryUsage checks MemoryUsage of a running, capped member: the cap, a resident mongod and a
// cgroup charged something within the cap.
func checkMemoryUsage(t *testing.T, c *cluster.Cluster, name string, limit int64) cluster.MemoryUsage {
	t.Helper()
	u, err := c.MemoryUsage(name)
	if err != nil {
		t.Fatalf("MemoryUsage(%s): %v", name, err)
	}
	if u.Limit != limit || u.RSS <= 0 || u.Usage <= 0 || u.Usage > u.Limit || u.Cache < 0 || u.Cache > u.Usage {
		t.Errorf("MemoryUsage(%s) = %+v; want limit %d, RSS > 0, 0 < usage <= limit, cache <= usage", name, u, limit)
	}
	return u
}

// TestMemoryCap starts a one-member set with a memory cap (and a CPU cap, so both kinds of cgroup
// meet): the cgroup holds the cap and the mongod, MemoryUsage and Status report them, SetMemory
// changes the cap on the running member and refuses one below the minimum with the number needed,
// DropCaches restarts the member cold into the same cgroups, and Down removes them.
func TestMemoryCap(t *testing.T) {
	const limit, raised = 600 << 20, 800 << 20
	c := testutil.StartReplicaSet(t, cluster.Config{Members: 1, CPU: 0.5, Memory: limit}) // skips without cgroups (fails under DECONGESTANT_REQUIRE_CGROUPS=1)
	ctx := ctxFor(t, 2*time.Minute)
	m := c.Members()[0]
	if m.MemCgroup == "" || m.MemoryCap != limit || m.Cgroup == "" {
		t.Fatalf("member: %+v, want a memory cgroup capped at %d and a cpu cgroup", m, limit)
	}
	checkMemLimit(t, m.MemCgroup, limit)
	checkInCgroups(t, m.PID, m.Cgroup, m.MemCgroup)
	u := checkMemoryUsage(t, c, "n1", limit)
	t.Logf("fresh member: RSS %s, cgroup usage %s of which page cache %s",
		cluster.FormatSize(u.RSS), cluster.FormatSize(u.Usage), cluster.FormatSize(u.Cache))
	if st, err := c.Status(ctx); err != nil || st[0].Memory != limit || st[0].CPU != 0.5 {
		t.Errorf("status: %+v, %v; want memory %d and cpu 0.5", st, err, limit)
	}

	// Raised on the running member, as `cluster cap` does through the state file.
	opened, err := cluster.Open(c.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if err := opened.SetMemory("n1", raised); err != nil {
		t.Fatalf("SetMemory: %v", err)
	}
	checkMemLimit(t, m.MemCgroup, raised)
	if again, err := cluster.Open(c.Dir()); err != nil || again.Members()[0].MemoryCap != raised {
		t.Errorf("state after SetMemory: %+v, %v; want a cap of %d", again.Members(), err, raised)
	}
	if err := opened.SetMemory("n1", 300<<20); err == nil || !strings.Contains(err.Error(), "below the 512M (536870912 bytes)") {
		t.Errorf("SetMemory below the minimum: %v, want a refusal naming 512M", err)
	}
	checkMemLimit(t, m.MemCgroup, raised)

	// A cold restart: a new mongod in the same cgroups, primary again.
	if err := opened.DropCaches(ctx, "n1"); err != nil {
		t.Fatalf("DropCaches: %v", err)
	}
	cold := opened.Members()[0]
	if cold.PID == m.PID || cold.MemCgroup != m.MemCgroup || cold.Cgroup != m.Cgroup {
		t.Errorf("after DropCaches: %+v, want a new pid in the cgroups of %+v", cold, m)
	}
	if got := states(t, opened)["n1"]; got != "PRIMARY" {
		t.Errorf("after DropCaches n1 is %s, want PRIMARY", got)
	}
	checkInCgroups(t, cold.PID, cold.Cgroup, cold.MemCgroup)
	u = checkMemoryUsage(t, opened, "n1", raised)
	t.Logf("after a cold restart: RSS %s, cgroup usage %s of which page cache %s",
		cluster.FormatSize(u.RSS), cluster.FormatSize(u.Usage), cluster.FormatSize(u.Cache))

	if err := opened.Down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	for _, cg := range []string{m.Cgroup, m.MemCgroup} {
		if _, err := os.Stat(cg); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cgroup %s after Down: %v, want removed", cg, err)
		}
	}
	if u, err := opened.MemoryUsage("n1"); err == nil {
		t.Errorf("MemoryUsage after Down: %+v, want an error (no cgroup)", u)
	}
}

// TestDiskCap starts a one-member set with an HDD disk cap (and a CPU cap, so the cgroups meet): the
// member's I/O cgroup throttles the disk holding its data at 150 operations a second, holds the
// mongod, is kept across a cold restart and removed by Down.
func TestDiskCap(t *testing.T) {
	testutil.SkipIfShort(t)
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		t.Skip("checks the v1 blkio files; v2's io.max is covered by TestIOCgroupV2SharesTheMembersCgroup")
	}
	cfg := cluster.Config{Dir: filepath.Join(t.TempDir(), "rs"), Members: 1, CPU: 0.5, Disk: cluster.HDD, DieWithParent: true}
	ctx := ctxFor(t, 2*time.Minute)
	c, err := cluster.Start(ctx, cfg)
	if errors.Is(err, cluster.ErrNotBlockDevice) {
		t.Skipf("the test's temp dir is not on a block device: %v", err)
	}
	testutil.SkipWithoutCgroups(t, err)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	m := c.Members()[0]
	if m.IOCgroup == "" || m.DiskCap != cluster.HDD || !regexp.MustCompile(`^\d+:\d+$`).MatchString(m.Disk) {
		t.Fatalf("member %+v: want an I/O cgroup with the HDD cap on a disk", m)
	}
	for _, f := range []string{"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"} {
		if b, err := os.ReadFile(filepath.Join(m.IOCgroup, f)); err != nil || strings.TrimSpace(string(b)) != m.Disk+" 150" {
			t.Errorf("%s = %q, %v; want %q", f, b, err, m.Disk+" 150")
		}
	}
	checkInCgroups(t, m.PID, m.Cgroup, m.IOCgroup)
	if err := c.DropCaches(ctx, "n1"); err != nil {
		t.Fatalf("DropCaches: %v", err)
	}
	cold := c.Members()[0]
	checkInCgroups(t, cold.PID, cold.Cgroup, cold.IOCgroup)
	if err := c.Down(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.IOCgroup); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("I/O cgroup %s after Down: %v, want removed", m.IOCgroup, err)
	}
}
