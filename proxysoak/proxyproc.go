package proxysoak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proxyProc is the proxy under soak, a process of its own so that its RSS
// and heap are its alone.
type proxyProc struct {
	cmd     *exec.Cmd
	addr    string // where clients connect
	metrics string // host:port of its metrics and profiles
	done    chan error
	log     *lockedFile
}

var (
	listeningLine = regexp.MustCompile(`^decongestant proxy: (\S+) ->`)
	metricsLine   = regexp.MustCompile(`^metrics: serving http://(\S+)/metrics`)
)

// startProxy starts command with the soak's flags, its output in log, and
// waits until it says where it listens and serves metrics.
func startProxy(ctx context.Context, command, extra []string, uri, users string, bound time.Duration, log *lockedFile) (*proxyProc, error) {
	args := append(append([]string(nil), command[1:]...),
		"--uri", uri, "--listen", "127.0.0.1:0", "--users", users, "--policy", "spillway",
		"--max-staleness", bound.String(), "--metrics-addr", "127.0.0.1:0", "--pprof")
	args = append(args, extra...)
	cmd := exec.Command(command[0], args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start the proxy: %w", err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("start the proxy: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the proxy %s: %w", command[0], err)
	}
	p := &proxyProc{cmd: cmd, done: make(chan error, 1), log: log}
	found := make(chan [2]string, 4)
	var wg sync.WaitGroup
	scan := func(r io.Reader) {
		defer wg.Done()
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			log.WriteString(line + "\n")
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				found <- [2]string{"addr", m[1]}
			}
			if m := metricsLine.FindStringSubmatch(line); m != nil {
				found <- [2]string{"metrics", m[1]}
			}
		}
	}
	wg.Add(2)
	go scan(stdout)
	go scan(stderr)
	go func() { wg.Wait(); p.done <- cmd.Wait() }()
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	for p.addr == "" || p.metrics == "" {
		select {
		case f := <-found:
			if f[0] == "addr" {
				p.addr = f[1]
			} else {
				p.metrics = f[1]
			}
		case err := <-p.done:
			p.done <- err
			return nil, fmt.Errorf("the proxy exited before it listened (%v); its output: %s", err, log.tail())
		case <-timeout.C:
			p.stop()
			return nil, fmt.Errorf("the proxy did not listen within a minute; its output: %s", log.tail())
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		}
	}
	return p, nil
}

// pid is the proxy's process id.
func (p *proxyProc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the proxy has exited, and how.
func (p *proxyProc) exited() (bool, error) {
	select {
	case err := <-p.done:
		p.done <- err
		return true, err
	default:
		return false, nil
	}
}

// stop interrupts the proxy and waits for it (killing it after 20s).
func (p *proxyProc) stop() error {
	if gone, err := p.exited(); gone {
		return fmt.Errorf("the proxy had exited: %v", err)
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 130 {
			return nil // exit status after Ctrl-C
		}
		return err
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		return errors.New("the proxy did not stop within 20s of an interrupt: killed")
	}
}

// lockedFile is a log file written from several goroutines that remembers
// its last lines.
type lockedFile struct {
	mu   sync.Mutex
	f    *os.File
	last []string
}

func (l *lockedFile) WriteString(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.WriteString(s)
	}
	l.last = append(l.last, strings.TrimRight(s, "\n"))
	if len(l.last) > 20 {
		l.last = l.last[len(l.last)-20:]
	}
}

func (l *lockedFile) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.last, "\n")
}
