package redact

import (
	"strings"
	"testing"
)

func TestURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mongodb://h1,h2/?replicaSet=rs0", "mongodb://h1,h2/?replicaSet=rs0"},
		{"mongodb://alice:s3cret@h1:27017,h2/?replicaSet=rs0", "mongodb://REDACTED@h1:27017,h2/?replicaSet=rs0"},
		{"mongodb://al%40ce:p%40ss@h1/db", "mongodb://REDACTED@h1/db"},
		{"mongodb+srv://u:p@cluster0.example.net/?retryWrites=true", "mongodb+srv://REDACTED@cluster0.example.net/?retryWrites=true"},
		{"alice:s3cret@h1:27017", "REDACTED@h1:27017"},
		{"mongodb://h1/?authMechanism=X&tag=a@b", "mongodb://h1/?authMechanism=X&tag=a@b"},
	}
	for _, tt := range tests {
		got := URI(tt.in)
		if got != tt.want {
			t.Errorf("URI(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "p%40ss") {
			t.Errorf("secret left in %q", got)
		}
	}
}
