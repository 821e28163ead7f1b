package bench

import (
	"context"
	"testing"
	"time"
)

// TestHaltLetsOperationsFinish: a stopped client finishes its operation in
// flight; one still in it after the grace is cut off.
func TestHaltLetsOperationsFinish(t *testing.T) {
	type client struct {
		w   worker
		cut chan bool // whether the client's operation was cut off
	}
	start := func(opTime time.Duration) client {
		ctx, cancel := context.WithCancel(context.Background())
		stopCtx, stop := context.WithCancel(ctx)
		c := client{w: worker{stop: stop, cancel: cancel, done: make(chan struct{})}, cut: make(chan bool, 1)}
		go func() {
			defer close(c.w.done)
			<-stopCtx.Done() // the client is asked to stop mid-operation
			select {
			case <-time.After(opTime):
				c.cut <- false
			case <-ctx.Done():
				c.cut <- true
			}
		}()
		return c
	}
	quick, slow := start(10*time.Millisecond), start(time.Hour)
	began := time.Now()
	halt([]worker{quick.w, slow.w}, 200*time.Millisecond)
	if took := time.Since(began); took < 200*time.Millisecond || took > 5*time.Second {
		t.Errorf("halt took %v, want the grace (200ms)", took)
	}
	if <-quick.cut {
		t.Error("an operation that ended within the grace was cut off")
	}
	if !<-slow.cut {
		t.Error("an operation still running after the grace was not cut off")
	}
}
