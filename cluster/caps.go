package cluster

import (
	"errors"
	"fmt"
	"os"
)

// createCgroups gives each member whose cap is above 0 a cpu cgroup capped at that many cores;
// caps holds one cap per member, n1 first.
func (c *Cluster) createCgroups(caps []float64) error {
	for i := range c.st.Members {
		m := &c.st.Members[i]
		if m.CPUCap = caps[i]; m.CPUCap == 0 {
			continue
		}
		var err error
		if m.Cgroup, err = cgroupCreate(cgroupName(m.Port, m.Name), m.CPUCap); err != nil {
			return fmt.Errorf("member %s: %w", m.Name, err)
		}
	}
	return nil
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
		m.Cgroup, err = c.capRunning(m, cpu)
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
	for i := range c.st.Members {
		if c.st.Members[i].Name == name {
			c.st.Members[i] = m
		}
	}
	c.mu.Unlock()
	return c.writeState()
}

// capRunning creates a cgroup capped at cpu for m, which has none, and moves its mongod (if it
// runs) into it; it returns the cgroup's path.
func (c *Cluster) capRunning(m Member, cpu float64) (string, error) {
	path, err := cgroupCreate(cgroupName(m.Port, m.Name), cpu)
	if err != nil {
		return "", err
	}
	if isMemberProcess(m.PID, m.DBPath) {
		if err := cgroupAdd(path, m.PID); err != nil {
			_ = os.Remove(path)
			return "", err
		}
	}
	return path, nil
}
