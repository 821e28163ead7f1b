package tpch

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// TestReplicaSet runs the integration tests against the package's shared
// three-member replica set, each in its own database.
func TestReplicaSet(t *testing.T) {
	client := testutil.Connect(t, testutil.ReplicaSet(t).URI())
	for _, tt := range []struct {
		name string
		run  func(*testing.T, *mongo.Database)
	}{
		{"load and q1", testLoadAndQ1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := client.Database("tpch_" + strings.ReplaceAll(tt.name, " ", "_"))
			t.Cleanup(func() {
				if err := db.Drop(context.Background()); err != nil {
					t.Errorf("drop %s: %v", db.Name(), err)
				}
			})
			tt.run(t, db)
		})
	}
}
