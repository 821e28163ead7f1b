package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is a mongod started by this process; done closes once it has been reaped.
type child struct {
	done chan struct{}
	err  error
}

// spawner runs exec.Cmd.Start on one goroutine locked to its OS thread for the life of the process.
// Pdeathsig fires when the thread that forked the child exits, so this keeps DieWithParent tied to
// the process rather than to whichever runtime thread happened to call Start.
var spawner struct {
	once sync.Once
	reqs chan func()
}

func startOnLockedThread(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan func())
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for f := range spawner.reqs {
				f()
			}
		}()
	})
	errc := make(chan error, 1)
	spawner.reqs <- func() { errc <- cmd.Start() }
	return <-errc
}

// shutdownQuiesceMillis bounds how long a member takes to exit after SIGTERM.
const shutdownQuiesceMillis = 2000

// mongodArgs is the command line of member m.
func mongodArgs(st *state, m Member) []string {
	args := []string{
		"--replSet", st.ReplSet,
		"--port", strconv.Itoa(m.Port),
		"--bind_ip", "127.0.0.1",
		"--dbpath", m.DBPath,
		"--logpath", m.LogPath,
		"--logappend",
		"--nounixsocket",
		"--wiredTigerCacheSizeGB", strconv.FormatFloat(st.CacheSizeGB, 'f', -1, 64),
		"--oplogSize", "1024",
		"--setParameter", "enableTestCommands=1",
		"--setParameter", "diagnosticDataCollectionEnabled=false",
		// SIGTERM makes a 6.0 member quiesce (or a primary wait for a secondary) this long before it
		// exits; the default 15 s makes every clean stop take 15 s.
		"--setParameter", "shutdownTimeoutMillisForSignaledShutdown=" + strconv.Itoa(shutdownQuiesceMillis),
	}
	if st.Auth {
		args = append(args, "--keyFile", st.KeyFile) // implies --auth
	}
	if st.TLS {
		// Clients need not present a certificate, only trust the CA; members present theirs to
		// each other.
		args = append(args, "--tlsMode", "requireTLS", "--tlsCertificateKeyFile", st.MemberCert,
			"--tlsCAFile", st.CAFile, "--tlsAllowConnectionsWithoutCertificates")
	}
	return args
}

// spawn starts member m's mongod in its own process group, with stdout and stderr appended to its
// log, and moves it into its cgroups. It returns the pid.
func spawn(st *state, m Member, dieWithParent bool) (int, *child, error) {
	if err := os.MkdirAll(m.DBPath, 0o755); err != nil {
		return 0, nil, fmt.Errorf("member %s: %w", m.Name, err)
	}
	logf, err := os.OpenFile(m.LogPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, nil, fmt.Errorf("member %s: %w", m.Name, err)
	}
	defer logf.Close()
	cmd := exec.Command(st.Mongod, mongodArgs(st, m)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own process group: a Ctrl-C on the starter's terminal does not reach the members.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if dieWithParent {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		err = startOnLockedThread(cmd)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		return 0, nil, fmt.Errorf("member %s: start %s: %w", m.Name, st.Mongod, err)
	}
	ch := &child{done: make(chan struct{})}
	go func() {
		ch.err = cmd.Wait()
		close(ch.done)
	}()
	pid := cmd.Process.Pid
	for _, cg := range m.cgroups() {
		if err := cgroupAdd(cg, pid); err != nil {
			_ = cmd.Process.Kill()
			<-ch.done
			return 0, nil, fmt.Errorf("member %s: %w", m.Name, err)
		}
	}
	return pid, ch, nil
}

// procState returns the state letter of /proc/pid/stat ('R', 'S', 'Z', ...) or 0 if there is no such process.
func procState(pid int) byte {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

func procCmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// cmdlineIsMember reports whether args are those of a mongod serving dbPath.
func cmdlineIsMember(args []string, dbPath string) bool {
	if len(args) == 0 || !strings.Contains(filepath.Base(args[0]), "mongod") {
		return false
	}
	for i, a := range args {
		if a == "--dbpath" && i+1 < len(args) && args[i+1] == dbPath || a == "--dbpath="+dbPath {
			return true
		}
	}
	return false
}

// isMemberProcess reports whether pid is a live (not zombie) mongod serving dbPath. It is the
// pid-reuse guard checked before any signal is sent.
func isMemberProcess(pid int, dbPath string) bool {
	switch procState(pid) {
	case 0, 'Z', 'X':
		return false
	}
	return cmdlineIsMember(procCmdline(pid), dbPath)
}

// exists reports whether pid has not finished exiting: it is not a zombie and is either still our
// mongod or has already dropped its cmdline on the way out.
func exists(pid int, dbPath string) bool {
	switch procState(pid) {
	case 0, 'Z', 'X':
		return false
	}
	args := procCmdline(pid)
	return args == nil || cmdlineIsMember(args, dbPath)
}

// waitGone polls until pid has exited or ctx is done; it reports whether it exited.
func waitGone(ctx context.Context, pid int, dbPath string, ch *child) bool {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for exists(pid, dbPath) {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	if ch != nil { // our own child: wait for the reaper so /proc/pid is gone too
		select {
		case <-ch.done:
		case <-time.After(2 * time.Second):
		}
	}
	return true
}

// logTail returns the last n lines of the log at path, for error messages.
func logTail(path string, n int) string {
	b, err := readTail(path, 64<<10)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	return lastLines(b, n)
}

// readTail returns up to the last max bytes of the file at path.
func readTail(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		if _, err := f.Seek(fi.Size()-max, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(f)
}
