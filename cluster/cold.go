package cluster

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DropCaches restarts member name cold: it stops the member cleanly (waiting as StopMember does),
// evicts every file under its dbpath from the OS page cache (fdatasync, then
// posix_fadvise(POSIX_FADV_DONTNEED) over the whole file), starts it again with the same port,
// dbpath and cgroups, and waits until it is SECONDARY or PRIMARY, as RestartMember does. The member
// comes back with an empty WiredTiger cache and none of its data files in the page cache, so its
// first reads go to the disk. Other members' files, the host's caches beneath this machine and the
// filesystem's metadata cache stay warm (DESIGN.md, "Memory caps and cold restarts"). Stopping a
// primary makes the others elect a new one; the member comes back as a secondary then. If a file
// cannot be evicted the member is left stopped, and the error names the file.
func (c *Cluster) DropCaches(ctx context.Context, name string) error {
	return c.restart(ctx, name, func(m Member) error {
		files, size, err := evictDir(m.DBPath)
		if err != nil {
			return fmt.Errorf("drop page cache of %s: %w", m.DBPath, err)
		}
		fmt.Fprintf(c.progress, "evicted %d files (%s) of %s from the page cache\n", files, FormatSize(size), m.Name)
		return nil
	})
}

// evictDir evicts every regular file under dir from the page cache; it returns how many files and
// bytes it went through.
func evictDir(dir string) (files int, size int64, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		n, err := evictFile(path)
		if err != nil {
			return err
		}
		files, size = files+1, size+n
		return nil
	})
	return files, size, err
}

// evictFile writes back the file at path and drops its pages from the page cache; it returns the
// file's size. DONTNEED only drops clean pages that no process maps, hence the fdatasync, and hence
// running it on a stopped member only.
func evictFile(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("sync %s: %w", path, err)
	}
	if err := fadviseDontNeed(f); err != nil {
		return 0, fmt.Errorf("fadvise %s: %w", path, err)
	}
	return fi.Size(), nil
}
