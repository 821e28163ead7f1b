// Package testutil starts real MongoDB replica sets for integration tests.
//
// A test package that uses ReplicaSet must tear the shared set down from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
//
// Every set is started with cluster.Config.DieWithParent, so even a test binary killed by
// `go test -timeout` leaves no mongod running (its temp dir may stay behind then).
package testutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/cluster"
)

const (
	startTimeout   = 2 * time.Minute
	healthyTimeout = time.Minute
	downTimeout    = time.Minute
)

var (
	mu        sync.Mutex // guards the shared set; held while it starts
	shared    *cluster.Cluster
	sharedErr error

	liveMu sync.Mutex                      // never held for long, so the signal handler cannot wait on a start
	live   = map[*cluster.Cluster]string{} // every set not yet torn down → temp dir to remove ("" = none)
)

func track(c *cluster.Cluster, tmp string) {
	liveMu.Lock()
	defer liveMu.Unlock()
	live[c] = tmp
}

func untrack(c *cluster.Cluster) {
	liveMu.Lock()
	defer liveMu.Unlock()
	delete(live, c)
}

// Main runs the package's tests, then tears down the shared replica set if one was started, and
// returns the exit code for os.Exit. A SIGINT or SIGTERM during the run tears down every replica set
// this package started and exits with status 1.
func Main(m *testing.M) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	stop := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(os.Stderr, "testutil: %v: tearing down replica sets\n", s)
			teardownAll()
			os.Exit(1)
		case <-stop:
		}
	}()
	code := m.Run()
	signal.Stop(sigs)
	close(stop)
	if err := teardownShared(); err != nil {
		fmt.Fprintf(os.Stderr, "testutil: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// ReplicaSet returns the 3-member replica set shared by the package's tests, starting it on first
// use (free ports, temp dir, no CPU cap), and waits until it is healthy: a test that broke it must
// have restored it. If the set cannot be started, every caller fails with the error. With -short
// the test is skipped: `go test -short ./...` is the fast loop without mongod.
func ReplicaSet(tb testing.TB) *cluster.Cluster {
	tb.Helper()
	SkipIfShort(tb)
	mu.Lock()
	defer mu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = startShared()
	}
	if sharedErr != nil {
		tb.Fatalf("shared replica set: %v", sharedErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), healthyTimeout)
	defer cancel()
	if err := shared.WaitHealthy(ctx); err != nil {
		tb.Fatalf("shared replica set: %v", err)
	}
	return shared
}

func startShared() (*cluster.Cluster, error) {
	tmp, err := os.MkdirTemp("", "decongestant-test-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Config{Dir: filepath.Join(tmp, "rs"), DieWithParent: true})
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	track(c, tmp)
	return c, nil
}

// SkipIfShort skips a test that needs mongod when -short is set.
func SkipIfShort(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("needs mongod; skipped with -short")
	}
}

// NewReplicaSet starts a replica set of the given size and per-member CPU cap (0 = none) for one
// test, in the test's temp dir, and tears it down in tb.Cleanup. It fails the test if the set cannot
// be started, except that it skips the test, naming the reason, when a CPU (or, through
// StartReplicaSet, memory) cap was asked for and no cgroup with that controller is available
// (SkipWithoutCgroups: a failure when DECONGESTANT_REQUIRE_CGROUPS=1).
func NewReplicaSet(tb testing.TB, members int, cpu float64) *cluster.Cluster {
	tb.Helper()
	return StartReplicaSet(tb, cluster.Config{Members: members, CPU: cpu})
}

// StartReplicaSet is NewReplicaSet for any config (per-member caps, memory caps, say): cfg.Dir
// defaults to a dir in the test's temp dir, and DieWithParent is always set.
func StartReplicaSet(tb testing.TB, cfg cluster.Config) *cluster.Cluster {
	tb.Helper()
	SkipIfShort(tb)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(tb.TempDir(), "rs")
	}
	cfg.DieWithParent = true
	c, err := cluster.Start(ctx, cfg)
	SkipWithoutCgroups(tb, err)
	if err != nil {
		tb.Fatalf("start replica set: %v", err)
	}
	track(c, "")
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), downTimeout)
		defer cancel()
		if err := c.Down(ctx); err != nil {
			tb.Errorf("tear down replica set: %v", err)
		}
		untrack(c)
	})
	return c
}

// Connect returns a client for uri, disconnected in tb.Cleanup unless the test disconnected it.
// A test that takes the set down itself should disconnect first: disconnecting from a set that
// is gone waits for server selection to time out.
func Connect(tb testing.TB, uri string) *mongo.Client {
	tb.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		tb.Fatalf("connect %s: %v", uri, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := client.Disconnect(ctx); err != nil && !errors.Is(err, mongo.ErrClientDisconnected) {
			tb.Errorf("disconnect %s: %v", uri, err)
		}
	})
	return client
}

func teardownShared() error {
	mu.Lock()
	defer mu.Unlock()
	if shared == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), downTimeout)
	defer cancel()
	if err := shared.Down(ctx); err != nil {
		return fmt.Errorf("tear down shared replica set: %w", err)
	}
	liveMu.Lock()
	tmp := live[shared]
	liveMu.Unlock()
	untrack(shared)
	shared = nil
	return os.RemoveAll(tmp)
}

// teardownAll is the signal handler's: it takes only liveMu, so a set being started is not waited
// for (DieWithParent kills it when the process exits).
func teardownAll() {
	liveMu.Lock()
	defer liveMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), downTimeout)
	defer cancel()
	for c, tmp := range live {
		if err := c.Down(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "testutil: %v\n", err)
		}
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}
}
