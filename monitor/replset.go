package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
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

// ParseURI parses and validates uri as the driver does. Its error wraps
// ErrBadURI and says what is wrong without quoting the password or a secret
// option's value (redact).
func ParseURI(uri string) (*connstring.ConnString, error) {
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrBadURI, redact.URI(uri), uriProblem(err, uri))
	}
	return cs, nil
}

// CheckURI rejects, before any connection, connection strings that cannot
// name a replica set's members: unparsable (ParseURI), load balanced (a
// mongos), or a direct connection to one member without replicaSet=NAME.
func CheckURI(uri string) error {
	cs, err := ParseURI(uri)
	if err != nil {
		return err
	}
	if cs.LoadBalanced {
		return fmt.Errorf("%w: %s is load balanced (a mongos); decongestant needs the replica set's members", ErrNotReplicaSet, redact.URI(uri))
	}
	if cs.Scheme == connstring.SchemeMongoDB && cs.ReplicaSet == "" && cs.DirectConnection {
		return fmt.Errorf("%w: %s asks for a direct connection; give the replica set's members and replicaSet=NAME", ErrNotReplicaSet, redact.URI(uri))
	}
	return nil
}

// Connect connects a client to the replica set at uri, the options opts
// applied after the URI's, and checks it as CheckReplicaSet does within
// timeout. A TLS handshake that fails ends the check at once rather than
// when timeout runs out (the driver keeps retrying it, though no retry can
// succeed). Its errors wrap ErrBadURI, ErrNotReplicaSet, ErrUnreachable,
// ErrAuth, ErrTLS or ErrNotAuthorized, each one line that names the cause
// and never a password.
func Connect(ctx context.Context, uri string, timeout time.Duration, opts ...*options.ClientOptions) (*mongo.Client, error) {
	if err := CheckURI(uri); err != nil {
		return nil, err
	}
	who := identityOf(uri, opts)
	wctx, sm, stop := watchHandshakes(ctx, who, opts)
	defer stop(nil)
	co := append([]*options.ClientOptions{options.Client().ApplyURI(uri)}, opts...)
	client, err := mongo.Connect(append(co, options.Client().SetServerMonitor(sm))...)
	if err != nil {
		// The driver's parse errors quote option values as written.
		return nil, fmt.Errorf("connect to %s: %w", redact.URI(uri), redact.Error(explainAccess(err, who), redact.Secrets(uri)...))
	}
	if err := CheckReplicaSet(wctx, client, uri, timeout); err != nil {
		_ = client.Disconnect(context.Background())
		if cause := context.Cause(wctx); errors.Is(cause, ErrTLS) && ctx.Err() == nil {
			return nil, cause
		}
		return nil, explainAccess(err, who)
	}
	return client, nil
}

// uriProblem is the parser's err about uri, unless it is about or may quote
// the user name or password, or quotes the value of a secret option
// (redact.Secrets): then a line that says how to write them.
func uriProblem(err error, uri string) string {
	msg := err.Error()
	secret := strings.Contains(msg, "password") || strings.Contains(msg, "username")
	for _, part := range strings.FieldsFunc(redact.Userinfo(uri), func(r rune) bool { return strings.ContainsRune(":@/?#", r) }) {
		secret = secret || len(part) >= 3 && strings.Contains(msg, part)
	}
	if secret {
		return "the user name or password is not written as a URI needs: percent-encode @ : / ? # [ ] % in them (%40 %3A %2F %3F %23 %5B %5D %25)"
	}
	secrets := redact.Secrets(uri)
	for _, v := range secrets {
		// The driver quotes (%q) a value it cannot decode as written, and the bad escape with it.
		if strings.Contains(msg, strconv.Quote(v)) {
			return "the value of an option that holds a credential (a password, authMechanismProperties) is not written as a URI needs: percent-encode % & ; + in it (%25 %26 %3B %2B)"
		}
	}
	return redact.Error(err, secrets...).Error()
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
		who := identityOf(uri, nil)
		if e := explained(err, who); e != nil {
			return e
		}
		hosts := "?"
		if cs, perr := connstring.Parse(uri); perr == nil {
			hosts = strings.Join(cs.Hosts, ", ")
		}
		hint := ""
		if !who.tls && serverErrIs(err, io.EOF) {
			// What a member that requires TLS does to a client without it.
			hint = " (the members closed the connection: if they require TLS, add tls=true&tlsCAFile=CA.pem to the URI)"
		}
		return fmt.Errorf("%w: no answer from %s within %v%s: %v", ErrUnreachable, hosts, timeout, hint, err)
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

// Members returns the replica set's members as ConfigMembers does, and for
// a user who may not run replSetGetConfig (it needs clusterMonitor) as every
// member says itself in hello, which needs no role: the hosts the primary
// names (hidden members are not named), each one's node tag from its own
// hello over a direct connection with uri's options and opts. A member that
// does not answer is listed without a name.
func Members(ctx context.Context, client *mongo.Client, uri string, opts ...*options.ClientOptions) ([]ConfigMember, error) {
	members, err := ConfigMembers(ctx, client)
	if !unauthorized(err) {
		return members, err
	}
	var prim struct {
		Hosts    []string `bson:"hosts"`
		Passives []string `bson:"passives"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&prim); err != nil {
		return nil, fmt.Errorf("monitor: hello: %w", explainAccess(err, identityOf(uri, opts)))
	}
	hosts := append(prim.Hosts, prim.Passives...)
	out := make([]ConfigMember, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		out[i].Host = h
		wg.Go(func() {
			c, err := DirectClient(uri, h, "decongestant-members", opts...)
			if err != nil {
				return
			}
			defer c.Disconnect(context.Background())
			var self struct {
				Tags map[string]string `bson:"tags"`
			}
			if c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&self) == nil {
				out[i].Name = self.Tags["node"]
			}
		})
	}
	wg.Wait()
	return out, nil
}

// ConfigMembers returns the members of the replica set's configuration
// (replSetGetConfig on the primary; it needs the clusterMonitor role, see
// Members).
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
