package router_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestExample runs the library example of README.md (Example, through run,
// so that an error fails the test instead of exiting) against a real set.
func TestExample(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	t.Setenv("DECONGESTANT_URI", rs.URI())
	testutil.DropAtCleanup(t, testutil.Connect(t, rs.URI()).Database("app"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	out := testutil.Stdout(t, func() { err = run(ctx) })
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^ada served by map\[[^ ]+:\d+:[1-9]\d*\]\n$`).MatchString(out) {
		t.Errorf("printed %q; want the user found and the member that served the read", out)
	}
}

// TestExamples runs the examples that need a replica set, so have no Output
// comment, against a real set, and checks the line each prints last.
func TestExamples(t *testing.T) {
	rs := testutil.ReplicaSet(t)
	t.Setenv("DECONGESTANT_URI", rs.URI())
	testutil.DropAtCleanup(t, testutil.Connect(t, rs.URI()).Database("app"))
	for _, c := range []struct {
		name string
		f    func()
		last string
	}{
		{"Connect", ExampleConnect, `^\d+ orders; \d+% of routed reads served by secondaries$`},
		{"Router_Weights", ExampleRouter_Weights, `^\d+ orders read from (the primary|[^ ]+:\d+); shares in force primary=[0-9.]+(,[^ ]+:\d+=[0-9.e-]+)*$`},
		{"Router_Stats", ExampleRouter_Stats, `^[^ ]+:\d+ \((primary|secondary)\): \d+ reads, wire p50 .* over the latest period, lag .*, share [01]\.\d\d$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := testutil.Stdout(t, c.f)
			lines := regexp.MustCompile(`\n`).Split(out, -1)
			if len(lines) < 2 || lines[len(lines)-1] != "" {
				t.Fatalf("printed %q", out)
			}
			if last := lines[len(lines)-2]; !regexp.MustCompile(c.last).MatchString(last) {
				t.Errorf("last line %q does not match %s; printed:\n%s", last, c.last, out)
			}
			fmt.Print(out)
		})
	}
}
