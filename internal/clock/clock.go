// Package clock waits out a duration unless a context ends first: Sleep is
// the one context-aware sleep the project uses.
package clock

import (
	"context"
	"time"
)

// Sleep waits d or until ctx is done, and reports whether d elapsed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
