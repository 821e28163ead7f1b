package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// drainFixture is a proxy in front of the shared set with two raw client
// connections: busy, whose getMore on a tailable cursor waits in the
// proxy for a document the test inserts (insert), and idle, between
// requests.
type drainFixture struct {
	s          *Server
	addr       string
	busy, idle net.Conn
	insert     func(id int)
}

func newDrainFixture(t *testing.T) *drainFixture {
	rs := testutil.ReplicaSet(t)
	s, addr := serveProxy(t, Config{URI: rs.URI(), Logger: slog.New(slog.NewTextHandler(&testutil.SyncBuffer{}, nil)), RequestTimeout: time.Minute})
	client := testutil.Connect(t, rs.URI())
	db := client.Database("drain_" + fmt.Sprint(time.Now().UnixNano()))
	testutil.DropAtCleanup(t, db)
	ctx := ctxFor(t, time.Minute)
	if err := db.CreateCollection(ctx, "c", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<16)); err != nil {
		t.Fatal(err)
	}
	f := &drainFixture{s: s, addr: addr, insert: func(id int) {
		if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			t.Error(err)
		}
	}}
	f.insert(0)
	f.busy, f.idle = f.dial(t), f.dial(t)
	r, err := command(f.busy, bson.D{{Key: "find", Value: "c"}, {Key: "tailable", Value: true}, {Key: "awaitData", Value: true}, {Key: "$db", Value: db.Name()}})
	if err != nil {
		t.Fatal(err)
	}
	id, ok := r.Lookup("cursor", "id").Int64OK()
	if !ok || id == 0 {
		t.Fatalf("find: no open cursor in %v", r)
	}
	if err := ping(f.idle); err != nil {
		t.Fatal(err)
	}
	// The ping's reply can reach the client before its connection is marked
	// idle again: wait for that, so the active connection below is the busy one.
	testutil.Eventually(t, 30*time.Second, func() bool { return !anyActive(s) }, "the pinged connection to be idle again")
	// The getMore waits for the next document: a request in flight.
	if err := send(f.busy, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "maxTimeMS", Value: 30_000}, {Key: "$db", Value: db.Name()}}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, func() bool { return anyActive(s) }, "the getMore to reach the proxy")
	return f
}

// anyActive says whether one of s's client connections is serving a request.
func anyActive(s *Server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.conns {
		if st.v.Load() == connActive {
			return true
		}
	}
	return false
}

func (f *drainFixture) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedConn waits for the proxy to close c, failing on a reply.
func closedConn(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if msg, err := wire.ReadMessage(c, 0); err == nil {
		t.Fatalf("%s: a message (%d bytes), want the connection closed", what, len(msg))
	} else if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		t.Fatalf("%s: still open", what)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// send writes d as an OP_MSG on c.
func send(c net.Conn, d bson.D) error {
	body, err := bson.Marshal(d)
	if err != nil {
		return err
	}
	_, err = c.Write(wire.AppendMsg(nil, 9, 0, 0, body))
	return err
}

// receive reads a reply on c and returns its body, an error unless ok.
func receive(c net.Conn) (bson.Raw, error) {
	c.SetReadDeadline(time.Now().Add(time.Minute))
	msg, err := wire.ReadMessage(c, 0)
	if err != nil {
		return nil, err
	}
	m, err := wire.Parse(msg)
	if err != nil {
		return nil, err
	}
	r := bson.Raw(m.Body)
	if r.Lookup("ok").Double() != 1 {
		return r, fmt.Errorf("command failed: %v", r)
	}
	return r, nil
}

func command(c net.Conn, d bson.D) (bson.Raw, error) {
	if err := send(c, d); err != nil {
		return nil, err
	}
	return receive(c)
}

// Shutdown closes the idle connection and the listener at once, lets the
// request in flight end and send its reply, closes that connection then,
// and returns once it has.
func TestShutdownDrains(t *testing.T) {
	f := newDrainFixture(t)
	shut := make(chan error, 1)
	go func() { shut <- f.s.Shutdown(context.Background()) }()
	closedConn(t, f.idle, "the idle connection")
	if c, err := net.Dial("tcp", f.addr); err == nil {
		c.Close()
		t.Fatal("a new connection accepted while draining")
	}
	if !errors.Is(f.s.Ready(), ErrDraining) {
		t.Fatalf("Ready while draining: %v", f.s.Ready())
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned (%v) with a request in flight", err)
	default:
	}
	f.insert(1)
	r, err := receive(f.busy)
	if err != nil {
		t.Fatalf("the request in flight: %v", err)
	}
	if got := r.Lookup("cursor", "nextBatch", "0", "_id").Int32(); got != 1 {
		t.Fatalf("getMore returned _id %d, want 1", got)
	}
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown did not return after the last request")
	}
	closedConn(t, f.busy, "the connection once its reply was written")
}

// When Shutdown's context ends first, the connections still serving a
// request are closed without a reply and Shutdown says so.
func TestShutdownCutShort(t *testing.T) {
	f := newDrainFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	shut := make(chan error, 1)
	go func() { shut <- f.s.Shutdown(ctx) }()
	closedConn(t, f.idle, "the idle connection")
	cancel()
	closedConn(t, f.busy, "the connection serving a request")
	if err := <-shut; !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown: %v, want context.Canceled", err)
	}
}
