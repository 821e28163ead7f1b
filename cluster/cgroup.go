package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is where the cgroup hierarchy is mounted; tests point it at a
// fake tree to exercise the v1, v2 and unavailable cases on any host.
var cgroupRoot = "/sys/fs/cgroup"

const (
	cfsPeriod = 100000 // µs; the quota is cpu*cfsPeriod
)

// cgroupName is the cgroup of a member; the port keeps concurrent clusters apart.
func cgroupName(port int, member string) string {
	return fmt.Sprintf("decongestant-%d-%s", port, member)
}

// cgroupCreate makes a cpu cgroup name capped at cpu cores and returns its path. It uses cgroup v2
// when /sys/fs/cgroup is the unified hierarchy, else the v1 cpu controller. near is the member's
// memory cgroup, if any: with v2 the cap goes into that same dir. Errors wrap ErrCgroupUnavailable
// and say what was tried.
func cgroupCreate(name string, cpu float64, near string) (string, error) {
	quota := int(math.Round(cpu * cfsPeriod))
	var path string
	var err error
	switch {
	case fileExists(filepath.Join(cgroupRoot, "cgroup.controllers")):
		path, err = cgroupV2Create(name, "cpu", near, func(path string) error { return cgroupV2SetQuota(path, quota) })
	case fileExists(filepath.Join(cgroupRoot, "cpu", "cpu.cfs_quota_us")):
		path, err = cgroupV1Create(name, quota)
	default:
		err = fmt.Errorf("neither %s/cgroup.controllers (v2) nor %s/cpu/cpu.cfs_quota_us (v1) exists", cgroupRoot, cgroupRoot)
	}
	if err != nil {
		return "", fmt.Errorf("cpu %w: %w; use --cpu 0 (Config.CPU 0) to run without CPU caps", ErrCgroupUnavailable, err)
	}
	return path, nil
}

func cgroupV1Create(name string, quota int) (string, error) {
	return cgroupMkdir(filepath.Join(cgroupRoot, "cpu", name), func(path string) error { return cgroupV1SetQuota(path, quota) })
}

// cgroupMkdir makes the cgroup dir path (an existing one is fine) and calls set on it; if set fails,
// it removes the dir again unless it existed before.
func cgroupMkdir(path string, set func(path string) error) (string, error) {
	created := true
	if err := os.Mkdir(path, 0o755); errors.Is(err, fs.ErrExist) {
		created = false
	} else if err != nil {
		return "", explainPerm(err)
	}
	if err := set(path); err != nil {
		if created {
			_ = os.Remove(path)
		}
		return "", err
	}
	return path, nil
}

// cgroupV1SetQuota sets the CFS period and quota (µs; -1 = no cap) of the v1 cgroup at path.
func cgroupV1SetQuota(path string, quota int) error {
	for _, kv := range [][2]string{{"cpu.cfs_period_us", strconv.Itoa(cfsPeriod)}, {"cpu.cfs_quota_us", strconv.Itoa(quota)}} {
		if err := os.WriteFile(filepath.Join(path, kv[0]), []byte(kv[1]), 0o644); err != nil {
			return explainPerm(err)
		}
	}
	return nil
}

// cgroupV2SetQuota writes cpu.max of the v2 cgroup at path; quota -1 means no cap ("max").
func cgroupV2SetQuota(path string, quota int) error {
	q := strconv.Itoa(quota)
	if quota < 0 {
		q = "max"
	}
	if err := os.WriteFile(filepath.Join(path, "cpu.max"), []byte(q+" "+strconv.Itoa(cfsPeriod)), 0o644); err != nil {
		return explainPerm(err)
	}
	return nil
}

// cgroupSetCPU changes the cap of the existing cgroup at path to cpu cores; 0 lifts the cap but
// keeps the cgroup (and the processes in it).
func cgroupSetCPU(path string, cpu float64) error {
	quota := -1
	if cpu > 0 {
		quota = int(math.Round(cpu * cfsPeriod))
	}
	if fileExists(filepath.Join(path, "cpu.max")) {
		return cgroupV2SetQuota(path, quota)
	}
	return cgroupV1SetQuota(path, quota)
}

// cgroupV2Create makes the cgroup name with controller enabled and calls set on it. A process is in
// one v2 cgroup only, so a member's caps share one: when near (the member's cgroup for its other
// cap) is set, that is the one. Else it tries a child of this process's own cgroup, then a child of
// the root. A parent must offer the controller and have it (or get it) enabled in
// cgroup.subtree_control.
//
// A cgroup that holds processes cannot enable controllers for its children (cgroup v2's "no
// internal processes" rule: the write fails with EBUSY). That is the case of a non-root user's
// delegated cgroup, such as the scope `systemd-run --user --scope -p Delegate=yes` starts this
// process in: when both parents fail and the own cgroup refused with EBUSY, this process moves
// into a leaf of its own cgroup (selfLeaf) and the members' cgroups are made beside it, as rootless
// container runtimes do. Root finds the root cgroup first and never moves.
func cgroupV2Create(name, controller, near string, set func(path string) error) (string, error) {
	if near != "" {
		return cgroupV2CreateIn(filepath.Dir(near), filepath.Base(near), controller, set)
	}
	own, ownErr := ownCgroupV2()
	if ownErr == nil && filepath.Base(own) == selfLeaf {
		own = filepath.Dir(own) // moved already: the members go beside the leaf
	}
	parents := []string{cgroupRoot}
	if ownErr == nil && own != cgroupRoot {
		parents = []string{own, cgroupRoot}
	}
	var errs []error
	for _, parent := range parents {
		path, err := cgroupV2CreateIn(parent, name, controller, set)
		if err == nil {
			return path, nil
		}
		errs = append(errs, err)
	}
	if ownErr == nil && own != cgroupRoot && errors.Is(errs[0], syscall.EBUSY) {
		if err := enterLeaf(own); err != nil {
			return "", errors.Join(append(errs, err)...)
		}
		path, err := cgroupV2CreateIn(own, name, controller, set)
		if err == nil {
			return path, nil
		}
		errs = append(errs, err)
	}
	return "", errors.Join(errs...)
}

// writeSubtreeControl enables a controller for a cgroup's children (a variable: the tests' made-up
// tree has no kernel to refuse the write).
var writeSubtreeControl = func(path, change string) error {
	return os.WriteFile(path, []byte(change), 0o644)
}

// selfLeaf is the leaf cgroup this process moves into when its own cgroup must give its children
// controllers (cgroupV2Create).
const selfLeaf = "decongestant-self"

// enterLeaf moves this process (all its threads) into own/selfLeaf, made if need be.
func enterLeaf(own string) error {
	leaf := filepath.Join(own, selfLeaf)
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("a leaf cgroup for this process, so that %s may enable controllers for the members: %w", own, explainPerm(err))
	}
	if err := cgroupAdd(leaf, os.Getpid()); err != nil {
		return fmt.Errorf("a leaf cgroup for this process, so that %s may enable controllers for the members: %w", own, err)
	}
	return nil
}

func cgroupV2CreateIn(parent, name, controller string, set func(path string) error) (string, error) {
	controllers, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return "", explainPerm(err)
	}
	if !hasWord(string(controllers), controller) {
		return "", fmt.Errorf("%s: %s controller not available (controllers: %q)", parent, controller, strings.TrimSpace(string(controllers)))
	}
	subtree, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
	if err != nil {
		return "", explainPerm(err)
	}
	if !hasWord(string(subtree), controller) {
		if err := writeSubtreeControl(filepath.Join(parent, "cgroup.subtree_control"), "+"+controller); err != nil {
			return "", explainPerm(err)
		}
	}
	return cgroupMkdir(filepath.Join(parent, name), set)
}

// ownCgroupV2 is the directory of this process's cgroup in the unified hierarchy (a variable: the
// tests put the process in a made-up tree).
var ownCgroupV2 = func() (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			return filepath.Join(cgroupRoot, rest), nil
		}
	}
	return "", errors.New("no cgroup v2 entry in /proc/self/cgroup")
}

// cgroupAdd moves pid into the cgroup at path.
func cgroupAdd(path string, pid int) error {
	if err := os.WriteFile(filepath.Join(path, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("move pid %d into cgroup: %w", pid, explainPerm(err))
	}
	return nil
}

// cgroupCPU reads the cap of the cgroup at path back, in cores.
func cgroupCPU(path string) (float64, error) {
	if b, err := os.ReadFile(filepath.Join(path, "cpu.max")); err == nil {
		var quota, period float64
		if _, err := fmt.Sscanf(string(b), "%g %g", &quota, &period); err != nil || period == 0 {
			return 0, nil // "max 100000": no cap
		}
		return quota / period, nil
	}
	quota, err := readInt(filepath.Join(path, "cpu.cfs_quota_us"))
	if err != nil {
		return 0, err
	}
	period, err := readInt(filepath.Join(path, "cpu.cfs_period_us"))
	if err != nil || period <= 0 || quota < 0 {
		return 0, err
	}
	return float64(quota) / float64(period), nil
}

// cgroupRemove removes the cgroup at path, retrying while the kernel still counts exiting tasks.
func cgroupRemove(ctx context.Context, path string) error {
	if path == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		err := os.Remove(path)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("remove cgroup %s: %w", path, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func explainPerm(err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, os.ErrPermission) || strings.Contains(err.Error(), "read-only file system") {
		return fmt.Errorf("%w (run as root or delegate a cgroup)", err)
	}
	return err
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
