// Package redact removes secrets from connection strings before they
// reach a log, an error, a result or a report: the user information (user
// name and password) and the values of the options that carry a secret,
// authMechanismProperties (whole: AWS_SESSION_TOKEN:... is one of its
// properties), tlsCertificateKeyFilePassword and its older names
// sslClientCertificateKeyPassword and sslPEMKeyPassword, and proxyPassword.
// Error scrubs an error's message of the same secrets (Secrets), for the
// errors of a driver that may quote them.
//
//	fmt.Println(redact.URI("mongodb://alice:s3cret@h1/?replicaSet=rs0&proxyPassword=pw"))
//	// mongodb://REDACTED@h1/?replicaSet=rs0&proxyPassword=REDACTED
package redact

import (
	"net/url"
	"slices"
	"strings"
)

// secretOptions are the connection string options whose values are
// secrets, lower-case (the driver compares option names case-insensitively,
// after percent-decoding them). authMechanismProperties goes whole: its
// KEY:VALUE pairs are a session token for MONGODB-AWS and whatever a
// mechanism may add. proxyPassword (a SOCKS5 proxy's, from the URI options
// specification) and sslPEMKeyPassword (an older name some drivers and
// tools read) mean nothing to the Go driver, which keeps them as unknown
// options, but a URI shared with other tools may carry them.
var secretOptions = map[string]bool{
	"authmechanismproperties":         true,
	"tlscertificatekeyfilepassword":   true,
	"sslclientcertificatekeypassword": true,
	"sslpemkeypassword":               true,
	"proxypassword":                   true,
}

// URI returns uri with its user information (user name and password) and
// the values of its secret options replaced by REDACTED, for logs and
// reports. It is purely textual: it never resolves anything, and a string
// it cannot read as a URI loses everything before its last '@'. A password
// with unescaped '@', '/' or '?' is removed whole too (but for a '?'
// followed by an '@'); the price is that a URI with an '@' only in its
// query (which the driver refuses) loses its hosts as well. Options are
// matched by name as the driver matches them (any case, percent-decoded),
// never by part of a name; a secret value with an unescaped '&' or ';' is
// removed up to the next option with '=' (the driver refuses a piece
// without one). Without a '?', what follows the hosts is read as options
// too (the driver takes it for the database name). URI of its own result
// is that result.
func URI(uri string) string {
	head, info, rest := split(uri)
	if info {
		head += "REDACTED@"
	}
	return head + redactQuery(rest)
}

// Password returns uri with its password and the values of its secret
// options replaced by REDACTED and its user name kept
// ("mongodb://app:REDACTED@h1/..."), for showing a user which URI is which.
// A user name it cannot tell from a password (no ':' in the user
// information) goes too, as in URI.
func Password(uri string) string {
	head, info, rest := split(uri)
	if info {
		if user, _, ok := strings.Cut(Userinfo(uri), ":"); ok {
			head += user + ":"
		}
		head += "REDACTED@"
	}
	return head + redactQuery(rest)
}

// Userinfo returns the user information URI removes from uri (user name
// and password, as written), "" when there is none: a parser's complaint
// that quotes a piece of it may be quoting a password written wrongly.
func Userinfo(uri string) string {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		rest = uri
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			return rest[:at]
		}
		return ""
	}
	if at := userinfoEnd(rest); at >= 0 {
		return rest[:at]
	}
	return ""
}

// Secrets returns what no text about uri may quote, as written and
// percent-decoded: its password (what follows the first ':' of the user
// information) and the values of its secret options (URI), whole; none of
// them empty, longest first. User names are not among them (errors name
// the user who failed), nor the properties of authMechanismProperties one
// by one (SERVICE_NAME:mongodb would take every "mongodb" with it).
func Secrets(uri string) []string {
	var s []string
	add := func(v string, unescape func(string) (string, error)) {
		s = append(s, v)
		if d, err := unescape(v); err == nil {
			s = append(s, d)
		}
	}
	if _, pw, ok := strings.Cut(Userinfo(uri), ":"); ok {
		add(pw, url.PathUnescape)
	}
	_, _, rest := split(uri)
	_, query := cutQuery(rest)
	for _, o := range options(query) {
		if !o.secret {
			continue
		}
		add(o.value, url.QueryUnescape)
	}
	return longestFirst(s)
}

// longestFirst sorts s longest first, without empty strings or repeats.
func longestFirst(s []string) []string {
	s = slices.DeleteFunc(s, func(v string) bool { return v == "" })
	slices.SortFunc(s, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(s)
}

// Error returns err with every one of secrets in its message replaced by
// REDACTED (the longest first; empty ones are ignored), nil for nil;
// errors.Is and errors.As see err. Error(err, Secrets(uri)...) is err
// fit to show when it may quote uri's secrets.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	return scrubbed{err, longestFirst(slices.Clone(secrets))}
}

// scrubbed is err with every occurrence of each secret in its message
// replaced by REDACTED.
type scrubbed struct {
	err     error
	secrets []string // longest first
}

func (e scrubbed) Error() string {
	msg := e.err.Error()
	for _, s := range e.secrets {
		msg = strings.ReplaceAll(msg, s, "REDACTED")
	}
	return msg
}

func (e scrubbed) Unwrap() error { return e.err }

// split cuts uri into what precedes its user information ("scheme://",
// "" without a scheme), whether it has user information, and what follows
// that ('@' excluded): the hosts, the database and the query.
func split(uri string) (head string, info bool, rest string) {
	scheme, r, ok := strings.Cut(uri, "://")
	if !ok {
		if at := strings.LastIndexByte(uri, '@'); at >= 0 {
			return "", true, uri[at+1:]
		}
		return "", false, uri
	}
	if at := userinfoEnd(r); at >= 0 {
		return scheme + "://", true, r[at+1:]
	}
	return scheme + "://", false, r
}

// userinfoEnd returns the index of the '@' that ends the user information
// at the start of rest, -1 when there is none. The driver ends it at the
// first '@'; a password may hold more unescaped ones (and '/'), so it is the
// last '@' before the query (the first '?' after the first '@'), which may
// hold '@'s of its own.
func userinfoEnd(rest string) int {
	first := strings.IndexByte(rest, '@')
	if first < 0 {
		return -1
	}
	end := len(rest)
	if i := strings.IndexByte(rest[first:], '?'); i >= 0 {
		end = first + i
	}
	return strings.LastIndexByte(rest[:end], '@')
}

// cutQuery cuts rest (what follows the user information) into what
// precedes its query, '?' included, and the query. Without a '?' (a URI
// that lacks it, or no URI at all) the query is rest whole: its pieces
// without '=' are no options.
func cutQuery(rest string) (before, query string) {
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		return rest[:i+1], rest[i+1:]
	}
	return "", rest
}

// redactQuery returns rest (what follows the user information) with the
// value of each secret option in its query replaced by REDACTED. An empty
// value stays empty: there is nothing to hide.
func redactQuery(rest string) string {
	before, query := cutQuery(rest)
	var b strings.Builder
	b.WriteString(before)
	end := 0
	for _, o := range options(query) {
		b.WriteString(query[end:o.start])
		if o.secret && o.value != "" {
			b.WriteString(o.key + "=REDACTED")
		} else {
			b.WriteString(query[o.start:o.end])
		}
		end = o.end
	}
	b.WriteString(query[end:])
	return b.String()
}

// option is one NAME=VALUE of a query, as written: query[start:end].
type option struct {
	key, value string // as written
	name       string // key percent-decoded and lower-case, as the driver compares it
	secret     bool
	start, end int
}

// options splits query into its options at '&' and ';', as the driver
// does. A piece without '=' (which the driver refuses) after a secret
// option is taken for part of its value, cut at an unescaped '&' or ';'.
func options(query string) []option {
	var opts []option
	for i := 0; i < len(query); {
		j := i + strings.IndexAny(query[i:], "&;")
		if j < i {
			j = len(query)
		}
		piece := query[i:j]
		if n := len(opts); n > 0 && opts[n-1].secret && opts[n-1].end == i-1 && !strings.Contains(piece, "=") {
			opts[n-1].end = j
			opts[n-1].value = query[opts[n-1].start+len(opts[n-1].key)+1 : j]
		} else if key, value, ok := strings.Cut(piece, "="); ok {
			name, err := url.QueryUnescape(key)
			if err != nil {
				name = key
			}
			name = strings.ToLower(name)
			opts = append(opts, option{key: key, value: value, name: name, secret: secretOptions[name], start: i, end: j})
		}
		i = j + 1
	}
	return opts
}
