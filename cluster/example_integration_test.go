package cluster_test

import (
	"testing"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestExampleStart runs ExampleStart, which starts its own mongod, and
// checks the output its comment shows.
func TestExampleStart(t *testing.T) {
	testutil.SkipIfShort(t)
	if got, want := testutil.Stdout(t, ExampleStart), "true\nn1 PRIMARY true\n"; got != want {
		t.Errorf("ExampleStart printed %q, want %q", got, want)
	}
}
