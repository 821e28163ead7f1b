package monitor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/decongestant/decongestant/internal/redact"
)

// The errors of "is this a replica set I can route reads in?", decided here
// and nowhere else.
var (
	// ErrBadURI: the connection string does not parse.
	ErrBadURI = errors.New("invalid connection string")
	// ErrNotReplicaSet: the URI names a standalone mongod, a mongos, a load
	// balancer, or one member by direct connection.
	ErrNotReplicaSet = errors.New("not a replica set")
	// ErrUnreachable: no member answered in time.
	ErrUnreachable = errors.New("replica set unreachable")
)

// CheckURI rejects, before any connection, connection strings that cannot
// name a replica set's members: unparsable, load balanced (a mongos), or a
// direct connection to one member without replicaSet=NAME.
func CheckURI(uri string) error {
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadURI, redact.URI(uri), err)
	}
	if cs.LoadBalanced {
		return fmt.Errorf("%w: %s is load balanced (a mongos); decongestant needs the replica set's members", ErrNotReplicaSet, redact.URI(uri))
	}
	if cs.Scheme == connstring.SchemeMongoDB && cs.ReplicaSet == "" && cs.DirectConnection {
		return fmt.Errorf("%w: %s asks for a direct connection; give the replica set's members and replicaSet=NAME", ErrNotReplicaSet, redact.URI(uri))
	}
	return nil
}

// CheckReplicaSet asks the server behind client (connected to uri) hello and
// fails clearly when it is a standalone mongod or a mongos, or when nothing
// answers within timeout (the hosts are named, credentials are not).
func CheckReplicaSet(ctx context.Context, client *mongo.Client, uri string, timeout time.Duration) error {
	var hello struct {
		SetName string `bson:"setName"`
		Msg     string `bson:"msg"`
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := client.Database("admin").RunCommand(hctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		hosts := "?"
		if cs, perr := connstring.Parse(uri); perr == nil {
			hosts = strings.Join(cs.Hosts, ", ")
		}
		return fmt.Errorf("%w: no answer from %s within %v: %v", ErrUnreachable, hosts, timeout, err)
	}
	switch {
	case hello.Msg == "isdbgrid":
		return fmt.Errorf("%w: %s is a mongos; read preferences are decided per shard, so point decongestant at a shard's replica set", ErrNotReplicaSet, redact.URI(uri))
	case hello.SetName == "":
		return fmt.Errorf("%w: %s is a standalone mongod; decongestant routes between a replica set's primary and secondaries (start one with `decongestant cluster up`)", ErrNotReplicaSet, redact.URI(uri))
	}
	return nil
}

// ConfigMember is a member of the replica set's configuration.
type ConfigMember struct {
	Host string
	// Name is the member's "node" tag (decongestant's cluster sets n1,
	// n2...), "" when untagged.
	Name string
}

// ConfigMembers returns the members of the replica set's configuration
// (replSetGetConfig on the primary).
func ConfigMembers(ctx context.Context, client *mongo.Client) ([]ConfigMember, error) {
	var res struct {
		Config struct {
			Members []struct {
				Host string            `bson:"host"`
				Tags map[string]string `bson:"tags"`
			} `bson:"members"`
		} `bson:"config"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetConfig", Value: 1}}).Decode(&res); err != nil {
		return nil, fmt.Errorf("monitor: replSetGetConfig: %w", err)
	}
	out := make([]ConfigMember, 0, len(res.Config.Members))
	for _, m := range res.Config.Members {
		out = append(out, ConfigMember{Host: m.Host, Name: m.Tags["node"]})
	}
	return out, nil
}
