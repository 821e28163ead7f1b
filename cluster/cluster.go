package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	stateFile      = "cluster.json"
	stateVersion   = 1
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
}

// state is the content of Dir/cluster.json.
type state struct {
	Version     int       `json:"version"`
	ReplSet     string    `json:"replSet"`
	Mongod      string    `json:"mongod"`
	CacheSizeGB float64   `json:"cacheSizeGB"`
	CPU         float64   `json:"cpu"`
	CreatedDir  bool      `json:"createdDir"` // Down removes Dir itself
	StartedAt   time.Time `json:"startedAt"`
	Members     []Member  `json:"members"`
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

func start(ctx context.Context, cfg Config, dir, mongod string) (_ *Cluster, err error) {
	created, err := prepareDir(dir)
	if err != nil {
		return nil, err
	}
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
			CreatedDir:  created,
			StartedAt:   time.Now().UTC(),
		},
	}
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
	for i, port := range ports {
		name := "n" + strconv.Itoa(i+1)
		c.st.Members = append(c.st.Members, Member{
			Name:    name,
			Host:    "127.0.0.1:" + strconv.Itoa(port),
			Port:    port,
			DBPath:  filepath.Join(dir, name),
			LogPath: filepath.Join(dir, name+".log"),
		})
	}
	if cfg.CPU > 0 { // before any mongod runs, so a missing cgroup fails fast
		for i := range c.st.Members {
			m := &c.st.Members[i]
			if m.Cgroup, err = cgroupCreate(cgroupName(m.Port, m.Name), cfg.CPU); err != nil {
				return nil, fmt.Errorf("member %s: %w", m.Name, err)
			}
		}
	}
	if err := c.writeState(); err != nil {
		return nil, err
	}
	for i := range c.st.Members {
		m := &c.st.Members[i]
		pid, ch, err := spawn(&c.st, *m, c.dieWithParent)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		m.PID = pid
		c.children[pid] = ch
		c.mu.Unlock()
		fmt.Fprintf(c.progress, "started %s (pid %d) on %s, log %s\n", m.Name, pid, m.Host, m.LogPath)
	}
	if err := c.writeState(); err != nil {
		return nil, err
	}
	errs := make([]error, len(c.st.Members))
	var wg sync.WaitGroup
	for i, m := range c.st.Members {
		wg.Go(func() { errs[i] = c.waitListening(ctx, m) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	cs := newConns()
	defer cs.close()
	fmt.Fprintf(c.progress, "initiating replica set %s\n", c.st.ReplSet)
	if err := c.initiate(ctx, cs); err != nil {
		return nil, err
	}
	if err := c.electFirst(ctx, cs); err != nil {
		return nil, err
	}
	if err := c.waitHealthy(ctx, cs); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.progress, "replica set %s is healthy: %s\n", c.st.ReplSet, c.URI())
	return c, nil
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

// URI is the replica set connection string, e.g. mongodb://127.0.0.1:p1,127.0.0.1:p2/?replicaSet=rs0.
func (c *Cluster) URI() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	hosts := make([]string, len(c.st.Members))
	for i, m := range c.st.Members {
		hosts[i] = m.Host
	}
	return "mongodb://" + strings.Join(hosts, ",") + "/?replicaSet=" + c.st.ReplSet
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
		if err := cgroupRemove(killCtx, m.Cgroup); err != nil {
			errs = append(errs, fmt.Errorf("member %s: %w", m.Name, err))
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

// removeFiles removes the members' dbpaths and logs, then the state file, then Dir if Start created it.
func (c *Cluster) removeFiles(removeDir bool) error {
	var errs []error
	rm := func(path string, all bool) {
		var err error
		if all {
			err = os.RemoveAll(path)
		} else {
			err = os.Remove(path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	c.mu.Lock()
	members, created := slices.Clone(c.st.Members), c.st.CreatedDir
	c.mu.Unlock()
	for _, m := range members {
		rm(m.DBPath, true)
		rm(m.LogPath, false)
	}
	tmps, _ := filepath.Glob(filepath.Join(c.dir, stateFile+".tmp-*"))
	for _, t := range tmps {
		rm(t, false)
	}
	if len(errs) == 0 {
		rm(filepath.Join(c.dir, stateFile), false)
	}
	if removeDir && created && len(errs) == 0 {
		// Something foreign put in Dir since Start keeps it (and Dir) alive.
		if err := os.Remove(c.dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// prepareDir makes dir ready for a new cluster. A missing dir is created (created is true). A dir
// whose state file names live members is refused; a stale one is cleaned. Any other content is
// refused.
func prepareDir(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%w: %s is not a directory", ErrDirInUse, dir)
	}
	st, err := readState(dir)
	switch {
	case err == nil:
		var alive []string
		for _, m := range st.Members {
			if isMemberProcess(m.PID, m.DBPath) {
				alive = append(alive, fmt.Sprintf("%s pid %d", m.Name, m.PID))
			}
		}
		if len(alive) > 0 {
			return false, fmt.Errorf("%w: %s holds a running cluster (%s); stop it with `decongestant cluster down --dir %s`",
				ErrDirInUse, dir, strings.Join(alive, ", "), dir)
		}
		stale := &Cluster{dir: dir, st: *st}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, m := range st.Members {
			if err := cgroupRemove(ctx, m.Cgroup); err != nil {
				return false, fmt.Errorf("clean stale cluster in %s: %w", dir, err)
			}
		}
		if err := stale.removeFiles(false); err != nil {
			return false, fmt.Errorf("clean stale cluster in %s: %w", dir, err)
		}
		created = st.CreatedDir
	case errors.Is(err, fs.ErrNotExist):
	default:
		return false, fmt.Errorf("%w: %w; remove it or choose another dir", ErrDirInUse, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	if len(entries) > 0 {
		var names []string
		for i, e := range entries {
			if i == 5 {
				names = append(names, "...")
				break
			}
			names = append(names, e.Name())
		}
		return false, fmt.Errorf("%w: %s is not empty and holds no decongestant cluster (found %s); choose an empty or new dir",
			ErrDirInUse, dir, strings.Join(names, ", "))
	}
	return created, nil
}

var memberName = regexp.MustCompile(`^n[1-9][0-9]*$`)

// readState reads and checks dir's state file. The paths in it must be the ones Start would have
// chosen for dir, so a hand-edited or misplaced file cannot make Down remove anything else.
func readState(dir string) (*state, error) {
	path := filepath.Join(dir, stateFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state file %s: version %d, want %d", path, st.Version, stateVersion)
	}
	for _, m := range st.Members {
		switch {
		case !memberName.MatchString(m.Name):
			return nil, fmt.Errorf("state file %s: bad member name %q", path, m.Name)
		case m.DBPath != filepath.Join(dir, m.Name) || m.LogPath != filepath.Join(dir, m.Name+".log"):
			return nil, fmt.Errorf("state file %s: member %s paths %s, %s are not under %s", path, m.Name, m.DBPath, m.LogPath, dir)
		case m.Cgroup != "" && (!strings.HasPrefix(m.Cgroup, cgroupRoot+"/") || !strings.HasPrefix(filepath.Base(m.Cgroup), "decongestant-")):
			return nil, fmt.Errorf("state file %s: member %s has a foreign cgroup %s", path, m.Name, m.Cgroup)
		}
	}
	return &st, nil
}

// writeState writes the state file atomically (temp file + rename).
func (c *Cluster) writeState() error {
	c.mu.Lock()
	b, err := json.MarshalIndent(c.st, "", "  ")
	c.mu.Unlock()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, stateFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(c.dir, stateFile)); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	return nil
}

// choosePorts returns n ports: base, base+1, ... checked to be free, or with base 0 n distinct
// ports the kernel reports free (another process may still take one before mongod binds it).
func choosePorts(base, n int) ([]int, error) {
	ports := make([]int, 0, n)
	if base == 0 {
		var ls []net.Listener
		defer func() {
			for _, l := range ls {
				l.Close()
			}
		}()
		for range n {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, fmt.Errorf("pick a free port: %w", err)
			}
			ls = append(ls, l)
			ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		}
		return ports, nil
	}
	for i := range n {
		port := base + i
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%w: port %d (member n%d): %w", ErrPortInUse, port, i+1, err)
		}
		if err != nil {
			return nil, fmt.Errorf("port %d (member n%d): %w", port, i+1, err)
		}
		l.Close()
		ports = append(ports, port)
	}
	return ports, nil
}

// waitListening polls until m accepts TCP connections, failing early with the log tail if its
// process exits.
func (c *Cluster) waitListening(ctx context.Context, m Member) error {
	ch := c.child(m.PID)
	exited := func() bool {
		if ch != nil {
			select {
			case <-ch.done:
				return true
			default:
				return false
			}
		}
		return !exists(m.PID, m.DBPath)
	}
	return poll(ctx, 50*time.Millisecond, func() (bool, error) {
		conn, err := net.DialTimeout("tcp", m.Host, 250*time.Millisecond)
		if err == nil {
			conn.Close()
			return true, nil
		}
		if exited() {
			return false, c.startupErr(m, ch)
		}
		return false, nil
	}, func(err error) error {
		return fmt.Errorf("member %s (pid %d) is not listening on %s: %w; last lines of %s:\n%s",
			m.Name, m.PID, m.Host, err, m.LogPath, logTail(m.LogPath, 10))
	})
}

// startupErr describes a member that exited while starting; a bind failure wraps ErrPortInUse.
func (c *Cluster) startupErr(m Member, ch *child) error {
	status := "exited"
	if ch != nil && ch.err != nil {
		status = ch.err.Error()
	}
	tail := logTail(m.LogPath, 10)
	if logContains(m.LogPath, "Address already in use") {
		return fmt.Errorf("member %s (pid %d) could not bind port %d: %w; last lines of %s:\n%s",
			m.Name, m.PID, m.Port, ErrPortInUse, m.LogPath, tail)
	}
	return fmt.Errorf("member %s (pid %d) exited during startup (%s); last lines of %s:\n%s", m.Name, m.PID, status, m.LogPath, tail)
}

// logContains reports whether the last 64 KiB of the log at path contain s.
func logContains(path, s string) bool {
	b, err := readTail(path, 64<<10)
	return err == nil && strings.Contains(string(b), s)
}

// poll calls f every interval until it reports done or an error, or ctx ends; then onTimeout
// (if not nil) turns ctx's error into a descriptive one.
func poll(ctx context.Context, interval time.Duration, f func() (bool, error), onTimeout func(error) error) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		done, err := f()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			if onTimeout != nil {
				return onTimeout(ctx.Err())
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
