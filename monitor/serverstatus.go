package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/balancer"
)

// DirectClient returns a client of host alone over a direct connection,
// with uri's options and credentials, then opts: how the monitor reaches
// each member (RTT pings, serverStatus polls). Connecting does no I/O; the
// caller disconnects the client.
func DirectClient(uri, host, appName string, opts ...*options.ClientOptions) (*mongo.Client, error) {
	co := append([]*options.ClientOptions{options.Client().ApplyURI(uri)}, opts...)
	co = append(co, options.Client().SetHosts([]string{host}).SetDirect(true).
		SetReplicaSet("").SetAppName(appName))
	c, err := mongo.Connect(co...)
	if err != nil {
		return nil, fmt.Errorf("monitor: connect to %s: %w", host, err)
	}
	return c, nil
}

// ServerStats are one member's cumulative counters from serverStatus: what
// a period's cache, CPU and memory figures are differences of.
type ServerStats struct {
	// PID and UptimeMS identify the process: a restarted member has another
	// pid, and its uptime starts again. UptimeMS is also the server's own
	// clock between two polls.
	PID      int64
	UptimeMS int64
	// PagesRequested, PagesRead and BytesRead are wiredTiger.cache's "pages
	// requested from the cache", "pages read into cache" and "bytes read
	// into cache"; HasCache is false without them (another storage engine).
	PagesRequested, PagesRead, BytesRead int64
	HasCache                             bool
	// BytesWritten is wiredTiger.cache's "bytes written from cache" (dirty
	// pages written out by eviction and checkpoints), CheckpointMS
	// wiredTiger.transaction's "transaction checkpoint total time (msecs)"
	// (the checkpoints that completed); HasWritten and HasCheckpoint are
	// false without them.
	BytesWritten, CheckpointMS int64
	HasWritten, HasCheckpoint  bool
	// CPU is the process's CPU time, extra_info's user_time_us +
	// system_time_us; HasCPU is false on platforms that do not report them.
	CPU    time.Duration
	HasCPU bool
	// ResidentMB is mem.resident, the process's resident set in MiB;
	// HasResident is false when not reported.
	ResidentMB  int64
	HasResident bool
	// Role is the member's role by its own account (repl.isWritablePrimary,
	// repl.secondary); 0 in any other state.
	Role balancer.Side
	// Name is the member's "node" tag (repl.tags.node; decongestant's
	// cluster sets n1, n2...), "" when untagged.
	Name string
}

// serverStatusCmd asks for serverStatus without the sections ServerStats
// does not read, so a poll costs the member less (extra_info, mem, repl and
// wiredTiger stay; metrics too: without it the server leaves mem out).
// Naming a section a server version does not have is not an error.
var serverStatusCmd = func() bson.D {
	cmd := bson.D{{Key: "serverStatus", Value: 1}}
	for _, s := range []string{"activeIndexBuilds", "asserts", "batchedDeletes", "catalogStats", "connections",
		"defaultRWConcern", "electionMetrics", "flowControl", "freeMonitoring", "globalLock", "indexBulkBuilder",
		"indexStats", "locks", "logicalSessionRecordCache", "network", "opLatencies", "opcounters", "opcountersRepl",
		"readConcernCounters", "scramCache", "security", "storageEngine", "tcmalloc", "tenantMigrations",
		"trafficRecording", "transactions", "transportSecurity", "twoPhaseCommitCoordinator"} {
		cmd = append(cmd, bson.E{Key: s, Value: 0})
	}
	return cmd
}()

// ReadServerStats runs serverStatus on the member client is connected to
// (a DirectClient) and returns its counters.
func ReadServerStats(ctx context.Context, client *mongo.Client) (ServerStats, error) {
	raw, err := client.Database("admin").RunCommand(ctx, serverStatusCmd).Raw()
	if err != nil {
		return ServerStats{}, fmt.Errorf("monitor: serverStatus: %w", err)
	}
	return serverStatsFrom(raw)
}

// serverStatsFrom reads the counters out of a serverStatus reply. Numbers
// may come as any BSON number type (servers differ); a reply without pid
// or uptimeMillis is not serverStatus.
func serverStatsFrom(raw bson.Raw) (ServerStats, error) {
	num := func(path ...string) (int64, bool) {
		v, err := raw.LookupErr(path...)
		if err != nil {
			return 0, false
		}
		return v.AsInt64OK()
	}
	var s ServerStats
	var okPID, okUptime bool
	s.PID, okPID = num("pid")
	s.UptimeMS, okUptime = num("uptimeMillis")
	if !okPID || !okUptime {
		return ServerStats{}, errors.New("monitor: serverStatus reply without pid or uptimeMillis")
	}
	var ok [3]bool
	s.PagesRequested, ok[0] = num("wiredTiger", "cache", "pages requested from the cache")
	s.PagesRead, ok[1] = num("wiredTiger", "cache", "pages read into cache")
	s.BytesRead, ok[2] = num("wiredTiger", "cache", "bytes read into cache")
	s.HasCache = ok[0] && ok[1] && ok[2]
	s.BytesWritten, s.HasWritten = num("wiredTiger", "cache", "bytes written from cache")
	s.CheckpointMS, s.HasCheckpoint = num("wiredTiger", "transaction", "transaction checkpoint total time (msecs)")
	user, okUser := num("extra_info", "user_time_us")
	sys, okSys := num("extra_info", "system_time_us")
	s.HasCPU = okUser && okSys
	if s.HasCPU {
		s.CPU = time.Duration(user+sys) * time.Microsecond
	}
	s.ResidentMB, s.HasResident = num("mem", "resident")
	isTrue := func(path ...string) bool {
		b, ok := raw.Lookup(path...).BooleanOK()
		return ok && b
	}
	switch {
	case isTrue("repl", "isWritablePrimary") || isTrue("repl", "ismaster"):
		s.Role = balancer.Primary
	case isTrue("repl", "secondary"):
		s.Role = balancer.Secondary
	}
	s.Name, _ = raw.Lookup("repl", "tags", "node").StringValueOK()
	return s, nil
}
