package tpcc

import (
	"os"
	"testing"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestMain starts the package's shared replica set on first use and tears
// it down after the tests.
func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }
