// Package redact removes credentials from connection strings before they
// reach a log, an error, a result or a report.
//
//	fmt.Println(redact.URI("mongodb://alice:s3cret@h1/?replicaSet=rs0")) // mongodb://REDACTED@h1/?replicaSet=rs0
package redact

import "strings"

// URI returns uri with its user information (user name and password)
// replaced by REDACTED, for logs and reports. It is purely textual: it never
// resolves anything, and a string it cannot read as a URI loses everything
// before its last '@'. A password with unescaped '@', '/' or '?' is removed
// whole too (but for a '?' followed by an '@'); the price is that a URI with
// an '@' only in its query (which the driver refuses) loses its hosts as
// well.
func URI(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		if at := strings.LastIndexByte(uri, '@'); at >= 0 {
			return "REDACTED@" + uri[at+1:]
		}
		return uri
	}
	if at := userinfoEnd(rest); at >= 0 {
		return scheme + "://REDACTED@" + rest[at+1:]
	}
	return uri
}

// Password returns uri with its password replaced by REDACTED and its user
// name kept ("mongodb://app:REDACTED@h1/..."), for showing a user which URI
// is which. Without a password it is uri; a user name it cannot tell from
// the password (no ':' in the user information) goes too, as in URI.
func Password(uri string) string {
	info := Userinfo(uri)
	user, _, ok := strings.Cut(info, ":")
	if info == "" || !ok {
		return URI(uri)
	}
	red := URI(uri)
	return strings.Replace(red, "REDACTED@", user+":REDACTED@", 1)
}

// Userinfo returns the user information URI removes from uri (user name
// and password, as written), "" when there is none: what an error about uri
// must not quote.
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
