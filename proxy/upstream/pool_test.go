package upstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/internal/testutil"
)

// TestNewRefuses: what New refuses without reaching any member, and that
// its errors never quote the password.
func TestNewRefuses(t *testing.T) {
	const pw = "s3cret-pw"
	port := testutil.FreePort(t) // nothing listens there
	for _, tt := range []struct {
		name, uri string
		want      error  // a sentinel, or nil for a configuration error
		says      string // in the message
	}{
		{"bad option", "mongodb://app:" + pw + "@127.0.0.1:1/?tls=maybe", nil, "tls"},
		{"bad URI", "mongodb://app:" + pw + "@127.0.0.1:1:2/?replicaSet=rs0", nil, "upstream: the URI mongodb://REDACTED@"},
		{"load balanced", "mongodb://app:" + pw + "@127.0.0.1:1/?loadBalanced=true", nil, "loadBalanced is not supported"},
		{"nobody listens", fmt.Sprintf("mongodb://app:%s@127.0.0.1:%d/?replicaSet=rs0&serverSelectionTimeoutMS=300", pw, port), ErrUnavailable,
			fmt.Sprintf("127.0.0.1:%d", port)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p, err := New(ctx, tt.uri)
			if err == nil {
				_ = p.Close(ctx)
				t.Fatal("New succeeded")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("New: %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("New: %v, want it to say %q", err, tt.says)
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("New: %v quotes the password", err)
			}
		})
	}
}
