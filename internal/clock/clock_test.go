package clock

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if !Sleep(context.Background(), time.Millisecond) {
		t.Fatal("an uncancelled sleep reported cancellation")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) {
		t.Fatal("a cancelled sleep reported that the hour elapsed")
	}
	if time.Since(start) > time.Second {
		t.Fatal("a cancelled sleep did not return at once")
	}
}
