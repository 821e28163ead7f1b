package bench

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cgroupMemory reads a local member's memory cgroup: the cgroup its
// process runs in, by /proc/PID/cgroup under proc, in the hierarchy
// mounted at root. It reads files by path only, so it needs nothing of
// package cluster but its naming: a member's own cgroups are named
// "decongestant-..." (a process in any other cgroup shares it with others,
// and its usage would not be the member's).
type cgroupMemory struct {
	proc, root string
}

// localCgroups is the host's /proc and cgroup mount.
var localCgroups = cgroupMemory{proc: "/proc", root: "/sys/fs/cgroup"}

// mb returns the memory charged to process pid's own memory cgroup in MiB;
// nil when it has none or it cannot be read.
func (c cgroupMemory) mb(pid int64) *float64 {
	raw, err := os.ReadFile(filepath.Join(c.proc, strconv.FormatInt(pid, 10), "cgroup"))
	if err != nil {
		return nil
	}
	dir, ok := memoryCgroupDir(string(raw), c.root)
	if !ok {
		return nil
	}
	v, err := cgroupMemoryMB(dir)
	if err != nil {
		return nil
	}
	return &v
}

// memoryCgroupDir returns the directory of the memory cgroup a process's
// /proc/PID/cgroup (procCgroup) names, under root: the v1 memory
// controller's hierarchy (root/memory/PATH) when it has one, else the
// unified one (root/PATH). ok is false unless the cgroup is a member's own
// (named "decongestant-...").
func memoryCgroupDir(procCgroup, root string) (dir string, ok bool) {
	var v1, v2 string
	sc := bufio.NewScanner(strings.NewReader(procCgroup))
	for sc.Scan() {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			v1 = parts[2]
		}
	}
	switch {
	case v1 != "":
		dir = filepath.Join(root, "memory", v1)
	case v2 != "":
		dir = filepath.Join(root, v2)
	default:
		return "", false
	}
	return dir, strings.HasPrefix(filepath.Base(dir), "decongestant-")
}

// cgroupMemoryMB reads the memory charged to the cgroup at dir, page cache
// included, in MiB: memory.current (cgroup v2) or memory.usage_in_bytes
// (v1).
func cgroupMemoryMB(dir string) (float64, error) {
	var errs []error
	for _, name := range []string{"memory.current", "memory.usage_in_bytes"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return 0, err
		}
		return float64(n) / (1 << 20), nil
	}
	return 0, errors.Join(errs...)
}
