package upstream

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/mnet"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// RoundTrip sends msg, one whole OP_MSG as a client sent it, to the member
// at addr over one of the pool's connections to it, and returns the member's
// reply answering the client's request: its responseTo is msg's requestID.
//
// On the member's connection msg goes under a request id of the pool's
// (wire.RewriteIDs), and without exhaustAllowed: a member never streams
// replies to the pool, each request gets exactly one reply and a
// connection goes back to the pool clean. A client that set exhaustAllowed
// must accept a reply without moreToCome and asks for its next batch
// itself, as it would from a member that does not stream. msg's header and
// flags are changed while it is sent and restored before RoundTrip returns.
//
// A message with moreToCome (an unacknowledged write) gets no reply:
// RoundTrip returns (nil, nil) once it is written.
//
// Each request may go over a different connection: cursors belong to the
// member (and the authenticated user and session), not to a connection, so
// a getMore only has to reach the same member. The context bounds the wait
// for a connection, the write and the read; when it ends, the error wraps
// ctx.Err().
//
// A request abandoned when ctx ended after it was sent gives an
// *AbandonedError, to end the member's operation with KillOps.
//
// Errors wrap the package's sentinels (see ErrUnavailable) and name addr.
// A network error or a reply saying the member is not primary or is
// recovering updates the driver's view of the member, as the driver's own
// operations do (Members shows it unknown until a heartbeat says otherwise).
func (p *Pool) RoundTrip(ctx context.Context, addr string, msg []byte) ([]byte, error) {
	req, err := readRequest(msg)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", addr, err)
	}
	srv, err := p.server(addr)
	if err != nil {
		return nil, err
	}
	conn, err := srv.Connection(ctx)
	if err != nil {
		return nil, p.checkoutError(addr, err)
	}
	reply, err := p.exchange(ctx, srv, conn, addr, msg, req)
	if err != nil && ctx.Err() != nil && errors.Is(err, ErrConnection) {
		if id := conn.ServerConnectionID(); id != nil {
			err = &AbandonedError{Member: addr, ConnectionID: *id, Err: err}
		}
	}
	var ab *AbandonedError
	if errors.Is(err, ErrProtocol) || errors.As(err, &ab) {
		// The stream on this connection cannot be trusted any more, or
		// its request may still run: a connection the member might
		// still answer on must not carry another request.
		if c, ok := conn.ReadWriteCloser.(driver.Expirable); ok {
			_ = c.Expire()
			return nil, err
		}
	}
	_ = conn.Close() // back to the pool, which drops it if it broke
	return reply, err
}

// exchange sends msg over conn, a connection checked out of srv, and reads
// the reply when one is due.
func (p *Pool) exchange(ctx context.Context, srv *topology.Server, conn *mnet.Connection, addr string, msg []byte, req request) ([]byte, error) {
	id := wiremessage.NextRequestID()
	stamp(msg, id, 0, req.flags&^wiremessage.ExhaustAllowed)
	err := conn.Write(ctx, msg)
	stamp(msg, req.id, req.responseTo, req.flags)
	if err != nil {
		srv.ProcessError(err, conn)
		return nil, p.redact(fmt.Errorf("upstream %s: %w: sending: %w", addr, ErrConnection, err))
	}
	if req.flags&wiremessage.MoreToCome != 0 {
		return nil, nil
	}
	reply, err := conn.Read(ctx)
	if err != nil {
		srv.ProcessError(err, conn)
		return nil, p.redact(fmt.Errorf("upstream %s: %w: reading the reply: %w", addr, ErrConnection, err))
	}
	body, err := readReply(reply, id)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", addr, err)
	}
	if mayChangeState(body) {
		srv.ProcessError(driver.ExtractErrorFromServerResponse(body), conn)
	}
	stampReply(reply, req.id)
	return reply, nil
}
