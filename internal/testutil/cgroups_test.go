package testutil

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/decongestant/decongestant/cluster"
)

// recorder is a testing.TB whose Skipf and Fatalf record the message and stop the goroutine, as
// the real ones do.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestSkipWithoutCgroups(t *testing.T) {
	noCgroup := fmt.Errorf("member n1: cpu %w: neither /sys/fs/cgroup/cgroup.controllers (v2) nor ... exists", cluster.ErrCgroupUnavailable)
	tests := []struct {
		name, env  string
		err        error
		skip, fail string // parts of the message; "" = must not happen
	}{
		{"no error", "1", nil, "", ""},
		{"another error", "1", errors.New("port in use"), "", ""},
		{"no cgroup, unset", "", noCgroup, "needs a writable cgroup (DECONGESTANT_REQUIRE_CGROUPS=1 makes this a failure): member n1: cpu cgroup unavailable", ""},
		{"no cgroup, 0", "0", noCgroup, "needs a writable cgroup", ""},
		{"no cgroup, required", "1", noCgroup, "", "this test needs a cgroup and DECONGESTANT_REQUIRE_CGROUPS=1 requires it: member n1: cpu cgroup unavailable"},
		{"no cgroup, true", "true", noCgroup, "", "requires it"},
		{"no cgroup, not a boolean", "yes", noCgroup, "", `DECONGESTANT_REQUIRE_CGROUPS="yes" is not a boolean`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RequireCgroupsEnv, tt.env)
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() { // Skipf and Fatalf end the goroutine they run on
				defer close(done)
				SkipWithoutCgroups(r, tt.err)
			}()
			<-done
			if (tt.skip == "") != (r.skipped == "") || !strings.Contains(r.skipped, tt.skip) {
				t.Errorf("skipped %q, want %q", r.skipped, tt.skip)
			}
			if (tt.fail == "") != (r.failed == "") || !strings.Contains(r.failed, tt.fail) {
				t.Errorf("failed %q, want %q", r.failed, tt.fail)
			}
		})
	}
}
