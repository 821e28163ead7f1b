package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// KillMongodsUnder registers a cleanup that SIGKILLs every mongod whose command line names a path
// under dir: the safety net of a test that lets a command start members it does not own (a kept
// demo cluster), so a failing test leaves none running. It reads /proc; elsewhere it does nothing.
func KillMongodsUnder(tb testing.TB, dir string) {
	tb.Helper()
	tb.Cleanup(func() {
		for _, pid := range MongodsUnder(dir) {
			tb.Logf("killing mongod %d left under %s", pid, dir)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// MongodsUnder returns the pids of the running mongods whose command line names a path under dir.
func MongodsUnder(dir string) []int {
	dir = filepath.Clean(dir) + string(filepath.Separator)
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if filepath.Base(args[0]) != "mongod" || !strings.Contains(string(cmd), dir) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && zombie(stat) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// zombie reports whether a /proc/PID/stat line is a process that has exited (state Z or X).
func zombie(stat []byte) bool {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}
