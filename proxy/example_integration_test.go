package proxy_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestExample runs Example in front of the package's replica set and
// writes and reads through it as a driver would. The example serves until
// the test binary ends; a failure to start ends the binary through
// log.Fatal, which fails the package.
func TestExample(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	ln, err := net.Listen("tcp", "127.0.0.1:27018")
	if err != nil {
		t.Skipf("Example listens on 127.0.0.1:27018, which is in use: %v", err)
	}
	ln.Close()
	t.Setenv("DECONGESTANT_URI", rs.URI())
	go Example()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := testutil.Connect(t, "mongodb://127.0.0.1:27018/?serverSelectionTimeoutMS=30000")
	coll := client.Database("proxyexample").Collection("c")
	testutil.DropAtCleanup(t, client.Database("proxyexample"))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "through the proxy"}}); err != nil {
		t.Fatalf("insert through the example's proxy: %v", err)
	}
	var got bson.M
	primary := client.Database("proxyexample").Collection("c", options.Collection().SetReadPreference(readpref.Primary()))
	if err := primary.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil {
		t.Fatalf("find through the example's proxy: %v", err)
	}
	if got["v"] != "through the proxy" {
		t.Errorf("read %v through the example's proxy", got)
	}
}
