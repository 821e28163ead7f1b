package router

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// bridge carries a causally consistent session across clients. A session
// belongs to the client that started it, and a member's direct pool is
// another client: the read runs in a session of the member's client that is
// first advanced to the application session's cluster and operation times
// (so the member waits for everything the application has seen), and the
// application session is advanced to the member session's times afterwards
// (so its next operations come after this read).
type bridge struct {
	app, member *mongo.Session
}

// bridgeSession returns ctx with t's session in place of the application's
// when ctx carries a session of another client; b is nil when no bridge is
// needed. A session in a transaction is never bridged: the caller routes
// it to the primary.
func bridgeSession(ctx context.Context, t *target) (context.Context, *bridge, error) {
	app := mongo.SessionFromContext(ctx)
	if app == nil || t.client == nil || app.Client() == t.client {
		return ctx, nil, nil
	}
	ms, err := t.client.StartSession(options.Session().SetCausalConsistency(true))
	if err != nil {
		return ctx, nil, err
	}
	if ct := app.ClusterTime(); ct != nil {
		_ = ms.AdvanceClusterTime(ct)
	}
	if ot := app.OperationTime(); ot != nil {
		_ = ms.AdvanceOperationTime(ot)
	}
	return mongo.NewSessionContext(ctx, ms), &bridge{app: app, member: ms}, nil
}

// done advances the application session past the read and ends the
// member's session.
func (b *bridge) done() {
	if b == nil {
		return
	}
	if ct := b.member.ClusterTime(); ct != nil {
		_ = b.app.AdvanceClusterTime(ct)
	}
	if ot := b.member.OperationTime(); ot != nil {
		_ = b.app.AdvanceOperationTime(ot)
	}
	b.member.EndSession(context.Background())
}

// causalAfter returns the operation time of ctx's causally consistent
// session (zero without one, or before its first operation).
func causalAfter(ctx context.Context) bson.Timestamp {
	s := mongo.SessionFromContext(ctx)
	if s == nil {
		return bson.Timestamp{}
	}
	if ot := s.OperationTime(); ot != nil {
		return *ot
	}
	return bson.Timestamp{}
}

// inTransaction reports whether ctx carries a session with a transaction
// running; such reads must stay on the primary.
func inTransaction(ctx context.Context) bool {
	s := mongo.SessionFromContext(ctx)
	return s != nil && s.TransactionRunning()
}
