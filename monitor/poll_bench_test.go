package monitor_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/monitor"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// BenchmarkLagPoll measures what one lag poll (replSetGetStatus on the primary)
// costs: its round trip, and the primary mongod's CPU time per poll (from
// /proc, 10 ms ticks, so run it long enough: -benchtime 5000x). A poll every
// 100 ms (a 500 ms bound) costs ten times what the Decongestant paper's once a
// second does. Needs mongod (skipped with -short).
//
//	go test ./monitor -run '^$' -bench LagPoll -benchtime 5000x
func BenchmarkLagPoll(b *testing.B) {
	rs := testutil.ReplicaSet(b)
	client := testutil.Connect(b, rs.URI())
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		b.Fatal(err)
	}
	cmd := bson.D{{Key: "replSetGetStatus", Value: 1}}
	if err := client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
		b.Fatal(err)
	}
	cpu0, err := cpuTime(prim.PID)
	if err != nil {
		b.Skipf("primary's CPU time: %v", err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu1, err := cpuTime(prim.PID)
	if err != nil {
		b.Fatal(err)
	}
	perPoll := (cpu1 - cpu0) / time.Duration(b.N)
	b.ReportMetric(float64(perPoll.Microseconds()), "primary-cpu-µs/op")
	// Share of one core at one poll per 100 ms, in per cent.
	b.ReportMetric(100*float64(perPoll)/float64(100*time.Millisecond), "core-%-at-10/s")
}

// cpuTime reads a process's user+system CPU time from /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 of the whole line (11 and 12 after the name).
	rest := string(raw[strings.LastIndexByte(string(raw), ')')+2:])
	f := strings.Fields(rest)
	utime, err := strconv.ParseInt(f[11], 10, 64)
	if err != nil {
		return 0, err
	}
	stime, err := strconv.ParseInt(f[12], 10, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil // CLK_TCK is 100 on Linux
}

// BenchmarkServerStatsPoll measures what one member-stats poll
// (ReadServerStats, bench's per-period serverStatus on every member) costs:
// the round trip and the member's CPU time per poll, beside a full
// serverStatus. A bench run with 2 s periods polls each member once per
// period. Needs mongod (skipped with -short).
//
//	go test ./monitor -run '^$' -bench ServerStatsPoll -benchtime 3000x
func BenchmarkServerStatsPoll(b *testing.B) {
	rs := testutil.ReplicaSet(b)
	ctx := context.Background()
	prim, err := rs.Primary(ctx)
	if err != nil {
		b.Fatal(err)
	}
	client, err := monitor.DirectClient(rs.URI(), prim.Host, "decongestant-bench")
	if err != nil {
		b.Fatal(err)
	}
	defer client.Disconnect(ctx)
	full := bson.D{{Key: "serverStatus", Value: 1}}
	for _, bc := range []struct {
		name string
		poll func() error
	}{
		{"trimmed", func() error { _, err := monitor.ReadServerStats(ctx, client); return err }},
		{"full", func() error { return client.Database("admin").RunCommand(ctx, full).Err() }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if err := bc.poll(); err != nil {
				b.Fatal(err)
			}
			cpu0, err := cpuTime(prim.PID)
			if err != nil {
				b.Skipf("member's CPU time: %v", err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := bc.poll(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu1, err := cpuTime(prim.PID)
			if err != nil {
				b.Fatal(err)
			}
			perPoll := (cpu1 - cpu0) / time.Duration(b.N)
			b.ReportMetric(float64(perPoll.Microseconds()), "member-cpu-µs/op")
			// Share of one core at one poll per 2 s period, in per cent.
			b.ReportMetric(100*float64(perPoll)/float64(2*time.Second), "core-%-at-0.5/s")
		})
	}
}
