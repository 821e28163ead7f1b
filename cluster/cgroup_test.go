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
	path, err := cgroupCreate("decongestant-1-n1", 0.35)
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
	path, err := cgroupCreate("decongestant-1-n2", 0.2)
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
			_, err := cgroupCreate("decongestant-1-n3", 0.35)
			if !errors.Is(err, ErrCgroupUnavailable) {
				t.Fatalf("err %v, want ErrCgroupUnavailable", err)
			}
			if !strings.Contains(err.Error(), tt.say) || !strings.Contains(err.Error(), "--cpu 0") {
				t.Fatalf("error %q should say %q and how to run without caps", err, tt.say)
			}
		})
	}
}
