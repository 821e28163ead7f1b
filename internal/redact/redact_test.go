package redact

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
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

// TestSecretOptions: the values of the options that carry a secret go, whatever the case of their
// names, however they are encoded and separated; other options, and names that merely contain a
// secret option's, stay as written.
func TestSecretOptions(t *testing.T) {
	tests := []struct{ name, in, uri, password string }{
		{"authMechanismProperties whole",
			"mongodb://h1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:tok3n&replicaSet=rs0",
			"mongodb://h1/?authMechanism=MONGODB-AWS&authMechanismProperties=REDACTED&replicaSet=rs0",
			"mongodb://h1/?authMechanism=MONGODB-AWS&authMechanismProperties=REDACTED&replicaSet=rs0"},
		{"tlsCertificateKeyFilePassword",
			"mongodb://h1/?tls=true&tlsCertificateKeyFile=%2Ftmp%2Fc.pem&tlsCertificateKeyFilePassword=s3cret",
			"mongodb://h1/?tls=true&tlsCertificateKeyFile=%2Ftmp%2Fc.pem&tlsCertificateKeyFilePassword=REDACTED",
			"mongodb://h1/?tls=true&tlsCertificateKeyFile=%2Ftmp%2Fc.pem&tlsCertificateKeyFilePassword=REDACTED"},
		{"sslClientCertificateKeyPassword", "mongodb://h1/?sslClientCertificateKeyPassword=s3cret",
			"mongodb://h1/?sslClientCertificateKeyPassword=REDACTED", "mongodb://h1/?sslClientCertificateKeyPassword=REDACTED"},
		{"sslPEMKeyPassword", "mongodb://h1/?sslPEMKeyPassword=s3cret",
			"mongodb://h1/?sslPEMKeyPassword=REDACTED", "mongodb://h1/?sslPEMKeyPassword=REDACTED"},
		{"proxyPassword", "mongodb://h1/?proxyHost=p&proxyUsername=bob&proxyPassword=s3cret",
			"mongodb://h1/?proxyHost=p&proxyUsername=bob&proxyPassword=REDACTED", "mongodb://h1/?proxyHost=p&proxyUsername=bob&proxyPassword=REDACTED"},
		{"mixed case names", "mongodb://h1/?PROXYPASSWORD=s3cret&AuthMechanismProperties=AWS_SESSION_TOKEN:tok3n&tlscertificatekeyfilepassword=s3c",
			"mongodb://h1/?PROXYPASSWORD=REDACTED&AuthMechanismProperties=REDACTED&tlscertificatekeyfilepassword=REDACTED",
			"mongodb://h1/?PROXYPASSWORD=REDACTED&AuthMechanismProperties=REDACTED&tlscertificatekeyfilepassword=REDACTED"},
		{"percent-encoded values", "mongodb://h1/?proxyPassword=s3c%26r%3Dt%2B&authMechanismProperties=AWS_SESSION_TOKEN%3Atok3n%2CX%3Ay",
			"mongodb://h1/?proxyPassword=REDACTED&authMechanismProperties=REDACTED", "mongodb://h1/?proxyPassword=REDACTED&authMechanismProperties=REDACTED"},
		{"a percent-encoded name is the driver's option too", "mongodb://h1/?proxy%50assword=s3cret&x=1",
			"mongodb://h1/?proxy%50assword=REDACTED&x=1", "mongodb://h1/?proxy%50assword=REDACTED&x=1"},
		{"with user information", "mongodb://alice:pw%40x@h1,h2/?replicaSet=rs0&proxyPassword=s3cret&authSource=admin&authMechanismProperties=AWS_SESSION_TOKEN:tok3n",
			"mongodb://REDACTED@h1,h2/?replicaSet=rs0&proxyPassword=REDACTED&authSource=admin&authMechanismProperties=REDACTED",
			"mongodb://alice:REDACTED@h1,h2/?replicaSet=rs0&proxyPassword=REDACTED&authSource=admin&authMechanismProperties=REDACTED"},
		{"';' separators", "mongodb://h1/?replicaSet=rs0;proxyPassword=s3cret;authMechanismProperties=AWS_SESSION_TOKEN:tok3n;w=1",
			"mongodb://h1/?replicaSet=rs0;proxyPassword=REDACTED;authMechanismProperties=REDACTED;w=1",
			"mongodb://h1/?replicaSet=rs0;proxyPassword=REDACTED;authMechanismProperties=REDACTED;w=1"},
		{"an empty value stays empty", "mongodb://h1/?proxyPassword=&replicaSet=rs0",
			"mongodb://h1/?proxyPassword=&replicaSet=rs0", "mongodb://h1/?proxyPassword=&replicaSet=rs0"},
		{"a name without '=' has no value", "mongodb://h1/?proxyPassword&replicaSet=rs0",
			"mongodb://h1/?proxyPassword&replicaSet=rs0", "mongodb://h1/?proxyPassword&replicaSet=rs0"},
		// The driver reads options by their exact names: these are unknown options, not secrets.
		{"names that contain a secret option's", "mongodb://h1/?xproxyPassword=keep1&proxyPasswordx=keep2&myauthMechanismProperties=keep3",
			"mongodb://h1/?xproxyPassword=keep1&proxyPasswordx=keep2&myauthMechanismProperties=keep3",
			"mongodb://h1/?xproxyPassword=keep1&proxyPasswordx=keep2&myauthMechanismProperties=keep3"},
		// An unescaped '&' or ';' in a secret value: what follows, up to the next option with '='
		// (a piece without '=' the driver refuses), is the value's.
		{"unescaped separators in a value", "mongodb://h1/?authMechanismProperties=AWS_SESSION_TOKEN:tok&3n;s3c&replicaSet=rs0",
			"mongodb://h1/?authMechanismProperties=REDACTED&replicaSet=rs0", "mongodb://h1/?authMechanismProperties=REDACTED&replicaSet=rs0"},
		{"no '?': read as options whole", "mongodb://h1/db&proxyPassword=s3cret",
			"mongodb://h1/db&proxyPassword=REDACTED", "mongodb://h1/db&proxyPassword=REDACTED"},
		{"not a URI", "proxyPassword=s3cret", "proxyPassword=REDACTED", "proxyPassword=REDACTED"},
		{"no options", "just some text, a=b", "just some text, a=b", "just some text, a=b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URI(tt.in); got != tt.uri {
				t.Errorf("URI(%q) = %q, want %q", tt.in, got, tt.uri)
			}
			if got := Password(tt.in); got != tt.password {
				t.Errorf("Password(%q) = %q, want %q", tt.in, got, tt.password)
			}
			if got := URI(tt.uri); got != tt.uri {
				t.Errorf("URI of the redacted %q = %q: not idempotent", tt.uri, got)
			}
			// What the driver reads as a secret option's value is not left in the output.
			cs, err := connstring.Parse(tt.in)
			if err != nil {
				return
			}
			for name, values := range cs.Options {
				for _, v := range values {
					if secretOptions[name] && v != "" && (strings.Contains(tt.uri, v) || strings.Contains(tt.password, v)) {
						t.Errorf("the driver's %s=%q is left in %q or %q", name, v, tt.uri, tt.password)
					}
				}
			}
		})
	}
}

// TestSecrets: the password and the secret options' values, as written and decoded, longest
// first; no user name, no other option.
func TestSecrets(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"mongodb://h1/?replicaSet=rs0", nil},
		{"mongodb://alice@h1/?replicaSet=rs0", nil},
		{"mongodb://alice:p%40ss@h1/?proxyPassword=s3c%26t&xproxyPassword=no&appName=alice",
			[]string{"s3c%26t", "p%40ss", "s3c&t", "p@ss"}},
		{"mongodb://h1/?AUTHMECHANISMPROPERTIES=AWS_SESSION_TOKEN%3Atok3n%2CK%3Av2;tlsCertificateKeyFilePassword=&w=1",
			[]string{"AWS_SESSION_TOKEN%3Atok3n%2CK%3Av2", "AWS_SESSION_TOKEN:tok3n,K:v2"}},
		{"mongodb://h1/?proxyPassword=x&sslPEMKeyPassword=x", []string{"x"}},
	}
	for _, tt := range tests {
		if got := Secrets(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Secrets(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestError: every secret in the message goes, the longest first (a secret inside another does not
// leave the rest of the other behind); the error still unwraps to err.
func TestError(t *testing.T) {
	inner := errors.New(`invalid option value "tok3n%ZZ-long": token tok3n; pwd: "hunter22"`)
	err := Error(inner, "tok3n", "", "hunter22", "tok3n%ZZ-long")
	if got, want := err.Error(), `invalid option value "REDACTED": token REDACTED; pwd: "REDACTED"`; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	if !errors.Is(err, inner) {
		t.Error("errors.Is does not find the error scrubbed")
	}
	if Error(nil, "x") != nil {
		t.Error("Error(nil) is not nil")
	}
	if got := Error(inner).Error(); got != inner.Error() {
		t.Errorf("no secrets: %q", got)
	}
}
