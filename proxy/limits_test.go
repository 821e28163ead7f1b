package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// pipeServer serves one end of a net.Pipe with s (no upstream pool) and
// returns the other end; the connection is closed at cleanup.
func pipeServer(t *testing.T, s *Server) net.Conn {
	t.Helper()
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.cursors, s.done = newCursors(time.Hour), make(chan struct{})
	client, server := net.Pipe()
	if s.register(server) != registered {
		t.Fatal("register refused")
	}
	ended := make(chan struct{})
	go func() { s.serveConn(context.Background(), server, 1); close(ended) }()
	t.Cleanup(func() { client.Close(); <-ended })
	// A failsafe against a hang, never reached when the test passes.
	client.SetDeadline(time.Now().Add(time.Minute))
	return client
}

// Before authentication, a command is refused by its name alone: a find
// whose $readPreference Classify would reject (or spend on) gets
// Unauthorized, so Classify never read it.
func TestPreAuthRefusedByName(t *testing.T) {
	s, _ := authServer(t, loadRFC7677(t))
	cc := &clientConn{id: 1}
	r := do(t, s, cc, bson.D{{Key: "find", Value: "c"}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "bogus"}}}, {Key: "$db", Value: "db"}})
	wantError(t, r, codeUnauthorized, "find requires authentication")
	// What mongod allows before authentication is still answered.
	if r := do(t, s, cc, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
		t.Fatalf("ping: %v", r)
	}
}

// An unauthenticated connection announcing a message over the pre-auth cap
// is closed after its header, before the proxy reads (or allocates for)
// the body.
func TestPreAuthMessageCap(t *testing.T) {
	s, _ := authServer(t, loadRFC7677(t))
	client := pipeServer(t, s)
	var hdr [wire.HeaderLen]byte
	b := wire.AppendMsg(nil, 7, 0, 0, bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build())
	copy(hdr[:], b)
	putLen(hdr[:], maxPreAuthMessage+1)
	if _, err := client.Write(hdr[:]); err != nil {
		t.Fatal(err)
	}
	var one [1]byte
	if _, err := client.Read(one[:]); !errors.Is(err, io.EOF) {
		t.Fatalf("after a %d-byte header: read %v, want EOF (closed)", maxPreAuthMessage+1, err)
	}
}

// A hello with speculativeAuthenticate and the usual client metadata is
// far below the pre-auth cap (a driver's is under 1 KiB).
func TestPreAuthCapFitsHello(t *testing.T) {
	payload := make([]byte, 4<<10)
	body := bsoncore.NewDocumentBuilder().AppendInt32("hello", 1).
		AppendDocument("speculativeAuthenticate", bsoncore.NewDocumentBuilder().AppendInt32("saslStart", 1).
			AppendString("mechanism", "SCRAM-SHA-256").AppendBinary("payload", 0, payload).AppendString("db", "admin").Build()).
		AppendString("$db", "admin").Build()
	if n := len(wire.AppendMsg(nil, 1, 0, 0, body)); n > maxPreAuthMessage/8 {
		t.Fatalf("a hello with a 4 KiB speculativeAuthenticate is %d bytes, over an eighth of the %d-byte cap", n, maxPreAuthMessage)
	}
}

func putLen(b []byte, n int) { b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24) }

// A connection that read a 40 MB message does not keep a buffer that size
// while it idles.
func TestLargeBufferReleased(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a 40 MB message")
	}
	client := pipeServer(t, &Server{cfg: Config{}.withDefaults()})
	pad := make([]byte, 40_000_000)
	body := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendBinary("pad", 0, pad).AppendString("$db", "admin").Build()
	msg := wire.AppendMsg(nil, 7, 0, 0, body)
	pad, body = nil, nil
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	go func() { client.Write(msg) }()
	reply, err := wire.ReadMessage(client, 0)
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	if m, err := wire.Parse(reply); err != nil || bson.Raw(m.Body).Lookup("ok").Double() != 1 {
		t.Fatalf("ping reply: %v", err)
	}
	msg = nil
	var idle runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&idle)
	// base counts msg (40 MB), which is garbage now: the connection may
	// hold a little, never a second copy.
	if grew := int64(idle.HeapAlloc) - int64(base.HeapAlloc); grew > -30_000_000 {
		t.Fatalf("the heap went from %d to %d bytes after the 40 MB message was read and dropped by the test: the connection kept its buffer", base.HeapAlloc, idle.HeapAlloc)
	}
}

// readBuffer keeps small buffers for the next message and drops large ones.
func TestReadBufferKeep(t *testing.T) {
	tests := []struct {
		capacity int
		kept     bool
	}{
		{4 << 10, true},
		{maxKeptBuffer, true},
		{maxKeptBuffer + 1, false},
		{40_000_000, false},
	}
	for _, tt := range tests {
		got := keepBuffer(make([]byte, 16, tt.capacity))
		if kept := got != nil; kept != tt.kept || len(got) != 0 {
			t.Errorf("keepBuffer(cap %d) = len %d cap %d; kept %v, want %v", tt.capacity, len(got), cap(got), kept, tt.kept)
		}
	}
}

// No proxy timeout by default; a request's own maxTimeMS bounds its round
// trip plus a margin; RequestTimeout caps both.
func TestRequestTimeoutOf(t *testing.T) {
	if d := (Config{}).withDefaults().RequestTimeout; d != 0 {
		t.Fatalf("default RequestTimeout %v, want 0 (none)", d)
	}
	tests := []struct {
		name      string
		cfg       time.Duration
		maxTimeMS int64
		want      time.Duration
	}{
		{"none", 0, 0, 0},
		{"maxTimeMS", 0, 1500, 1500*time.Millisecond + maxTimeMargin},
		{"operator's", 10 * time.Second, 0, 10 * time.Second},
		{"maxTimeMS under the operator's", 10 * time.Second, 1000, time.Second + maxTimeMargin},
		{"operator's under maxTimeMS", 10 * time.Second, 60_000, 10 * time.Second},
		{"huge maxTimeMS", 0, 1 << 62, maxRequestTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := requestTimeout(tt.cfg, tt.maxTimeMS); got != tt.want {
				t.Fatalf("requestTimeout(%v, %d) = %v, want %v", tt.cfg, tt.maxTimeMS, got, tt.want)
			}
		})
	}
}

// The pre-auth cap applies only with users and only until the connection
// authenticates.
func TestReadLimit(t *testing.T) {
	a, err := newAuthenticator(loadRFC7677(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		auth *authenticator
		user string
		want int
	}{
		{"no users", nil, "", wire.MaxMessageSize},
		{"users, not authenticated", a, "", maxPreAuthMessage},
		{"users, authenticated", a, "user", wire.MaxMessageSize},
	}
	for _, tt := range tests {
		s := &Server{auth: tt.auth}
		if got := s.readLimit(&clientConn{auth: authState{user: tt.user}}); got != tt.want {
			t.Errorf("%s: readLimit = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// The commands allowed before authentication are mongod's, by exact name.
func TestAllowedBeforeAuth(t *testing.T) {
	for _, name := range []string{"hello", "isMaster", "ismaster", "ping", "buildInfo", "buildinfo", "whatsmyuri", "connectionStatus", "saslStart", "saslContinue", "authenticate"} {
		if !allowedBeforeAuth(name) {
			t.Errorf("%s refused before authentication", name)
		}
	}
	for _, name := range []string{"", "find", "insert", "getMore", "killCursors", "HELLO", "listDatabases", "endSessions", "logout"} {
		if allowedBeforeAuth(name) {
			t.Errorf("%q allowed before authentication", name)
		}
	}
}

// watchedConn is a client connection over a pipe, in a context of its own
// as serveConn makes it.
func watchedConn(server net.Conn) (*clientConn, context.Context) {
	ctx, cancel := context.WithCancelCause(context.Background())
	return &clientConn{nc: server, r: bufio.NewReader(server), cancel: cancel}, ctx
}

// watchHangup cancels the connection's context when the client hangs up
// during a request, and leaves the connection as it found it when the
// request ends first: a pipelined byte is still there to read, and the
// next request is watched again.
func TestWatchHangup(t *testing.T) {
	t.Run("hang-up", func(t *testing.T) {
		client, server := net.Pipe()
		cc, ctx := watchedConn(server)
		cc.watchHangup()
		defer cc.endWatch()
		client.Close()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), errClientGone) {
			t.Fatalf("cause %v, want errClientGone", context.Cause(ctx))
		}
	})
	for _, watching := range []bool{false, true} {
		name := "request ends before the watch"
		if watching {
			name = "request ends during the watch"
		}
		t.Run(name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			cc, ctx := watchedConn(server)
			for i := range 2 { // the timer serves the next request too
				cc.watchHangup()
				if watching {
					// Not an assertion: the watch's peek is blocked by
					// now, and endWatch must unblock it.
					time.Sleep(2 * watchAfter)
				}
				cc.endWatch()
				cc.endWatch() // a second end changes nothing
				if cause := context.Cause(ctx); errors.Is(cause, errClientGone) {
					t.Fatalf("request %d: cause %v after the request ended", i, cause)
				}
				go client.Write([]byte{42})
				b, err := cc.r.ReadByte()
				if err != nil || b != 42 {
					t.Fatalf("request %d: the next read: %d, %v; want 42 (the deadline cleared, nothing lost)", i, b, err)
				}
			}
			client.Close()
			cc.watchHangup()
			<-ctx.Done() // and a later request's hang-up is still seen
			cc.endWatch()
		})
	}
}

// BenchmarkWatchHangup is what the hang-up watch adds to a request that
// ends before watchAfter: the common case.
func BenchmarkWatchHangup(b *testing.B) {
	client, server := net.Pipe()
	defer client.Close()
	cc, _ := watchedConn(server)
	b.ReportAllocs()
	for b.Loop() {
		cc.watchHangup()
		cc.endWatch()
	}
}
