package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// proxyProc is a `decongestant proxy` this program started: its own
// process, so its CPU and memory are its own.
type proxyProc struct {
	cmd     *exec.Cmd
	Network string // tcp or unix
	Addr    string // where clients connect: host:port, or the socket's path
	metrics string // its --metrics-addr, with /debug/pprof
	dir     string
	stderr  *os.File
}

// startProxy starts bin's proxy in front of uri (passed in a 0600 file,
// not on the command line), listening on a free loopback port (network
// tcp) or a Unix socket in its directory (unix), with extra flags (and
// GOMAXPROCS=procs in its environment when procs > 0), and returns once
// its /readyz says it is ready.
func startProxy(ctx context.Context, bin, uri, network string, procs int, extra []string) (*proxyProc, error) {
	dir, err := os.MkdirTemp("", "proxyload-")
	if err != nil {
		return nil, err
	}
	p := &proxyProc{dir: dir, Network: network}
	fail := func(err error) (*proxyProc, error) {
		p.stop()
		return nil, err
	}
	uriFile := filepath.Join(dir, "uri")
	if err := os.WriteFile(uriFile, []byte(uri+"\n"), 0o600); err != nil {
		return fail(err)
	}
	mport, err := freePort()
	if err != nil {
		return fail(err)
	}
	p.metrics = fmt.Sprintf("127.0.0.1:%d", mport)
	listen := ""
	switch network {
	case "tcp":
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		p.Addr = fmt.Sprintf("127.0.0.1:%d", port)
		listen = p.Addr
	case "unix":
		p.Addr = filepath.Join(dir, "proxy.sock")
		listen = "unix:" + p.Addr
	default:
		return fail(fmt.Errorf("proxy network %q: want tcp or unix", network))
	}
	args := append([]string{"proxy", "--uri-file", uriFile, "--listen", listen, "--metrics-addr", p.metrics, "--pprof",
		"--max-connections", "0"}, extra...)
	if p.stderr, err = os.Create(filepath.Join(dir, "proxy.log")); err != nil {
		return fail(err)
	}
	p.cmd = exec.Command(bin, args...)
	if procs > 0 {
		p.cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	p.cmd.Stdout, p.cmd.Stderr = p.stderr, p.stderr
	if err := p.cmd.Start(); err != nil {
		return fail(fmt.Errorf("start %s: %w", bin, err))
	}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := http.Get("http://" + p.metrics + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			log, _ := os.ReadFile(p.stderr.Name())
			return fail(fmt.Errorf("the proxy was not ready within a minute: %s", log))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// profile saves the proxy's CPU profile over the next d into path.
func (p *proxyProc) profile(d time.Duration, path string) error {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.metrics, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the proxy's profile: %s", resp.Status)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, resp.Body)
		return err
	})
}

// runtimeMemory forces a garbage collection in the proxy (its heap
// profile's gc=1) and returns its Go heap and stacks in use, in bytes,
// from its /metrics.
func (p *proxyProc) runtimeMemory() (int64, error) {
	resp, err := http.Get("http://" + p.metrics + "/debug/pprof/heap?gc=1")
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp, err = http.Get("http://" + p.metrics + "/metrics"); err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, name := range []string{"go_memstats_heap_inuse_bytes", "go_memstats_stack_inuse_bytes"} {
		v, ok := gauge(string(b), name)
		if !ok {
			return 0, fmt.Errorf("the proxy's /metrics has no %s", name)
		}
		total += int64(v)
	}
	return total, nil
}

// memberReads is the proxy's routed reads so far, by member, from its
// /metrics (decongestant_member_reads_total), and the member it takes for
// the primary (decongestant_member_info; "" when none).
func (p *proxyProc) memberReads() (map[string]float64, string, error) {
	resp, err := http.Get("http://" + p.metrics + "/metrics")
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	return labelled(string(b), "decongestant_member_reads_total", "member"), primaryIn(string(b)), nil
}

// primaryIn is the member label of the decongestant_member_info series
// whose role is primary in a Prometheus text page ("" when none).
func primaryIn(page string) string {
	for line := range strings.Lines(page) {
		labels, ok := strings.CutPrefix(line, "decongestant_member_info{")
		if !ok || !strings.Contains(labels, `role="primary"`) {
			continue
		}
		if _, rest, ok := strings.Cut(labels, `member="`); ok {
			if member, _, ok := strings.Cut(rest, `"`); ok {
				return member
			}
		}
	}
	return ""
}

// labelled reads the values of a series with one label from a Prometheus
// text page, by the label's value.
func labelled(page, name, label string) map[string]float64 {
	out := map[string]float64{}
	prefix := name + "{" + label + "=\""
	for line := range strings.Lines(page) {
		rest, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		value, num, ok := strings.Cut(rest, "\"} ")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
			out[value] = f
		}
	}
	return out
}

// gauge reads an unlabelled series' value from a Prometheus text page.
func gauge(page, name string) (float64, bool) {
	for line := range strings.Lines(page) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// URI is the connection string a driver reaches the proxy with: a Unix
// socket's path goes percent-encoded in the host part.
func (p *proxyProc) URI() string {
	if p.Network == "unix" {
		return "mongodb://" + strings.ReplaceAll(p.Addr, "/", "%2F") + "/"
	}
	return "mongodb://" + p.Addr + "/"
}

// PID is the proxy's process id.
func (p *proxyProc) PID() int { return p.cmd.Process.Pid }

// stop ends the proxy (SIGTERM, then SIGKILL after 10 s) and removes its
// directory.
func (p *proxyProc) stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	}
	if p.stderr != nil {
		p.stderr.Close()
	}
	_ = os.RemoveAll(p.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	if a, ok := l.Addr().(*net.TCPAddr); ok {
		return a.Port, nil
	}
	return 0, errors.New("no TCP port")
}
