package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// bareServer is a Server without an upstream pool, enough for what the
// proxy answers itself (ping, hello); cfg takes the defaults.
func bareServer(t testing.TB, cfg Config) (*Server, *testutil.SyncBuffer) {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	s := &Server{
		cfg:       cfg.withDefaults(),
		log:       slog.New(slog.NewTextHandler(logs, nil)),
		cursors:   newCursors(time.Hour),
		listeners: map[net.Listener]struct{}{},
		done:      make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	t.Cleanup(s.cancel)
	return s, logs
}

// ping sends a ping on c and reads its reply.
func ping(c net.Conn) error {
	body, err := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if err != nil {
		return err
	}
	if err := c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return err
	}
	if _, err := c.Write(wire.AppendMsg(nil, 7, 0, 0, body)); err != nil {
		return err
	}
	reply, err := wire.ReadMessage(c, 0)
	if err != nil {
		return err
	}
	if m, err := wire.Parse(reply); err != nil || bson.Raw(m.Body).Lookup("ok").Double() != 1 {
		return errors.New("ping failed")
	}
	return nil
}

// Each deadline closes a connection that misses it: one that never sends
// its TLS ClientHello, one that does not authenticate in time (with
// users), one that goes idle, one that does not read its reply.
func TestDeadlinesCloseConnections(t *testing.T) {
	const short = 20 * time.Millisecond
	tests := []struct {
		name   string
		cfg    Config
		users  bool
		tls    bool
		client func(net.Conn) error // what the client does before it goes silent
		log    string
	}{
		{"tls handshake", Config{HandshakeTimeout: short}, false, true, nil, "tls handshake (bounded by 20ms)"},
		{"pre-auth, silent", Config{AuthTimeout: short}, true, false, nil, "not authenticated, and a message not received whole within 20ms"},
		{"pre-auth, a message dawdled over", Config{AuthTimeout: short}, true, false, func(c net.Conn) error {
			if err := ping(c); err != nil {
				return err
			}
			_, err := c.Write([]byte{64, 0, 0}) // the start of a header, and no more
			return err
		}, "not authenticated, and a message not received whole within 20ms"},
		{"idle", Config{IdleTimeout: short}, false, false, ping, "idle for 20ms"},
		{"write", Config{WriteTimeout: short}, false, false, func(c net.Conn) error {
			_, err := c.Write(wire.AppendMsg(nil, 7, 0, 0, mustMarshal(t, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})))
			return err // and never read the reply
		}, "write a reply (bounded by 20ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, logs := bareServer(t, tt.cfg)
			if tt.users {
				s.auth = &authenticator{}
			}
			client, server := net.Pipe()
			defer client.Close()
			if tt.tls {
				server = tls.Server(server, &tls.Config{})
			}
			ended := make(chan struct{})
			go func() { s.serveConn(context.Background(), server, 1); close(ended) }()
			if tt.client != nil {
				if err := tt.client(client); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				t.Fatal("the connection is still served")
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Fatalf("log lacks %q:\n%s", tt.log, logs)
			}
		})
	}
}

func mustMarshal(t *testing.T, d bson.D) []byte {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The read deadline: the earlier of the pre-auth and idle ones; none once
// authenticated without an idle timeout (the default).
func TestDeadlinesRead(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(time.Second)
	auth := deadlines{first: start.Add(30 * time.Second), auth: 30 * time.Second}
	tests := []struct {
		name                 string
		d                    deadlines
		authenticated, first bool
		want                 time.Time
		perMessage           bool
	}{
		{"none", deadlines{}, false, true, time.Time{}, false},
		{"authenticated, no idle bound", auth, true, false, time.Time{}, false},
		{"pre-auth, the first message", auth, false, true, start.Add(30 * time.Second), false},
		{"pre-auth, a later message: bounded from its first byte", auth, false, false, time.Time{}, true},
		{"idle", deadlines{idle: time.Minute}, true, false, now.Add(time.Minute), false},
		{"pre-auth before idle", deadlines{first: auth.first, auth: auth.auth, idle: time.Minute}, false, true, start.Add(30 * time.Second), false},
		{"idle before pre-auth", deadlines{first: auth.first, auth: auth.auth, idle: 10 * time.Second}, false, true, now.Add(10 * time.Second), false},
		{"idle between pre-auth messages", deadlines{first: auth.first, auth: auth.auth, idle: time.Minute}, false, false, now.Add(time.Minute), true},
		{"idle once authenticated", deadlines{first: auth.first, auth: auth.auth, idle: time.Minute}, true, false, now.Add(time.Minute), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.wait(now, tt.authenticated, tt.first); !got.Equal(tt.want) {
				t.Fatalf("wait deadline %v, want %v", got, tt.want)
			}
			if got := tt.d.perMessage(tt.authenticated, tt.first); got != tt.perMessage {
				t.Fatalf("perMessage %v, want %v", got, tt.perMessage)
			}
		})
	}
}

// A driver's monitoring connection never authenticates (the SDAM
// specification) and sends a hello every heartbeat: the pre-auth bound
// applies to each of its messages, not to the connection's life, so it is
// served for longer than the bound.
func TestMonitoringConnectionOutlivesThePreAuthBound(t *testing.T) {
	const bound = 100 * time.Millisecond
	s, logs := bareServer(t, Config{AuthTimeout: bound})
	s.auth = &authenticator{}
	client, server := net.Pipe()
	defer client.Close()
	ended := make(chan struct{})
	go func() { s.serveConn(context.Background(), server, 1); close(ended) }()
	for i := 0; i < 8; i++ { // 8 x bound/2: four times the bound
		if err := ping(client); err != nil {
			t.Fatalf("ping %d: %v (log: %s)", i, err, logs)
		}
		select {
		case <-ended:
			t.Fatalf("closed after %d pings: %s", i+1, logs)
		case <-time.After(bound / 2):
		}
	}
}

// Past MaxConnections a new connection is closed at once, the refusals are
// logged once per refusalLogEvery, the open connection carries on, and a
// connection is accepted again once one ended.
func TestMaxConnections(t *testing.T) {
	s, logs := bareServer(t, Config{MaxConnections: 1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	first := dial()
	if err := ping(first); err != nil {
		t.Fatalf("first connection: %v", err)
	}
	for i := range 2 {
		c := dial()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Fatalf("connection %d past the cap: read %v, want it closed", i+2, err)
		}
	}
	if err := ping(first); err != nil {
		t.Fatalf("the first connection after the refusals: %v", err)
	}
	if n := strings.Count(logs.String(), "refusing client connections"); n != 1 {
		t.Fatalf("%d refusal lines, want 1:\n%s", n, logs)
	}
	first.Close()
	testutil.Eventually(t, 10*time.Second, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.conns) == 0
	}, "the first connection to end")
	if err := ping(dial()); err != nil {
		t.Fatalf("a connection once the first ended: %v", err)
	}
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && strings.Contains(op.Err.Error(), "reset")
}

// Refusals are logged at most once per refusalLogEvery, each line with
// the count it stands for.
func TestRefusalsLog(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var r refusals
	steps := []struct {
		at   time.Duration
		n    int
		logs bool
	}{
		{0, 1, true},
		{time.Second, 0, false},
		{9 * time.Second, 0, false},
		{10 * time.Second, 3, true},
		{11 * time.Second, 0, false},
		{time.Minute, 2, true},
	}
	for i, st := range steps {
		n, logs := r.add(t0.Add(st.at))
		if n != st.n || logs != st.logs {
			t.Fatalf("step %d (at %v): %d, %v; want %d, %v", i, st.at, n, logs, st.n, st.logs)
		}
	}
}
