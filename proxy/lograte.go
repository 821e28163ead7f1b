package proxy

import (
	"log/slog"
	"sync"
	"time"
)

// authLogsPerSecond caps the failed-authentication lines logged per second:
// a client guessing passwords (or a thousand of them) must not fill the
// proxy's disk. The lines left out are counted in one line at the end of
// their second (or in the next line logged, if that comes first).
const authLogsPerSecond = 10

// logLimiter lets at most max lines a second through (fixed one-second
// windows) and counts the others. It is safe for concurrent use.
type logLimiter struct {
	max     int
	now     func() time.Time
	after   func(time.Duration, func()) // time.AfterFunc; tests run f themselves
	summary string                      // the message of the line counting those left out

	mu         sync.Mutex
	window     time.Time // start of the current window
	n          int       // lines let through in it
	suppressed int       // lines left out since the last one let through or counted
	scheduled  bool      // a summary is scheduled
}

func newLogLimiter(max int, summary string) *logLimiter {
	return &logLimiter{max: max, now: time.Now, summary: summary,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// allow reports whether a line may be logged now and, when it may, how
// many were left out before it and not yet counted (to be logged with it).
// The first line left out in a window schedules, at the window's end, one
// line on log counting those left out by then.
func (l *logLimiter) allow(log *slog.Logger) (ok bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.window) >= time.Second || now.Before(l.window) {
		l.window, l.n = now, 0
	}
	if l.n >= l.max {
		l.suppressed++
		if !l.scheduled {
			l.scheduled = true
			l.after(l.window.Add(time.Second).Sub(now), func() { l.report(log) })
		}
		return false, 0
	}
	l.n++
	suppressed, l.suppressed = l.suppressed, 0
	return true, suppressed
}

// report logs the count of lines left out, if any are still uncounted.
func (l *logLimiter) report(log *slog.Logger) {
	l.mu.Lock()
	n := l.suppressed
	l.suppressed, l.scheduled = 0, false
	l.mu.Unlock()
	if n > 0 {
		log.Warn(l.summary, "suppressed", n)
	}
}
