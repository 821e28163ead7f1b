package upstream

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

// New refuses, at once, a URI that does not reach a replica set through
// its members: a standalone mongod, with or without directConnection, and
// a direct connection to one member of a set.
func TestNewRefusesWhatIsNotAReplicaSet(t *testing.T) {
	standalone := testutil.Standalone(t)
	member := testutil.ReplicaSet(t).Members()[0].Host
	tests := []struct {
		name, uri, want string
	}{
		{"standalone", "mongodb://" + standalone, "upstream: " + standalone + " is a standalone mongod, not a replica set member: the proxy needs a replica set"},
		{"standalone, direct", "mongodb://" + standalone + "/?directConnection=true", "is a standalone mongod"},
		{"one member, direct", "mongodb://" + member + "/?directConnection=true", "upstream: directConnection=true reaches one member only: the proxy needs them all: drop it and name the set (replicaSet=NAME)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			p, err := New(ctx, tt.uri)
			if err == nil {
				p.Close(context.Background())
				t.Fatal("New accepted it")
			}
			if !errors.Is(err, ErrNotReplicaSet) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v; want ErrNotReplicaSet and %q", err, tt.want)
			}
			t.Logf("refused in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}
