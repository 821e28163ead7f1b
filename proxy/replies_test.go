package proxy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/proxy/wire"
)

func TestUpstreamError(t *testing.T) {
	plain := wire.Class{Kind: wire.KindRead}
	retryable := wire.Class{Kind: wire.KindWrite, Session: wire.Session{HasTxnNumber: true, TxnNumber: 3}}
	txn := wire.Class{Kind: wire.KindWrite, Session: wire.Session{HasTxnNumber: true, InTransaction: true}}
	down := fmt.Errorf("h2:27017: %w", upstream.ErrUnavailable)
	for _, tc := range []struct {
		name     string
		err      error
		class    wire.Class
		code     int32
		codeName string
		labels   []string
	}{
		{"unavailable read", down, plain, 6, "HostUnreachable", nil},
		{"unavailable retryable write", down, retryable, 6, "HostUnreachable", []string{"RetryableWriteError"}},
		{"unavailable in a transaction", down, txn, 6, "HostUnreachable", []string{"TransientTransactionError"}},
		{"deadline", fmt.Errorf("h2: %w: %w", upstream.ErrConnection, context.DeadlineExceeded), plain, 89, "NetworkTimeout", nil},
		{"connection", fmt.Errorf("h2: %w", upstream.ErrConnection), retryable, 6, "HostUnreachable", []string{"RetryableWriteError"}},
		{"protocol", fmt.Errorf("h2: %w", upstream.ErrProtocol), plain, 9001, "SocketException", nil},
		{"no primary", errNoPrimary, plain, 133, "FailedToSatisfyReadPreference", nil},
		{"closed", fmt.Errorf("h2: %w", upstream.ErrClosed), retryable, 91, "ShutdownInProgress", nil},
		{"ambiguous cursor", fmt.Errorf("%w: 7", errAmbiguousCursor), plain, 43, "CursorNotFound", nil},
		{"other", errors.New("killCursors names cursors of a and b"), plain, 2, "BadValue", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := bson.Raw(upstreamError(tc.err, &tc.class))
			if d.Lookup("ok").Double() != 0 || d.Lookup("code").Int32() != tc.code || d.Lookup("codeName").StringValue() != tc.codeName {
				t.Fatalf("reply %v, want code %d %s", d, tc.code, tc.codeName)
			}
			var labels []string
			if v, err := d.LookupErr("errorLabels"); err == nil {
				vals, _ := v.Array().Values()
				for _, l := range vals {
					labels = append(labels, l.StringValue())
				}
			}
			if !slices.Equal(labels, tc.labels) {
				t.Fatalf("labels %v, want %v", labels, tc.labels)
			}
		})
	}
}

func TestLimitsOf(t *testing.T) {
	ms := []upstream.Member{
		{Addr: "a", Role: upstream.RolePrimary, MinWireVersion: 0, MaxWireVersion: 25, MaxBSONObjectSize: 16 << 20, MaxMessageSizeBytes: 48e6, MaxWriteBatchSize: 100000, SessionTimeoutMinutes: 30},
		{Addr: "b", Role: upstream.RoleSecondary, MinWireVersion: 6, MaxWireVersion: 21, MaxBSONObjectSize: 16 << 20, MaxMessageSizeBytes: 48e6, MaxWriteBatchSize: 1000, SessionTimeoutMinutes: 20},
		{Addr: "c", Role: upstream.RoleArbiter, MaxWireVersion: 17, MaxWriteBatchSize: 1},
		{Addr: "d", Role: upstream.RoleUnknown},
	}
	l, ok := limitsOf(ms)
	want := limits{minWire: 6, maxWire: 21, maxBSON: 16 << 20, maxMsg: 48e6, batch: 1000, sessionMinutes: 20}
	if !ok || l != want {
		t.Fatalf("limitsOf = %+v, %v; want %+v", l, ok, want)
	}
	if _, ok := limitsOf(ms[2:]); ok {
		t.Fatal("limits from an arbiter and an unknown member")
	}
}

func TestHelloReply(t *testing.T) {
	l := limits{minWire: 0, maxWire: 21, maxBSON: 16 << 20, maxMsg: 48e6, batch: 100000, sessionMinutes: 30}
	now := time.UnixMilli(1_700_000_000_000)
	for _, tc := range []struct {
		class    wire.Class
		writable string
		helloOK  bool
	}{
		{wire.Class{Command: "hello"}, "isWritablePrimary", false},
		{wire.Class{Command: "isMaster", Hello: wire.Hello{HelloOK: true, SaslSupportedMechs: "admin.u"}}, "ismaster", true},
		{wire.Class{Command: "ismaster"}, "ismaster", false},
	} {
		t.Run(tc.class.Command, func(t *testing.T) {
			d := bson.Raw(helloReply(&tc.class, l, 42, now))
			if !d.Lookup(tc.writable).Boolean() || d.Lookup("msg").StringValue() != "isdbgrid" || d.Lookup("ok").Double() != 1 {
				t.Fatalf("reply %v", d)
			}
			if d.Lookup("connectionId").Int64() != 42 || d.Lookup("maxWireVersion").Int32() != 21 || d.Lookup("localTime").DateTime() != now.UnixMilli() {
				t.Fatalf("reply %v", d)
			}
			_, err := d.LookupErr("helloOk")
			if (err == nil) != tc.helloOK {
				t.Fatalf("helloOk present %v, want %v", err == nil, tc.helloOK)
			}
			// No topologyVersion: drivers poll the proxy rather than
			// stream (see helloReply).
			for _, absent := range []string{"saslSupportedMechs", "speculativeAuthenticate", "setName", "hosts", "topologyVersion"} {
				if _, err := d.LookupErr(absent); err == nil {
					t.Errorf("%s in %v", absent, d)
				}
			}
		})
	}
}

// A member that refuses the proxy's credentials: the pool's error names the
// proxy's upstream user (for the proxy's log); the client's reply does not.
func TestUpstreamAuthErrorHidesTheUser(t *testing.T) {
	const user = "proxyadmin"
	err := fmt.Errorf("upstream h2:27017: %w as %s@admin: auth error: sasl conversation error", upstream.ErrAuthentication, user)
	d := bson.Raw(upstreamError(err, &wire.Class{Kind: wire.KindRead}))
	if msg := d.Lookup("errmsg").StringValue(); strings.Contains(msg, user) || d.Lookup("codeName").StringValue() != "HostUnreachable" {
		t.Fatalf("reply %v; want HostUnreachable, no %q in it", d, user)
	}
}
