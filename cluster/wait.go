package cluster

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// waitListening polls until m accepts TCP connections, failing early with the log tail if its
// process exits.
func (c *Cluster) waitListening(ctx context.Context, m Member) error {
	ch := c.child(m.PID)
	exited := func() bool {
		if ch != nil {
			select {
			case <-ch.done:
				return true
			default:
				return false
			}
		}
		return !exists(m.PID, m.DBPath)
	}
	return poll(ctx, 50*time.Millisecond, func() (bool, error) {
		conn, err := net.DialTimeout("tcp", m.Host, 250*time.Millisecond)
		if err == nil {
			conn.Close()
			return true, nil
		}
		if exited() {
			return false, c.startupErr(m, ch)
		}
		return false, nil
	}, func(err error) error {
		return fmt.Errorf("member %s (pid %d) is not listening on %s: %w; last lines of %s:\n%s",
			m.Name, m.PID, m.Host, err, m.LogPath, logTail(m.LogPath, 10))
	})
}

// startupErr describes a member that exited while starting; a bind failure wraps ErrPortInUse.
func (c *Cluster) startupErr(m Member, ch *child) error {
	status := "exited"
	if ch != nil && ch.err != nil {
		status = ch.err.Error()
	}
	tail := logTail(m.LogPath, 10)
	if logContains(m.LogPath, "Address already in use") {
		return fmt.Errorf("member %s (pid %d) could not bind port %d: %w; last lines of %s:\n%s",
			m.Name, m.PID, m.Port, ErrPortInUse, m.LogPath, tail)
	}
	return fmt.Errorf("member %s (pid %d) exited during startup (%s); last lines of %s:\n%s", m.Name, m.PID, status, m.LogPath, tail)
}

// logContains reports whether the last 64 KiB of the log at path contain s.
func logContains(path, s string) bool {
	b, err := readTail(path, 64<<10)
	return err == nil && strings.Contains(string(b), s)
}

// poll calls f every interval until it reports done or an error, or ctx ends; then onTimeout
// (if not nil) turns ctx's error into a descriptive one.
func poll(ctx context.Context, interval time.Duration, f func() (bool, error), onTimeout func(error) error) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		done, err := f()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			if onTimeout != nil {
				return onTimeout(ctx.Err())
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
