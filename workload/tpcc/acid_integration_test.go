package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

// nonDurability is every ACID test but durability.
func nonDurability() []string {
	var names []string
	for _, n := range ACIDTests() {
		if n != testDurabilityName {
			names = append(names, n)
		}
	}
	return names
}

// TestACIDAtomicityIsolation runs the atomicity and isolation tests of
// clauses 3.2.2 and 3.4.2 on a fresh small database of each schema: all
// pass and leave it consistent. Then, on the denormalized one, each test
// runs again with its anomaly planted and must fail.
func TestACIDAtomicityIsolation(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dbs := map[Schema]*mongo.Database{}
	for _, schema := range []Schema{Denormalized, Normalized} {
		cfg := smallConfig(schema)
		cfg.Warehouses = 1
		db := loadedDB(t, client, "tpcc_acid_"+schema.String(), cfg)
		dbs[schema] = db
		t.Run(schema.String(), func(t *testing.T) {
			res, err := ACID(ctx, db, ACIDOptions{Only: nonDurability()})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(acidTests)-1 {
				t.Fatalf("%d results, want %d", len(res), len(acidTests)-1)
			}
			for _, r := range res {
				if r.Status != Pass {
					t.Errorf("%s (%s): %s: %s", r.Test, r.Clause, r.Status, r.Detail)
				} else {
					t.Logf("%s (%s) %v: %s", r.Test, r.Clause, r.Duration.Round(time.Millisecond), r.Detail)
				}
			}
			assertConsistent(t, ctx, db, cfg)
		})
	}
	if t.Failed() {
		t.FailNow()
	}
	db := dbs[Denormalized]
	for _, name := range nonDurability() {
		t.Run("planted/"+name, func(t *testing.T) {
			res, err := ACID(ctx, db, ACIDOptions{Only: []string{name}, plant: name})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || res[0].Status != Fail {
				t.Fatalf("with %q planted: %+v, want one failed result", plantOf(name), res)
			}
			t.Logf("planted %q: %s", plantOf(name), res[0].Detail)
		})
	}
}

func plantOf(name string) string {
	for _, t := range acidTests {
		if t.name == name {
			return t.plant
		}
	}
	return ""
}

// TestACIDDurability runs the durability test of clause 3.5.4 on the
// shared set: with write concern majority every acknowledged New-Order
// survives the primary's SIGKILL; with w:1 and the secondaries cut off
// before the kill, the last acknowledged ones are lost and the test fails.
// Both restore the set.
func TestACIDDurability(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	client := testutil.Connect(t, rs.URI())
	cfg := smallConfig(Denormalized)
	cfg.Warehouses = 1
	db := loadedDB(t, client, "tpcc_acid_durability", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dur := DurabilityOptions{Clients: 3, BeforeKill: 10, AfterKill: 10}

	t.Run("majority", func(t *testing.T) {
		res, err := ACID(ctx, db, ACIDOptions{Only: []string{"durability"}, Failover: testFailover(t, rs, nil), Durability: dur})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Status != Pass {
			t.Fatalf("durability: %+v", res)
		}
		t.Logf("%s: %s", res[0].Duration.Round(time.Millisecond), res[0].Detail)
	})
	t.Run("planted", func(t *testing.T) {
		// Cut the secondaries off, let the primary acknowledge w:1
		// New-Orders they never receive, then kill it.
		cutOff := func(ctx context.Context, primary cluster.Member) (undo func(context.Context) error, err error) {
			var others []string
			for _, m := range rs.Members() {
				if m.Name != primary.Name {
					others = append(others, m.Name)
				}
			}
			undo = func(ctx context.Context) error {
				for _, n := range others {
					if err := rs.RejoinMember(ctx, n); err != nil {
						return err
					}
				}
				return nil
			}
			for _, n := range others {
				if err := rs.IsolateMember(ctx, n); err != nil {
					return undo, err
				}
			}
			orders := db.Collection(collOrders)
			n0, err := orders.CountDocuments(ctx, bson.D{})
			if err != nil {
				return undo, err
			}
			return undo, testutil.Until(ctx, 30*time.Second, func() bool {
				n, err := orders.CountDocuments(ctx, bson.D{})
				return err == nil && n >= n0+5
			}, "5 New-Orders acknowledged with w:1 while the secondaries are cut off")
		}
		res, err := ACID(ctx, db, ACIDOptions{Only: []string{"durability"}, Failover: testFailover(t, rs, cutOff), Durability: dur, plant: "durability"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Status != Fail || !strings.Contains(res[0].Detail, "missing") {
			t.Fatalf("durability with w:1 planted: %+v, want a failure naming missing orders", res)
		}
		t.Logf("planted %q: %s", plantOf("durability"), res[0].Detail)
	})
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	if err := rs.WaitHealthy(wctx); err != nil {
		t.Fatalf("set not healthy after the durability tests: %v", err)
	}
}

// testFailover kills the primary of rs (after before, if set, and undoing
// it after the kill) and asks a survivor to stand for election at once
// (replSetStepUp), so the test does not wait out the election timeout.
func testFailover(t *testing.T, rs *cluster.Cluster, before func(context.Context, cluster.Member) (func(context.Context) error, error)) *Failover {
	return &Failover{
		KillPrimary: func(ctx context.Context) (string, error) {
			p, err := rs.Primary(ctx)
			if err != nil {
				return "", err
			}
			var undo func(context.Context) error
			if before != nil {
				undo, err = before(ctx, p)
				if err != nil {
					if undo != nil {
						undo(ctx)
					}
					return "", err
				}
			}
			if err := rs.KillMember(ctx, p.Name); err != nil {
				return "", err
			}
			if undo != nil {
				if err := undo(ctx); err != nil {
					return p.Name, err
				}
			}
			stepUp(t, ctx, rs, p.Name)
			return p.Name, nil
		},
		Restart: func(ctx context.Context, member string) error {
			if err := rs.RestartMember(ctx, member); err != nil {
				return err
			}
			return rs.WaitHealthy(ctx)
		},
	}
}

// stepUp asks each member but dead, in turn, to run for election until one
// wins; a member behind the others loses, and the election timeout would
// elect one anyway.
func stepUp(t *testing.T, ctx context.Context, rs *cluster.Cluster, dead string) {
	for _, m := range rs.Members() {
		if m.Name == dead {
			continue
		}
		c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + m.Host + "/?directConnection=true"))
		if err != nil {
			continue
		}
		err = c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepUp", Value: 1}}).Err()
		c.Disconnect(context.Background())
		if err == nil {
			return
		}
		t.Logf("replSetStepUp on %s: %v", m.Name, err)
	}
}
