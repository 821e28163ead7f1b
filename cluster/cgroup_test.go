package cluster

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRoot points cgroupRoot at a temporary tree with the given files.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := cgroupRoot
	cgroupRoot = root
	t.Cleanup(func() { cgroupRoot = old })
	return root
}

func TestCgroupV2(t *testing.T) {
	root := fakeRoot(t, map[string]string{"cgroup.controllers": "cpuset cpu io memory", "cgroup.subtree_control": ""})
	path, err := cgroupCreate("decongestant-1-n1", 0.35, "")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(root, "decongestant-1-n1") {
		t.Fatalf("path %s", path)
	}
	if b, _ := os.ReadFile(filepath.Join(path, "cpu.max")); string(b) != "35000 100000" {
		t.Fatalf("cpu.max %q, want \"35000 100000\"", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "cgroup.subtree_control")); !strings.Contains(string(b), "+cpu") {
		t.Fatalf("cpu controller not enabled for children: subtree_control %q", b)
	}
	if cpu, err := cgroupCPU(path); err != nil || cpu != 0.35 {
		t.Fatalf("read back %v, %v", cpu, err)
	}
}

func TestCgroupV1(t *testing.T) {
	root := fakeRoot(t, map[string]string{"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"})
	path, err := cgroupCreate("decongestant-1-n2", 0.2, "")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(root, "cpu", "decongestant-1-n2") {
		t.Fatalf("path %s", path)
	}
	if cpu, err := cgroupCPU(path); err != nil || cpu != 0.2 {
		t.Fatalf("read back %v, %v", cpu, err)
	}
}

func TestCgroupUnavailable(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		say   string
	}{
		{"no hierarchy", map[string]string{"unrelated": ""}, "neither"},
		{"v2 without the cpu controller", map[string]string{"cgroup.controllers": "memory pids", "cgroup.subtree_control": ""}, "cpu controller not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeRoot(t, tt.files)
			_, err := cgroupCreate("decongestant-1-n3", 0.35, "")
			if !errors.Is(err, ErrCgroupUnavailable) {
				t.Fatalf("err %v, want ErrCgroupUnavailable", err)
			}
			if !strings.Contains(err.Error(), tt.say) || !strings.Contains(err.Error(), "--cpu 0") {
				t.Fatalf("error %q should say %q and how to run without caps", err, tt.say)
			}
		})
	}
}

// TestCgroupSetCPU changes an existing cgroup's cap and lifts it, in both hierarchies.
func TestCgroupSetCPU(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"v1", map[string]string{"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}},
		{"v2", map[string]string{"cgroup.controllers": "cpu", "cgroup.subtree_control": "cpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeRoot(t, tt.files)
			path, err := cgroupCreate("decongestant-1-n3", 0.35, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []float64{0.15, 0, 1.5} {
				if err := cgroupSetCPU(path, want); err != nil {
					t.Fatalf("set %v: %v", want, err)
				}
				if got, err := cgroupCPU(path); err != nil || got != want {
					t.Errorf("after setting %v: read back %v, %v", want, got, err)
				}
			}
		})
	}
}

// TestCreateCgroupsPerMember gives a cpu cgroup to each CPU-capped member and a memory cgroup to
// each memory-capped one, and none to the others.
func TestCreateCgroupsPerMember(t *testing.T) {
	fakeRoot(t, map[string]string{"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000", "memory/memory.limit_in_bytes": "-1"})
	c := &Cluster{st: state{Members: plannedMembers(t.TempDir(), []int{1, 2, 3})}}
	caps := []float64{0.35, 0, 0.15}
	mems := []int64{0, 600 << 20, 1 << 30}
	if err := c.createCgroups(caps, mems, DiskCap{}); err != nil {
		t.Fatal(err)
	}
	for i, m := range c.st.Members {
		if m.CPUCap != caps[i] || (m.Cgroup == "") != (caps[i] == 0) {
			t.Errorf("member %s: cap %v cgroup %q; want cap %v and a cgroup only if capped", m.Name, m.CPUCap, m.Cgroup, caps[i])
		}
		if m.MemoryCap != mems[i] || (m.MemCgroup == "") != (mems[i] == 0) {
			t.Errorf("member %s: memory cap %v cgroup %q; want cap %v and a cgroup only if capped", m.Name, m.MemoryCap, m.MemCgroup, mems[i])
		}
		if m.Cgroup != "" {
			if got, err := cgroupCPU(m.Cgroup); err != nil || got != caps[i] {
				t.Errorf("member %s: quota reads back %v, %v", m.Name, got, err)
			}
		}
		if m.MemCgroup != "" {
			if got, err := memLimit(m.MemCgroup); err != nil || got != mems[i] {
				t.Errorf("member %s: memory limit reads back %v, %v", m.Name, got, err)
			}
		}
	}
}
