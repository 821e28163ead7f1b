package router

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
)

type nopReplayer struct{}

func (nopReplayer) Replay(context.Context, string, hints.Replay) error { return nil }

// BenchmarkRouteHints is BenchmarkRoute's per-member read with the command
// monitor's Started callback (which the driver calls once per command), with
// hints off and on: the difference is the capture's cost on the read path.
func BenchmarkRouteHints(b *testing.B) {
	cmd, err := bson.Marshal(bson.D{{Key: "find", Value: "usertable"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: "user6284781860667377211"}}},
		{Key: "limit", Value: 1}, {Key: "singleBatch", Value: true}, {Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}},
		{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: bson.Timestamp{T: 1, I: 1}}}}, {Key: "$db", Value: "ycsb"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, on := range []bool{false, true} {
		r := offlinePerMember(b, balancer.Weights{Primary: 0.2, Secondaries: []balancer.HostWeight{{Host: "s1:1", Weight: 0.4}, {Host: "s2:2", Weight: 0.4}}})
		name := "off"
		if on {
			name = "on"
			m, err := hints.New(hints.DefaultConfig(), nopReplayer{}, func() []hints.Member {
				return []hints.Member{{Host: "p:0", Primary: true}, {Host: "s1:1"}, {Host: "s2:2"}}
			}, nil)
			if err != nil {
				b.Fatal(err)
			}
			m.Start()
			b.Cleanup(m.Close)
			r.served.capture = m.Capture
		}
		mon := r.served.commandMonitor(nil)
		c := r.Database("db").Collection("c")
		host := r.served.stats("s1:1")
		ctx := context.Background()
		route := func() {
			rt := c.route(ctx, false)
			mon.Started(rt.rc, &event.CommandStartedEvent{Command: cmd, CommandName: "find", ConnectionID: "s1:1[-7]"})
			rt.rc.addCommand(time.Since(rt.start))
			rt.rc.host.Store(host)
			c.done(rt, nil)
		}
		b.Run(name+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				route()
			}
		})
		b.Run(name+"/parallel64", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					route()
				}
			})
		})
	}
}
