package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

// The compatibility suite with other drivers than Go's: pymongo
// (testdata/pymongo_compat.py) and the Node.js driver
// (testdata/node/client.js), each through a routing proxy in front of a
// real replica set, checked by the member that answered each read.

// driver runs one of the drivers' scripts.
type driver struct {
	name string
	// present reports whether the driver's runtime is installed (need
	// may still skip: npm ci may fail).
	present func() bool
	// need skips the test without the driver (fails it under its
	// DECONGESTANT_REQUIRE_ env var) and returns the script's command
	// for the proxy at addr in the given mode.
	need func(t *testing.T) func(ctx context.Context, addr string, args ...string) *exec.Cmd
}

var drivers = []driver{
	{"pymongo", func() bool { return exec.Command("python3", "-c", "import pymongo").Run() == nil }, func(t *testing.T) func(context.Context, string, ...string) *exec.Cmd {
		t.Helper()
		needPymongo(t)
		return pymongoCmd
	}},
	{"node", func() bool {
		_, errNode := exec.LookPath("node")
		_, errNpm := exec.LookPath("npm")
		return errNode == nil && errNpm == nil
	}, func(t *testing.T) func(context.Context, string, ...string) *exec.Cmd {
		t.Helper()
		modules := nodeModules(t)
		return func(ctx context.Context, addr string, args ...string) *exec.Cmd {
			return nodeCmd(ctx, modules, addr, args...)
		}
	}},
}

// nodeCmd is `node testdata/node/client.js addr args...` with the driver
// in modules/node_modules.
func nodeCmd(ctx context.Context, modules, addr string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(nodeSrc, "client.js"), addr}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(modules, "node_modules"))
	return cmd
}

func pymongoCmd(ctx context.Context, addr string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "python3", append([]string{"testdata/pymongo_compat.py", addr}, args...)...)
}

// runScript runs cmd and returns its stdout; a failure ends the test with
// both outputs.
func runScript(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd.Args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// answeredBy fails the test unless the reads got (by member) number n and
// were all answered by the members in hosts.
func answeredBy(t *testing.T, got map[string]int64, n int64, hosts ...string) {
	t.Helper()
	total := int64(0)
	for h, k := range got {
		total += k
		if !slices.Contains(hosts, h) {
			t.Fatalf("reads by member %v: %s answered %d, want only %v", got, h, k, hosts)
		}
	}
	if total != n {
		t.Fatalf("reads by member %v: %d counted, want %d on %v", got, total, n, hosts)
	}
}

// TestPymongoWrites: pymongo's mixed bulk writes (ordered, with an upsert;
// unordered, with a duplicate key), and a document near 16 MB written and
// read back, through a routing proxy. Its reads carry no read preference:
// the primary answers all four.
func TestPymongoWrites(t *testing.T) {
	needPymongo(t)
	rs := testutil.ReplicaSet(t)
	s, addr, primary, _ := startRouting(t, rs, Config{})
	testutil.DropAtCleanup(t, testutil.Connect(t, rs.URI()).Database("proxytest_py_writes"))
	before := s.Stats()
	out := runScript(t, pymongoCmd(ctxFor(t, 3*time.Minute), addr, "writes"))
	want := []string{
		"bulk_write inserted 3 matched 12 modified 12 deleted 11 upserted 1, 43 left",
		"unordered bulk_write inserted 2, duplicate at index 1, 45 left",
		"big document 16252928 bytes ok",
	}
	if got := lines(out); !slices.Equal(got, want) {
		t.Fatalf("pymongo_compat.py writes printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	answeredBy(t, readsSince(s, before), 4, primary)
}

// TestPymongoReadPreferenceMatrix checks, by the member that answered each
// read, where pymongo's reads go through the proxy for each read
// preference: one python process per mode, so the proxy's counters before
// and after count that mode's reads alone.
func TestPymongoReadPreferenceMatrix(t *testing.T) {
	needPymongo(t)
	rs := testutil.ReplicaSet(t)
	s, addr, primary, secs := startRouting(t, rs, Config{})
	// Written directly, not through the proxy: a write through it would
	// fence its connection's reads (see TestReadPreferenceMatrix).
	direct := testutil.Connect(t, rs.URI())
	db := direct.Database("proxytest_py_matrix")
	testutil.DropAtCleanup(t, db)
	docs := make([]any, 30)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 3}}
	}
	if _, err := db.Collection("c").InsertMany(ctx(t), docs); err != nil {
		t.Fatal(err)
	}
	testutil.WaitReplicated(t, direct)
	name := map[string]string{}
	for _, m := range rs.Members() {
		name[m.Host] = m.Name
	}

	const n = 20
	for _, tc := range []struct {
		test, mode, tags string
		on               []string
	}{
		{"primary stays on the primary", "primary", "", []string{primary}},
		{"secondaryPreferred is routed", "secondaryPreferred", "", secs},
		{"secondary is routed", "secondary", "", secs},
		{"nearest is routed", "nearest", "", secs},
		{"primaryPreferred stays on the primary while there is one", "primaryPreferred", "", []string{primary}},
		{"tags restrict the members", "secondaryPreferred", fmt.Sprintf(`[{"node": "nowhere"}, {"node": %q}]`, name[secs[1]]), []string{secs[1]}},
		{"tags no member has: the primary", "secondaryPreferred", `[{"node": "nowhere"}]`, []string{primary}},
	} {
		t.Run(tc.test, func(t *testing.T) {
			args := []string{"reads", tc.mode, fmt.Sprint(n)}
			if tc.tags != "" {
				args = append(args, tc.tags)
			}
			before := s.Stats()
			if out := runScript(t, pymongoCmd(ctxFor(t, 3*time.Minute), addr, args...)); out != fmt.Sprintf("reads %s %d\n", tc.mode, n) {
				t.Fatalf("pymongo_compat.py %s printed %q", strings.Join(args, " "), out)
			}
			answeredBy(t, readsSince(s, before), n, tc.on...)
		})
	}
}

// TestDriversReadYourWrites is TestReadYourWrites' planted case with
// pymongo and the Node.js driver: replication is paused on the
// secondaries, then the script writes a document and reads it back 20
// times with secondaryPreferred on the same connection (one process, a
// pool of one). With the fence, every read finds it and the primary
// answered all; without, none finds it and the primary answered none.
func TestDriversReadYourWrites(t *testing.T) {
	testutil.SkipIfShort(t)
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			command := d.need(t)
			rs := testutil.ReplicaSet(t)
			for _, on := range []bool{true, false} {
				t.Run(fmt.Sprintf("read-your-writes %v", on), func(t *testing.T) {
					s, addr, primary, secs := startRouting(t, rs, Config{NoReadYourWrites: !on})
					direct := testutil.Connect(t, rs.URI())
					db := direct.Database("proxy_compat_ryw")
					testutil.DropAtCleanup(t, db)
					if _, err := db.Collection("c").InsertOne(ctx(t), bson.D{{Key: "_id", Value: "warm"}}); err != nil {
						t.Fatal(err)
					}
					testutil.WaitReplicated(t, direct)
					waitPoll(t, s)
					resume := testutil.PauseSecondaries(t, rs)
					const reads = 20
					before := s.Stats()
					out := runScript(t, command(ctxFor(t, 3*time.Minute), addr, "ryw", fmt.Sprint(reads)))
					got := readsSince(s, before)
					resume()
					var found, of int
					if _, err := fmt.Sscanf(out, "ryw found %d of %d\n", &found, &of); err != nil || of != reads {
						t.Fatalf("%s ryw printed %q (%v)", d.name, out, err)
					}
					if on {
						if found != reads {
							t.Fatalf("fenced: %d of %d reads saw the write, want all", found, reads)
						}
						answeredBy(t, got, reads, primary)
					} else {
						if found != 0 {
							t.Fatalf("unfenced: %d of %d reads saw the write, want none (the secondaries %v have not applied it)", found, reads, secs)
						}
						answeredBy(t, got, reads, secs...)
					}
				})
			}
		})
	}
}

// TestDriversStepdown: the primary of a replica set of the test's own
// steps down while pymongo and then the Node.js driver write (retryable
// writes, distinct _ids) and read (secondaryPreferred) through the proxy,
// each with its default retries and no timeouts. The script reports
// traffic, the test steps the primary down and tells it so, the script goes
// on for 50 more calls of each kind, stops and reports how many inserts and
// reads were acknowledged: the collection must hold exactly that many
// documents (each retried write applied once), no call failed, every call
// returned (the script ended), and the proxy counted at least that many
// reads answered by the members.
func TestDriversStepdown(t *testing.T) {
	testutil.SkipIfShort(t)
	// One set for both drivers (the second steps down the primary the
	// first one's stepdown elected); started on this test's goroutine, so
	// only when a driver is there to use it.
	var rs *cluster.Cluster
	if slices.ContainsFunc(drivers, func(d driver) bool { return d.present() }) {
		rs = testutil.NewReplicaSet(t, 3, 0)
	}
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			command := d.need(t)
			s, addr, _, _ := startRouting(t, rs, Config{})
			direct := testutil.Connect(t, rs.URI())
			db := direct.Database("proxy_compat_failover")
			testutil.DropAtCleanup(t, db)

			cmd := command(ctxFor(t, 3*time.Minute), addr, "stepdown")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			before := s.Stats()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewScanner(stdout)
			var printed []string
			line := func() string {
				if !out.Scan() {
					return ""
				}
				printed = append(printed, out.Text())
				return out.Text()
			}
			// fail ends the script (closing its stdin ends the wait for
			// the stepdown) and the test, with what the script printed.
			fail := func(format string, args ...any) {
				t.Helper()
				stdin.Close()
				rest, _ := io.ReadAll(stdout)
				err := cmd.Wait()
				t.Fatalf("%s (script: %v)\nstdout:\n%s%s\nstderr:\n%s", fmt.Sprintf(format, args...), err, strings.Join(printed, "\n"), rest, stderr.String())
			}
			if got := line(); got != "started" {
				fail("%s stepdown printed %q first, want started", d.name, got)
			}
			next, err := rs.StepDown(ctxFor(t, 2*time.Minute))
			if err != nil {
				fail("step down: %v", err)
			}
			if _, err := io.WriteString(stdin, "stepped down\n"); err != nil {
				fail("telling the script: %v", err)
			}
			stdin.Close()
			counts := line()
			rest, _ := io.ReadAll(stdout)
			if err := cmd.Wait(); err != nil || len(rest) != 0 {
				t.Fatalf("%s stepdown: %v\nstdout:\n%s\n%s\nstderr:\n%s", d.name, err, strings.Join(printed, "\n"), rest, stderr.String())
			}
			var written, read int64
			if _, err := fmt.Sscanf(counts, "written %d read %d", &written, &read); err != nil {
				t.Fatalf("%s stepdown printed %q, want the counts: %v", d.name, counts, err)
			}
			t.Logf("%s is primary; %s: %d inserts, %d reads acknowledged", next.Name, d.name, written, read)
			n, err := db.Collection("c").CountDocuments(ctx(t), bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			if n != written {
				t.Fatalf("%d documents for %d acknowledged inserts: a retried write was lost or applied twice", n, written)
			}
			total := int64(0)
			got := readsSince(s, before)
			for _, k := range got {
				total += k
			}
			if total < read {
				t.Fatalf("reads by member %v: %d counted, want at least the %d the driver saw answered", got, total, read)
			}
		})
	}
}
