package monitor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/address"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// secret is the password of the URIs below, with characters that mean something in a URI.
const secret = "p@ss:w/o?r#d%+"

// appURI connects as app with secret, percent-encoded.
var appURI = "mongodb://app:" + strings.NewReplacer("@", "%40", ":", "%3A", "/", "%2F", "?", "%3F", "#", "%23", "%", "%25", "+", "%2B").Replace(secret) +
	"@127.0.0.1:27017,127.0.0.1:27018/?replicaSet=rs0&authSource=admin"

// handshake is how the driver reports a connection that failed while it was being set up: a
// connection error around the cause, wrapped by the layers above.
func handshake(cause error) error {
	return fmt.Errorf("server selection: %w", topology.ConnectionError{ConnectionID: "127.0.0.1:27017[-4]", Wrapped: cause})
}

// selection is a server selection that timed out while every server's last heartbeat failed with
// cause.
func selection(cause error) error {
	return topology.ServerSelectionError{Wrapped: context.DeadlineExceeded, Desc: description.Topology{Servers: []description.Server{
		{Addr: address.Address("127.0.0.1:27017"), LastError: handshake(cause)},
		{Addr: address.Address("127.0.0.1:27018"), LastError: handshake(cause)},
	}}}
}

func TestExplainAccess(t *testing.T) {
	authFailed := mongo.CommandError{Code: 18, Name: "AuthenticationFailed", Message: "Authentication failed.",
		Wrapped: handshake(&auth.Error{})}
	unknownCA := &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	leaf := &x509.Certificate{DNSNames: []string{"localhost"}}
	denied := func(msg string) error {
		return fmt.Errorf("run: %w", mongo.CommandError{Code: 13, Name: "Unauthorized", Message: msg})
	}
	tests := []struct {
		name string
		uri  string
		err  error
		want error    // nil: err comes back unchanged
		says []string // in the message
	}{
		{"wrong password", appURI, authFailed, ErrAuth,
			[]string{`authentication failed for user "app" (authSource admin): wrong password or no such user`}},
		{"the driver's own auth failure", appURI, handshake(&auth.Error{}), ErrAuth, []string{`for user "app"`}},
		{"unknown authority", appURI, handshake(unknownCA), ErrTLS,
			[]string{"TLS certificate of 127.0.0.1:27017 is not trusted (signed by an unknown authority)", "tlsCAFile=PATH"}},
		{"unknown authority in a server selection", appURI, selection(unknownCA), ErrTLS,
			[]string{"TLS certificate of 127.0.0.1:27017 is not trusted", "give the CA"}},
		{"the wrong CA given", appURI + "&tls=true&tlsCAFile=%2Ftmp%2Fother%20ca.pem", selection(unknownCA), ErrTLS,
			[]string{"tlsCAFile=/tmp/other ca.pem is not the CA that signed it"}},
		{"certificate for another host", appURI, handshake(x509.HostnameError{Certificate: leaf, Host: "10.0.0.1"}), ErrTLS,
			[]string{"is not valid for 10.0.0.1"}},
		{"expired certificate", appURI, handshake(x509.CertificateInvalidError{Reason: x509.Expired}), ErrTLS, []string{"is invalid"}},
		{"a server without TLS", appURI, selection(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), ErrTLS,
			[]string{"does not speak TLS: remove tls=true"}},
		{"lag source needs clusterMonitor", appURI,
			denied(`not authorized on admin to execute command { replSetGetStatus: 1, lsid: { id: UUID("0d1c") }, $db: "admin" }`),
			ErrNotAuthorized, []string{`user "app" may not run replSetGetStatus: it needs the clusterMonitor role (on admin)`}},
		{"stepdown needs clusterManager", appURI, denied(`not authorized on admin to execute command { replSetStepDown: 10 }`),
			ErrNotAuthorized, []string{"it needs the clusterManager role"}},
		{"a write outside the user's database", appURI, denied(`not authorized on ycsb to execute command { insert: "usertable", ordered: true }`),
			ErrNotAuthorized, []string{`user "app" may not run insert on ycsb: it needs the readWrite role on ycsb`}},
		{"a command not in the table", appURI, denied(`not authorized on admin to execute command { fsync: 1 }`),
			ErrNotAuthorized, []string{"may not run fsync on admin: it needs a role that grants it"}},
		{"no user at all", "mongodb://h1/?replicaSet=rs0", denied("not authorized on app to execute command { find: \"t\" }"),
			ErrNotAuthorized, []string{"this client (not authenticated) may not run find on app: it needs the read role on app"}},
		{"a timeout is not an access error", appURI, fmt.Errorf("hello: %w", context.DeadlineExceeded), nil, nil},
		{"a closed connection is not an access error", appURI, handshake(io.EOF), nil, nil},
		{"a server error of another kind", appURI, mongo.CommandError{Code: 11000, Name: "DuplicateKey"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExplainAccess(tt.err, tt.uri)
			if tt.want == nil {
				if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.err) {
					t.Fatalf("ExplainAccess(%v) = %v, want it unchanged", tt.err, got)
				}
				return
			}
			if !errors.Is(got, tt.want) {
				t.Fatalf("ExplainAccess = %v, want an error wrapping %v", got, tt.want)
			}
			if ae, ok := got.(*accessError); !ok || fmt.Sprintf("%#v", ae.cause) != fmt.Sprintf("%#v", tt.err) {
				t.Errorf("the driver's error is not in the chain of %#v", got)
			}
			msg := got.Error()
			for _, s := range tt.says {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not say %q", msg, s)
				}
			}
			for _, bad := range []string{secret, "p%40ss", "\n", "connection(", "server selection", "lsid", "UUID"} {
				if strings.Contains(msg, bad) {
					t.Errorf("message %q holds %q", msg, bad)
				}
			}
			if again := ExplainAccess(fmt.Errorf("wrapped: %w", got), tt.uri); !strings.HasPrefix(again.Error(), "wrapped: "+msg) {
				t.Errorf("an explained error explained again: %v", again)
			}
		})
	}
}

func TestIdentityOf(t *testing.T) {
	tests := []struct {
		name string
		uri  string
		opts []*options.ClientOptions
		want identity
	}{
		{"from the URI", appURI + "&tls=true&tlsCAFile=%2Ftmp%2Fca.pem", nil,
			identity{user: "app", authSource: "admin", tls: true, caFile: "/tmp/ca.pem"}},
		{"authSource defaults to admin", "mongodb://u:p@h/?replicaSet=rs0", nil, identity{user: "u", authSource: "admin"}},
		{"no user", "mongodb://h/?replicaSet=rs0", nil, identity{authSource: "admin"}},
		{"options win", "mongodb://u:p@h/?replicaSet=rs0", []*options.ClientOptions{
			options.Client().SetAuth(options.Credential{Username: "other", AuthSource: "app"}).SetTLSConfig(&tls.Config{}),
		}, identity{user: "other", authSource: "app", tls: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := identityOf(tt.uri, tt.opts); got != tt.want {
				t.Errorf("identityOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestWatchHandshakes: the first heartbeat that fails the TLS handshake ends the check with ErrTLS;
// other heartbeat failures do not; the user's server monitor still hears of every one.
func TestWatchHandshakes(t *testing.T) {
	var heard []string
	user := options.Client().SetServerMonitor(&event.ServerMonitor{
		ServerHeartbeatFailed: func(e *event.ServerHeartbeatFailedEvent) { heard = append(heard, e.ConnectionID) },
	})
	ctx, sm, stop := watchHandshakes(context.Background(), identityOf(appURI, nil), []*options.ClientOptions{user})
	defer stop(nil)
	sm.ServerHeartbeatFailed(&event.ServerHeartbeatFailedEvent{ConnectionID: "127.0.0.1:27017[-1]", Failure: io.EOF})
	if ctx.Err() != nil {
		t.Fatalf("a closed connection ended the check: %v", context.Cause(ctx))
	}
	sm.ServerHeartbeatFailed(&event.ServerHeartbeatFailedEvent{ConnectionID: "127.0.0.1:27018[-2]",
		Failure: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}})
	if ctx.Err() == nil {
		t.Fatal("a TLS failure did not end the check")
	}
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrTLS) || !strings.Contains(cause.Error(), "127.0.0.1:27018 is not trusted") {
		t.Errorf("cause %v, want ErrTLS naming 127.0.0.1:27018", cause)
	}
	if len(heard) != 2 {
		t.Errorf("the user's monitor heard %v, want both failures", heard)
	}
}

func TestServerErrIs(t *testing.T) {
	if !serverErrIs(selection(io.EOF), io.EOF) || !serverErrIs(handshake(io.EOF), io.EOF) {
		t.Error("EOF not found")
	}
	if serverErrIs(selection(tls.RecordHeaderError{}), io.EOF) || serverErrIs(context.DeadlineExceeded, io.EOF) {
		t.Error("EOF found where there is none")
	}
}
