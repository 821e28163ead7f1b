package wire

import (
	"errors"
	"fmt"
	"strconv"
)

// The errors of this package. Every error it returns wraps exactly one of
// them (test with errors.Is) and says in its text what was wrong: the length,
// the opcode, the section, the field.
//
// ErrBadLength, ErrTooLarge, ErrTruncated, ErrMalformed and ErrUnsupported on
// an opcode come from framing and parsing: the byte stream cannot be trusted
// any more and the proxy closes that connection. ErrBadCommand, and
// ErrUnsupported on an OP_QUERY command, come from Classify on a well-formed
// message: the proxy answers with an error reply and keeps the connection, as a
// mongos would.
var (
	// ErrBadLength: a header's messageLength is below the 16-byte header
	// (negative included) or disagrees with the bytes given.
	ErrBadLength = errors.New("bad message length")
	// ErrTooLarge: a header's messageLength is over the maximum (by default
	// MaxMessageSize, MongoDB's maxMessageSizeBytes).
	ErrTooLarge = errors.New("message too large")
	// ErrTruncated: the input ended inside a message.
	ErrTruncated = errors.New("truncated message")
	// ErrMalformed: the bytes inside a message do not follow its opcode's
	// layout (sections, documents, flags, checksum).
	ErrMalformed = errors.New("malformed message")
	// ErrUnsupported: an opcode the proxy does not accept from a client
	// (OP_COMPRESSED, OP_REPLY, the removed legacy opcodes, unknown ones), or a
	// legacy OP_QUERY that is not a handshake.
	ErrUnsupported = errors.New("unsupported")
	// ErrBadCommand: a well-formed message whose command a member would
	// reject before running it (no $db, a bad $readPreference, a cursor id
	// that is not a number, a field given twice).
	ErrBadCommand = errors.New("bad command")
)

// maxQuoted is how many bytes of a peer's string an error quotes.
const maxQuoted = 64

// quote quotes s, a string a peer sent, for an error's text: its first
// maxQuoted bytes, and how long it was when longer. Quoting escapes an
// unprintable byte in four; quoted whole, a long string made an error cost
// many times the message.
func quote[S ~string | ~[]byte](s S) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(string(s))
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(string(s[:maxQuoted])), len(s))
}
