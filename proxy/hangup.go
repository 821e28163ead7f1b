package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// watchAfter is how long a request runs before its client's connection is
// watched for a hang-up: most requests end sooner and cost no watch at all.
const watchAfter = 250 * time.Millisecond

// errClientGone: the client closed its connection (or the proxy did) while
// its request was in flight.
var errClientGone = errors.New("the client closed its connection")

// aLongTimeAgo is a read deadline in the past, to unblock a Peek at once.
var aLongTimeAgo = time.Unix(1, 0)

// watchHangup returns ctx, cancelled with errClientGone when cc's client
// hangs up while the request runs (cancelling the round trip closes the
// member's connection), and the function that ends the watch, to call
// once the request is done. As net/http's background read does, a
// goroutine started after watchAfter peeks at the client's connection:
// drivers send nothing more until they have the reply, so the peek blocks
// until the client leaves (an error: cancel) or pipelines its next request
// (data: left in the reader for the next read). Ending the watch unblocks
// the peek with a read deadline in the past and clears it.
func (cc *clientConn) watchHangup(ctx context.Context) (context.Context, func()) {
	if cc.nc == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	t := time.AfterFunc(watchAfter, func() {
		defer close(done)
		if _, err := cc.r.Peek(1); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			cancel(fmt.Errorf("%w: %w", errClientGone, err))
		}
	})
	return ctx, func() {
		if !t.Stop() {
			_ = cc.nc.SetReadDeadline(aLongTimeAgo)
			<-done
			_ = cc.nc.SetReadDeadline(time.Time{})
		}
		cancel(nil)
	}
}
