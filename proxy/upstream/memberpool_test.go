package upstream

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestIdleConnectionCheckedBeforeUse: a connection idle for longer than
// checkIdleAfter that died meanwhile is not used: the request goes over a
// new connection and succeeds, where sending on the dead one would fail
// with ErrConnection (a request that may have run).
func TestIdleConnectionCheckedBeforeUse(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	p := newPool(t, rs.URI())
	primary, _ := roles(ctx, t, rs)
	ping := bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}
	run(ctx, t, p, primary.Host, ping)
	mp, err := p.member(primary.Host)
	if err != nil {
		t.Fatal(err)
	}
	mp.mu.Lock()
	if len(mp.idle) != 1 {
		mp.mu.Unlock()
		t.Fatalf("%d idle connections after one request, want 1", len(mp.idle))
	}
	dead := mp.idle[0]
	mp.mu.Unlock()
	// The member (or a firewall) closed it while it sat idle.
	dead.close()
	dead.lastUsed = time.Now().Add(-checkIdleAfter - time.Second)
	if body := run(ctx, t, p, primary.Host, ping); !okOf(body) {
		t.Fatalf("ping after the idle connection died: %v", body)
	}
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if len(mp.idle) != 1 || mp.idle[0] == dead {
		t.Errorf("idle connections %v: want one, not the dead one", mp.idle)
	}
}

// TestMaxPoolSizeBoundsAMember: with maxPoolSize=1 a second request waits
// for the first's connection, and gives up with ErrUnavailable (not sent)
// when its context ends first.
func TestMaxPoolSizeBoundsAMember(t *testing.T) {
	testutil.SkipIfShort(t)
	rs := testutil.ReplicaSet(t)
	ctx := ctxFor(t, time.Minute)
	p, err := New(ctx, rs.URI(), WithClientOptions(options.Client().SetMaxPoolSize(1)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	primary, _ := roles(ctx, t, rs)
	mp, err := p.member(primary.Host)
	if err != nil {
		t.Fatal(err)
	}
	held, err := mp.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	ping := opMsg(t, 0, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if _, err := p.RoundTrip(short, primary.Host, ping); !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("RoundTrip while the only connection is out: %v, want ErrUnavailable and the deadline", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.RoundTrip(ctx, primary.Host, ping)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("RoundTrip returned (%v) while the only connection was out", err)
	case <-time.After(200 * time.Millisecond):
	}
	mp.put(held, false)
	if err := <-done; err != nil {
		t.Errorf("RoundTrip once the connection came back: %v", err)
	}
}
