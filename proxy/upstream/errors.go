package upstream

import "errors"

// The errors of this package. Every error RoundTrip returns wraps exactly one
// of them (test with errors.Is), names the member's address, and never quotes
// the URI's password or secret options. The driver's own error stays wrapped
// too, so errors.Is(err, context.DeadlineExceeded) holds for a request that
// ran out of time.
//
// ErrUnknownMember, ErrUnavailable and ErrBadRequest mean the request was not
// sent: the proxy may send it elsewhere. ErrConnection and ErrProtocol mean it
// may have reached the member and run there: only a retryable command may be
// sent again.
var (
	// ErrBadRequest: the message given is not one whole OP_MSG (a length
	// that disagrees with the bytes, another opcode).
	ErrBadRequest = errors.New("bad request")
	// ErrUnknownMember: the address is not a member the driver's topology
	// knows (never discovered, or removed from the set by a reconfig).
	ErrUnknownMember = errors.New("unknown member")
	// ErrUnavailable: no connection to the member could be had: it is down
	// or unreachable (its pool is cleared until a heartbeat reaches it
	// again), a TLS or handshake failure, or the context ended while
	// waiting for a connection.
	ErrUnavailable = errors.New("member unavailable")
	// ErrAuthentication: the member refused the URI's credentials.
	ErrAuthentication = errors.New("authentication failed")
	// ErrConnection: the connection failed while the request was being
	// written or its reply read (the member went away, or the context
	// ended); the request may have run.
	ErrConnection = errors.New("connection failed")
	// ErrProtocol: the member's reply does not answer the request (another
	// responseTo, not an OP_MSG, a stream of replies); that connection is
	// closed.
	ErrProtocol = errors.New("protocol error")
	// ErrNotReplicaSet: New was given a standalone mongod, or a direct
	// connection to one member: the proxy needs every member of a set.
	ErrNotReplicaSet = errors.New("not a replica set")
	// ErrClosed: the pool was closed.
	ErrClosed = errors.New("pool closed")
)
