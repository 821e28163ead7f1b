package cluster

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestParseDisk(t *testing.T) {
	for in, want := range map[string]DiskCap{
		"": {}, "none": {}, "0": {}, "hdd": HDD, "HDD": HDD,
		"iops=200": {IOPS: 200}, "mbps=80": {MBps: 80}, "iops=100, mbps=50": {IOPS: 100, MBps: 50},
	} {
		got, err := ParseDisk(in)
		if err != nil || got != want {
			t.Errorf("ParseDisk(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"ssd", "iops", "iops=-1", "iops=1.5", "rbps=3", "iops=1,"} {
		if _, err := ParseDisk(bad); err == nil {
			t.Errorf("ParseDisk(%q): no error", bad)
		}
	}
	if s := HDD.String(); s != "150 IOPS, 150 MB/s" {
		t.Errorf("HDD is %q", s)
	}
}

func TestIOCgroupV1(t *testing.T) {
	root := fakeRoot(t, map[string]string{"blkio/blkio.throttle.read_iops_device": ""})
	path, err := ioCgroupCreate("decongestant-1-n1", "254:0", DiskCap{IOPS: 150, MBps: 120}, "")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(root, "blkio", "decongestant-1-n1") {
		t.Fatalf("path %s", path)
	}
	for file, want := range map[string]string{
		"blkio.throttle.read_iops_device": "254:0 150", "blkio.throttle.write_iops_device": "254:0 150",
		"blkio.throttle.read_bps_device": "254:0 120000000", "blkio.throttle.write_bps_device": "254:0 120000000",
	} {
		if b, err := os.ReadFile(filepath.Join(path, file)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", file, b, err, want)
		}
	}
}

func TestIOCgroupV2SharesTheMembersCgroup(t *testing.T) {
	root := fakeRoot(t, map[string]string{"cgroup.controllers": "cpu io memory", "cgroup.subtree_control": "cpu memory"})
	near := filepath.Join(root, "decongestant-1-n1")
	if err := os.Mkdir(near, 0o755); err != nil {
		t.Fatal(err)
	}
	path, err := ioCgroupCreate("decongestant-1-n1", "8:0", DiskCap{IOPS: 150}, near)
	if err != nil {
		t.Fatal(err)
	}
	if path != near {
		t.Errorf("io cgroup %s, want the member's cgroup %s (a process is in one v2 cgroup)", path, near)
	}
	if b, _ := os.ReadFile(filepath.Join(path, "io.max")); string(b) != "8:0 riops=150 wiops=150 rbps=max wbps=max" {
		t.Errorf("io.max = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "cgroup.subtree_control")); !strings.Contains(string(b), "+io") {
		t.Errorf("the io controller was not enabled for the children: %q", b)
	}
}

func TestIOCgroupUnavailable(t *testing.T) {
	fakeRoot(t, map[string]string{"cpu/cpu.cfs_quota_us": "-1"})
	_, err := ioCgroupCreate("decongestant-1-n1", "8:0", HDD, "")
	if err == nil || !strings.Contains(err.Error(), "blkio.throttle.read_iops_device") || !strings.Contains(err.Error(), "without --disk") {
		t.Errorf("error %v", err)
	}
}

// fakeSysBlock points sysBlock at a tree with the disk 254:0 (vda) and its
// partition 254:1 (vda1).
func fakeSysBlock(t *testing.T) {
	t.Helper()
	root := t.TempDir()
	vda := filepath.Join(root, "devices", "virtual", "block", "vda")
	vda1 := filepath.Join(vda, "vda1")
	for dir, files := range map[string]map[string]string{vda: {"dev": "254:0\n"}, vda1: {"dev": "254:1\n", "partition": "1\n"}} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, c := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	links := filepath.Join(root, "dev", "block")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	for id, target := range map[string]string{"254:0": vda, "254:1": vda1} {
		if err := os.Symlink(target, filepath.Join(links, id)); err != nil {
			t.Fatal(err)
		}
	}
	old := sysBlock
	sysBlock = links
	t.Cleanup(func() { sysBlock = old })
}

func TestWholeDisk(t *testing.T) {
	fakeSysBlock(t)
	for id, want := range map[string]string{"254:0": "254:0", "254:1": "254:0"} {
		if got, err := wholeDisk(id, "/data"); err != nil || got != want {
			t.Errorf("wholeDisk(%s) = %q, %v; want %s", id, got, err, want)
		}
	}
	if _, err := wholeDisk("0:45", "/data"); !errors.Is(err, ErrNotBlockDevice) {
		t.Errorf("an overlay's device: %v", err)
	}
	id, err := devID(t.TempDir())
	if err != nil || !regexp.MustCompile(`^\d+:\d+$`).MatchString(id) {
		t.Errorf("devID of a temp dir: %q, %v", id, err)
	}
}

// TestCreateCgroupsDisk: a disk cap gives every member an I/O cgroup on the
// disk holding the cluster's directory, kept in the state and joined with
// its other cgroups.
func TestCreateCgroupsDisk(t *testing.T) {
	root := fakeRoot(t, map[string]string{"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000",
		"blkio/blkio.throttle.read_iops_device": ""})
	dir := t.TempDir()
	id, err := devID(dir)
	if err != nil {
		t.Fatal(err)
	}
	links := t.TempDir() // the temp dir's device as a whole disk
	if err := os.MkdirAll(filepath.Join(links, id), 0o755); err != nil {
		t.Fatal(err)
	}
	old := sysBlock
	sysBlock = links
	t.Cleanup(func() { sysBlock = old })
	c := &Cluster{dir: dir}
	c.st.Members = plannedMembers(dir, []int{27017, 27018})
	if err := c.createCgroups([]float64{0.35, 0}, []int64{0, 0}, HDD); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.st.Members {
		if m.Disk != id || m.DiskCap != HDD || m.IOCgroup != filepath.Join(root, "blkio", cgroupName(m.Port, m.Name)) {
			t.Errorf("member %s: disk %q cap %+v cgroup %q", m.Name, m.Disk, m.DiskCap, m.IOCgroup)
		}
		if want := 1 + map[bool]int{true: 1}[m.Cgroup != ""]; len(m.cgroups()) != want {
			t.Errorf("member %s joins %v, want %d cgroups", m.Name, m.cgroups(), want)
		}
	}
}
