package proxy

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// A panic while serving a connection (here: a Server without an upstream
// pool, which a forwarded command dereferences) closes that connection with
// one logged line and its stack; the process lives on.
func TestPanicClosesOnlyItsConnection(t *testing.T) {
	logs := &testutil.SyncBuffer{}
	s := &Server{
		cfg:     Config{}.withDefaults(),
		log:     slog.New(slog.NewTextHandler(logs, nil)),
		cursors: newCursors(),
		done:    make(chan struct{}),
	}
	client, server := net.Pipe()
	defer client.Close()
	if s.register(server) != registered {
		t.Fatal("register refused")
	}
	ended := make(chan struct{})
	go func() { s.serveConn(context.Background(), server, 1); close(ended) }()
	client.SetDeadline(time.Now().Add(time.Minute))
	send := func(d bson.D) {
		body, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.Write(wire.AppendMsg(nil, 7, 0, 0, body)); err != nil {
			t.Fatal(err)
		}
	}
	send(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	reply, err := wire.ReadMessage(client, 0)
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	if m, err := wire.Parse(reply); err != nil || m.Header.ResponseTo != 7 || bson.Raw(m.Body).Lookup("ok").Double() != 1 {
		t.Fatalf("ping reply %v, %v", m, err)
	}
	send(bson.D{{Key: "find", Value: "c"}, {Key: "$db", Value: "d"}})
	if _, err := wire.ReadMessage(client, 0); err == nil {
		t.Fatal("a reply after the panic")
	}
	<-ended
	if l := logs.String(); strings.Count(l, "panic serving a client connection") != 1 || !strings.Contains(l, "stack=") {
		t.Fatalf("log:\n%s", l)
	}
	if len(s.conns) != 0 {
		t.Fatalf("%d connections still registered", len(s.conns))
	}
}
