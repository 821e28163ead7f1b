// Package redact removes credentials from connection strings before they
// reach a log, an error, a result or a report.
//
//	fmt.Println(redact.URI("mongodb://alice:s3cret@h1/?replicaSet=rs0")) // mongodb://REDACTED@h1/?replicaSet=rs0
package redact

import "strings"

// URI returns uri with its user information (user name and password)
// replaced by REDACTED, for logs and reports. It is purely textual: it never
// resolves anything, and a string it cannot read as a URI loses everything
// before its last '@'.
func URI(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		if at := strings.LastIndexByte(uri, '@'); at >= 0 {
			return "REDACTED@" + uri[at+1:]
		}
		return uri
	}
	if at := lastAt(rest); at >= 0 {
		return scheme + "://REDACTED@" + rest[at+1:]
	}
	return uri
}

func lastAt(s string) int {
	// The authority ends at the first '/' (or '?'); the userinfo ends at the
	// last '@' before it.
	end := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '?' {
			end = i
			break
		}
	}
	for i := end - 1; i >= 0; i-- {
		if s[i] == '@' {
			return i
		}
	}
	return -1
}
