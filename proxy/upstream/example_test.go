package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

// Example sends a client's find to a secondary of the replica set
// $DECONGESTANT_URI names: for a set started with `decongestant cluster up
// --auth --tls`, the application user's URI it prints, such as
// mongodb://app:PASSWORD@127.0.0.1:27017/?replicaSet=rs0&tls=true&tlsCAFile=/tmp/rs/ca.pem.
// It prints "reply to request 7"; it needs a set, so it has no Output
// comment, and TestExample runs it against one.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := upstream.New(ctx, os.Getenv("DECONGESTANT_URI"))
	if err != nil {
		fmt.Println(err) // no password in it
		return
	}
	defer p.Close(context.Background())

	// New returns once one member has answered; the others join the
	// topology as their first heartbeats come back.
	secondary := ""
	for secondary == "" && ctx.Err() == nil {
		for _, m := range p.Members() {
			if m.Role == upstream.RoleSecondary {
				secondary = m.Addr
			}
		}
		if secondary == "" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	// As a client sends it, with a read preference that allows secondaries
	// (a secondary refuses a read without one).
	body, _ := bson.Marshal(bson.D{
		{Key: "find", Value: "orders"},
		{Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "secondaryPreferred"}}},
		{Key: "$db", Value: "app"},
	})
	reply, err := p.RoundTrip(ctx, secondary, wire.AppendMsg(nil, 7, 0, 0, body))
	switch {
	case errors.Is(err, upstream.ErrUnavailable), errors.Is(err, upstream.ErrUnknownMember):
		fmt.Println("not sent:", err) // another member may take it
	case err != nil:
		fmt.Println("may have run:", err)
	default:
		m, _ := wire.Parse(reply)
		fmt.Println("reply to request", m.Header.ResponseTo) // 7
	}
}
