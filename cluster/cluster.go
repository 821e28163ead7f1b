package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	defaultTimeout = 2 * time.Minute  // applied when a ctx has no deadline
	downGrace      = 10 * time.Second // SIGTERM to SIGKILL in Down
	stopTimeout    = time.Minute      // StopMember: a primary may wait for a secondary to catch up
	killTimeout    = 10 * time.Second
)

// Member is one mongod of the set.
type Member struct {
	Name    string `json:"name"` // "n1", "n2", ...; also the member's tag {node: name}
	Host    string `json:"host"` // "127.0.0.1:port", as in the replica set config
	Port    int    `json:"port"`
	PID     int    `json:"pid"` // of the last start; the process may have exited since
	DBPath  string `json:"dbPath"`
	LogPath string `json:"logPath"`
	Cgroup  string `json:"cgroup,omitempty"` // cpu cgroup dir, "" without a CPU cap
	// CPUCap is the member's CPU cap in cores as configured (Config.CPU or CPUs, or SetCPU since);
	// 0 = uncapped. MemberStatus.CPU is the cap read back from the cgroup.
	CPUCap float64 `json:"cpuCap,omitempty"`
	// MemCgroup is the memory cgroup dir, "" without a memory cap; with cgroup v2 it is Cgroup's dir
	// when the member has both caps.
	MemCgroup string `json:"memCgroup,omitempty"`
	// MemoryCap is the member's memory cap in bytes as configured (Config.Memory or Memories, or
	// SetMemory since); 0 = uncapped. MemberStatus.Memory is the cap read back from the cgroup.
	MemoryCap int64 `json:"memoryCap,omitempty"`
	// IOCgroup is the cgroup capping the member's block I/O (blkio with v1, Cgroup's dir with v2),
	// "" without a disk cap; DiskCap is the cap and Disk the device ("major:minor") it applies to.
	IOCgroup string  `json:"ioCgroup,omitempty"`
	DiskCap  DiskCap `json:"diskCap,omitempty"`
	Disk     string  `json:"disk,omitempty"`
}

// cgroups are the member's cgroup dirs, each once.
func (m Member) cgroups() []string {
	var dirs []string
	for _, d := range []string{m.Cgroup, m.MemCgroup, m.IOCgroup} {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// Cluster is a local replica set started by Start or re-attached by Open. Its methods are safe for
// concurrent use within one process; two processes changing the same cluster concurrently (say,
// restarting members) may overwrite each other's state file.
type Cluster struct {
	dir           string
	progress      io.Writer
	dieWithParent bool

	mu       sync.Mutex
	st       state
	children map[int]*child // mongods this process started, by pid
	creds    *credentials   // with auth: read from st.Credentials on first use
}

// Start starts cfg.Members mongods in cfg.Dir, initiates the replica set with n1 as the first primary
// and waits until it is healthy. It returns only a healthy cluster: on any failure, and when ctx is
// cancelled, it kills whatever it started and removes what it created. Without a ctx deadline it
// gives up after two minutes.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ctx, cancel := withDefaultTimeout(ctx, defaultTimeout)
	defer cancel()
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	var mongod string
	if cfg.Mongod == "" {
		mongod, err = FindMongod(ctx, "", "", cfg.Progress)
	} else {
		mongod, err = checkMongod(ctx, cfg.Mongod, "the configured path", cfg.Progress)
	}
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		c, err := start(ctx, cfg, dir, mongod)
		if err != nil && attempt == 1 && cfg.BasePort == 0 && errors.Is(err, ErrPortInUse) && ctx.Err() == nil {
			fmt.Fprintf(cfg.Progress, "a free port was taken before mongod bound it; retrying with new ports\n")
			continue
		}
		return c, err
	}
}

// start makes one attempt at Start with mongod, in order: prepare dir, choose ports, create the
// cgroups, write the state file, spawn the members, record their pids, wait until every member
// listens, then initiate the set. On failure it takes down whatever it started.
func start(ctx context.Context, cfg Config, dir, mongod string) (_ *Cluster, err error) {
	created, err := prepareDir(dir)
	if err != nil {
		return nil, err
	}
	c := newCluster(cfg, dir, mongod, created)
	defer func() {
		if err == nil {
			return
		}
		// ctx may be what failed: clean up on a fresh deadline.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if derr := c.Down(cctx); derr != nil {
			err = fmt.Errorf("%w (cleanup failed too: %v)", err, derr)
		}
	}()

	ports, err := choosePorts(cfg.BasePort, cfg.Members)
	if err != nil {
		return nil, err
	}
	c.st.Members = plannedMembers(dir, ports)
	// Before any mongod runs, so a missing cgroup fails fast.
	if err := c.createCgroups(cfg.MemberCPUs(), cfg.MemberMemories(), cfg.Disk); err != nil {
		return nil, err
	}
	if err := c.writeState(); err != nil {
		return nil, err
	}
	// After the state file, which names them, so a failed start's leftovers are removed.
	if err := c.prepareSecurity(); err != nil {
		return nil, err
	}
	if err := c.spawnMembers(); err != nil {
		return nil, err
	}
	if err := c.writeState(); err != nil {
		return nil, err
	}
	if err := c.waitAllListening(ctx); err != nil {
		return nil, err
	}
	if err := c.initiateSet(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.progress, "replica set %s is healthy: %s\n", c.st.ReplSet, c.URI())
	return c, nil
}

// newCluster returns the handle of a cluster about to be started in dir, with no members yet.
func newCluster(cfg Config, dir, mongod string, createdDir bool) *Cluster {
	c := &Cluster{
		dir:           dir,
		progress:      cfg.Progress,
		dieWithParent: cfg.DieWithParent,
		children:      map[int]*child{},
		st: state{
			Version:     stateVersion,
			ReplSet:     cfg.ReplSet,
			Mongod:      mongod,
			CacheSizeGB: cfg.CacheSizeGB,
			CPU:         cfg.CPU,
			CreatedDir:  createdDir,
			StartedAt:   time.Now().UTC(),
		},
	}
	key, creds, ca, member := securityPaths(dir)
	if cfg.Auth {
		c.st.Auth, c.st.KeyFile, c.st.Credentials, c.st.AppDB = true, key, creds, cfg.AppDB
	}
	if cfg.TLS {
		c.st.TLS, c.st.CAFile, c.st.MemberCert = true, ca, member
	}
	return c
}

// MemberName is the name of the i-th member (from 0) of a local set: n1,
// n2, ...
func MemberName(i int) string { return "n" + strconv.Itoa(i+1) }

// Names returns the members' names, in order.
func Names(members []Member) []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m.Name
	}
	return out
}

// plannedMembers names a member per port, n1 first, with its dbpath and log in dir.
func plannedMembers(dir string, ports []int) []Member {
	var members []Member
	for i, port := range ports {
		name := MemberName(i)
		members = append(members, Member{
			Name:    name,
			Host:    "127.0.0.1:" + strconv.Itoa(port),
			Port:    port,
			DBPath:  filepath.Join(dir, name),
			LogPath: filepath.Join(dir, name+".log"),
		})
	}
	return members
}

// spawnMembers starts every member's mongod and records its pid. A member spawned before a
// failure keeps its pid, so that Down stops it.
func (c *Cluster) spawnMembers() error {
	for i := range c.st.Members {
		m := &c.st.Members[i]
		pid, ch, err := spawn(&c.st, *m, c.dieWithParent)
		if err != nil {
			return err
		}
		c.mu.Lock()
		m.PID = pid
		c.children[pid] = ch
		c.mu.Unlock()
		fmt.Fprintf(c.progress, "started %s (pid %d) on %s, log %s\n", m.Name, pid, m.Host, m.LogPath)
	}
	return nil
}

// waitAllListening waits, in parallel, until every member accepts connections; it returns the
// errors of all the members that did not.
func (c *Cluster) waitAllListening(ctx context.Context) error {
	errs := make([]error, len(c.st.Members))
	var wg sync.WaitGroup
	for i, m := range c.st.Members {
		wg.Go(func() { errs[i] = c.waitListening(ctx, m) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// initiateSet initiates the replica set, makes n1 its first primary and waits until it is healthy.
// With auth it then creates the users and checks that the admin user works on every member.
func (c *Cluster) initiateSet(ctx context.Context) error {
	// Without credentials: with auth no user exists yet, and until one does mongod lets
	// connections from 127.0.0.1 in (the localhost exception).
	cs := c.anonConns()
	defer cs.close()
	fmt.Fprintf(c.progress, "initiating replica set %s\n", c.st.ReplSet)
	if err := c.initiate(ctx, cs); err != nil {
		return err
	}
	if err := c.electFirst(ctx, cs); err != nil {
		return err
	}
	if err := c.waitHealthy(ctx, cs); err != nil {
		return err
	}
	if !c.Security().Auth {
		return nil
	}
	if err := c.createUsers(ctx, cs); err != nil {
		return err
	}
	admin := c.newConns()
	defer admin.close()
	return c.waitHealthy(ctx, admin)
}

// Open re-attaches to a cluster started earlier, possibly by another process, from dir's state
// file. It succeeds even when the members have died, so that Down can clean up; without a state
// file the error wraps ErrNotRunning.
func Open(dir string) (*Cluster, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := readState(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no cluster in %s (no %s): %w", abs, stateFile, ErrNotRunning)
	}
	if err != nil {
		return nil, err
	}
	return &Cluster{dir: abs, progress: io.Discard, st: *st, children: map[int]*child{}}, nil
}

// Dir is the cluster's data dir (absolute).
func (c *Cluster) Dir() string { return c.dir }

// Mongod is the path of the set's mongod binary.
func (c *Cluster) Mongod() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.Mongod
}

// ReplSet is the replica set name.
func (c *Cluster) ReplSet() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.ReplSet
}

// URI is the replica set connection string, e.g. mongodb://127.0.0.1:p1,127.0.0.1:p2/?replicaSet=rs0,
// with tls=true&tlsCAFile=Dir/ca.pem when the members require TLS. It never holds credentials: with
// auth, AdminURI and AppURI add them.
func (c *Cluster) URI() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	hosts := make([]string, len(c.st.Members))
	for i, m := range c.st.Members {
		hosts[i] = m.Host
	}
	return setURI(hosts, c.st.ReplSet, "", "", c.st.CAFile)
}

// Members returns a copy of the members, n1 first.
func (c *Cluster) Members() []Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.st.Members)
}

// Member returns the member called name ("n1", ...).
func (c *Cluster) Member(name string) (Member, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, m := range c.st.Members {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Member{}, fmt.Errorf("no member %q in %s (members: %s)", name, c.dir, strings.Join(names, ", "))
}

// Down stops every member (SIGTERM, then SIGKILL after 10 s), verifies the processes are gone,
// removes the cgroups and the files Start created: the state file, member dbpaths and logs, and
// Dir itself if Start created it and nothing foreign was put in it since. It works on a cluster
// from Open, never signals a pid that is no longer one of the members' mongods, and calling it
// again is harmless. Without a ctx deadline it gives up after a minute.
func (c *Cluster) Down(ctx context.Context) error {
	ctx, cancel := withDefaultTimeout(ctx, time.Minute)
	defer cancel()
	members := c.Members()

	var live []Member
	for _, m := range members {
		if isMemberProcess(m.PID, m.DBPath) {
			if err := syscall.Kill(m.PID, syscall.SIGTERM); err == nil {
				live = append(live, m)
			}
		}
	}
	if len(live) > 0 {
		fmt.Fprintf(c.progress, "stopping %d members\n", len(live))
	}
	graceCtx, graceCancel := context.WithTimeout(ctx, downGrace)
	defer graceCancel()
	for _, m := range live {
		waitGone(graceCtx, m.PID, m.DBPath, c.child(m.PID))
	}
	// The kill phase gets its own deadline: it must run even when ctx is already done.
	killCtx, killCancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
	defer killCancel()
	var errs []error
	for _, m := range live {
		if isMemberProcess(m.PID, m.DBPath) {
			fmt.Fprintf(c.progress, "member %s (pid %d) ignored SIGTERM; sending SIGKILL\n", m.Name, m.PID)
			_ = syscall.Kill(m.PID, syscall.SIGKILL)
		}
		if !waitGone(killCtx, m.PID, m.DBPath, c.child(m.PID)) {
			errs = append(errs, fmt.Errorf("member %s (pid %d) is still running after SIGKILL", m.Name, m.PID))
		}
	}
	if len(errs) > 0 { // keep the state file so that Down can be retried
		return fmt.Errorf("down %s: %w", c.dir, errors.Join(errs...))
	}
	for _, m := range members {
		for _, cg := range m.cgroups() {
			if err := cgroupRemove(killCtx, cg); err != nil {
				errs = append(errs, fmt.Errorf("member %s: %w", m.Name, err))
			}
		}
	}
	if err := c.removeFiles(true); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("down %s: %w", c.dir, err)
	}
	return nil
}

func (c *Cluster) child(pid int) *child {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.children[pid]
}
