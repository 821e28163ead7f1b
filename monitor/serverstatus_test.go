package monitor

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
)

func TestServerStatsFrom(t *testing.T) {
	cache := bson.D{{Key: "pages requested from the cache", Value: int64(5000)},
		{Key: "pages read into cache", Value: int32(40)}, {Key: "bytes read into cache", Value: float64(1 << 20)},
		{Key: "bytes written from cache", Value: int64(3 << 20)}}
	extra := bson.D{{Key: "note", Value: "fields vary by platform"},
		{Key: "user_time_us", Value: int64(1_500_000)}, {Key: "system_time_us", Value: int64(250_000)}}
	tests := []struct {
		name  string
		reply bson.D
		want  ServerStats
		err   bool
	}{
		{name: "primary", reply: bson.D{{Key: "pid", Value: int64(42)}, {Key: "uptimeMillis", Value: int64(9000)},
			{Key: "extra_info", Value: extra}, {Key: "mem", Value: bson.D{{Key: "resident", Value: int32(105)}}},
			{Key: "repl", Value: bson.D{{Key: "isWritablePrimary", Value: true}, {Key: "secondary", Value: false},
				{Key: "tags", Value: bson.D{{Key: "node", Value: "n1"}}}}},
			{Key: "wiredTiger", Value: bson.D{{Key: "cache", Value: cache},
				{Key: "transaction", Value: bson.D{{Key: "transaction checkpoint total time (msecs)", Value: int32(250)}}}}}},
			want: ServerStats{PID: 42, UptimeMS: 9000, PagesRequested: 5000, PagesRead: 40, BytesRead: 1 << 20, HasCache: true,
				BytesWritten: 3 << 20, HasWritten: true, CheckpointMS: 250, HasCheckpoint: true,
				CPU: 1750 * time.Millisecond, HasCPU: true, ResidentMB: 105, HasResident: true, Role: balancer.Primary, Name: "n1"}},
		{name: "old server's ismaster, int32 pid", reply: bson.D{{Key: "pid", Value: int32(7)}, {Key: "uptimeMillis", Value: int64(1)},
			{Key: "repl", Value: bson.D{{Key: "ismaster", Value: true}}}},
			want: ServerStats{PID: 7, UptimeMS: 1, Role: balancer.Primary}},
		{name: "secondary without tags, no CPU on this platform", reply: bson.D{{Key: "pid", Value: int64(1)}, {Key: "uptimeMillis", Value: int64(2)},
			{Key: "extra_info", Value: bson.D{{Key: "note", Value: "fields vary by platform"}}},
			{Key: "repl", Value: bson.D{{Key: "isWritablePrimary", Value: false}, {Key: "secondary", Value: true}}},
			{Key: "wiredTiger", Value: bson.D{{Key: "cache", Value: cache}}}},
			want: ServerStats{PID: 1, UptimeMS: 2, PagesRequested: 5000, PagesRead: 40, BytesRead: 1 << 20, HasCache: true,
				BytesWritten: 3 << 20, HasWritten: true, Role: balancer.Secondary}},
		{name: "recovering, half a cache section", reply: bson.D{{Key: "pid", Value: int64(1)}, {Key: "uptimeMillis", Value: int64(2)},
			{Key: "repl", Value: bson.D{{Key: "isWritablePrimary", Value: false}, {Key: "secondary", Value: false}}},
			{Key: "wiredTiger", Value: bson.D{{Key: "cache", Value: cache[:1]}}}},
			want: ServerStats{PID: 1, UptimeMS: 2, PagesRequested: 5000}},
		{name: "not serverStatus", reply: bson.D{{Key: "ok", Value: 1}}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := bson.Marshal(tt.reply)
			if err != nil {
				t.Fatal(err)
			}
			got, err := serverStatsFrom(raw)
			if (err != nil) != tt.err {
				t.Fatalf("err %v, want error %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
