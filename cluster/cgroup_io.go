package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A disk cap makes a member's storage behave like a slower device: the
// block I/O its mongod issues on the device holding its data directory is
// throttled to at most DiskCap.IOPS operations and DiskCap.MBps megabytes
// a second, reads and writes each (cgroup v1 blkio.throttle.*, v2 io.max).
// The read-hints paper's HDD experiments are the use: a 7200 rpm disk does
// about 150 random operations a second (HDD below). v1 throttles reads and
// the writes the process issues itself (direct and synced); the kernel's
// background writeback of buffered writes is not charged to the cgroup
// there, as it is with v2.

// DiskCap is a member's block I/O cap; zero fields are not capped.
type DiskCap struct {
	IOPS int `json:"iops,omitempty"` // operations a second, reads and writes each
	MBps int `json:"mbps,omitempty"` // megabytes (10^6 bytes) a second, reads and writes each
}

// HDD is a 7200 rpm disk: ~150 random operations and ~150 MB a second.
var HDD = DiskCap{IOPS: 150, MBps: 150}

// Zero reports whether the cap caps nothing.
func (d DiskCap) Zero() bool { return d.IOPS == 0 && d.MBps == 0 }

func (d DiskCap) String() string {
	var parts []string
	if d.IOPS > 0 {
		parts = append(parts, fmt.Sprintf("%d IOPS", d.IOPS))
	}
	if d.MBps > 0 {
		parts = append(parts, fmt.Sprintf("%d MB/s", d.MBps))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// ParseDisk reads the CLI's disk cap: "hdd", "none" or "", or
// "iops=150,mbps=150" (either may be left out).
func ParseDisk(s string) (DiskCap, error) {
	switch s = strings.TrimSpace(strings.ToLower(s)); s {
	case "", "none", "0":
		return DiskCap{}, nil
	case "hdd":
		return HDD, nil
	}
	var d DiskCap
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 0 {
			return DiskCap{}, fmt.Errorf("disk cap %q: want hdd, none, or iops=N,mbps=N with whole numbers >= 0", s)
		}
		switch k {
		case "iops":
			d.IOPS = n
		case "mbps":
			d.MBps = n
		default:
			return DiskCap{}, fmt.Errorf("disk cap %q: unknown %q (iops or mbps)", s, k)
		}
	}
	return d, nil
}

// ioCgroupCreate makes a cgroup name whose block I/O on the device dev
// ("major:minor") is capped at d and returns its path: with cgroup v2 the
// member's one cgroup (near, when it has one) with io.max set, with v1 a
// cgroup under blkio with its throttle files set.
func ioCgroupCreate(name, dev string, d DiskCap, near string) (string, error) {
	var path string
	var err error
	switch {
	case fileExists(filepath.Join(cgroupRoot, "cgroup.controllers")):
		path, err = cgroupV2Create(name, "io", near, func(path string) error { return ioV2Set(path, dev, d) })
	case fileExists(filepath.Join(cgroupRoot, "blkio", "blkio.throttle.read_iops_device")):
		path, err = cgroupMkdir(filepath.Join(cgroupRoot, "blkio", name), func(path string) error { return ioV1Set(path, dev, d) })
	default:
		err = fmt.Errorf("neither %s/cgroup.controllers (v2) nor %s/blkio/blkio.throttle.read_iops_device (v1) exists", cgroupRoot, cgroupRoot)
	}
	if err != nil {
		return "", fmt.Errorf("disk %w: %w; run without --disk (Config.Disk zero) to leave the disk uncapped", ErrCgroupUnavailable, err)
	}
	return path, nil
}

// ioV1Set writes the four v1 throttle files; 0 lifts a limit.
func ioV1Set(path, dev string, d DiskCap) error {
	for _, f := range []struct {
		file string
		v    int64
	}{
		{"blkio.throttle.read_iops_device", int64(d.IOPS)}, {"blkio.throttle.write_iops_device", int64(d.IOPS)},
		{"blkio.throttle.read_bps_device", int64(d.MBps) * 1e6}, {"blkio.throttle.write_bps_device", int64(d.MBps) * 1e6},
	} {
		if err := os.WriteFile(filepath.Join(path, f.file), []byte(dev+" "+strconv.FormatInt(f.v, 10)), 0o644); err != nil {
			return explainPerm(err)
		}
	}
	return nil
}

// ioV2Set writes io.max for dev; 0 is "max" (no limit).
func ioV2Set(path, dev string, d DiskCap) error {
	v := func(n int64) string {
		if n <= 0 {
			return "max"
		}
		return strconv.FormatInt(n, 10)
	}
	line := fmt.Sprintf("%s riops=%s wiops=%s rbps=%s wbps=%s", dev, v(int64(d.IOPS)), v(int64(d.IOPS)), v(int64(d.MBps)*1e6), v(int64(d.MBps)*1e6))
	if err := os.WriteFile(filepath.Join(path, "io.max"), []byte(line), 0o644); err != nil {
		return explainPerm(err)
	}
	return nil
}

// ErrNotBlockDevice: a disk cap was asked for data on a filesystem without
// a block device (tmpfs, overlay), which the throttles cannot reach.
var ErrNotBlockDevice = errors.New("not on a block device")

// sysBlock is where the kernel lists block devices by number; tests point
// it at a fake tree.
var sysBlock = "/sys/dev/block"

// blockDevice is the whole disk ("major:minor") that holds path: the
// throttles apply to disks, not to their partitions. A path on a
// filesystem without a block device (tmpfs, overlay) is an error.
func blockDevice(path string) (string, error) {
	id, err := devID(path)
	if err != nil {
		return "", err
	}
	return wholeDisk(id, path)
}

// devID is the device number ("major:minor") of the filesystem holding
// path, decoded as Linux encodes dev_t.
func devID(path string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return "", err
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	return fmt.Sprintf("%d:%d", major, minor), nil
}

// wholeDisk is the disk of the block device id: itself, or for a
// partition the disk whose sysfs directory holds the partition's.
func wholeDisk(id, path string) (string, error) {
	link := filepath.Join(sysBlock, id)
	if _, err := os.Stat(link); err != nil {
		return "", fmt.Errorf("%s is on device %s, %w (tmpfs or overlay?): the disk cap needs the data on a disk", path, id, ErrNotBlockDevice)
	}
	if !fileExists(filepath.Join(link, "partition")) {
		return id, nil
	}
	real, err := filepath.EvalSymlinks(link) // .../block/vda/vda1
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(real), "dev"))
	if err != nil {
		return "", errors.Join(fmt.Errorf("the disk of partition %s", id), err)
	}
	return strings.TrimSpace(string(b)), nil
}
