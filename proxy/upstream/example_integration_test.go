package upstream_test

import (
	"testing"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

// TestExample runs Example against a set with authentication and TLS, as
// its comment has it, as the application user.
func TestExample(t *testing.T) {
	rs := testutil.StartReplicaSet(t, cluster.Config{Members: 2, Auth: true, TLS: true})
	uri, err := rs.AppURI()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("DECONGESTANT_URI", uri)
	if got, want := testutil.Stdout(t, Example), "reply to request 7\n"; got != want {
		t.Errorf("Example printed %q, want %q", got, want)
	}
}
