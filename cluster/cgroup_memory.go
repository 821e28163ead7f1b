package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// noLimit is the smallest value of v1 memory.limit_in_bytes read back as "no cap": the kernel
// shows an unlimited cgroup as its page counter maximum, 9223372036854771712 with 4 KiB pages.
const noLimit = 1 << 62

// memCgroupCreate makes a memory cgroup name capped at limit bytes and returns its path. With cgroup
// v2 it is the member's one cgroup (near, its cpu cgroup, if it has one) with memory.max set; with
// v1 a cgroup under the memory controller (/sys/fs/cgroup/memory) with memory.limit_in_bytes set.
// Swap is turned off for it where the kernel offers the knob. Errors wrap ErrCgroupUnavailable and
// name the file that is missing or could not be written.
func memCgroupCreate(name string, limit int64, near string) (string, error) {
	var path string
	var err error
	switch {
	case fileExists(filepath.Join(cgroupRoot, "cgroup.controllers")):
		path, err = cgroupV2Create(name, "memory", near, func(path string) error { return memV2SetLimit(path, limit) })
	case fileExists(filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes")):
		path, err = cgroupMkdir(filepath.Join(cgroupRoot, "memory", name), func(path string) error { return memV1SetLimit(path, limit) })
	default:
		err = fmt.Errorf("neither %s/cgroup.controllers (v2) nor %s/memory/memory.limit_in_bytes (v1) exists: "+
			"mount the memory controller (v1: mount -t cgroup -o memory cgroup %s/memory)", cgroupRoot, cgroupRoot, cgroupRoot)
	}
	if err != nil {
		return "", fmt.Errorf("memory %w: %w; use --memory 0 (Config.Memory 0) to run without memory caps", ErrCgroupUnavailable, err)
	}
	return path, nil
}

// memSetLimit changes the cap of the existing memory cgroup at path to limit bytes; 0 lifts the cap
// but keeps the cgroup (and the processes in it).
func memSetLimit(path string, limit int64) error {
	if fileExists(filepath.Join(path, "memory.max")) {
		return memV2SetLimit(path, limit)
	}
	return memV1SetLimit(path, limit)
}

// memV1SetLimit writes memory.limit_in_bytes (-1 = no cap) of the v1 cgroup at path, and
// memory.swappiness 0 (best effort: without swap, as here, it changes nothing).
func memV1SetLimit(path string, limit int64) error {
	_ = os.WriteFile(filepath.Join(path, "memory.swappiness"), []byte("0"), 0o644)
	v := strconv.FormatInt(limit, 10)
	if limit == 0 {
		v = "-1"
	}
	return writeLimit(filepath.Join(path, "memory.limit_in_bytes"), v, limit)
}

// memV2SetLimit writes memory.max ("max" = no cap) of the v2 cgroup at path, and memory.swap.max 0
// where swap is accounted (best effort).
func memV2SetLimit(path string, limit int64) error {
	if fileExists(filepath.Join(path, "memory.swap.max")) {
		_ = os.WriteFile(filepath.Join(path, "memory.swap.max"), []byte("0"), 0o644)
	}
	v := strconv.FormatInt(limit, 10)
	if limit == 0 {
		v = "max"
	}
	return writeLimit(filepath.Join(path, "memory.max"), v, limit)
}

// writeLimit writes v to the limit file; EBUSY (v1: the cgroup uses more than the new cap and the
// kernel could not reclaim enough) is explained.
func writeLimit(file, v string, limit int64) error {
	err := os.WriteFile(file, []byte(v), 0o644)
	if errors.Is(err, syscall.EBUSY) {
		return fmt.Errorf("%w: the member uses more than %s and the kernel could not reclaim enough; give a larger cap, or restart the member under this one", err, FormatSize(limit))
	}
	if err != nil {
		return explainPerm(err)
	}
	return nil
}

// memLimit reads the cap of the memory cgroup at path back, in bytes; 0 = none.
func memLimit(path string) (int64, error) {
	if b, err := os.ReadFile(filepath.Join(path, "memory.max")); err == nil {
		if v := strings.TrimSpace(string(b)); v != "max" {
			return strconv.ParseInt(v, 10, 64)
		}
		return 0, nil
	}
	v, err := readInt(filepath.Join(path, "memory.limit_in_bytes"))
	if err != nil || v < 0 || v >= noLimit { // -1 as written; the kernel shows its maximum
		return 0, err
	}
	return v, nil
}

// memUsage reads what the memory cgroup at path is charged, in bytes, and the page cache part of it:
// v2 memory.current and memory.stat's file, v1 memory.usage_in_bytes and memory.stat's cache.
func memUsage(path string) (usage, cache int64, err error) {
	usageFile, cacheKey := "memory.current", "file"
	if !fileExists(filepath.Join(path, usageFile)) {
		usageFile, cacheKey = "memory.usage_in_bytes", "cache"
	}
	if usage, err = readInt(filepath.Join(path, usageFile)); err != nil {
		return 0, 0, err
	}
	cache, err = statField(filepath.Join(path, "memory.stat"), cacheKey)
	return usage, cache, err
}

// statField reads the value of key from a "key value" file such as memory.stat.
func statField(file, key string) (int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == key {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s has no %s", file, key)
}

// procRSS is the resident set of pid in bytes (VmRSS of /proc/PID/status).
func procRSS(pid int) (int64, error) {
	file := "/proc/" + strconv.Itoa(pid) + "/status"
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: VmRSS %q: %w", file, rest, err)
			}
			return kb * KiB, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s has no VmRSS", file)
}
