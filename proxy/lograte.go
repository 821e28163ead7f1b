package proxy

import (
	"sync"
	"time"
)

// authLogsPerSecond caps the failed-authentication lines logged per second:
// a client guessing passwords (or a thousand of them) must not fill the
// proxy's disk; the lines left out are counted in the next one logged.
const authLogsPerSecond = 10

// logLimiter lets at most max lines a second through (fixed one-second
// windows) and counts the others. It is safe for concurrent use.
type logLimiter struct {
	max int
	now func() time.Time

	mu         sync.Mutex
	window     time.Time // start of the current window
	n          int       // lines let through in it
	suppressed int       // lines left out since the last one let through
}

func newLogLimiter(max int, now func() time.Time) *logLimiter {
	return &logLimiter{max: max, now: now}
}

// allow reports whether a line may be logged now and, when it may, how
// many were left out before it (to be logged with it).
func (l *logLimiter) allow() (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := l.now(); now.Sub(l.window) >= time.Second || now.Before(l.window) {
		l.window, l.n = now, 0
	}
	if l.n >= l.max {
		l.suppressed++
		return false, 0
	}
	l.n++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}
