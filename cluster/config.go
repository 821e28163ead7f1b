package cluster

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime"
	"strconv"
	"strings"
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
	// CPU caps every member at this many cores (0.35 = 35% of one core) with a cpu cgroup; 0 means
	// no cap. Use CPUs instead to cap members differently.
	CPU float64
	// CPUs caps each member separately, n1 first: exactly one entry per member, 0 leaving that member
	// uncapped. nil means CPU for every member; CPU must be 0 when CPUs is set. ParseCPUs reads
	// the CLI's "0.35" or "0.35,0.35,0.15" into it.
	CPUs []float64
	// Memory caps every member's memory at this many bytes with a memory cgroup (v1
	// memory.limit_in_bytes, v2 memory.max); 0 means no cap. A cap must be at least
	// MinMemory(CacheSizeGB). Use Memories instead to cap members differently.
	Memory int64
	// Memories caps each member's memory separately, n1 first, as CPUs does the CPU: exactly one entry
	// per member, 0 leaving that member uncapped. nil means Memory for every member; Memory must be 0
	// when Memories is set. ParseMemories reads the CLI's "600M" or "600M,600M,1G" into it.
	Memories []int64
	// Disk caps every member's block I/O on the device holding its data (DiskCap: IOPS and MB/s,
	// reads and writes each) with a blkio (v1) or io (v2) cgroup; zero leaves the disks uncapped.
	// HDD makes each member's storage behave like a 7200 rpm disk.
	Disk DiskCap
	// Mongod is the mongod binary; "" means FindMongod(ctx, "", "", Progress).
	Mongod string
	// ReplSet is the replica set name; "" means "rs0".
	ReplSet string
	// Progress receives human-readable progress lines; nil discards them.
	Progress io.Writer
	// Auth turns access control on: the members share a random key file for internal
	// authentication, and Start creates two users with random passwords through the localhost
	// exception: AdminUser (root) and AppUser (readWrite on AppDB only). Their passwords and URIs are
	// written to Dir/credentials.json (0600); AdminURI and AppURI return them. Every operation of
	// this package that talks to the members does so as AdminUser.
	Auth bool
	// AppDB is the database AppUser may read and write; "" means DefaultAppDB. Only with Auth.
	AppDB string
	// TLS makes the members require TLS: Start generates a throwaway CA (Dir/ca.pem) and a member
	// certificate for 127.0.0.1 and localhost signed by it (Dir/member.pem, with its key, 0600).
	// Clients need no certificate, only to trust the CA: the URIs carry tls=true&tlsCAFile=Dir/ca.pem.
	TLS bool
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
	if c.Auth && c.AppDB == "" {
		c.AppDB = DefaultAppDB
	}
	return c
}

// MemberCPUs returns each member's CPU cap in cores after defaults, n1 first (0 = no cap): CPUs, or
// CPU for every member.
func (c Config) MemberCPUs() []float64 {
	c = c.withDefaults()
	if c.CPUs != nil {
		return append([]float64(nil), c.CPUs...)
	}
	caps := make([]float64, c.Members)
	for i := range caps {
		caps[i] = c.CPU
	}
	return caps
}

// MemberMemories returns each member's memory cap in bytes after defaults, n1 first (0 = no cap):
// Memories, or Memory for every member.
func (c Config) MemberMemories() []int64 {
	c = c.withDefaults()
	if c.Memories != nil {
		return append([]int64(nil), c.Memories...)
	}
	caps := make([]int64, c.Members)
	for i := range caps {
		caps[i] = c.Memory
	}
	return caps
}

// memoryHeadroom is what a member needs beside its WiredTiger cache to start and serve: see
// MinMemory.
const memoryHeadroom = 256 * MiB

// MinMemory is the smallest memory cap a member with a WiredTiger cache of cacheSizeGB (0 means
// DefaultCacheSizeGB) is started with: the cache (GiB, as mongod reads --wiredTigerCacheSizeGB)
// plus 256 MiB for everything else, 512 MiB with the default cache. A fresh member's RSS here is
// well below that (docs/measurements.md gives the measurement); the headroom is for the cache filling up under
// load, connections, and the page cache of the member's own files, which its cgroup is charged for
// too.
func MinMemory(cacheSizeGB float64) int64 {
	if cacheSizeGB == 0 {
		cacheSizeGB = DefaultCacheSizeGB
	}
	return int64(math.Round(cacheSizeGB*float64(GiB))) + memoryHeadroom
}

// ParseCPUs parses a CPU cap flag for a set of members: one cap for every member ("0.35") or a
// comma-separated cap per member, n1 first ("0.35,0.35,0.15"; 0 = that member uncapped). It
// returns one cap per member; a list of another length is an error. members 0 means
// DefaultMembers. Each cap's range is checked by Config.Validate.
func ParseCPUs(s string, members int) ([]float64, error) {
	return parsePerMember(s, members, func(p string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return 0, fmt.Errorf("cap %q is not a number of cores such as 0.35", p)
		}
		return v, nil
	})
}

// ParseMemories parses a memory cap flag for a set of members, as ParseCPUs does CPU caps: one size
// for every member ("600M") or a comma-separated size per member, n1 first ("600M,600M,1G"; 0 = that
// member uncapped). Sizes are ParseSize's. It returns one cap in bytes per member; a list of another
// length is an error. members 0 means DefaultMembers. Config.Validate checks each cap against
// MinMemory.
func ParseMemories(s string, members int) ([]int64, error) {
	return parsePerMember(s, members, ParseSize)
}

// parsePerMember parses a cap flag: one value for every member or a
// comma-separated value per member, n1 first; members 0 means DefaultMembers.
func parsePerMember[T any](s string, members int, parse func(string) (T, error)) ([]T, error) {
	if members <= 0 {
		members = DefaultMembers
	}
	parts := strings.Split(s, ",")
	caps := make([]T, len(parts))
	for i, p := range parts {
		v, err := parse(p)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		caps[i] = v
	}
	switch {
	case len(caps) == 1:
		for len(caps) < members {
			caps = append(caps, caps[0])
		}
	case len(caps) != members:
		return nil, fmt.Errorf("%q lists %d caps for %d members: give one cap for all members or one per member (%s)",
			s, len(caps), members, memberList(members))
	}
	return caps, nil
}

// memberList is "n1, n2, n3" for 3 members.
func memberList(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = "n" + strconv.Itoa(i+1)
	}
	return strings.Join(names, ", ")
}

// checkCPU reports why cpu is not a valid cap in cores (0 = no cap), or nil.
func checkCPU(cpu float64) error {
	switch {
	case math.IsNaN(cpu) || cpu < 0:
		return fmt.Errorf("cpu %v must be >= 0 (0 = no cap)", cpu)
	case cpu > float64(runtime.NumCPU()):
		return fmt.Errorf("cpu %v exceeds the %d CPUs of this machine", cpu, runtime.NumCPU())
	case cpu > 0 && cpu < minCPU:
		return fmt.Errorf("cpu %v below the smallest cap %v", cpu, minCPU)
	}
	return nil
}

// checkMemory reports why mem is not a valid memory cap in bytes (0 = no cap) for a member with a
// WiredTiger cache of cacheSizeGB, or nil.
func checkMemory(mem int64, cacheSizeGB float64) error {
	switch need := MinMemory(cacheSizeGB); {
	case mem < 0:
		return fmt.Errorf("memory %d bytes must be >= 0 (0 = no cap)", mem)
	case mem > 0 && mem < need:
		return fmt.Errorf("memory %s is below the %s (%d bytes) a member needs: its %v GB WiredTiger cache + 256M",
			exactSize(mem), FormatSize(need), need, cacheSizeGB)
	}
	return nil
}

// exactSize is FormatSize(n), followed by n in bytes when FormatSize rounds.
func exactSize(n int64) string {
	s := FormatSize(n)
	if strings.Contains(s, ".") {
		s += fmt.Sprintf(" (%d bytes)", n)
	}
	return s
}

// validateMemories checks Memory, Memories and each cap against the member count and MinMemory.
func (c Config) validateMemories() error {
	if c.Memories == nil {
		return checkMemory(c.Memory, c.CacheSizeGB)
	}
	if c.Memory != 0 {
		return fmt.Errorf("memory %s and memories %v both set: use Memory for one cap for all members or Memories for one per member", FormatSize(c.Memory), c.Memories)
	}
	if len(c.Memories) != c.Members {
		return fmt.Errorf("memories lists %d caps for %d members: give one per member (%s)", len(c.Memories), c.Members, memberList(c.Members))
	}
	for i, mem := range c.Memories {
		if err := checkMemory(mem, c.CacheSizeGB); err != nil {
			return fmt.Errorf("member n%d: %w", i+1, err)
		}
	}
	return nil
}

// validateCPUs checks CPU, CPUs and each cap against the member count.
func (c Config) validateCPUs() error {
	if c.CPUs == nil {
		return checkCPU(c.CPU)
	}
	if c.CPU != 0 {
		return fmt.Errorf("cpu %v and cpus %v both set: use CPU for one cap for all members or CPUs for one per member", c.CPU, c.CPUs)
	}
	if len(c.CPUs) != c.Members {
		return fmt.Errorf("cpus lists %d caps for %d members: give one per member (%s)", len(c.CPUs), c.Members, memberList(c.Members))
	}
	for i, cpu := range c.CPUs {
		if err := checkCPU(cpu); err != nil {
			return fmt.Errorf("member n%d: %w", i+1, err)
		}
	}
	return nil
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
	case !replSetName.MatchString(c.ReplSet):
		return fmt.Errorf("invalid config: replica set name %q: use letters, digits, '_', '.', '-'", c.ReplSet)
	}
	if c.AppDB != "" {
		if !c.Auth {
			return fmt.Errorf("invalid config: an application database (%q) without auth: it is AppUser's, who exists only with Auth", c.AppDB)
		}
		if err := checkDBName(c.AppDB); err != nil {
			return fmt.Errorf("invalid config: application database: %w", err)
		}
	}
	if err := c.validateCPUs(); err != nil {
		return fmt.Errorf("invalid config: %w", err)
	}
	if err := c.validateMemories(); err != nil {
		return fmt.Errorf("invalid config: %w", err)
	}
	if c.Disk.IOPS < 0 || c.Disk.MBps < 0 {
		return fmt.Errorf("invalid config: disk cap %+v: negative", c.Disk)
	}
	return nil
}
