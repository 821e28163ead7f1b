package proxy

import (
	"bytes"
	"net"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/proxy/wire"
)

// fakeMember is a replica set of one member, the primary of "rs0", that
// speaks just enough of the wire protocol for the upstream pool: it answers
// hello and isMaster (the pool's handshakes and heartbeats) as a primary,
// buildInfo with a version, and every other command with ok: 1, and it
// records every command but the handshakes. For unit tests and fuzz targets
// that need a Server with a pool but no mongod.
type fakeMember struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	got   []bsoncore.Document // the commands received, in order (copies)
}

// startFakeMember listens on a free loopback port; tb's cleanup closes it.
func startFakeMember(tb testing.TB) *fakeMember {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	fm := &fakeMember{ln: ln, conns: map[net.Conn]struct{}{}}
	fm.wg.Add(1)
	go fm.accept()
	tb.Cleanup(fm.close)
	return fm
}

// uri is a replica set URI naming the member.
func (fm *fakeMember) uri() string {
	return "mongodb://" + fm.ln.Addr().String() + "/?replicaSet=rs0"
}

// received returns the commands received since the first n.
func (fm *fakeMember) received(n int) []bsoncore.Document {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	return append([]bsoncore.Document(nil), fm.got[min(n, len(fm.got)):]...)
}

// count is how many commands it has received.
func (fm *fakeMember) count() int {
	fm.mu.Lock()
	defer fm.mu.Unlock()
	return len(fm.got)
}

func (fm *fakeMember) close() {
	fm.ln.Close()
	fm.mu.Lock()
	for c := range fm.conns {
		c.Close()
	}
	fm.mu.Unlock()
	fm.wg.Wait()
}

func (fm *fakeMember) accept() {
	defer fm.wg.Done()
	for {
		c, err := fm.ln.Accept()
		if err != nil {
			return
		}
		fm.mu.Lock()
		fm.conns[c] = struct{}{}
		fm.mu.Unlock()
		fm.wg.Add(1)
		go fm.serve(c)
	}
}

// serve answers one connection's messages until it closes. The read buffer
// is reused, so a big forwarded message costs the member one buffer.
func (fm *fakeMember) serve(c net.Conn) {
	defer fm.wg.Done()
	defer func() {
		fm.mu.Lock()
		delete(fm.conns, c)
		fm.mu.Unlock()
		c.Close()
	}()
	var buf []byte
	for {
		msg, err := wire.ReadMessageInto(buf, c, 0)
		if err != nil {
			return // the pool closed the connection, or the test closed the member
		}
		buf = msg[:0]
		m, err := wire.Parse(msg)
		if err != nil {
			return
		}
		var reply []byte
		doc := fm.answer(m.Body)
		switch {
		case m.Header.OpCode == wiremessage.OpQuery:
			reply = wire.AppendReply(nil, 1, m.Header.RequestID, 0, doc)
		case m.Flags&wiremessage.MoreToCome != 0:
			continue
		default:
			reply = wire.AppendMsg(nil, 1, m.Header.RequestID, 0, doc)
		}
		if _, err := c.Write(reply); err != nil {
			return
		}
	}
}

// answer is the reply to a command, recorded unless it is a handshake.
func (fm *fakeMember) answer(cmd bsoncore.Document) bsoncore.Document {
	name := ""
	if e, err := cmd.IndexErr(0); err == nil {
		name = e.Key()
	}
	if name == "$query" { // an OP_QUERY's wrapped command
		if inner, ok := cmd.Index(0).Value().DocumentOK(); ok {
			cmd = inner
			if e, err := cmd.IndexErr(0); err == nil {
				name = e.Key()
			}
		}
	}
	var d bson.D
	switch name {
	case "hello", "isMaster", "ismaster":
		addr := fm.ln.Addr().String()
		return marshalDoc(bson.D{
			{Key: "helloOk", Value: true}, {Key: "isWritablePrimary", Value: true}, {Key: "ismaster", Value: true},
			{Key: "setName", Value: "rs0"}, {Key: "setVersion", Value: 1}, {Key: "electionId", Value: bson.ObjectID{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}},
			{Key: "hosts", Value: bson.A{addr}}, {Key: "primary", Value: addr}, {Key: "me", Value: addr},
			{Key: "minWireVersion", Value: 0}, {Key: "maxWireVersion", Value: 17},
			{Key: "maxBsonObjectSize", Value: 16 << 20}, {Key: "maxMessageSizeBytes", Value: 48_000_000}, {Key: "maxWriteBatchSize", Value: 100_000},
			{Key: "logicalSessionTimeoutMinutes", Value: 30}, {Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
			{Key: "connectionId", Value: 1}, {Key: "ok", Value: 1.0},
		})
	case "buildInfo", "buildinfo":
		d = bson.D{{Key: "version", Value: "6.0.5"}, {Key: "versionArray", Value: bson.A{6, 0, 5, 0}}, {Key: "ok", Value: 1.0}}
	default:
		d = bson.D{{Key: "ok", Value: 1.0}}
	}
	fm.mu.Lock()
	fm.got = append(fm.got, bytes.Clone(cmd))
	fm.mu.Unlock()
	return marshalDoc(d)
}

func marshalDoc(d bson.D) bsoncore.Document {
	b, err := bson.Marshal(d)
	if err != nil {
		panic(err) // only the literal documents above
	}
	return b
}
