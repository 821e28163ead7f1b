package bench

import (
	"syscall"
	"time"
)

// cpuTime returns the user and system CPU time this process has used so far
// (0 where getrusage is unavailable).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
