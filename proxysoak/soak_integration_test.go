package proxysoak_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxysoak"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// TestSoakFlagsPlantedViolations runs a short soak (20 connections, 30 s,
// one stepdown, a few hostile connections) and, once the clients stopped,
// plants two violations on the replica set itself: a transaction's
// counter incremented a second time, and an acknowledged insert deleted.
// The verdicts must flag exactly those two targets and fail the run; every
// other target must pass or go unjudged.
func TestSoakFlagsPlantedViolations(t *testing.T) {
	testutil.SkipIfShort(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "decongestant")
	build := exec.Command("go", "build", "-o", bin, "../cmd/decongestant")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pyShare := 0.5
	if exec.Command("python3", "-c", "import pymongo").Run() != nil {
		pyShare = 0 // the Go half alone
		t.Log("no python3 with pymongo: Go driver connections only")
	}
	var planted struct{ counter, doc string }
	o := proxysoak.Options{
		ProxyCommand: []string{bin, "proxy"},
		Duration:     30 * time.Second,
		Connections:  20,
		PythonShare:  pyShare,
		OpInterval:   500 * time.Millisecond,
		TxnEvery:     4,
		Schedule:     proxysoak.StepDownSchedule(30 * time.Second),
		Hostile: proxysoak.HostileConfig{OversizedMB: 8, OversizedConns: 1, OversizedEvery: 10 * time.Second,
			SlowConns: 2, FloodConns: 20, FloodEvery: 10 * time.Second, GarbageEvery: 5 * time.Second},
		SampleInterval: time.Second,
		Dir:            filepath.Join(dir, "soak"),
		Progress:       testWriter{t},
		AfterClients: func(ctx context.Context, db *mongo.Database, acked []string) error {
			var c struct {
				ID string `bson:"_id"`
			}
			if err := db.Collection("counters").FindOneAndUpdate(ctx, bson.D{{Key: "n", Value: 1}},
				bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}).Decode(&c); err != nil {
				return err
			}
			if len(acked) == 0 {
				return errors.New("no acknowledged insert to delete")
			}
			planted.counter, planted.doc = c.ID, acked[0]
			_, err := db.Collection("docs").DeleteOne(ctx, bson.D{{Key: "_id", Value: acked[0]}})
			return err
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	r, err := proxysoak.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r.Pass {
		t.Errorf("the run passed with a transaction applied twice and a write lost")
	}
	failed := map[string]string{}
	for _, v := range r.Verdicts {
		if v.Pass != nil && !*v.Pass {
			failed[v.Target] = v.Got
		}
	}
	want := []string{"transactions applied twice", "acknowledged w:majority writes lost"}
	for _, target := range want {
		if _, ok := failed[target]; !ok {
			t.Errorf("target %q not failed; verdicts %+v", target, r.Verdicts)
		}
	}
	if len(failed) != len(want) {
		t.Errorf("failed targets %v, want only %v", failed, want)
	}
	if r.Transactions.Twice != 1 || len(r.Transactions.TwiceIDs) != 1 || r.Transactions.TwiceIDs[0] != planted.counter {
		t.Errorf("applied twice: %d %v, want 1 [%s]", r.Transactions.Twice, r.Transactions.TwiceIDs, planted.counter)
	}
	if r.Writes.Lost != 1 || len(r.Writes.LostIDs) != 1 || r.Writes.LostIDs[0] != planted.doc {
		t.Errorf("lost writes: %d %v, want 1 [%s]", r.Writes.Lost, r.Writes.LostIDs, planted.doc)
	}
	if r.Hostile == nil || r.Hostile.Oversized.Opened == 0 || r.Hostile.Garbage.Opened == 0 {
		t.Errorf("hostile connections: %+v, want oversized and garbage ones opened", r.Hostile)
	}
	if r.Reads.Probes == 0 || r.ChangeStream.Expected == 0 || r.Transactions.Committed == 0 || len(r.Proxy.Samples) == 0 {
		t.Errorf("measured nothing: reads %+v, change stream %+v, transactions %+v, %d samples",
			r.Reads, r.ChangeStream, r.Transactions, len(r.Proxy.Samples))
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
