package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/decongestant/decongestant/cluster"
	"github.com/decongestant/decongestant/internal/testutil"
)

// RequireNodeEnv makes the tests that drive the proxy with the Node.js
// driver and mongosh fail, rather than skip, without node and npm or when
// their node_modules cannot be installed (CI has them).
const RequireNodeEnv = "DECONGESTANT_REQUIRE_NODE"

// nodeSrc holds package.json, package-lock.json and client.js.
const nodeSrc = "testdata/node"

var nodeInstall struct {
	once sync.Once
	dir  string // holds node_modules
	err  error
}

// nodeModules returns the directory whose node_modules hold the Node.js
// driver and mongosh pinned by testdata/node/package-lock.json, running
// npm ci once into the user cache dir (outside the repository; keyed by the
// hash of package.json and package-lock.json, so a new pin installs anew).
// Without node or npm, or when npm ci fails, it skips the test, or fails it
// when DECONGESTANT_REQUIRE_NODE=1.
func nodeModules(t *testing.T) string {
	t.Helper()
	skip := func(msg string) {
		t.Helper()
		if os.Getenv(RequireNodeEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			skip(fmt.Sprintf("%s is needed to drive the proxy with the Node.js driver and mongosh (install Node.js 20 or later with npm; the tests run npm ci themselves): %v", tool, err))
		}
	}
	nodeInstall.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		nodeInstall.dir, nodeInstall.err = installNodeModules(ctx, nodeSrc, cluster.DefaultCacheDir())
	})
	if nodeInstall.err != nil {
		skip(nodeInstall.err.Error())
	}
	return nodeInstall.dir
}

// installNodeModules runs `npm ci` on src's package.json and
// package-lock.json in cache/node-<hash> unless that directory exists, and
// returns it. It installs into a temporary sibling and renames it into
// place, so an interrupted install leaves nothing that looks complete, and
// two installs at once both end with one whole directory.
func installNodeModules(ctx context.Context, src, cache string) (string, error) {
	h := sha256.New()
	var files [][]byte
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return "", fmt.Errorf("node packages: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
		files = append(files, b)
	}
	dir := filepath.Join(cache, "node-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("node packages: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, "node-install-")
	if err != nil {
		return "", fmt.Errorf("node packages: %w", err)
	}
	defer os.RemoveAll(tmp)
	for i, name := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(tmp, name), files[i], 0o644); err != nil {
			return "", fmt.Errorf("node packages: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci of %s into %s: %w\n%s", src, tmp, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); statErr == nil {
			return dir, nil // another test process installed it first
		}
		return "", fmt.Errorf("node packages: %w", err)
	}
	return dir, nil
}

// runNode runs `node testdata/node/client.js addr args...` with the
// installed driver and returns its stdout; a failure ends the test with
// both outputs.
func runNode(t *testing.T, modules, addr string, args ...string) string {
	t.Helper()
	return runScript(t, nodeCmd(ctxFor(t, 3*time.Minute), modules, addr, args...))
}

// lines splits out into its lines, without the empty last one.
func lines(out string) []string {
	return strings.Split(strings.TrimRight(out, "\n"), "\n")
}

// TestNodeModules checks that the installed node_modules hold the versions
// package.json pins (so package-lock.json agrees with it). CI runs it first
// to install them.
func TestNodeModules(t *testing.T) {
	testutil.SkipIfShort(t)
	dir := nodeModules(t)
	b, err := os.ReadFile(filepath.Join(nodeSrc, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mongodb", "mongosh"} {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Version string }
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if want := pkg.Dependencies[name]; got.Version != want {
			t.Errorf("node_modules in %s hold %s %s, package.json pins %q", dir, name, got.Version, want)
		}
	}
}

// TestNodeDriver drives a routing proxy with the Node.js driver
// (testdata/node/client.js): it must see a mongos, and finds over many
// batches, aggregate, count, distinct, a mixed bulkWrite, a w:0 insert, a
// document near 16 MB, a transaction and secondaryPreferred reads must work
// through it. Then, by the member that answered each read, the driver's
// secondaryPreferred reads go to the secondaries and its primary reads to
// the primary.
func TestNodeDriver(t *testing.T) {
	testutil.SkipIfShort(t)
	modules := nodeModules(t)
	rs := testutil.ReplicaSet(t)
	s, addr, primary, secs := startRouting(t, rs, Config{})
	testutil.DropAtCleanup(t, testutil.Connect(t, rs.URI()).Database("proxytest_node"))

	want := []string{
		"topology Sharded Mongos",
		"find 50 sorted in batches of 2",
		"aggregate 1225",
		"count 10",
		"distinct 0,1,2,3,4",
		"bulkWrite inserted 3 matched 12 modified 12 deleted 11, 42 left",
		"w0 ok",
		"big document 16252928 bytes ok",
		"transaction ok",
		"secondaryPreferred reads ok",
	}
	if got := lines(runNode(t, modules, addr, "check")); !slices.Equal(got, want) {
		t.Fatalf("node client.js check printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if got := runNode(t, modules, addr, "seed"); got != "seeded 10\n" {
		t.Fatalf("node client.js seed printed %q", got)
	}
	waitPoll(t, s)
	const n = 20
	for _, tc := range []struct {
		mode string
		on   []string
	}{
		{"secondaryPreferred", secs},
		{"primary", []string{primary}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			before := s.Stats()
			if out := runNode(t, modules, addr, "reads", tc.mode, fmt.Sprint(n)); out != fmt.Sprintf("reads %s %d\n", tc.mode, n) {
				t.Fatalf("node client.js reads printed %q", out)
			}
			got := readsSince(s, before)
			total := int64(0)
			for h, k := range got {
				total += k
				if !slices.Contains(tc.on, h) {
					t.Fatalf("%s reads by member %v: %s answered %d, want only %v", tc.mode, got, h, k, tc.on)
				}
			}
			if total != n {
				t.Fatalf("%s reads by member %v: %d counted, want %d", tc.mode, got, total, n)
			}
		})
	}
}

// TestMongosh drives the proxy with mongosh: an insert, a find, and hello
// (the shell's helper and the command) showing a mongos.
func TestMongosh(t *testing.T) {
	testutil.SkipIfShort(t)
	modules := nodeModules(t)
	_, addr, _ := startProxy(t)
	const script = `
const d = db.getSiblingDB('proxytest_mongosh');
d.dropDatabase();
print('insert', d.c.insertOne({_id: 1, x: 'hi'}).acknowledged);
print('find', EJSON.stringify(d.c.find({}).toArray()));
const h = db.hello();
print('hello', h.msg, h.isWritablePrimary);
print('adminCommand', db.adminCommand({hello: 1}).msg);
print('drop', d.dropDatabase().ok);
`
	// HOME: mongosh keeps its logs and history there; not the user's.
	cmd := exec.CommandContext(ctxFor(t, 3*time.Minute), filepath.Join(modules, "node_modules", ".bin", "mongosh"),
		"--quiet", "--norc", "mongodb://"+addr+"/", "--eval", script)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mongosh: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	want := []string{
		"insert true",
		`find [{"_id":1,"x":"hi"}]`,
		"hello isdbgrid true",
		"adminCommand isdbgrid",
		"drop 1",
	}
	if got := lines(stdout.String()); !slices.Equal(got, want) {
		t.Fatalf("mongosh printed\n%s\nwant\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), stderr.String())
	}
}
