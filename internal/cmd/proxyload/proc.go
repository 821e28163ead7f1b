package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's CPU times (100
// on every architecture Go supports there).
const clockTick = 10 * time.Millisecond

// procCPU is process pid's user plus system CPU time so far, from
// /proc/PID/stat (Linux; 10 ms resolution).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields after its closing one.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// selfCPU is this process's user plus system CPU time so far (µs
// resolution).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procMemory is process pid's resident set now (VmRSS) and at its peak
// (VmHWM), in bytes, and its thread count, from /proc/PID/status.
type procMemory struct {
	RSS, HWM int64
	Threads  int
}

func readMemory(pid int) (procMemory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMemory{}, err
	}
	var m procMemory
	for line := range strings.Lines(string(b)) {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch key {
		case "VmRSS":
			m.RSS = n << 10
		case "VmHWM":
			m.HWM = n << 10
		case "Threads":
			m.Threads = int(n)
		}
	}
	if m.RSS == 0 {
		return m, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
	}
	return m, nil
}
