//go:build amd64 || arm64

package cluster

import (
	"os"
	"syscall"
)

// posixFadvDontNeed is POSIX_FADV_DONTNEED.
const posixFadvDontNeed = 4

// fadviseDontNeed asks the kernel to drop f's clean pages from the page cache
// (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED): offset 0, length 0 = to the end). golang.org/x/sys
// is not a dependency of this module; on these 64-bit architectures the raw system call takes the
// arguments in this order.
func fadviseDontNeed(f *os.File) error {
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, posixFadvDontNeed, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
