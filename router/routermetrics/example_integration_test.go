package routermetrics_test

import (
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// TestExampleNew runs ExampleNew against the package's replica set and
// scrapes the metrics it serves. The example serves until the test binary
// ends (so does its router); a failure to connect or to listen ends the
// binary through log.Fatal, which fails the package.
func TestExampleNew(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	ln, err := net.Listen("tcp", ":9464")
	if err != nil {
		t.Skipf("ExampleNew listens on :9464, which is in use: %v", err)
	}
	ln.Close()
	t.Setenv("DECONGESTANT_URI", rs.URI())
	go ExampleNew()

	var body string
	testutil.Eventually(t, time.Minute, func() bool {
		resp, err := http.Get("http://127.0.0.1:9464/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		body = string(b)
		return err == nil && resp.StatusCode == http.StatusOK
	}, "ExampleNew serves no metrics on :9464")
	for _, want := range []string{"\ndecongestant_fraction ", "\ndecongestant_lag_known 1\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("the scrape has no %q:\n%s", want, body)
		}
	}
}
