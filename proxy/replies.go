package proxy

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// Server error codes the proxy answers with (MongoDB's error_codes.yml).
const (
	codeBadValue                      = 2
	codeHostUnreachable               = 6
	codeUnauthorized                  = 13
	codeProtocolError                 = 17
	codeAuthenticationFailed          = 18
	codeCursorNotFound                = 43
	codeNetworkTimeout                = 89
	codeShutdownInProgress            = 91
	codeFailedToSatisfyReadPreference = 133
	codeMechanismUnavailable          = 334
	codeUnsupportedOpQueryCommand     = 352
	codeSocketException               = 9001
)

var codeNames = map[int32]string{
	codeBadValue:                      "BadValue",
	codeHostUnreachable:               "HostUnreachable",
	codeUnauthorized:                  "Unauthorized",
	codeProtocolError:                 "ProtocolError",
	codeAuthenticationFailed:          "AuthenticationFailed",
	codeCursorNotFound:                "CursorNotFound",
	codeNetworkTimeout:                "NetworkTimeout",
	codeShutdownInProgress:            "ShutdownInProgress",
	codeFailedToSatisfyReadPreference: "FailedToSatisfyReadPreference",
	codeMechanismUnavailable:          "MechanismUnavailable",
	codeUnsupportedOpQueryCommand:     "UnsupportedOpQueryCommand",
	codeSocketException:               "SocketException",
}

// errorDoc is a command's error reply: ok 0, errmsg, code, codeName and
// errorLabels when given.
func errorDoc(code int32, msg string, labels ...string) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendDouble("ok", 0).
		AppendString("errmsg", msg).
		AppendInt32("code", code).
		AppendString("codeName", codeNames[code])
	if len(labels) > 0 {
		arr := bsoncore.NewArrayBuilder()
		for _, l := range labels {
			arr.AppendString(l)
		}
		b.AppendArray("errorLabels", arr.Build())
	}
	return b.Build()
}

// upstreamError turns a failed round trip into the error reply a mongos
// would give. stream: the command reads a change stream (an aggregate
// opening one, or a getMore of its cursor).
//
// The codes: HostUnreachable when no connection to the member could be had
// or the connection broke, NetworkTimeout past the deadline,
// SocketException for a reply that does not answer, FailedToSatisfyReadPreference
// without a primary. None of them is a state-change error for a driver's
// SDAM: the driver neither marks the proxy unknown nor clears its pool to
// the proxy for a member's failure. Only the proxy's own shutdown answers
// ShutdownInProgress, which does both, as a mongos shutting down does.
//
// The labels (see labels) depend on the command, not on whether the round
// trip may have reached the member: every error here is one a retry may
// cure.
//
// A member that refused the proxy's own credentials is HostUnreachable
// (the request was not sent) without the pool's words, which name the
// proxy's upstream user: that is for the proxy's log (forward logs it), not
// for clients.
func upstreamError(err error, c *wire.Class, stream bool) bsoncore.Document {
	var code int32
	msg := err.Error()
	switch {
	case errors.Is(err, errNoPrimary):
		code = codeFailedToSatisfyReadPreference
	case errors.Is(err, errAmbiguousCursor):
		return errorDoc(codeCursorNotFound, msg)
	case errors.Is(err, upstream.ErrClosed):
		code, msg = codeShutdownInProgress, "the decongestant proxy is shutting down"
	case errors.Is(err, upstream.ErrAuthentication):
		code, msg = codeHostUnreachable, errUpstreamAuth
	case errors.Is(err, context.DeadlineExceeded):
		code = codeNetworkTimeout
	case errors.Is(err, upstream.ErrProtocol):
		code = codeSocketException
	case errors.Is(err, upstream.ErrUnavailable), errors.Is(err, upstream.ErrUnknownMember),
		errors.Is(err, upstream.ErrConnection):
		code = codeHostUnreachable
	default:
		return errorDoc(codeBadValue, msg)
	}
	return errorDoc(code, msg, labels(c, stream)...)
}

// errUpstreamAuth is the errmsg of a request that failed because a member
// refused the proxy's credentials.
const errUpstreamAuth = "a replica set member refused the decongestant proxy's own credentials: the proxy's log says which member and user"
