package proxy

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/testutil"
	"github.com/decongestant/decongestant/proxy/wire"
)

// authServer is a Server with users and no upstream pool: enough for the
// commands it answers itself (a forwarded one would panic).
func authServer(t *testing.T, c *Credentials) (*Server, *testutil.SyncBuffer) {
	t.Helper()
	a, err := newAuthenticator(c)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	return &Server{cfg: Config{}.withDefaults(), auth: a, log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, logs
}

// do sends d as an OP_MSG through handle and returns the reply's body.
func do(t *testing.T, s *Server, cc *clientConn, d bson.D) bson.Raw {
	t.Helper()
	body, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s.handle(context.Background(), cc, wire.AppendMsg(nil, 1, 0, 0, body))
	if err != nil {
		t.Fatal(err)
	}
	m, err := wire.Parse(reply)
	if err != nil {
		t.Fatal(err)
	}
	return bson.Raw(m.Body)
}

func saslStartCmd(mech, payload, db string, skipEmpty bool) bson.D {
	d := bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: mech}, {Key: "payload", Value: bson.Binary{Data: []byte(payload)}}}
	if skipEmpty {
		d = append(d, bson.E{Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}})
	}
	return append(d, bson.E{Key: "$db", Value: db})
}

func saslContinueCmd(id int32, payload string) bson.D {
	return bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: id}, {Key: "payload", Value: bson.Binary{Data: []byte(payload)}}, {Key: "$db", Value: "admin"}}
}

func payloadOf(t *testing.T, r bson.Raw) string {
	t.Helper()
	_, data, ok := r.Lookup("payload").BinaryOK()
	if !ok {
		t.Fatalf("no binary payload in %v", r)
	}
	return string(data)
}

func wantError(t *testing.T, r bson.Raw, code int32, msg string) {
	t.Helper()
	if r.Lookup("ok").Double() != 0 || r.Lookup("code").Int32() != code || !strings.Contains(r.Lookup("errmsg").StringValue(), msg) || r.Lookup("codeName").StringValue() != codeNames[code] {
		t.Fatalf("reply %v; want code %d (%s) saying %q", r, code, codeNames[code], msg)
	}
}

func authenticatedAs(t *testing.T, s *Server, cc *clientConn) string {
	t.Helper()
	r := do(t, s, cc, bson.D{{Key: "connectionStatus", Value: 1}, {Key: "$db", Value: "admin"}})
	users, _ := r.Lookup("authInfo", "authenticatedUsers").Array().Values()
	switch len(users) {
	case 0:
		return ""
	case 1:
		u := users[0].Document()
		return u.Lookup("db").StringValue() + "." + u.Lookup("user").StringValue()
	}
	t.Fatalf("connectionStatus %v", r)
	return ""
}

func loadRFC7677(t *testing.T) *Credentials {
	t.Helper()
	c, err := LoadCredentials(writeUsers(t, rfc7677, 0o600))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// RFC 7677's SCRAM-SHA-256 example, byte for byte, through saslStart and
// saslContinue: with skipEmptyExchange the server-final message comes with
// done true; without, done true follows the client's empty message, and
// the connection is authenticated only then.
func TestSCRAMRFC7677(t *testing.T) {
	const (
		clientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
		serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
		clientFinal = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
		serverFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
	)
	for _, skip := range []bool{true, false} {
		t.Run("skipEmptyExchange="+map[bool]string{true: "true", false: "false"}[skip], func(t *testing.T) {
			s, logs := authServer(t, loadRFC7677(t))
			s.auth.nonce = func() string { return "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0" }
			cc := &clientConn{id: 1, remote: "test"}
			r := do(t, s, cc, saslStartCmd("SCRAM-SHA-256", clientFirst, "admin", skip))
			if r.Lookup("ok").Double() != 1 || r.Lookup("conversationId").Int32() != 1 || r.Lookup("done").Boolean() || payloadOf(t, r) != serverFirst {
				t.Fatalf("saslStart reply %v; want conversation 1, not done, %q", r, serverFirst)
			}
			r = do(t, s, cc, saslContinueCmd(1, clientFinal))
			if r.Lookup("ok").Double() != 1 || r.Lookup("conversationId").Int32() != 1 || r.Lookup("done").Boolean() != skip || payloadOf(t, r) != serverFinal {
				t.Fatalf("saslContinue reply %v; want done %v, %q", r, skip, serverFinal)
			}
			if !skip {
				if u := authenticatedAs(t, s, cc); u != "" {
					t.Fatalf("authenticated as %q before the last exchange", u)
				}
				r = do(t, s, cc, saslContinueCmd(1, ""))
				if r.Lookup("ok").Double() != 1 || !r.Lookup("done").Boolean() || payloadOf(t, r) != "" {
					t.Fatalf("last saslContinue reply %v; want done, empty payload", r)
				}
			}
			if u := authenticatedAs(t, s, cc); u != "admin.user" {
				t.Fatalf("connectionStatus says %q, want admin.user", u)
			}
			if strings.Contains(logs.String(), "authentication failed") {
				t.Errorf("log:\n%s", logs)
			}
		})
	}
}

// A scram.Client (the driver's SCRAM implementation) against the proxy:
// the right password authenticates (and the client verifies the server's
// signature); a wrong password, an unknown user and a user of another
// database fail with AuthenticationFailed, one log line each, saying why,
// and no password or SCRAM message in it.
func TestSCRAMClient(t *testing.T) {
	var creds Credentials
	for _, u := range []struct{ user, db, pw string }{
		{"alice", "admin", "correct horse"}, {"bob", "app", "battery staple"}, {"c,d=e", "admin", "commas=equals,"},
	} {
		if _, err := creds.SetPassword(u.user, u.db, u.pw, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, user, db, password string
		skipEmpty                bool
		reason                   string // "" for success
	}{
		{"right password", "alice", "admin", "correct horse", true, ""},
		{"right password, full exchange", "alice", "admin", "correct horse", false, ""},
		{"other db", "bob", "app", "battery staple", true, ""},
		{"escaped name", "c,d=e", "admin", "commas=equals,", true, ""},
		{"wrong password", "alice", "admin", "correct horsf", true, "wrong password"},
		{"wrong password, full exchange", "alice", "admin", "Correct horse", false, "wrong password"},
		{"unknown user", "mallory", "admin", "correct horse", true, "unknown user"},
		{"user of another db", "bob", "admin", "battery staple", true, "unknown user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, logs := authServer(t, &creds)
			cc := &clientConn{id: 7, remote: "127.0.0.1:5"}
			cl, err := scram.SHA256.NewClient(tc.user, tc.password, "")
			if err != nil {
				t.Fatal(err)
			}
			conv := cl.NewConversation()
			first, _ := conv.Step("")
			r := do(t, s, cc, saslStartCmd("SCRAM-SHA-256", first, tc.db, tc.skipEmpty))
			if r.Lookup("ok").Double() != 1 {
				t.Fatalf("saslStart: %v", r)
			}
			if !strings.HasSuffix(payloadOf(t, r), ",i=15000") {
				t.Errorf("server-first %q: want DefaultIterations", payloadOf(t, r))
			}
			final, err := conv.Step(payloadOf(t, r))
			if err != nil {
				t.Fatal(err)
			}
			r = do(t, s, cc, saslContinueCmd(r.Lookup("conversationId").Int32(), final))
			if tc.reason != "" {
				wantError(t, r, codeAuthenticationFailed, "Authentication failed.")
				if u := authenticatedAs(t, s, cc); u != "" {
					t.Fatalf("authenticated as %q", u)
				}
				l := logs.String()
				if strings.Count(l, "client authentication failed") != 1 || !strings.Contains(l, `reason="`+tc.reason+`"`) ||
					!strings.Contains(l, "user="+tc.user) || !strings.Contains(l, "db="+tc.db) || !strings.Contains(l, "client=127.0.0.1:5") {
					t.Fatalf("log:\n%s", l)
				}
				for _, secret := range []string{tc.password, first, final, base64.StdEncoding.EncodeToString([]byte(final)), "p="} {
					if strings.Contains(l, secret) {
						t.Fatalf("the log holds %q:\n%s", secret, l)
					}
				}
				// The connection stays usable: a next attempt with the
				// right password succeeds.
				return
			}
			if r.Lookup("ok").Double() != 1 || r.Lookup("done").Boolean() != tc.skipEmpty {
				t.Fatalf("saslContinue: %v", r)
			}
			if _, err := conv.Step(payloadOf(t, r)); err != nil || !conv.Valid() {
				t.Fatalf("the client does not accept the server's signature: %v", err)
			}
			if !tc.skipEmpty {
				if r = do(t, s, cc, saslContinueCmd(r.Lookup("conversationId").Int32(), "")); !r.Lookup("done").Boolean() {
					t.Fatalf("last saslContinue: %v", r)
				}
			}
			if u := authenticatedAs(t, s, cc); u != tc.db+"."+tc.user {
				t.Fatalf("connectionStatus says %q", u)
			}
			if strings.Contains(logs.String(), "failed") {
				t.Errorf("log:\n%s", logs)
			}
		})
	}
}

// Before authenticating, a client may run only what mongod lets it run;
// everything else is Unauthorized (13), worded as mongod words it, and is
// not forwarded (the test server has no pool: forwarding would panic).
// After logout the connection is unauthenticated again.
func TestUnauthenticatedCommands(t *testing.T) {
	s, _ := authServer(t, loadRFC7677(t))
	cc := &clientConn{id: 1, remote: "127.0.0.1:9"}
	for _, d := range []bson.D{
		{{Key: "find", Value: "c"}, {Key: "$db", Value: "d"}},
		{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "$db", Value: "d"}},
		{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}, {Key: "$db", Value: "admin"}},
		{{Key: "getMore", Value: int64(5)}, {Key: "collection", Value: "c"}, {Key: "$db", Value: "d"}},
		{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{int64(5)}}, {Key: "$db", Value: "d"}},
		{{Key: "endSessions", Value: bson.A{}}, {Key: "$db", Value: "admin"}},
		{{Key: "listCommands", Value: 1}, {Key: "$db", Value: "admin"}},
		{{Key: "serverStatus", Value: 1}, {Key: "$db", Value: "admin"}},
		{{Key: "logout", Value: 1}, {Key: "$db", Value: "admin"}},
	} {
		wantError(t, do(t, s, cc, d), codeUnauthorized, "command "+d[0].Key+" requires authentication")
	}
	if r := do(t, s, cc, bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
		t.Errorf("ping: %v", r)
	}
	if r := do(t, s, cc, bson.D{{Key: "whatsmyuri", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("you").StringValue() != "127.0.0.1:9" {
		t.Errorf("whatsmyuri: %v", r)
	}
	// buildInfo is allowed: not answered by authCommand, so forwarded.
	for _, cmd := range []string{"buildInfo", "buildinfo", "ping", "whatsmyuri"} {
		c := wire.Class{Command: cmd}
		if _, handled := s.authCommand(cc, &c, nil); handled {
			t.Errorf("%s refused before authentication", cmd)
		}
	}
	// An unacknowledged write gets no reply, and is not forwarded either.
	body, _ := bson.Marshal(bson.D{{Key: "insert", Value: "c"}, {Key: "$db", Value: "d"}})
	if reply, err := s.handle(context.Background(), cc, wire.AppendMsg(nil, 1, 0, 2 /* moreToCome */, body)); reply != nil || err != nil {
		t.Fatalf("moreToCome insert: %v, %v", reply, err)
	}

	cc.auth.user, cc.auth.db = "user", "admin"
	for _, cmd := range []string{"find", "insert", "getMore", "endSessions", "listCommands"} {
		c := wire.Class{Command: cmd}
		if _, handled := s.authCommand(cc, &c, nil); handled {
			t.Errorf("%s refused after authentication", cmd)
		}
	}
	if r := do(t, s, cc, bson.D{{Key: "logout", Value: 1}, {Key: "$db", Value: "admin"}}); r.Lookup("ok").Double() != 1 {
		t.Fatalf("logout: %v", r)
	}
	wantError(t, do(t, s, cc, bson.D{{Key: "find", Value: "c"}, {Key: "$db", Value: "d"}}), codeUnauthorized, "command find requires authentication")
}

// Mechanisms other than SCRAM-SHA-256 are refused as mongod refuses a
// mechanism it has not enabled, saying which one to use; each refusal is
// logged once.
func TestMechanismsRefused(t *testing.T) {
	s, logs := authServer(t, loadRFC7677(t))
	cc := &clientConn{id: 1, remote: "test"}
	for i, d := range []bson.D{
		saslStartCmd("SCRAM-SHA-1", "n,,n=user,r=abc", "admin", true),
		saslStartCmd("PLAIN", "\x00user\x00pencil", "$external", false),
		{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}, {Key: "$db", Value: "$external"}},
	} {
		r := do(t, s, cc, d)
		wantError(t, r, codeMechanismUnavailable, "which is not enabled: the decongestant proxy authenticates clients with SCRAM-SHA-256 only")
		if n := strings.Count(logs.String(), "client authentication failed"); n != i+1 {
			t.Fatalf("%d log lines after %d refusals:\n%s", n, i+1, logs)
		}
	}
	if strings.Contains(logs.String(), "pencil") {
		t.Fatalf("the log holds the PLAIN password:\n%s", logs)
	}
}

// saslContinue without a conversation, or naming another one, is a
// ProtocolError; a saslStart without payload is a BadValue; a malformed
// client-first message fails authentication.
func TestSASLProtocolErrors(t *testing.T) {
	s, logs := authServer(t, loadRFC7677(t))
	cc := &clientConn{id: 1, remote: "test"}
	s.auth.nonce = func() string { return "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0" }
	wantError(t, do(t, s, cc, saslContinueCmd(1, "c=biws")), codeProtocolError, "No SASL session state found")
	r := do(t, s, cc, saslStartCmd("SCRAM-SHA-256", "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", "admin", true))
	if r.Lookup("ok").Double() != 1 {
		t.Fatal(r)
	}
	wantError(t, do(t, s, cc, saslContinueCmd(2, "c=biws")), codeProtocolError, "No SASL session state found")
	// A wrong id does not end the conversation: the right one goes on.
	r = do(t, s, cc, saslContinueCmd(1, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if !r.Lookup("done").Boolean() || authenticatedAs(t, s, cc) != "admin.user" {
		t.Fatalf("saslContinue after a wrong id: %v", r)
	}
	wantError(t, do(t, s, cc, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"}, {Key: "$db", Value: "admin"}}), codeBadValue, "saslStart has no payload")
	wantError(t, do(t, s, cc, saslStartCmd("SCRAM-SHA-256", "garbage", "admin", true)), codeAuthenticationFailed, "Authentication failed.")
	if !strings.Contains(logs.String(), `reason="malformed client-first message"`) {
		t.Fatalf("log:\n%s", logs)
	}
	wantError(t, do(t, s, cc, saslStartCmd("SCRAM-SHA-256", "n,a=admin,n=user,r=abcdefgh", "admin", true)), codeAuthenticationFailed, "Authentication failed.")
}

// serverFirst returns the salt and iteration count ("s=...,i=...") s's
// server-first message gives user.
func serverFirst(t *testing.T, s *Server, user string) string {
	t.Helper()
	cc := &clientConn{id: 1, remote: "test"}
	r := do(t, s, cc, saslStartCmd("SCRAM-SHA-256", "n,,n="+user+",r=abcdefgh", "admin", true))
	if r.Lookup("ok").Double() != 1 {
		t.Fatalf("saslStart for %s: %v", user, r)
	}
	f := strings.Split(payloadOf(t, r), ",")
	if len(f) != 3 {
		t.Fatalf("server-first %q", payloadOf(t, r))
	}
	return f[1] + "," + f[2]
}

// An unknown user gets a salt as a known one does: the same at every
// attempt and after a restart (another authenticator of the same file),
// its own, as long as the real user's, with the real user's iteration
// count (RFC 7677's user: 4096 iterations, a 16-byte salt); nothing tells
// it apart from a user that exists before the proof is checked.
func TestUnknownUserDecoy(t *testing.T) {
	s, _ := authServer(t, loadRFC7677(t))
	restarted, _ := authServer(t, loadRFC7677(t))
	a1, a2, b := serverFirst(t, s, "mallory"), serverFirst(t, s, "mallory"), serverFirst(t, s, "eve")
	if a1 != a2 || a1 == b || !strings.HasSuffix(a1, ",i=4096") {
		t.Errorf("decoys: %q, %q, %q; want the first two equal, the third another, 4096 iterations", a1, a2, b)
	}
	if again := serverFirst(t, restarted, "mallory"); again != a1 {
		t.Errorf("decoy after a restart %q; want %q as before", again, a1)
	}
	if raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(strings.TrimSuffix(a1, ",i=4096"), "s=")); len(raw) != 16 {
		t.Fatalf("decoy salt of %d bytes, want 16 as the real user's", len(raw))
	}
	if got := serverFirst(t, s, "user"); got != "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096" {
		t.Fatalf("the real user's salt: %q", got)
	}
}

// The decoy's iteration count and salt length are the real users' most
// common ones (the highest on a tie), and its salts depend on the file's
// keys: another file, other salts.
func TestDecoyFollowsTheUsers(t *testing.T) {
	file := func(iters ...int) *Credentials {
		var c Credentials
		for i, n := range iters {
			if _, err := c.SetPassword(fmt.Sprintf("u%d", i), "admin", "pw", n); err != nil {
				t.Fatal(err)
			}
		}
		return &c
	}
	for _, tc := range []struct {
		iters []int
		want  string
	}{
		{[]int{15000}, ",i=15000"},
		{[]int{4096, 20000, 20000}, ",i=20000"},
		{[]int{20000, 4096, 4096}, ",i=4096"},
		{[]int{4096, 20000}, ",i=20000"},
	} {
		s, _ := authServer(t, file(tc.iters...))
		if got := serverFirst(t, s, "nobody"); !strings.HasSuffix(got, tc.want) {
			t.Errorf("users with %v iterations: decoy %q; want %s", tc.iters, got, tc.want)
		}
	}
	s1, _ := authServer(t, file(15000))
	s2, _ := authServer(t, file(15000)) // same user, another random salt and keys
	if a, b := serverFirst(t, s1, "nobody"), serverFirst(t, s2, "nobody"); a == b {
		t.Errorf("two files with other keys give the same decoy %q", a)
	}
}

// hello advertises SCRAM-SHA-256 for any user a client asks about, and
// answers a speculativeAuthenticate with the server-first message (no ok
// field); the conversation then goes on with saslContinue.
func TestHelloAuth(t *testing.T) {
	s, logs := authServer(t, loadRFC7677(t))
	s.auth.nonce = func() string { return "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0" }
	hello := func(s *Server, cc *clientConn, d bson.D) bson.Raw {
		t.Helper()
		body, _ := bson.Marshal(append(d, bson.E{Key: "$db", Value: "admin"}))
		m, err := wire.Parse(wire.AppendMsg(nil, 1, 0, 0, body))
		if err != nil {
			t.Fatal(err)
		}
		c, err := wire.Classify(&m)
		if err != nil {
			t.Fatal(err)
		}
		return bson.Raw(s.helloAuth(cc, &c, helloReply(&c, limits{maxWire: 21}, 1, time.UnixMilli(0))))
	}
	mechs := func(r bson.Raw) []string {
		v, err := r.LookupErr("saslSupportedMechs")
		if err != nil {
			return nil
		}
		vals, _ := v.Array().Values()
		var out []string
		for _, x := range vals {
			out = append(out, x.StringValue())
		}
		return out
	}
	cc := &clientConn{id: 1, remote: "test"}
	for _, user := range []string{"admin.user", "admin.nobody"} {
		r := hello(s, cc, bson.D{{Key: "hello", Value: 1}, {Key: "saslSupportedMechs", Value: user}})
		if got := mechs(r); !slices.Equal(got, []string{"SCRAM-SHA-256"}) || r.Lookup("ok").Double() != 1 || !r.Lookup("isWritablePrimary").Boolean() {
			t.Errorf("hello for %s: %v", user, r)
		}
	}
	if r := hello(s, cc, bson.D{{Key: "hello", Value: 1}}); mechs(r) != nil {
		t.Errorf("saslSupportedMechs without asking: %v", r)
	}
	noUsers := &Server{cfg: Config{}.withDefaults(), log: s.log}
	if r := hello(noUsers, cc, bson.D{{Key: "isMaster", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.user"}}); mechs(r) != nil {
		t.Errorf("saslSupportedMechs without users: %v", r)
	}

	spec := bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
		{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=user,r=rOprNGfwEbeRWgbNEkqO")}},
		{Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}}, {Key: "db", Value: "admin"}}
	r := hello(s, cc, bson.D{{Key: "hello", Value: 1}, {Key: "speculativeAuthenticate", Value: spec}})
	sa, err := r.LookupErr("speculativeAuthenticate")
	if err != nil {
		t.Fatalf("no speculativeAuthenticate in %v", r)
	}
	sd := sa.Document()
	if _, err := sd.LookupErr("ok"); err == nil || sd.Lookup("conversationId").Int32() != 1 || sd.Lookup("done").Boolean() ||
		payloadOf(t, sd) != "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096" {
		t.Fatalf("speculativeAuthenticate %v", sd)
	}
	r = do(t, s, cc, saslContinueCmd(1, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if !r.Lookup("done").Boolean() || payloadOf(t, r) != "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Fatalf("saslContinue after speculative: %v", r)
	}
	if u := authenticatedAs(t, s, cc); u != "admin.user" {
		t.Fatalf("authenticated as %q", u)
	}
	// A speculative SCRAM-SHA-1 is not answered, nor logged: the driver
	// then sends saslStart, refused and logged there.
	cc2 := &clientConn{id: 2, remote: "test"}
	spec[1].Value = "SCRAM-SHA-1"
	if r := hello(s, cc2, bson.D{{Key: "hello", Value: 1}, {Key: "speculativeAuthenticate", Value: spec}}); r.Lookup("speculativeAuthenticate").Type != 0 {
		t.Fatalf("speculative SCRAM-SHA-1 answered: %v", r)
	}
	if strings.Contains(logs.String(), "failed") {
		t.Fatalf("log:\n%s", logs)
	}
}

func TestNoUsers(t *testing.T) {
	if _, err := newAuthenticator(&Credentials{}); err == nil || !strings.Contains(err.Error(), "holds no user") {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(Config{URI: "mongodb://127.0.0.1:1", Users: &Credentials{}}); err == nil || !strings.Contains(err.Error(), "holds no user") {
		t.Fatalf("New with an empty users file: %v", err)
	}
}

// 10 000 failed authentications in one second log authLogsPerSecond lines,
// and one more at the end of that second counting those left out; failures
// in the next second log again, without a count.
func TestFailedAuthLogsBounded(t *testing.T) {
	s, logs := authServer(t, loadRFC7677(t))
	now := time.Unix(1_700_000_000, 0)
	var scheduled []func()
	var wait time.Duration
	s.auth.failures.now = func() time.Time { return now }
	s.auth.failures.after = func(d time.Duration, f func()) { scheduled, wait = append(scheduled, f), d }
	cc := &clientConn{id: 1, remote: "test"}
	fail := func() {
		wantError(t, do(t, s, cc, saslStartCmd("SCRAM-SHA-256", "garbage", "admin", true)), codeAuthenticationFailed, errAuthFailed)
	}
	lines := func() []string { return strings.Split(strings.TrimSpace(logs.String()), "\n") }
	const attempts = 10_000
	for range attempts {
		fail()
	}
	if n := len(lines()); n != authLogsPerSecond || len(scheduled) != 1 || wait != time.Second {
		t.Fatalf("%d failures logged %d lines and scheduled %d summaries (in %v); want %d lines, one summary in 1s", attempts, n, len(scheduled), wait, authLogsPerSecond)
	}
	now = now.Add(time.Second)
	scheduled[0]()
	if l := lines(); len(l) != authLogsPerSecond+1 || !strings.Contains(l[len(l)-1], fmt.Sprintf("suppressed=%d", attempts-authLogsPerSecond)) {
		t.Fatalf("the summary: %d lines, the last %q; want %d, the last with suppressed=%d", len(l), l[len(l)-1], authLogsPerSecond+1, attempts-authLogsPerSecond)
	}
	fail()
	if l := lines(); len(l) != authLogsPerSecond+2 || !strings.Contains(l[len(l)-1], "authentication failed") || strings.Contains(l[len(l)-1], "suppressed") {
		t.Fatalf("a failure a second later: %d lines, the last %q; want it logged, with no count", len(l), l[len(l)-1])
	}
}
