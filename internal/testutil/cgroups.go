package testutil

import (
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/decongestant/decongestant/cluster"
)

// RequireCgroupsEnv names the environment variable that turns a test's "no cgroup" skip into a
// failure: CI (.ci/run) sets it to 1, so every test that needs a CPU or memory cgroup runs there or
// fails saying why. Unset (or false), such a test skips with the reason, as `go test -short` skips
// every test that needs mongod.
const RequireCgroupsEnv = "DECONGESTANT_REQUIRE_CGROUPS"

// SkipWithoutCgroups ends a test that needs a CPU or memory cgroup when err says none is available
// (errors.Is cluster.ErrCgroupUnavailable): it skips the test, naming err, or fails it when
// DECONGESTANT_REQUIRE_CGROUPS is true. Any other err, nil included, it leaves to the caller.
func SkipWithoutCgroups(tb testing.TB, err error) {
	tb.Helper()
	if !errors.Is(err, cluster.ErrCgroupUnavailable) {
		return
	}
	v := os.Getenv(RequireCgroupsEnv)
	required, perr := strconv.ParseBool(v)
	switch {
	case v != "" && perr != nil:
		tb.Fatalf("%s=%q is not a boolean (1 or 0), and this test needs a cgroup: %v", RequireCgroupsEnv, v, err)
	case required:
		tb.Fatalf("this test needs a cgroup and %s=%s requires it: %v", RequireCgroupsEnv, v, err)
	}
	tb.Skipf("needs a writable cgroup (%s=1 makes this a failure): %v", RequireCgroupsEnv, err)
}
