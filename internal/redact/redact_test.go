package redact

import (
	"net/url"
	"strings"
	"testing"
)

func TestURI(t *testing.T) {
	tests := []struct{ in, want, info string }{
		{"mongodb://h1,h2/?replicaSet=rs0", "mongodb://h1,h2/?replicaSet=rs0", ""},
		{"mongodb://alice:s3cret@h1:27017,h2/?replicaSet=rs0", "mongodb://REDACTED@h1:27017,h2/?replicaSet=rs0", "alice:s3cret"},
		{"mongodb://al%40ce:p%40ss@h1/db", "mongodb://REDACTED@h1/db", "al%40ce:p%40ss"},
		{"mongodb+srv://u:p@cluster0.example.net/?retryWrites=true", "mongodb+srv://REDACTED@cluster0.example.net/?retryWrites=true", "u:p"},
		{"alice:s3cret@h1:27017", "REDACTED@h1:27017", "alice:s3cret"},
		// Unescaped special characters in the password (the driver refuses the URI, and its error
		// must not quote the password either).
		{"mongodb://u:s3c@ret@h1/?replicaSet=rs0", "mongodb://REDACTED@h1/?replicaSet=rs0", "u:s3c@ret"},
		{"mongodb://u:s3c/ret@h1/?replicaSet=rs0", "mongodb://REDACTED@h1/?replicaSet=rs0", "u:s3c/ret"},
		{"mongodb://u:s3c?ret@h1/?replicaSet=rs0", "mongodb://REDACTED@h1/?replicaSet=rs0", "u:s3c?ret"},
		{"mongodb://u:s3c#ret@h1/?tls=true&tlsCAFile=%2Ftmp%2Fca.pem", "mongodb://REDACTED@h1/?tls=true&tlsCAFile=%2Ftmp%2Fca.pem", "u:s3c#ret"},
		{"mongodb://u:s3c@r/et@h1/?x=1", "mongodb://REDACTED@h1/?x=1", "u:s3c@r/et"},
		// An '@' in the query after the user information is the query's.
		{"mongodb://u:s3cret@h1/?tlsCAFile=/home/a@b/ca.pem", "mongodb://REDACTED@h1/?tlsCAFile=/home/a@b/ca.pem", "u:s3cret"},
		// An '@' only in the query: over-redacted, never under.
		{"mongodb://h1/?authMechanism=X&tag=a@b", "mongodb://REDACTED@b", "h1/?authMechanism=X&tag=a"},
	}
	for _, tt := range tests {
		got := URI(tt.in)
		if got != tt.want {
			t.Errorf("URI(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3c") || strings.Contains(got, "p%40ss") {
			t.Errorf("secret left in %q", got)
		}
		if info := Userinfo(tt.in); info != tt.info {
			t.Errorf("Userinfo(%q) = %q, want %q", tt.in, info, tt.info)
		}
	}
}

// TestURIEscapedPassword: a password with every character that means something in a URI, percent-
// encoded as it must be, is removed whole.
func TestURIEscapedPassword(t *testing.T) {
	const pw = "p@ss:w/o?r#d%2B+ &="
	uri := "mongodb://" + url.PathEscape("app") + ":" + strings.NewReplacer("@", "%40", ":", "%3A", "/", "%2F", "?", "%3F", "#", "%23", "%", "%25", "+", "%2B", " ", "%20", "&", "%26", "=", "%3D").Replace(pw) +
		"@127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0&authSource=admin"
	got := URI(uri)
	if got != "mongodb://REDACTED@127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0&authSource=admin" {
		t.Fatalf("URI = %q", got)
	}
}

func TestPassword(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mongodb://h1/?replicaSet=rs0", "mongodb://h1/?replicaSet=rs0"},
		{"mongodb://app:s3cret@h1,h2/?replicaSet=rs0&authSource=admin", "mongodb://app:REDACTED@h1,h2/?replicaSet=rs0&authSource=admin"},
		{"mongodb://app:s3c%40r%3At@h1/", "mongodb://app:REDACTED@h1/"},
		{"mongodb://app:s3c@r/t@h1/?x=1", "mongodb://app:REDACTED@h1/?x=1"},
		{"mongodb://s3cret@h1/", "mongodb://REDACTED@h1/"}, // no ':': user or password, it goes
	}
	for _, tt := range tests {
		if got := Password(tt.in); got != tt.want {
			t.Errorf("Password(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
