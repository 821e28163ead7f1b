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

// sdamStateChange are the codes the SDAM specification calls state-change
// errors ("not writable primary" and "node is recovering"): a driver marks
// the server unknown, and for the shutdown codes (91, 11600) clears its pool.
var sdamStateChange = []int32{10107, 13435, 13436, 189, 91, 11602, 11600}

// TestUpstreamError checks every kind of failed round trip against every
// shape of command: the code depends on the failure, the labels on the
// command (a commit is never TransientTransactionError), and only the
// proxy's own shutdown is a state-change error to a driver's SDAM.
func TestUpstreamError(t *testing.T) {
	errs := []struct {
		name     string
		err      error
		code     int32
		codeName string
		labelled bool
	}{
		{"unavailable", fmt.Errorf("h2:27017: %w", upstream.ErrUnavailable), 6, "HostUnreachable", true},
		{"unknown member", fmt.Errorf("h9:27017: %w", upstream.ErrUnknownMember), 6, "HostUnreachable", true},
		{"connection", fmt.Errorf("h2: %w", upstream.ErrConnection), 6, "HostUnreachable", true},
		{"connection deadline", fmt.Errorf("h2: %w: %w", upstream.ErrConnection, context.DeadlineExceeded), 89, "NetworkTimeout", true},
		{"waiting for a primary past the deadline", fmt.Errorf("%w: %w", errNoPrimary, context.DeadlineExceeded), 133, "FailedToSatisfyReadPreference", true},
		{"deadline", context.DeadlineExceeded, 89, "NetworkTimeout", true},
		{"protocol", fmt.Errorf("h2: %w", upstream.ErrProtocol), 9001, "SocketException", true},
		{"no primary", errNoPrimary, 133, "FailedToSatisfyReadPreference", true},
		{"proxy shutting down", fmt.Errorf("h2: %w", upstream.ErrClosed), 91, "ShutdownInProgress", true},
		{"ambiguous cursor", fmt.Errorf("%w: 7", errAmbiguousCursor), 43, "CursorNotFound", false},
		{"other", errors.New("killCursors names cursors of a and b"), 2, "BadValue", false},
	}
	txn := wire.Session{HasTxnNumber: true, TxnNumber: 4, InTransaction: true}
	shapes := []struct {
		name   string
		class  wire.Class
		stream bool
		labels []string
	}{
		{"read", wire.Class{Kind: wire.KindRead, Command: "find"}, false, nil},
		{"write without txnNumber", wire.Class{Kind: wire.KindWrite, Command: "insert"}, false, nil},
		{"command on the primary", wire.Class{Kind: wire.KindPrimary, Command: "create"}, false, nil},
		{"retryable write", wire.Class{Kind: wire.KindWrite, Command: "update", Session: wire.Session{HasTxnNumber: true, TxnNumber: 3}}, false,
			[]string{"RetryableWriteError"}},
		{"transaction's first statement", wire.Class{Kind: wire.KindPrimary, Command: "find", Session: wire.Session{HasTxnNumber: true, StartTransaction: true, InTransaction: true}}, false,
			[]string{"TransientTransactionError"}},
		{"transaction's write", wire.Class{Kind: wire.KindWrite, Command: "insert", Session: txn}, false, []string{"TransientTransactionError"}},
		{"transaction's getMore", wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: 9, Session: txn}, false, []string{"TransientTransactionError"}},
		{"commitTransaction", wire.Class{Kind: wire.KindPrimary, Command: "commitTransaction", Session: txn}, false,
			[]string{"RetryableWriteError", "UnknownTransactionCommitResult"}},
		{"abortTransaction", wire.Class{Kind: wire.KindPrimary, Command: "abortTransaction", Session: txn}, false, []string{"RetryableWriteError"}},
		{"commitTransaction without autocommit", wire.Class{Kind: wire.KindPrimary, Command: "commitTransaction", Session: wire.Session{HasTxnNumber: true}}, false,
			[]string{"RetryableWriteError"}},
		{"change stream", wire.Class{Kind: wire.KindRead, Command: "aggregate", ChangeStream: true}, true, []string{"ResumableChangeStreamError"}},
		{"change stream's getMore", wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: 9}, true, []string{"ResumableChangeStreamError"}},
		{"other cursor's getMore", wire.Class{Kind: wire.KindGetMore, Command: "getMore", CursorID: 9}, false, nil},
	}
	for _, e := range errs {
		for _, sh := range shapes {
			t.Run(e.name+"/"+sh.name, func(t *testing.T) {
				d := bson.Raw(upstreamError(e.err, &sh.class, sh.stream))
				if d.Lookup("ok").Double() != 0 || d.Lookup("code").Int32() != e.code || d.Lookup("codeName").StringValue() != e.codeName {
					t.Fatalf("reply %v, want code %d %s", d, e.code, e.codeName)
				}
				if msg := d.Lookup("errmsg").StringValue(); msg == "" {
					t.Fatalf("reply %v has no errmsg", d)
				}
				var want []string
				if e.labelled {
					want = sh.labels
				}
				if got := labelsOf(d); !slices.Equal(got, want) {
					t.Fatalf("labels %v, want %v", got, want)
				}
				if clears := slices.Contains(sdamStateChange, e.code); clears != errors.Is(e.err, upstream.ErrClosed) {
					t.Fatalf("code %d: a state-change error to SDAM: %v; want only for the proxy's own shutdown", e.code, clears)
				}
			})
		}
	}
}

// labelsOf returns a reply's errorLabels.
func labelsOf(d bson.Raw) []string {
	var labels []string
	if v, err := d.LookupErr("errorLabels"); err == nil {
		vals, _ := v.Array().Values()
		for _, l := range vals {
			labels = append(labels, l.StringValue())
		}
	}
	return labels
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
	d := bson.Raw(upstreamError(err, &wire.Class{Kind: wire.KindRead}, false))
	if msg := d.Lookup("errmsg").StringValue(); strings.Contains(msg, user) || d.Lookup("codeName").StringValue() != "HostUnreachable" {
		t.Fatalf("reply %v; want HostUnreachable, no %q in it", d, user)
	}
}
