package wire

import (
	"strings"
	"testing"
)

// An error quotes at most maxQuoted bytes of what a peer sent, and says how
// long it was.
func TestQuote(t *testing.T) {
	long := strings.Repeat("\x01", maxQuoted+1)
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"secondary", `"secondary"`},
		{long[:maxQuoted], `"` + strings.Repeat(`\x01`, maxQuoted) + `"`},
		{long, `"` + strings.Repeat(`\x01`, maxQuoted) + `"... (65 bytes)`},
	} {
		if got := quote(tt.in); got != tt.want {
			t.Errorf("quote(%d bytes) = %s, want %s", len(tt.in), got, tt.want)
		}
		if got := quote([]byte(tt.in)); got != tt.want {
			t.Errorf("quote([]byte, %d bytes) = %s, want %s", len(tt.in), got, tt.want)
		}
	}
}
