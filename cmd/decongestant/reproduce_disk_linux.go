package main

import (
	"fmt"
	"syscall"
)

// diskOf is the size and free space of the filesystem holding path.
func diskOf(path string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return ""
	}
	gib := func(blocks uint64) float64 { return float64(blocks) * float64(st.Bsize) / (1 << 30) }
	return fmt.Sprintf("%.0f GiB, %.0f GiB free", gib(st.Blocks), gib(st.Bavail))
}
