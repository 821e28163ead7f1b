package testutil

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/cluster"
)

// Standalone starts a mongod that is not a replica set member, on a free
// loopback port in the test's temp dir, waits until it answers, and kills
// it at cleanup (and if the test binary dies). It returns its host:port.
// With -short the test is skipped.
func Standalone(tb testing.TB) string {
	tb.Helper()
	SkipIfShort(tb)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	bin, err := cluster.FindMongod(ctx, "", "", nil)
	if err != nil {
		tb.Fatal(err)
	}
	host := "127.0.0.1:" + strconv.Itoa(FreePort(tb))
	dir := tb.TempDir()
	cmd := exec.Command(bin, "--port", host[len("127.0.0.1:"):], "--bind_ip", "127.0.0.1", "--dbpath", dir,
		"--logpath", filepath.Join(dir, "mongod.log"), "--nounixsocket", "--wiredTigerCacheSizeGB", "0.25")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + host + "/?directConnection=true"))
	if err != nil {
		tb.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	if err := Until(ctx, startTimeout, func() bool {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return client.Database("admin").RunCommand(pctx, bson.D{{Key: "ping", Value: 1}}).Err() == nil
	}, "the standalone mongod to answer"); err != nil {
		tb.Fatal(err)
	}
	return host
}
