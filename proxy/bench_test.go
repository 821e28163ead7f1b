package proxy

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/balancer"
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

// BenchmarkRoutedFind: a point find by _id from the Go driver, directly on
// the primary, and through a routing proxy (spillway with its defaults)
// with read preference primary (not routed: the forwarding cost alone) and
// secondaryPreferred (routed: the policy's choice, the fence check and the
// latency report on top). ns/op is the client-observed round trip on this
// machine's loopback; the difference to direct is the proxy's added latency.
func BenchmarkRoutedFind(b *testing.B) {
	rs := testutil.ReplicaSet(b)
	pol, err := balancer.NewSpillway(balancer.DefaultSpillwayConfig())
	if err != nil {
		b.Fatal(err)
	}
	_, addr := serveProxy(b, Config{URI: rs.URI(), Policy: pol})
	ctx := context.Background()
	seedClient := testutil.Connect(b, rs.URI())
	db := seedClient.Database("proxy_bench")
	testutil.DropAtCleanup(b, db)
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "x"}}); err != nil {
		b.Fatal(err)
	}
	testutil.WaitReplicated(b, seedClient)
	for _, bc := range []struct {
		name, uri string
		rp        *readpref.ReadPref
	}{
		{"direct/primary", rs.URI(), readpref.Primary()},
		{"proxy/primary", "mongodb://" + addr, readpref.Primary()},
		{"proxy/secondaryPreferred", "mongodb://" + addr, readpref.SecondaryPreferred()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := testutil.Connect(b, bc.uri)
			coll := client.Database("proxy_bench").Collection("c", options.Collection().SetReadPreference(bc.rp))
			filter := bson.D{{Key: "_id", Value: 1}}
			b.ReportAllocs()
			for b.Loop() {
				if err := coll.FindOne(ctx, filter).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
