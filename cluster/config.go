package cluster

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime"
)

// Defaults applied to a zero Config field.
const (
	DefaultMembers     = 3
	DefaultCacheSizeGB = 0.25
	DefaultReplSet     = "rs0"

	// MaxMembers is the largest replica set Start builds (7 is MongoDB's voting-member limit).
	MaxMembers = 7
	// minCacheSizeGB is mongod's lower bound for --wiredTigerCacheSizeGB.
	minCacheSizeGB = 0.25
	// minCPU is the smallest cap a CFS quota can express with a 100 ms period (1 ms).
	minCPU = 0.01
)

// Config describes a local replica set. The zero value of each field means its default.
type Config struct {
	// Dir is the data dir. It holds the state file cluster.json, the member dbpaths n1/, n2/, ...
	// and the member logs n1.log, n2.log, ... . Required.
	Dir string
	// Members is the number of members, 1..7; 0 means 3.
	Members int
	// BasePort is the port of n1; member K listens on BasePort+K-1. 0 picks free ports on 127.0.0.1.
	BasePort int
	// CacheSizeGB is each member's --wiredTigerCacheSizeGB, at least 0.25; 0 means 0.25.
	CacheSizeGB float64
	// CPU caps each member at this many cores (0.35 = 35% of one core) with a cpu cgroup; 0 means no cap.
	CPU float64
	// Mongod is the mongod binary; "" means FindMongod(ctx, "", "", Progress).
	Mongod string
	// ReplSet is the replica set name; "" means "rs0".
	ReplSet string
	// Progress receives human-readable progress lines; nil discards them.
	Progress io.Writer
	// DieWithParent makes the kernel SIGKILL the members when the process that started them exits,
	// so a test binary killed by a timeout leaves no mongod behind. The CLI leaves it false so that
	// `decongestant cluster up` can exit and keep the cluster running.
	DieWithParent bool
}

var replSetName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func (c Config) withDefaults() Config {
	if c.Members == 0 {
		c.Members = DefaultMembers
	}
	if c.CacheSizeGB == 0 {
		c.CacheSizeGB = DefaultCacheSizeGB
	}
	if c.ReplSet == "" {
		c.ReplSet = DefaultReplSet
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c
}

// Validate reports the first problem with c after defaults are applied. It does no I/O.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Dir == "":
		return fmt.Errorf("invalid config: dir is required")
	case c.Members < 1 || c.Members > MaxMembers:
		return fmt.Errorf("invalid config: members %d out of range 1..%d", c.Members, MaxMembers)
	case c.BasePort < 0 || c.BasePort > math.MaxUint16:
		return fmt.Errorf("invalid config: base port %d out of range 1..65535 (0 picks free ports)", c.BasePort)
	case c.BasePort > 0 && c.BasePort+c.Members-1 > math.MaxUint16:
		return fmt.Errorf("invalid config: base port %d leaves no room for %d members below 65536", c.BasePort, c.Members)
	case math.IsNaN(c.CacheSizeGB) || math.IsInf(c.CacheSizeGB, 0) || c.CacheSizeGB < minCacheSizeGB:
		return fmt.Errorf("invalid config: cache size %v GB below mongod's minimum %v GB", c.CacheSizeGB, minCacheSizeGB)
	case math.IsNaN(c.CPU) || c.CPU < 0:
		return fmt.Errorf("invalid config: cpu %v must be >= 0 (0 = no cap)", c.CPU)
	case c.CPU > float64(runtime.NumCPU()):
		return fmt.Errorf("invalid config: cpu %v exceeds the %d CPUs of this machine", c.CPU, runtime.NumCPU())
	case c.CPU > 0 && c.CPU < minCPU:
		return fmt.Errorf("invalid config: cpu %v below the smallest cap %v", c.CPU, minCPU)
	case !replSetName.MatchString(c.ReplSet):
		return fmt.Errorf("invalid config: replica set name %q: use letters, digits, '_', '.', '-'", c.ReplSet)
	}
	return nil
}
