package proxy

import (
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

// watchHangup starts the hang-up watch of a request: should its client
// hang up while the request runs, the connection's context is cancelled
// with errClientGone (cancelling the round trip closes the member's
// connection). endWatch ends it once the request is done. As net/http's
// background read does, a peek at the client's connection starts after
// watchAfter: drivers send nothing more until they have the reply, so the
// peek blocks until the client leaves (an error: cancel) or pipelines its
// next request (data: left in the reader for the next read). Ending the
// watch unblocks the peek with a read deadline in the past and clears it.
// One timer serves all of a connection's requests: a request that ends
// before watchAfter costs no allocation.
func (cc *clientConn) watchHangup() {
	if cc.nc == nil {
		return
	}
	cc.watching = true
	if cc.hang == nil {
		cc.hangDone = make(chan struct{}, 1)
		cc.hang = time.AfterFunc(watchAfter, cc.peekHangup)
		return
	}
	cc.hang.Reset(watchAfter)
}

func (cc *clientConn) peekHangup() {
	if _, err := cc.r.Peek(1); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) && cc.cancel != nil {
		cc.cancel(fmt.Errorf("%w: %w", errClientGone, err))
	}
	cc.hangDone <- struct{}{}
}

// endWatch ends the watch watchHangup started, if any, and leaves the
// connection's read deadline cleared.
func (cc *clientConn) endWatch() {
	if !cc.watching {
		return
	}
	cc.watching = false
	if cc.hang.Stop() {
		return
	}
	// The peek is running, or has returned: unblock it and wait.
	_ = cc.nc.SetReadDeadline(aLongTimeAgo)
	<-cc.hangDone
	_ = cc.nc.SetReadDeadline(time.Time{})
}
