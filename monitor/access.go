package monitor

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// The errors of "the deployment answered, but refused this client", decided
// here and nowhere else: ExplainAccess turns the driver's into them.
var (
	// ErrAuth: authentication failed: a wrong password, a user that does
	// not exist (the server does not say which), or the wrong authSource or
	// mechanism.
	ErrAuth = errors.New("authentication failed")
	// ErrTLS: the TLS handshake failed: the server's certificate is not
	// trusted or not for the host, or one side does not speak TLS.
	ErrTLS = errors.New("TLS handshake failed")
	// ErrNotAuthorized: the user authenticated but has no role that allows
	// a command; the message names the role that does.
	ErrNotAuthorized = errors.New("not authorized")
)

// accessError is one of the errors above as one line: Error is the line
// alone, not the driver's chain of wrapped messages, which stays reachable
// with errors.Is and errors.As.
type accessError struct {
	kind  error // ErrAuth, ErrTLS or ErrNotAuthorized
	msg   string
	cause error
}

func (e *accessError) Error() string   { return e.msg }
func (e *accessError) Unwrap() []error { return []error{e.kind, e.cause} }

// identity is who connects, as far as explaining a refusal goes: never the
// password.
type identity struct {
	user, authSource string
	tls              bool
	caFile           string // the URI's tlsCAFile, "" when the CA is given otherwise or not at all
}

// identityOf reads who connects from uri and the options applied after it
// (the last ones that set credentials or TLS win, as in the driver).
func identityOf(uri string, opts []*options.ClientOptions) identity {
	co := options.Client().ApplyURI(uri)
	c := identity{caFile: uriOption(uri, "tlsCAFile"),
		tls: strings.EqualFold(uriOption(uri, "tls"), "true") || strings.EqualFold(uriOption(uri, "ssl"), "true")}
	for _, o := range append([]*options.ClientOptions{co}, opts...) {
		if o == nil {
			continue
		}
		if o.Auth != nil {
			c.user, c.authSource = o.Auth.Username, o.Auth.AuthSource
		}
		if o.TLSConfig != nil {
			c.tls = true
		}
	}
	if c.authSource == "" {
		c.authSource = "admin"
	}
	return c
}

// uriOption returns the value of option key in the query of the connection
// string uri, "" when absent.
func uriOption(uri, key string) string {
	_, query, ok := strings.Cut(uri, "?")
	if !ok {
		return ""
	}
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, key) {
			if s, err := url.QueryUnescape(v); err == nil {
				return s
			}
			return v
		}
	}
	return ""
}

// ExplainAccess returns err as one line naming the cause when it is an
// authentication, TLS or authorization failure of a client connected to uri,
// wrapping ErrAuth, ErrTLS or ErrNotAuthorized (and err, for errors.As);
// any other error, and one already explained, is returned unchanged. The
// user is named, never the password.
func ExplainAccess(err error, uri string) error {
	return explainAccess(err, identityOf(uri, nil))
}

// explainAccess is ExplainAccess for c.
func explainAccess(err error, c identity) error {
	if e := explained(err, c); e != nil {
		return e
	}
	return err
}

// explained returns err explained as an access error, nil when err is no
// access error or one already explained.
func explained(err error, c identity) error {
	if err == nil || errors.Is(err, ErrAuth) || errors.Is(err, ErrTLS) || errors.Is(err, ErrNotAuthorized) {
		return nil
	}
	if msg, ok := explainTLS(err, c); ok {
		return &accessError{kind: ErrTLS, msg: msg, cause: err}
	}
	if msg, ok := explainAuth(err, c); ok {
		return &accessError{kind: ErrAuth, msg: msg, cause: err}
	}
	if msg, ok := explainUnauthorized(err, c); ok {
		return &accessError{kind: ErrNotAuthorized, msg: msg, cause: err}
	}
	return nil
}

// explainTLS says what failed when err is, or a server of a failed server
// selection last failed with, a TLS handshake error.
func explainTLS(err error, c identity) (string, bool) {
	if msg, ok := tlsCause(err, connHost(err), c); ok {
		return msg, true
	}
	var sel topology.ServerSelectionError
	if errors.As(err, &sel) {
		for _, s := range sel.Desc.Servers {
			if s.LastError == nil {
				continue
			}
			if msg, ok := tlsCause(s.LastError, s.Addr.String(), c); ok {
				return msg, true
			}
		}
	}
	return "", false
}

// tlsCause explains err when it is a TLS handshake error with host (may be
// "").
func tlsCause(err error, host string, c identity) (string, bool) {
	at := ""
	if host != "" {
		at = " of " + host
	}
	giveCA := "give the CA that signed it with tlsCAFile=PATH in the URI (a cluster started with `decongestant cluster up --tls` has it in its dir: ca.pem)"
	if c.caFile != "" {
		giveCA = fmt.Sprintf("tlsCAFile=%s is not the CA that signed it", c.caFile)
	}
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
		alert    tls.AlertError
	)
	switch {
	case errors.As(err, &unknown):
		return fmt.Sprintf("%v: the server's TLS certificate%s is not trusted (signed by an unknown authority): %s", ErrTLS, at, giveCA), true
	case errors.As(err, &hostname):
		return fmt.Sprintf("%v: the server's TLS certificate%s is not valid for %s (%v)", ErrTLS, at, hostname.Host, hostname), true
	case errors.As(err, &invalid):
		return fmt.Sprintf("%v: the server's TLS certificate%s is invalid: %v", ErrTLS, at, invalid), true
	case errors.As(err, &record):
		return fmt.Sprintf("%v: the server%s does not speak TLS: remove tls=true from the URI", ErrTLS, at), true
	case errors.As(err, &alert):
		return fmt.Sprintf("%v: the server%s refused the handshake (%v): does it want a client certificate (tlsCertificateKeyFile)?", ErrTLS, at, alert), true
	}
	return "", false
}

// serverErrIs is errors.Is(err, target), also true when a server of a
// failed server selection in err last failed with target.
func serverErrIs(err, target error) bool {
	if errors.Is(err, target) {
		return true
	}
	var sel topology.ServerSelectionError
	if errors.As(err, &sel) {
		for _, s := range sel.Desc.Servers {
			if s.LastError != nil && errors.Is(s.LastError, target) {
				return true
			}
		}
	}
	return false
}

// connHost is the host of the driver's connection error in err's chain, ""
// when there is none or it does not say.
func connHost(err error) string {
	var ce topology.ConnectionError
	if !errors.As(err, &ce) {
		return ""
	}
	return hostOf(ce.ConnectionID)
}

// hostOf is the host of a driver connection ID ("127.0.0.1:27017[-4]"), ""
// for the ID of a connection never opened ("0").
func hostOf(connID string) string {
	host, _, _ := strings.Cut(connID, "[-")
	if host == "0" {
		return ""
	}
	return host
}

// Server error codes of authentication and authorization.
const (
	codeAuthenticationFailed = 18
	codeUnauthorized         = 13
)

// explainAuth says who failed to authenticate when err is an authentication
// failure (the driver's auth error, or the server's AuthenticationFailed).
func explainAuth(err error, c identity) (string, bool) {
	var ae *auth.Error
	if !errors.As(err, &ae) && !hasCode(err, codeAuthenticationFailed) {
		return "", false
	}
	user := "(none)"
	if c.user != "" {
		user = fmt.Sprintf("%q", c.user)
	}
	if hasCode(err, codeAuthenticationFailed) {
		return fmt.Sprintf("%v for user %s (authSource %s): wrong password or no such user", ErrAuth, user, c.authSource), true
	}
	// The driver's own failure (no server verdict): its message names the
	// mechanism and never the password.
	return fmt.Sprintf("%v for user %s (authSource %s): %s", ErrAuth, user, c.authSource, ae.Message()), true
}

func hasCode(err error, code int) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(code)
}

// unauthorized reports whether err is the server's Unauthorized (code 13).
func unauthorized(err error) bool {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code == codeUnauthorized || ce.Name == "Unauthorized"
	}
	return hasCode(err, codeUnauthorized)
}

// notAuthorizedMsg is the server's "not authorized on DB to execute command
// { NAME: ...": the database and the command.
var notAuthorizedMsg = regexp.MustCompile(`not authorized on (\S+) to execute command \{ ?"?([A-Za-z0-9_$]+)`)

// commandRoles names the least built-in role that allows each command
// decongestant sends (MongoDB's built-in roles): on the command's database
// for read and readWrite, on admin for the cluster roles.
var commandRoles = map[string]string{
	"find": "read", "aggregate": "read", "count": "read", "distinct": "read", "getMore": "read",
	"listCollections": "read", "listIndexes": "read", "dbStats": "read", "collStats": "read",
	"insert": "readWrite", "update": "readWrite", "delete": "readWrite", "findAndModify": "readWrite",
	"createIndexes": "readWrite", "create": "readWrite", "drop": "readWrite", "dropIndexes": "readWrite",
	"dropDatabase":     "dbAdmin",
	"replSetGetStatus": "clusterMonitor", "replSetGetConfig": "clusterMonitor", "serverStatus": "clusterMonitor",
	"hostInfo": "clusterMonitor", "getCmdLineOpts": "clusterMonitor", "top": "clusterMonitor", "getLog": "clusterMonitor",
	"replSetStepDown": "clusterManager", "replSetFreeze": "clusterManager", "replSetReconfig": "clusterManager",
	"replSetStepUp": "clusterManager", "configureFailPoint": "root",
}

// explainUnauthorized names the user, the command and the role it needs when
// err is the server's Unauthorized.
func explainUnauthorized(err error, c identity) (string, bool) {
	if !unauthorized(err) {
		return "", false
	}
	user := "this client (not authenticated)"
	if c.user != "" {
		user = fmt.Sprintf("user %q", c.user)
	}
	m := notAuthorizedMsg.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Sprintf("%v: %s lacks a privilege the command needs", ErrNotAuthorized, user), true
	}
	db, cmd := m[1], m[2]
	role, ok := commandRoles[cmd]
	switch {
	case !ok:
		return fmt.Sprintf("%v: %s may not run %s on %s: it needs a role that grants it", ErrNotAuthorized, user, cmd, db), true
	case role == "read" || role == "readWrite" || role == "dbAdmin":
		return fmt.Sprintf("%v: %s may not run %s on %s: it needs the %s role on %s", ErrNotAuthorized, user, cmd, db, role, db), true
	}
	return fmt.Sprintf("%v: %s may not run %s: it needs the %s role (on admin)", ErrNotAuthorized, user, cmd, role), true
}

// handshakes watches a client's heartbeats for a TLS failure: the driver
// retries those until server selection gives up, though no retry can
// succeed, so the first one ends the wait at once (failed's cause).
type handshakes struct {
	c      identity
	next   func(*event.ServerHeartbeatFailedEvent) // the user's, if any
	once   sync.Once
	failed context.CancelCauseFunc
}

// watchHandshakes returns a context that ends with an ErrTLS cause when a
// heartbeat of a client connected with the returned server monitor fails the
// TLS handshake, and the monitor, which chains to the user's (the last one
// opts set). stop ends the watch.
func watchHandshakes(ctx context.Context, c identity, opts []*options.ClientOptions) (context.Context, *event.ServerMonitor, context.CancelCauseFunc) {
	var user *event.ServerMonitor
	for _, o := range opts {
		if o != nil && o.ServerMonitor != nil {
			user = o.ServerMonitor
		}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	h := &handshakes{c: c, failed: cancel}
	sm := &event.ServerMonitor{}
	if user != nil {
		*sm = *user
		h.next = user.ServerHeartbeatFailed
	}
	sm.ServerHeartbeatFailed = h.heartbeatFailed
	return wctx, sm, cancel
}

func (h *handshakes) heartbeatFailed(e *event.ServerHeartbeatFailedEvent) {
	if h.next != nil {
		h.next(e)
	}
	if msg, ok := tlsCause(e.Failure, hostOf(e.ConnectionID), h.c); ok {
		h.once.Do(func() { h.failed(&accessError{kind: ErrTLS, msg: msg, cause: e.Failure}) })
	}
}
