package cluster

import (
	"errors"
	"fmt"
	"os"
)

// createCgroups gives each member whose CPU cap is above 0 a cpu cgroup capped at that many cores,
// and each member whose memory cap is above 0 a memory cgroup capped at that many bytes; cpus and
// mems hold one cap per member, n1 first. A non-zero disk cap gives every member an I/O cgroup
// capping the disk that holds its data directory.
func (c *Cluster) createCgroups(cpus []float64, mems []int64, disk DiskCap) error {
	for i := range c.st.Members {
		m := &c.st.Members[i]
		var err error
		if m.CPUCap = cpus[i]; m.CPUCap > 0 {
			if m.Cgroup, err = cgroupCreate(cgroupName(m.Port, m.Name), m.CPUCap, m.MemCgroup); err != nil {
				return fmt.Errorf("member %s: %w", m.Name, err)
			}
		}
		if m.MemoryCap = mems[i]; m.MemoryCap > 0 {
			if m.MemCgroup, err = memCgroupCreate(cgroupName(m.Port, m.Name), m.MemoryCap, m.Cgroup); err != nil {
				return fmt.Errorf("member %s: %w", m.Name, err)
			}
		}
		if m.DiskCap = disk; !disk.Zero() {
			if m.Disk, err = blockDevice(c.dir); err != nil { // the members' data directories are under it
				return fmt.Errorf("member %s: disk cap: %w", m.Name, err)
			}
			if m.IOCgroup, err = ioCgroupCreate(cgroupName(m.Port, m.Name), m.Disk, disk, firstOf(m.Cgroup, m.MemCgroup)); err != nil {
				return fmt.Errorf("member %s: %w", m.Name, err)
			}
		}
	}
	return nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// recreateCgroups gives m back the cgroups of its caps that no longer exist (removed by hand, say),
// so that a restart keeps its caps.
func recreateCgroups(m Member) (Member, error) {
	// Both checked first: with cgroup v2 both may be one dir, and recreating it for the CPU cap
	// must not hide that the memory cap is gone too.
	cpuGone := m.Cgroup != "" && !fileExists(m.Cgroup)
	memGone := m.MemCgroup != "" && !fileExists(m.MemCgroup)
	ioGone := m.IOCgroup != "" && !fileExists(m.IOCgroup)
	var err error
	if cpuGone {
		m.Cgroup = ""
		if m.CPUCap > 0 {
			if m.Cgroup, err = cgroupCreate(cgroupName(m.Port, m.Name), m.CPUCap, m.MemCgroup); err != nil {
				return m, err
			}
		}
	}
	if memGone {
		m.MemCgroup = ""
		if m.MemoryCap > 0 {
			if m.MemCgroup, err = memCgroupCreate(cgroupName(m.Port, m.Name), m.MemoryCap, m.Cgroup); err != nil {
				return m, err
			}
		}
	}
	if ioGone {
		m.IOCgroup = ""
		if !m.DiskCap.Zero() && m.Disk != "" {
			if m.IOCgroup, err = ioCgroupCreate(cgroupName(m.Port, m.Name), m.Disk, m.DiskCap, firstOf(m.Cgroup, m.MemCgroup)); err != nil {
				return m, err
			}
		}
	}
	return m, nil
}

// SetCPU changes member name's CPU cap to cpu cores on the running cluster (0 lifts it) and
// records it in the state file, so a restart keeps it. A member started without a cap gets its
// cgroup now, with its running mongod moved in. The change takes effect at once: the kernel
// applies a new CFS quota from the next 100 ms period.
func (c *Cluster) SetCPU(name string, cpu float64) error {
	if err := checkCPU(cpu); err != nil {
		return fmt.Errorf("member %s: %w", name, err)
	}
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	switch {
	case m.Cgroup != "" && fileExists(m.Cgroup):
		err = cgroupSetCPU(m.Cgroup, cpu)
	case cpu == 0:
		m.Cgroup = ""
	default:
		m.Cgroup, err = c.capRunning(m, func(name string) (string, error) { return cgroupCreate(name, cpu, m.MemCgroup) })
	}
	if err != nil {
		if errors.Is(err, ErrCgroupUnavailable) {
			return fmt.Errorf("member %s: %w", name, err)
		}
		return fmt.Errorf("member %s: set cpu cap %v: %w", name, cpu, err)
	}
	m.CPUCap = cpu
	c.mu.Lock()
	c.st.CPU = 0 // no longer every member's cap; readState must not read it as one
	c.mu.Unlock()
	c.setMember(m)
	return c.writeState()
}

// SetMemory changes member name's memory cap to mem bytes on the running cluster (0 lifts it) and
// records it in the state file, so a restart keeps it; a cap must be at least MinMemory of the
// cluster's cache size. A lower cap makes the kernel reclaim the member's page cache at once; if it
// cannot get under the cap that way, cgroup v1 refuses the cap (the error says so) and v2 OOM-kills
// the member. A member started without a cap gets its memory cgroup now, with its running mongod
// moved in, but the kernel never moves memory already charged: the cgroup counts only what the
// mongod touches from then on until the member restarts (DropCaches does that, starting it cold).
func (c *Cluster) SetMemory(name string, mem int64) error {
	c.mu.Lock()
	cacheGB := c.st.CacheSizeGB
	c.mu.Unlock()
	if err := checkMemory(mem, cacheGB); err != nil {
		return fmt.Errorf("member %s: %w", name, err)
	}
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	switch {
	case m.MemCgroup != "" && fileExists(m.MemCgroup):
		err = memSetLimit(m.MemCgroup, mem)
	case mem == 0:
		m.MemCgroup = ""
	default:
		m.MemCgroup, err = c.capRunning(m, func(name string) (string, error) { return memCgroupCreate(name, mem, m.Cgroup) })
	}
	if err != nil {
		if errors.Is(err, ErrCgroupUnavailable) {
			return fmt.Errorf("member %s: %w", name, err)
		}
		return fmt.Errorf("member %s: set memory cap %s: %w", name, FormatSize(mem), err)
	}
	m.MemoryCap = mem
	c.setMember(m)
	return c.writeState()
}

// capRunning creates m's cgroup with create (given the cgroup's name) for a cap m has no cgroup
// for yet, and moves its mongod (if it runs) into it; it returns the cgroup's path.
func (c *Cluster) capRunning(m Member, create func(name string) (string, error)) (string, error) {
	path, err := create(cgroupName(m.Port, m.Name))
	if err != nil {
		return "", err
	}
	if isMemberProcess(m.PID, m.DBPath) {
		if err := cgroupAdd(path, m.PID); err != nil {
			if path != m.Cgroup && path != m.MemCgroup { // v2: not the dir of its other cap
				_ = os.Remove(path)
			}
			return "", err
		}
	}
	return path, nil
}

// setMember replaces the member of m's name in the cluster's state (not yet in the state file).
func (c *Cluster) setMember(m Member) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.st.Members {
		if c.st.Members[i].Name == m.Name {
			c.st.Members[i] = m
		}
	}
}

// MemoryUsage is a member's memory as the kernel accounts it, in bytes.
type MemoryUsage struct {
	// Usage is what the member's memory cgroup is charged (v1 memory.usage_in_bytes, v2
	// memory.current): the mongod's own memory plus the page cache of the files it read or wrote
	// since it joined the cgroup, which stays charged after it exits. 0 without a memory cgroup.
	Usage int64
	// Cache is the page cache part of Usage (memory.stat: cache with v1, file with v2).
	Cache int64
	// RSS is the resident set of the member's mongod (VmRSS of /proc/PID/status); 0 when it is not
	// running.
	RSS int64
	// Limit is the cap read back from the member's memory cgroup; 0 = uncapped.
	Limit int64
}

// MemoryUsage measures member name's memory: its mongod's RSS, and what its memory cgroup is charged
// and capped at if it has one (an uncapped member reports its RSS only, with Limit 0).
func (c *Cluster) MemoryUsage(name string) (MemoryUsage, error) {
	m, err := c.Member(name)
	if err != nil {
		return MemoryUsage{}, err
	}
	var u MemoryUsage
	if isMemberProcess(m.PID, m.DBPath) {
		if u.RSS, err = procRSS(m.PID); err != nil {
			return MemoryUsage{}, fmt.Errorf("member %s: %w", name, err)
		}
	}
	if m.MemCgroup == "" {
		return u, nil
	}
	if u.Usage, u.Cache, err = memUsage(m.MemCgroup); err != nil {
		return MemoryUsage{}, fmt.Errorf("member %s: memory cgroup: %w", name, err)
	}
	if u.Limit, err = memLimit(m.MemCgroup); err != nil {
		return MemoryUsage{}, fmt.Errorf("member %s: memory cgroup: %w", name, err)
	}
	return u, nil
}
