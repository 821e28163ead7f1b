package proxy

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
)

// BenchmarkPing runs commands from the Go driver to the primary directly
// and through the proxy: ping, which the proxy answers itself, and
// buildInfo, which it forwards to the primary.
func BenchmarkPing(b *testing.B) {
	rs := testutil.ReplicaSet(b)
	_, addr := startBenchProxy(b, rs.URI())
	ctx := context.Background()
	for _, bc := range []struct{ name, uri, cmd string }{
		{"direct/buildInfo", rs.URI(), "buildInfo"},
		{"proxy/buildInfo", "mongodb://" + addr, "buildInfo"},
		{"direct/ping", rs.URI(), "ping"},
		{"proxy/ping", "mongodb://" + addr, "ping"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := testutil.Connect(b, bc.uri)
			cmd := bson.D{{Key: bc.cmd, Value: 1}}
			if err := client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
