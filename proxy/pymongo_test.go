package proxy

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

// RequirePymongoEnv makes TestPymongo fail, rather than skip, without
// python3 and pymongo (CI installs them).
const RequirePymongoEnv = "DECONGESTANT_REQUIRE_PYMONGO"

// TestPymongo drives the proxy with pymongo (testdata/pymongo_client.py):
// it must see a mongos, and insert, find in batches, aggregate, count,
// distinct, a transaction and a w:0 insert must work through it.
func TestPymongo(t *testing.T) {
	needPymongo(t)
	_, addr, _ := startProxy(t)
	cmd := exec.CommandContext(ctxFor(t, 3*time.Minute), "python3", "testdata/pymongo_client.py", addr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pymongo through the proxy: %v\n%s", err, out)
	}
	for _, want := range []string{"topology Sharded", "find 50", "aggregate 1225", "count 10", "distinct [0, 1, 2, 3, 4]", "transaction ok", "w0 ok"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// needPymongo skips the test with -short, and without python3 and pymongo
// (fails then with RequirePymongoEnv=1).
func needPymongo(t *testing.T) {
	t.Helper()
	testutil.SkipIfShort(t)
	if out, err := exec.Command("python3", "-c", "import pymongo").CombinedOutput(); err != nil {
		msg := "python3 with pymongo is needed (python3 -m pip install --user pymongo==4.10.1): " + strings.TrimSpace(string(out))
		if os.Getenv(RequirePymongoEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}
