package upstream

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
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
	mp, err := p.member(addr)
	if err != nil {
		return nil, err
	}
	c, err := mp.get(ctx)
	if err != nil {
		return nil, err
	}
	reply, err := p.exchange(ctx, mp, c, addr, msg, req)
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) && errors.Is(err, ErrConnection) {
		if id := c.ServerConnectionID(); id != nil {
			err = &AbandonedError{Member: addr, ConnectionID: *id, Err: err}
		}
	}
	// A connection whose exchange failed is closed: its stream cannot be
	// trusted (a protocol error), or its request may still run (a
	// connection the member might still answer on must not carry another).
	mp.put(c, err != nil && (errors.Is(err, ErrConnection) || errors.Is(err, ErrProtocol)))
	return reply, err
}

// exchange sends msg over c and reads the reply when one is due.
func (p *Pool) exchange(ctx context.Context, mp *memberPool, c *memberConn, addr string, msg []byte, req request) ([]byte, error) {
	id := wiremessage.NextRequestID()
	stamp(msg, id, 0, req.flags&^wiremessage.ExhaustAllowed)
	noReply := req.flags&wiremessage.MoreToCome != 0
	reply, err := c.roundTrip(ctx, msg, noReply)
	stamp(msg, req.id, req.responseTo, req.flags)
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			// The member's or the network's failure, not the request's
			// end (which the driver never reports either).
			mp.processError(err, c)
		}
		if errors.Is(err, ErrProtocol) {
			return nil, fmt.Errorf("upstream %s: %w", addr, err)
		}
		return nil, p.redact(fmt.Errorf("upstream %s: %w: %w", addr, ErrConnection, err))
	}
	if noReply {
		return nil, nil
	}
	body, err := readReply(reply, id)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", addr, err)
	}
	if mayChangeState(body) {
		mp.processError(driver.ExtractErrorFromServerResponse(body), c)
	}
	stampReply(reply, req.id)
	return reply, nil
}
