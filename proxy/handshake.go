package proxy

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// limits are what a hello reply advertises of the members: the wire versions
// every data-bearing member speaks and the smallest of their limits.
type limits struct {
	minWire, maxWire       int32
	maxBSON, maxMsg, batch int64
	sessionMinutes         int64
}

// limitsOf computes limits over the members that are primary or secondary
// and have answered a heartbeat; ok is false when there is none (the caller
// keeps what it advertised before).
func limitsOf(members []upstream.Member) (l limits, ok bool) {
	for _, m := range members {
		if (m.Role != upstream.RolePrimary && m.Role != upstream.RoleSecondary) || m.MaxWireVersion == 0 {
			continue
		}
		if !ok {
			l = limits{m.MinWireVersion, m.MaxWireVersion, m.MaxBSONObjectSize, m.MaxMessageSizeBytes, m.MaxWriteBatchSize, m.SessionTimeoutMinutes}
			ok = true
			continue
		}
		l.minWire = max(l.minWire, m.MinWireVersion)
		l.maxWire = min(l.maxWire, m.MaxWireVersion)
		l.maxBSON = min(l.maxBSON, m.MaxBSONObjectSize)
		l.maxMsg = min(l.maxMsg, m.MaxMessageSizeBytes)
		l.batch = min(l.batch, m.MaxWriteBatchSize)
		l.sessionMinutes = min(l.sessionMinutes, m.SessionTimeoutMinutes)
	}
	return l, ok
}

// helloReply is a mongos's answer to hello or isMaster: writable, "isdbgrid",
// the members' wire versions and limits. saslSupportedMechs and
// speculativeAuthenticate are helloAuth's (auth.go).
//
// It carries no topologyVersion, so drivers monitor the proxy by polling
// (a hello every heartbeatFrequencyMS, 10 s) rather than by the streaming
// protocol: a streaming monitor holds an awaitable hello and expects the
// replies to come as an exhaust stream (moreToCome), which the proxy does
// not speak; the Node.js driver 6.10 took each single reply as the server
// ending the stream and cleared its connection pool every ~10 s.
func helloReply(c *wire.Class, l limits, connID int64, now time.Time) bsoncore.Document {
	writable := "isWritablePrimary"
	if c.Command != "hello" {
		writable = "ismaster"
	}
	b := bsoncore.NewDocumentBuilder()
	if c.Hello.HelloOK {
		b.AppendBoolean("helloOk", true)
	}
	b.AppendBoolean(writable, true).
		AppendString("msg", "isdbgrid").
		AppendInt32("maxBsonObjectSize", int32(l.maxBSON)).
		AppendInt32("maxMessageSizeBytes", int32(l.maxMsg)).
		AppendInt32("maxWriteBatchSize", int32(l.batch)).
		AppendDateTime("localTime", now.UnixMilli())
	if l.sessionMinutes > 0 {
		b.AppendInt32("logicalSessionTimeoutMinutes", int32(l.sessionMinutes))
	}
	return b.AppendInt64("connectionId", connID).
		AppendInt32("maxWireVersion", l.maxWire).
		AppendInt32("minWireVersion", l.minWire).
		AppendBoolean("readOnly", false).
		AppendDouble("ok", 1).Build()
}
