package upstream

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"

	"github.com/decongestant/decongestant/proxy/wire"
)

// AbandonedError is the error of a round trip whose context ended while
// the member may still be running the request: the client hung up, or a
// timeout passed. Closing the connection does not stop a mongod's
// operation (a w:majority write keeps waiting for its write concern), so
// the caller may end it with KillOps.
type AbandonedError struct {
	// Member is the member's address.
	Member string
	// ConnectionID is the member's id of the connection the request was
	// sent on (its hello's connectionId), which currentOp shows.
	ConnectionID int64
	// Err is RoundTrip's error, wrapping ErrConnection and the context's.
	Err error
}

func (e *AbandonedError) Error() string { return e.Err.Error() }
func (e *AbandonedError) Unwrap() error { return e.Err }

// KillOps ends the operations the member at addr runs for its connection
// connID (currentOp, then killOp for each), as a mongos kills a shard's
// operations for a client that left; it returns how many it killed. They
// are the URI's user's own operations ($ownOps), which a user may see and
// kill without the inprog and killop privileges.
func (p *Pool) KillOps(ctx context.Context, addr string, connID int64) (int, error) {
	cur := bsoncore.NewDocumentBuilder().AppendInt32("currentOp", 1).AppendInt64("connectionId", connID).AppendBoolean("$ownOps", true).AppendString("$db", "admin").Build()
	body, err := p.command(ctx, addr, cur)
	if err != nil {
		return 0, err
	}
	ops, ok := body.Lookup("inprog").ArrayOK()
	if !ok {
		return 0, fmt.Errorf("upstream %s: currentOp: %w: no inprog array", addr, ErrProtocol)
	}
	vals, err := ops.Values()
	if err != nil {
		return 0, fmt.Errorf("upstream %s: currentOp: %w: %w", addr, ErrProtocol, err)
	}
	killed := 0
	var errs []error
	for _, v := range vals {
		op, ok := v.DocumentOK()
		if !ok {
			continue
		}
		id := op.Lookup("opid")
		if id.Type == 0 {
			continue
		}
		kill := bsoncore.NewDocumentBuilder().AppendInt32("killOp", 1).AppendValue("op", id).AppendString("$db", "admin").Build()
		if _, err := p.command(ctx, addr, kill); err != nil {
			errs = append(errs, err)
			continue
		}
		killed++
	}
	return killed, errors.Join(errs...)
}

// command runs body on addr and returns the reply's body, or an error for
// a reply with ok 0.
func (p *Pool) command(ctx context.Context, addr string, body bsoncore.Document) (bsoncore.Document, error) {
	reply, err := p.RoundTrip(ctx, addr, wire.AppendMsg(nil, wiremessage.NextRequestID(), 0, 0, body))
	if err != nil {
		return nil, err
	}
	m, err := wire.Parse(reply)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w: %w", addr, ErrProtocol, err)
	}
	doc := m.Body
	if ok, _ := doc.Lookup("ok").AsFloat64OK(); ok != 1 {
		msg, _ := doc.Lookup("errmsg").StringValueOK()
		return nil, fmt.Errorf("upstream %s: %s: %s", addr, body.Index(0).Key(), msg)
	}
	return doc, nil
}
