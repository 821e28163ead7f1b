package proxysoak

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

//go:embed testdata/soak_client.py
var pyScript []byte

// pyPerProcess is the most threads (connections) one pymongo process runs.
const pyPerProcess = 100

// pyClients runs n pymongo connections to the proxy for the run's
// duration, in processes of pyPerProcess threads (testdata/soak_client.py),
// and records what they report when they exit.
func pyClients(ctx context.Context, o *Options, uriFile, dir string, n int, rec *recorder) error {
	script := filepath.Join(dir, "soak_client.py")
	if err := os.WriteFile(script, pyScript, 0o600); err != nil {
		return fmt.Errorf("pymongo clients: %w", err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for p, first := 0, 0; first < n; p, first = p+1, first+pyPerProcess {
		threads := min(pyPerProcess, n-first)
		out := filepath.Join(dir, fmt.Sprintf("pymongo-%d.tsv", p))
		cmd := exec.Command(o.Python, script, uriFile, strconv.Itoa(threads), strconv.FormatFloat(o.Duration.Seconds(), 'f', 3, 64),
			strconv.FormatFloat(o.OpInterval.Seconds(), 'f', 3, 64), strconv.Itoa(o.TxnEvery), strconv.FormatFloat(o.ReadShare, 'f', 3, 64),
			fmt.Sprintf("p%d", p), out)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("pymongo clients: start %s: %w", o.Python, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := context.AfterFunc(ctx, func() {
				if errors.Is(ctx.Err(), context.Canceled) { // interrupted
					_ = cmd.Process.Kill()
					return
				}
				// Past the duration they stop themselves; give them two
				// minutes to finish the operations under way.
				time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
			})
			defer stop()
			err := cmd.Wait()
			if err == nil {
				err = readPyRecords(out, rec)
			} else {
				err = fmt.Errorf("pymongo process %d: %w: %s", p, err, lastLines(stderr.String(), 5))
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readPyRecords records the operations of a pymongo process's file: start,
// ms, op, error kind, id, tab-separated.
func readPyRecords(path string, rec *recorder) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("pymongo records: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 5 {
			return fmt.Errorf("pymongo records %s:%d: %d fields, want 5", path, line, len(fs))
		}
		start, err1 := strconv.ParseFloat(fs[0], 64)
		ms, err2 := strconv.ParseFloat(fs[1], 64)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("pymongo records %s:%d: %w", path, line, err)
		}
		began := time.Unix(0, int64(start*1e9))
		kind := fs[3]
		if kind != "" {
			kind = "pymongo " + kind
		}
		rec.add(began, time.Duration(ms*float64(time.Millisecond)), fs[2], kind, fs[4])
	}
	return sc.Err()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// checkPymongo checks that python imports pymongo, before the soak starts.
func checkPymongo(ctx context.Context, python string) error {
	out, err := exec.CommandContext(ctx, python, "-c", "import pymongo").CombinedOutput()
	if err != nil {
		return fmt.Errorf("the pymongo clients need %s with pymongo (python3 -m pip install --user pymongo==4.10.1), or a python share of 0: %w: %s",
			python, err, lastLines(string(out), 2))
	}
	return nil
}
