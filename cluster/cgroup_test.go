package cluster

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// v2Tree is a made-up unified hierarchy whose root offers every
// controller, this process in the cgroup scope offering controllers, and
// v2Kernel's refusals; it returns the root and the scope's directory.
func v2Tree(t *testing.T, scope, controllers string, rootWritable bool) (root, own string) {
	t.Helper()
	root = fakeRoot(t, map[string]string{
		"cgroup.controllers": "cpuset cpu io memory", "cgroup.subtree_control": "",
		scope + "/cgroup.controllers": controllers, scope + "/cgroup.subtree_control": "",
	})
	own = filepath.Join(root, scope)
	v2Kernel(t, root, own, rootWritable)
	return root, own
}

// v2Kernel makes the made-up tree refuse what the kernel would: the root's
// cgroup.subtree_control to a non-root user (EACCES, unless rootWritable),
// and a cgroup's while this process is in it (EBUSY: no internal
// processes), and says this process is in own (or, once moved, own's
// leaf).
func v2Kernel(t *testing.T, root, own string, rootWritable bool) {
	t.Helper()
	oldWrite, oldOwn := writeSubtreeControl, ownCgroupV2
	t.Cleanup(func() { writeSubtreeControl, ownCgroupV2 = oldWrite, oldOwn })
	moved := func() bool {
		b, err := os.ReadFile(filepath.Join(own, selfLeaf, "cgroup.procs"))
		return err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid())
	}
	writeSubtreeControl = func(path, change string) error {
		switch dir := filepath.Dir(path); {
		case dir == root && !rootWritable:
			return &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}
		case dir == own && !moved():
			return &fs.PathError{Op: "write", Path: path, Err: syscall.EBUSY}
		}
		return oldWrite(path, change)
	}
	ownCgroupV2 = func() (string, error) {
		if moved() {
			return filepath.Join(own, selfLeaf), nil
		}
		return own, nil
	}
}

func TestCgroupV2DelegatedMovesIntoALeaf(t *testing.T) {
	_, own := v2Tree(t, "user.slice/user@1000.service/app.slice/run-1.scope", "cpu memory pids", false)
	for _, name := range []string{"decongestant-1-n1", "decongestant-1-n2"} {
		path, err := cgroupCreate(name, 0.35, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := filepath.Join(own, name); path != want {
			t.Fatalf("%s made at %s, want %s (beside this process's leaf)", name, path, want)
		}
		if b, _ := os.ReadFile(filepath.Join(path, "cpu.max")); string(b) != "35000 100000" {
			t.Fatalf("cpu.max %q", b)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(own, selfLeaf, "cgroup.procs")); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Fatalf("this process not in its leaf: cgroup.procs %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(own, "cgroup.subtree_control")); !strings.Contains(string(b), "+cpu") {
		t.Fatalf("cpu not enabled for the delegated cgroup's children: %q", b)
	}
}

func TestCgroupV2RootNeverMoves(t *testing.T) {
	root, own := v2Tree(t, "user.slice/user-0.slice/session-1.scope", "cpu memory pids", true)
	path, err := cgroupCreate("decongestant-1-n1", 0.35, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "decongestant-1-n1"); path != want {
		t.Fatalf("made at %s, want %s", path, want)
	}
	if _, err := os.Stat(filepath.Join(own, selfLeaf)); err == nil {
		t.Fatal("root moved itself into a leaf of its session's cgroup")
	}
}

func TestCgroupV2UndelegatedSaysSo(t *testing.T) {
	_, own := v2Tree(t, "user.slice/user-1000.slice/session-2.scope", "memory pids", false)
	_, err := cgroupCreate("decongestant-1-n1", 0.35, "")
	if !errors.Is(err, ErrCgroupUnavailable) || !strings.Contains(err.Error(), "cpu controller not available") {
		t.Fatalf("err %v, want ErrCgroupUnavailable naming the missing cpu controller", err)
	}
	if _, err := os.Stat(filepath.Join(own, selfLeaf)); err == nil {
		t.Fatal("moved into a leaf of a cgroup that offers no cpu controller")
	}
}
