package report

import (
	"bytes"
	"testing"
)

// TestXMLChars: the characters XML cannot carry become U+FFFD, the rest
// (tab, newline, carriage return, any valid character) stay.
func TestXMLChars(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain <b>&amp;</b>", "plain <b>&amp;</b>"},
		{"tab\tnewline\ncr\r", "tab\tnewline\ncr\r"},
		{"nul\x00 soh\x01 esc\x1b del\x7f", "nul\uFFFD soh\uFFFD esc\uFFFD del\x7f"},
		{"invalid \xff\xfe utf-8", "invalid \uFFFD\uFFFD utf-8"},
		{"non-characters \uFFFE\uFFFF", "non-characters \uFFFD\uFFFD"},
		{"é € 𝄞 ±", "é € 𝄞 ±"},
	} {
		if got := string(xmlChars([]byte(tt.in))); got != tt.want {
			t.Errorf("xmlChars(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestWritePageFails: a template that fails writes nothing and says why.
func TestWritePageFails(t *testing.T) {
	var b bytes.Buffer
	if err := writePage(&b, "table", 42); err == nil || b.Len() > 0 {
		t.Errorf("writePage with a bad view: error %v, %d bytes written", err, b.Len())
	}
	if err := writePage(&b, "no such page", nil); err == nil {
		t.Error("writePage of a template that does not exist: no error")
	}
}
