package proxy

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// local answers the commands the proxy handles without a member: ping,
// whatsmyuri, connectionStatus and logout (nobody is authenticated to the
// proxy), and the authentication commands, which it refuses. With
// Config.Users, authCommand (auth.go) answers the last three first. ok is
// false for a command it does not answer itself.
func local(c *wire.Class, remote string) (doc bsoncore.Document, ok bool) {
	switch c.Command {
	case "ping", "logout":
		return okDoc(), true
	case "whatsmyuri":
		return bsoncore.NewDocumentBuilder().AppendString("you", remote).AppendDouble("ok", 1).Build(), true
	case "connectionStatus":
		return connectionStatus("", ""), true
	case "saslStart", "saslContinue", "authenticate":
		return errorDoc(codeAuthenticationFailed,
			"the decongestant proxy does not authenticate clients: connect without credentials (or start it with users: decongestant proxy --users FILE)"), true
	}
	return nil, false
}

func okDoc() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).Build()
}
