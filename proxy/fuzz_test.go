package proxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// preAuthForwarded are the commands an unauthenticated client may have
// forwarded to a member: those mongod answers before authentication that
// the proxy does not answer itself.
var preAuthForwarded = map[string]bool{"buildInfo": true, "buildinfo": true}

// What a pre-authentication conversation may allocate: a small multiple of
// the bytes sent, a fixed cost per message (a hello reply, a SCRAM step, an
// error reply), and the connection's read buffer, whose first growth is
// ReadMessage's 64 KiB chunk whatever length the header announces.
const (
	preAuthPerByte    = 8
	preAuthPerMessage = 16 << 10
	preAuthReadBuffer = 64 << 10
)

// FuzzPreAuth sends arbitrary bytes, read as messages the way serveConn
// reads a connection, to a proxy with users from a client that has not
// authenticated: handle never panics and never authenticates it; it
// answers every message that asks for an answer, as the reply to that
// message; nothing the client sent reaches a member unless mongod answers it
// before authentication (preAuthForwarded); and the conversation allocates
// within preAuthPerByte, preAuthPerMessage and preAuthReadBuffer. The
// member is a fakeMember: no mongod, so the seeds run under go test -short.
func FuzzPreAuth(f *testing.F) {
	fm := startFakeMember(f)
	users, err := parseCredentials([]byte(rfc7677))
	if err != nil {
		f.Fatal(err)
	}
	s, err := New(Config{URI: fm.uri(), Users: users, ConnectTimeout: 30 * time.Second,
		Upstream: []upstream.Option{upstream.WithClientOptions(options.Client().SetHeartbeatInterval(time.Hour))}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	for _, seed := range preAuthSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := fm.count()
		sent, n := preAuthRun(t, s, data, true)
		for _, cmd := range fm.received(before) {
			name := cmd.Index(0).Key()
			if sent[string(cmd)] && !preAuthForwarded[name] {
				t.Fatalf("an unauthenticated client's %s reached the member: %v", name, bson.Raw(cmd))
			}
		}
		bound := testutil.AllocBound{PerByte: preAuthPerByte, Fixed: preAuthReadBuffer + preAuthPerMessage*uint64(n+1)}
		testutil.CheckAllocs(t, "a pre-authentication conversation", len(data), bound, func() { preAuthRun(t, s, data, false) })
	})
}

// preAuthRun hands s.handle the messages in data on a new connection that
// has not authenticated, until the input ends or handle closes the
// connection, and checks each answer. With record, it returns the bodies of
// the OP_MSGs it handed over; it returns how many messages it handed.
func preAuthRun(t *testing.T, s *Server, data []byte, record bool) (sent map[string]bool, n int) {
	if record {
		sent = map[string]bool{}
	}
	cc := &clientConn{id: 1, remote: "127.0.0.1:9"}
	r := bytes.NewReader(data)
	var buf []byte
	for ; ; n++ {
		msg, err := wire.ReadMessageInto(buf, r, wire.MaxMessageSize)
		if err != nil {
			return sent, n
		}
		buf = msg[:0]
		reqID := int32(binary.LittleEndian.Uint32(msg[4:]))
		op := wiremessage.OpCode(binary.LittleEndian.Uint32(msg[12:]))
		moreToCome := op == wiremessage.OpMsg && len(msg) >= wire.HeaderLen+4 &&
			wiremessage.MsgFlag(binary.LittleEndian.Uint32(msg[wire.HeaderLen:]))&wiremessage.MoreToCome != 0
		if record {
			if m, err := wire.Parse(msg); err == nil && op == wiremessage.OpMsg {
				sent[string(m.Body)] = true
			}
		}
		reply, err := s.handle(context.Background(), cc, msg)
		if cc.auth.user != "" {
			t.Fatalf("a fuzzed client authenticated as %s.%s", cc.auth.db, cc.auth.user)
		}
		if err != nil {
			return sent, n + 1 // serveConn closes the connection
		}
		checkPreAuthReply(t, reply, reqID, moreToCome)
	}
}

// checkPreAuthReply: a message with moreToCome gets no reply; any other
// gets one whole message answering it.
func checkPreAuthReply(t *testing.T, reply []byte, reqID int32, moreToCome bool) {
	t.Helper()
	if reply == nil {
		if !moreToCome {
			t.Fatalf("no reply to request %d", reqID)
		}
		return
	}
	if moreToCome {
		t.Fatalf("a reply to request %d, sent with moreToCome", reqID)
	}
	h, err := wire.ReadHeader(reply, wire.MaxMessageSize)
	if err != nil || int(h.Length) != len(reply) || h.ResponseTo != reqID {
		t.Fatalf("the reply to request %d: header %+v (%d bytes), %v", reqID, h, len(reply), err)
	}
	if h.OpCode == wiremessage.OpMsg {
		if _, err := wire.Parse(reply); err != nil {
			t.Fatalf("the reply to request %d does not parse: %v", reqID, err)
		}
	}
}

// preAuthSeeds are what clients send before they authenticate, well-formed
// and not: handshakes, each step of SCRAM, the commands mongod answers
// before authentication and some it refuses, and broken messages.
func preAuthSeeds(tb testing.TB) [][]byte {
	msg := func(flags wiremessage.MsgFlag, d bson.D) []byte {
		b, err := bson.Marshal(d)
		if err != nil {
			tb.Fatal(err)
		}
		return wire.AppendMsg(nil, 7, 0, flags, b)
	}
	cmd := func(d ...bson.E) []byte { return msg(0, append(bson.D(d), bson.E{Key: "$db", Value: "admin"})) }
	e := func(k string, v any) bson.E { return bson.E{Key: k, Value: v} }
	payload := func(s string) bson.Binary { return bson.Binary{Data: []byte(s)} }
	start := bson.D{e("saslStart", 1), e("mechanism", "SCRAM-SHA-256"), e("payload", payload("n,,n=user,r=rOprNGfwEbeRWgbNEkqO")),
		e("options", bson.D{e("skipEmptyExchange", true)}), e("db", "admin")}
	isMaster, err := bson.Marshal(bson.D{e("isMaster", 1), e("helloOk", true), e("client", bson.D{e("driver", bson.D{e("name", "fuzz")})})})
	if err != nil {
		tb.Fatal(err)
	}
	opQuery := wiremessage.AppendHeader(nil, 0, 7, 0, wiremessage.OpQuery)
	opQuery = wiremessage.AppendQueryFlags(opQuery, 0)
	opQuery = wiremessage.AppendQueryFullCollectionName(opQuery, "admin.$cmd")
	opQuery = append(wiremessage.AppendQueryNumberToReturn(wiremessage.AppendQueryNumberToSkip(opQuery, 0), -1), isMaster...)
	binary.LittleEndian.PutUint32(opQuery, uint32(len(opQuery)))
	conversation := append(cmd(e("hello", 1), e("saslSupportedMechs", "admin.user"), e("speculativeAuthenticate", start)),
		cmd(e("saslContinue", 1), e("conversationId", 1), e("payload", payload("c=biws,r=rOprNGfwEbeRWgbNEkqO,p=AAAA")))...)
	return [][]byte{
		opQuery,
		conversation,
		cmd(start[:4]...),
		cmd(e("saslStart", 1), e("mechanism", "PLAIN"), e("payload", payload("\x00user\x00pencil"))),
		cmd(e("authenticate", 1), e("mechanism", "MONGODB-X509")),
		cmd(e("saslContinue", 1), e("conversationId", 9), e("payload", payload(""))),
		append(cmd(e("ping", 1)), cmd(e("buildInfo", 1))...),
		append(cmd(e("whatsmyuri", 1)), cmd(e("connectionStatus", 1))...),
		cmd(e("logout", 1)),
		cmd(e("hello", 1), e("loadBalanced", true)),
		cmd(e("find", "c"), e("$readPreference", bson.D{e("mode", "secondary"), e("tags", bson.A{bson.D{}, bson.D{}, bson.D{e("dc", "x")}})})),
		msg(wiremessage.MoreToCome, bson.D{e("insert", "c"), e("documents", bson.A{bson.D{}}), e("$db", "d")}),
		cmd(e("endSessions", bson.A{bson.D{e("id", bson.Binary{Subtype: 4, Data: make([]byte, 16)})}})),
		cmd(e("getMore", int64(5)), e("collection", "c")),
		cmd(e("ping", 1))[:30],
		{},
	}
}
