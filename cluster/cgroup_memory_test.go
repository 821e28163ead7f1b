package cluster

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const mib600 = 600 << 20

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestMemCgroup creates a capped memory cgroup, reads the cap back, changes and lifts it, in both
// hierarchies; the files the kernel reads are the ones checked.
func TestMemCgroup(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		dir       string // the cgroup's dir under the root
		limitFile string
		lifted    string // what the limit file holds without a cap
	}{
		{"v1", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712"}, "memory/decongestant-1-n1", "memory.limit_in_bytes", "-1"},
		{"v2", map[string]string{"cgroup.controllers": "cpuset cpu io memory", "cgroup.subtree_control": ""}, "decongestant-1-n1", "memory.max", "max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fakeRoot(t, tt.files)
			path, err := memCgroupCreate("decongestant-1-n1", mib600, "")
			if err != nil {
				t.Fatal(err)
			}
			if path != filepath.Join(root, tt.dir) {
				t.Fatalf("path %s, want %s", path, filepath.Join(root, tt.dir))
			}
			if got := readFile(t, filepath.Join(path, tt.limitFile)); got != "629145600" {
				t.Fatalf("%s %q, want 629145600", tt.limitFile, got)
			}
			if tt.name == "v1" {
				if got := readFile(t, filepath.Join(path, "memory.swappiness")); got != "0" {
					t.Errorf("memory.swappiness %q, want 0", got)
				}
			} else if got := readFile(t, filepath.Join(root, "cgroup.subtree_control")); !strings.Contains(got, "+memory") {
				t.Errorf("memory controller not enabled for children: subtree_control %q", got)
			}
			for _, want := range []int64{mib600, 800 << 20, 0, 1 << 30} {
				if want != mib600 {
					if err := memSetLimit(path, want); err != nil {
						t.Fatalf("set %d: %v", want, err)
					}
				}
				if got, err := memLimit(path); err != nil || got != want {
					t.Errorf("after setting %d: read back %d, %v", want, got, err)
				}
				if want == 0 {
					if got := readFile(t, filepath.Join(path, tt.limitFile)); got != tt.lifted {
						t.Errorf("lifted: %s %q, want %q", tt.limitFile, got, tt.lifted)
					}
				}
			}
		})
	}
}

// TestMemCgroupV2SharesTheCPUCgroup: a process is in one v2 cgroup only, so a member's memory cap
// goes into the dir of its CPU cap, wherever that is.
func TestMemCgroupV2SharesTheCPUCgroup(t *testing.T) {
	root := fakeRoot(t, map[string]string{
		"cgroup.controllers": "cpu memory", "cgroup.subtree_control": "",
		"sub/cgroup.controllers": "cpu memory", "sub/cgroup.subtree_control": "",
	})
	cpu, err := cgroupCreate("decongestant-1-n2", 0.35, "")
	if err != nil {
		t.Fatal(err)
	}
	// A CPU cgroup elsewhere than memCgroupCreate would choose by itself.
	moved := filepath.Join(root, "sub", "decongestant-1-n2")
	if err := os.Rename(cpu, moved); err != nil {
		t.Fatal(err)
	}
	mem, err := memCgroupCreate("decongestant-1-n2", mib600, moved)
	if err != nil {
		t.Fatal(err)
	}
	if mem != moved {
		t.Fatalf("memory cgroup %s, want the CPU cgroup %s", mem, moved)
	}
	if got := readFile(t, filepath.Join(mem, "cpu.max")); got != "35000 100000" {
		t.Errorf("cpu.max %q after the memory cap, want the CPU cap kept", got)
	}
	if got, err := memLimit(mem); err != nil || got != mib600 {
		t.Errorf("memory cap %d, %v; want %d", got, err, mib600)
	}
}

func TestMemCgroupUnavailable(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		say   []string
	}{
		{"not mounted", map[string]string{"unrelated": ""},
			[]string{"memory/memory.limit_in_bytes (v1) exists", "mount -t cgroup -o memory"}},
		{"v1 with the cpu controller only", map[string]string{"cpu/cpu.cfs_quota_us": "-1"},
			[]string{"memory/memory.limit_in_bytes (v1) exists"}},
		{"v2 without the memory controller", map[string]string{"cgroup.controllers": "cpu pids", "cgroup.subtree_control": ""},
			[]string{"memory controller not available"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeRoot(t, tt.files)
			_, err := memCgroupCreate("decongestant-1-n3", mib600, "")
			if !errors.Is(err, ErrCgroupUnavailable) {
				t.Fatalf("err %v, want ErrCgroupUnavailable", err)
			}
			for _, want := range append(tt.say, "memory cgroup unavailable", "--memory 0") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q should say %q", err, want)
				}
			}
		})
	}
}

func TestMemUsage(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"v1", map[string]string{"memory.usage_in_bytes": "300000000", "memory.limit_in_bytes": "629145600",
			"memory.stat": "cache 100000000\nrss 200000000\ntotal_cache 100000000\n"}},
		{"v2", map[string]string{"memory.current": "300000000", "memory.max": "629145600",
			"memory.stat": "anon 200000000\nfile 100000000\nkernel 1000\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fakeRoot(t, tt.files)
			c := &Cluster{st: state{Members: []Member{
				{Name: "n1", PID: -1, MemCgroup: dir, MemoryCap: mib600},
				{Name: "n2", PID: -1}, // uncapped, not running
			}}}
			got, err := c.MemoryUsage("n1")
			if want := (MemoryUsage{Usage: 300000000, Cache: 100000000, Limit: mib600}); err != nil || got != want {
				t.Errorf("n1: %+v, %v; want %+v", got, err, want)
			}
			if got, err := c.MemoryUsage("n2"); err != nil || got != (MemoryUsage{}) {
				t.Errorf("uncapped n2: %+v, %v; want all zero", got, err)
			}
			if _, err := c.MemoryUsage("n9"); err == nil {
				t.Error("MemoryUsage of an unknown member succeeded")
			}
		})
	}
}

func TestProcRSS(t *testing.T) {
	rss, err := procRSS(os.Getpid())
	if err != nil || rss < 1<<20 {
		t.Fatalf("procRSS(self) = %d, %v; want at least a MiB", rss, err)
	}
	if _, err := procRSS(-1); err == nil {
		t.Error("procRSS(-1) succeeded")
	}
}

// TestStartWithoutMemoryController: a memory cap without the memory controller fails Start before
// any mongod runs (the fake one leaves a file when it starts), naming what is missing, and leaves
// no dir behind.
func TestStartWithoutMemoryController(t *testing.T) {
	fakeRoot(t, map[string]string{"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"})
	bin := t.TempDir()
	marker := filepath.Join(bin, "started")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'db version v6.0.5'; exit 0; fi\ntouch " + marker + "\nexit 3\n"
	if err := os.WriteFile(filepath.Join(bin, "mongod"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "rs")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Start(ctx, Config{Dir: dir, Members: 2, Memory: mib600, Mongod: filepath.Join(bin, "mongod")})
	if !errors.Is(err, ErrCgroupUnavailable) {
		t.Fatalf("start: %v, want ErrCgroupUnavailable", err)
	}
	for _, want := range []string{"member n1: memory cgroup unavailable", "memory/memory.limit_in_bytes", "--memory 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a mongod was started (%v)", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dir after failed start: %v, want removed", err)
	}
}
