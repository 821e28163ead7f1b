package cluster

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// residentPages counts the pages of the file at path that are in the page cache (mincore over a
// read-only mapping; mapping does not fault pages in).
func residentPages(t *testing.T, path string) (resident, total int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(data)
	page := os.Getpagesize()
	vec := make([]byte, (len(data)+page-1)/page)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore %s: %v", path, errno)
	}
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident, len(vec)
}

// TestEvictDir writes files (so their pages are cached, some dirty), reads them, and checks that
// evictDir leaves none of their pages in the page cache and reports them all.
func TestEvictDir(t *testing.T) {
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Type == 0x01021994 { // TMPFS_MAGIC: its pages are the files themselves and cannot be evicted
		t.Skipf("%s is on tmpfs", dir)
	}
	files := map[string]int{"WiredTiger.wt": 4 << 20, "journal/WiredTigerLog.0000000001": 1 << 20, "empty": 0}
	var want int64
	for name, size := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, bytes.Repeat([]byte{'x'}, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		want += int64(size)
	}
	big := filepath.Join(dir, "WiredTiger.wt")
	if resident, total := residentPages(t, big); resident < total/2 {
		t.Fatalf("before: %d of %d pages resident; the test needs them cached", resident, total)
	}
	n, size, err := evictDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(files) || size != want {
		t.Errorf("evictDir: %d files, %d bytes; want %d, %d", n, size, len(files), want)
	}
	for name, size := range files {
		if size == 0 {
			continue
		}
		if resident, total := residentPages(t, filepath.Join(dir, name)); resident != 0 {
			t.Errorf("%s: %d of %d pages still in the page cache", name, resident, total)
		}
	}
}
