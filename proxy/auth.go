package proxy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// mechSCRAMSHA256 is the one mechanism clients authenticate to the proxy with.
const mechSCRAMSHA256 = "SCRAM-SHA-256"

// errAuthFailed is the errmsg of every failed authentication, as mongod
// words it: it never says whether the user exists.
const errAuthFailed = "Authentication failed."

// unauthenticated are the commands a client may run before it
// authenticates, besides hello and isMaster: those mongod 6.0 answers an
// unauthenticated client (ping, buildInfo, whatsmyuri, connectionStatus
// and the authentication commands). mongod also answers listCommands,
// getnonce and test commands: the proxy does not.
var unauthenticated = map[string]bool{
	"ping": true, "buildInfo": true, "buildinfo": true, "whatsmyuri": true,
	"connectionStatus": true, "saslStart": true, "saslContinue": true, "authenticate": true,
}

// allowedBeforeAuth reports whether a client that has not authenticated may
// send the command named name: the handshake and unauthenticated.
func allowedBeforeAuth(name string) bool {
	switch name {
	case "hello", "isMaster", "ismaster":
		return true
	}
	return unauthenticated[name]
}

// authenticator runs the server side of clients' SCRAM-SHA-256
// conversations against Config.Users. It is read-only after New.
type authenticator struct {
	users map[userKey]scram.StoredCredentials
	// decoy answers for users that do not exist (see newDecoy), so an
	// unknown user fails at the same step as a wrong password and nobody
	// learns which users exist.
	decoy decoy
	// failures limits the failed-authentication lines logged.
	failures *logLimiter
	// nonce, when set, replaces the server's random nonce (tests replay
	// RFC 7677's exchange).
	nonce scram.NonceGeneratorFcn
}

func newAuthenticator(c *Credentials) (*authenticator, error) {
	users, err := c.index()
	if err != nil {
		return nil, err
	}
	if len(users) == 0 {
		return nil, errors.New("the users file holds no user: no client could connect")
	}
	return &authenticator{users: users, decoy: newDecoy(users), failures: newLogLimiter(authLogsPerSecond, "proxy: client authentications failed and were not logged (over the limit of lines a second)")}, nil
}

// lookup returns the stored credentials of user in db, or a decoy's (known
// false).
func (a *authenticator) lookup(db, user string) (sc scram.StoredCredentials, known bool) {
	if sc, ok := a.users[userKey{db, user}]; ok {
		return sc, true
	}
	return a.decoy.credentials(db, user), false
}

// authState is a client connection's authentication: the user it
// authenticated as ("" before), and the conversation in progress.
type authState struct {
	user, db string
	conv     *saslConv
	lastConv int32
}

// saslConv is one SCRAM-SHA-256 conversation.
type saslConv struct {
	id        int32
	db        string
	user      string // the name the client gave, once its first message is read
	known     bool   // user exists
	skipEmpty bool   // options.skipEmptyExchange: done with the server-final message
	sc        *scram.ServerConversation
	// verified: the server-final message is sent, the client's empty
	// message is awaited (without skipEmptyExchange).
	verified bool
}

// authCommand answers, when clients must authenticate, the authentication
// commands, connectionStatus and logout, and refuses every command but
// those of unauthenticated from a client that has not authenticated.
// handled is false for a command to be answered or forwarded as usual.
func (s *Server) authCommand(cc *clientConn, c *wire.Class, body bsoncore.Document) (doc bsoncore.Document, handled bool) {
	switch c.Command {
	case "saslStart":
		return s.saslStart(cc, c.Database, body, false)
	case "saslContinue":
		return s.saslContinue(cc, body), true
	case "authenticate":
		mech, _ := body.Lookup("mechanism").StringValueOK()
		return s.authFailed(cc, c.Database, "", mech, codeMechanismUnavailable, unsupportedMechanism(mech), "mechanism not supported"), true
	case "connectionStatus":
		return connectionStatus(cc.auth.user, cc.auth.db), true
	}
	if cc.auth.user == "" && !unauthenticated[c.Command] {
		return errorDoc(codeUnauthorized, fmt.Sprintf("command %s requires authentication", c.Command)), true
	}
	if c.Command == "logout" {
		cc.auth = authState{lastConv: cc.auth.lastConv}
		return okDoc(), true
	}
	return nil, false
}

func unsupportedMechanism(mech string) string {
	return fmt.Sprintf("Received authentication for mechanism %s which is not enabled: the decongestant proxy authenticates clients with %s only (authMechanism=%s, or none)",
		mech, mechSCRAMSHA256, mechSCRAMSHA256)
}

// saslStart starts a conversation: a saslStart command's in db, or a
// hello's speculativeAuthenticate (speculative: then a failure is no
// reply at all, handled false, and the client authenticates with
// saslStart, which fails and logs the same way).
func (s *Server) saslStart(cc *clientConn, db string, cmd bsoncore.Document, speculative bool) (bsoncore.Document, bool) {
	cc.auth.conv = nil
	mech, _ := cmd.Lookup("mechanism").StringValueOK()
	if mech != mechSCRAMSHA256 {
		if speculative {
			return nil, false
		}
		return s.authFailed(cc, db, "", mech, codeMechanismUnavailable, unsupportedMechanism(mech), "mechanism not supported"), true
	}
	payload, ok := saslPayload(cmd)
	if !ok {
		if speculative {
			return nil, false
		}
		return errorDoc(codeBadValue, "saslStart has no payload (binary or string)"), true
	}
	cc.auth.lastConv++
	conv := &saslConv{id: cc.auth.lastConv, db: db}
	if opts, ok := cmd.Lookup("options").DocumentOK(); ok {
		conv.skipEmpty = truthy(opts.Lookup("skipEmptyExchange"))
	}
	srv, err := scram.SHA256.NewServer(func(name string) (scram.StoredCredentials, error) {
		conv.user = saslName(name)
		sc, known := s.auth.lookup(db, conv.user)
		conv.known = known
		return sc, nil
	})
	if err != nil {
		return errorDoc(codeBadValue, err.Error()), true // never: NewServer cannot fail
	}
	if s.auth.nonce != nil {
		srv = srv.WithNonceGenerator(s.auth.nonce)
	}
	conv.sc = srv.NewConversation()
	reply, err := conv.sc.Step(string(payload))
	if err == nil && conv.sc.AuthzID() != "" && conv.sc.AuthzID() != conv.sc.Username() {
		err = errors.New("authorization identity differs from the user")
	}
	if err != nil {
		if speculative {
			return nil, false
		}
		return s.authFailed(cc, db, conv.user, mech, codeAuthenticationFailed, errAuthFailed, "malformed client-first message"), true
	}
	cc.auth.conv = conv
	return saslReply(conv.id, false, reply, !speculative), true
}

// saslContinue carries a conversation on: the client-final message, or
// the empty one that follows the server-final message without
// skipEmptyExchange.
func (s *Server) saslContinue(cc *clientConn, cmd bsoncore.Document) bsoncore.Document {
	conv := cc.auth.conv
	id, ok := cmd.Lookup("conversationId").AsInt64OK()
	if conv == nil || !ok || id != int64(conv.id) {
		return errorDoc(codeProtocolError, "No SASL session state found")
	}
	payload, ok := saslPayload(cmd)
	if !ok {
		cc.auth.conv = nil
		return errorDoc(codeBadValue, "saslContinue has no payload (binary or string)")
	}
	if conv.verified {
		cc.auth.conv = nil
		if len(payload) != 0 {
			return s.authFailed(cc, conv.db, conv.user, mechSCRAMSHA256, codeAuthenticationFailed, errAuthFailed, "unexpected message after the server-final message")
		}
		s.authenticated(cc, conv)
		return saslReply(conv.id, true, "", true)
	}
	reply, err := conv.sc.Step(string(payload))
	if err != nil || !conv.sc.Valid() {
		cc.auth.conv = nil
		reason := "malformed client-final message"
		if reply == scram.ErrInvalidProof {
			reason = "wrong password"
			if !conv.known {
				reason = "unknown user"
			}
		}
		return s.authFailed(cc, conv.db, conv.user, mechSCRAMSHA256, codeAuthenticationFailed, errAuthFailed, reason)
	}
	if !conv.skipEmpty {
		conv.verified = true
		return saslReply(conv.id, false, reply, true)
	}
	cc.auth.conv = nil
	s.authenticated(cc, conv)
	return saslReply(conv.id, true, reply, true)
}

func (s *Server) authenticated(cc *clientConn, conv *saslConv) {
	cc.auth.user, cc.auth.db = conv.user, conv.db
	s.log.Debug("proxy: client authenticated", "client", cc.remote, "conn", cc.id, "user", conv.user, "db", conv.db)
}

// authFailed logs a failed authentication once (who, where, why; never a
// password nor a SCRAM message), at most authLogsPerSecond lines a second
// (a later line counts those left out), and returns the error reply. The connection stays open, as mongod keeps it.
func (s *Server) authFailed(cc *clientConn, db, user, mech string, code int32, msg, reason string) bsoncore.Document {
	if ok, suppressed := s.auth.failures.allow(s.log); ok {
		args := []any{"client", cc.remote, "conn", cc.id, "user", user, "db", db, "mechanism", mech, "reason", reason}
		if suppressed > 0 {
			args = append(args, "suppressed_before", suppressed)
		}
		s.log.Warn("proxy: client authentication failed", args...)
	}
	return errorDoc(code, msg)
}

// helloAuth adds to a hello reply, when clients must authenticate, the
// mechanisms of the user named by saslSupportedMechs (SCRAM-SHA-256 for any
// name: which users exist is nobody's business, and a driver told nothing
// would fall back to SCRAM-SHA-1) and the answer to a speculativeAuthenticate.
func (s *Server) helloAuth(cc *clientConn, c *wire.Class, doc bsoncore.Document) bsoncore.Document {
	if s.auth == nil {
		return doc
	}
	var extra []byte
	if c.Hello.SaslSupportedMechs != "" {
		extra = bsoncore.AppendArrayElement(extra, "saslSupportedMechs", bsoncore.NewArrayBuilder().AppendString(mechSCRAMSHA256).Build())
	}
	if sa := c.Hello.SpeculativeAuthenticate; sa != nil {
		db, _ := sa.Lookup("db").StringValueOK()
		if first, err := sa.IndexErr(0); err == nil && first.Key() == "saslStart" {
			if r, ok := s.saslStart(cc, db, sa, true); ok {
				extra = bsoncore.AppendDocumentElement(extra, "speculativeAuthenticate", r)
			}
		}
	}
	if extra == nil {
		return doc
	}
	return bsoncore.BuildDocument(nil, append(slices.Clip(doc[4:len(doc)-1]), extra...))
}

// saslReply is a conversation step's reply; ok false for the one nested
// in a hello reply.
func saslReply(id int32, done bool, payload string, ok bool) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendInt32("conversationId", id).
		AppendBoolean("done", done).
		AppendBinary("payload", 0, []byte(payload))
	if ok {
		b.AppendDouble("ok", 1)
	}
	return b.Build()
}

// saslPayload reads a command's payload, binary as drivers send it or a
// string.
func saslPayload(cmd bsoncore.Document) ([]byte, bool) {
	v := cmd.Lookup("payload")
	if _, data, ok := v.BinaryOK(); ok {
		return data, true
	}
	if s, ok := v.StringValueOK(); ok {
		return []byte(s), true
	}
	return nil, false
}

// saslName decodes a SCRAM user name (RFC 5802, section 5.1: "," is sent
// as =2C and "=" as =3D).
func saslName(s string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	return strings.NewReplacer("=2C", ",", "=3D", "=").Replace(s)
}

// truthy reads a boolean option sent as a boolean or a number.
func truthy(v bsoncore.Value) bool {
	if b, ok := v.BooleanOK(); ok {
		return b
	}
	n, ok := v.AsInt64OK()
	return ok && n != 0
}

// connectionStatus answers connectionStatus: the user the connection
// authenticated as, if any. Users have no roles of their own: every
// authenticated client may do what the proxy's own user may.
func connectionStatus(user, db string) bsoncore.Document {
	users := bsoncore.NewArrayBuilder()
	if user != "" {
		users.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("user", user).AppendString("db", db).Build())
	}
	info := bsoncore.NewDocumentBuilder().
		AppendArray("authenticatedUsers", users.Build()).
		AppendArray("authenticatedUserRoles", bsoncore.NewArrayBuilder().Build()).Build()
	return bsoncore.NewDocumentBuilder().AppendDocument("authInfo", info).AppendDouble("ok", 1).Build()
}
