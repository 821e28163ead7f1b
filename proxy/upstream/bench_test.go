package upstream

import (
	"context"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// cpuTime is this process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRoundTrip: a ping to the primary through the pool, and through a
// mongo.Client for comparison; cpu-µs/op is this process's CPU time (the
// driver's goroutines included, the member's excluded) per ping.
func BenchmarkRoundTrip(b *testing.B) {
	testutil.SkipIfShort(b)
	rs := testutil.ReplicaSet(b)
	ctx := context.Background()
	primary, err := rs.Primary(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ping := bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}
	body, _ := bson.Marshal(ping)
	msg := wire.AppendMsg(nil, clientID, 0, 0, body)
	b.Run("pool", func(b *testing.B) {
		p, err := New(ctx, rs.URI())
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close(ctx)
		b.ReportAllocs()
		start := cpuTime(b)
		for b.Loop() {
			if _, err := p.RoundTrip(ctx, primary.Host, msg); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/float64(b.N), "cpu-µs/op")
	})
	b.Run("client", func(b *testing.B) {
		c := testutil.Connect(b, rs.URI())
		db := c.Database("admin")
		b.ReportAllocs()
		start := cpuTime(b)
		for b.Loop() {
			if err := db.RunCommand(ctx, ping[:1]).Err(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime(b)-start).Microseconds())/float64(b.N), "cpu-µs/op")
	})
}
