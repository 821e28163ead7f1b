package proxy

import "github.com/decongestant/decongestant/proxy/wire"

// maxPreAuthMessage caps the messages of a connection that has not
// authenticated (with Config.Users): a hello with speculativeAuthenticate
// and client metadata takes about 1 KiB, a SCRAM step less; a connection
// announcing more is closed before its body is read, so unauthenticated
// clients cost at most this much each.
const maxPreAuthMessage = 64 << 10

// maxKeptBuffer is the largest read buffer a connection keeps between
// messages: the usual requests fit in a few KiB and reuse it, and a
// connection that once read a large message (up to 48 MB) does not hold
// that much for life.
const maxKeptBuffer = 1 << 20

// readLimit is the largest message cc may send next.
func (s *Server) readLimit(cc *clientConn) int {
	if s.auth != nil && cc.auth.user == "" {
		return maxPreAuthMessage
	}
	return wire.MaxMessageSize
}

// keepBuffer returns the buffer to read the next message into: msg's,
// emptied, unless it is over maxKeptBuffer (then nil: a new one is grown).
func keepBuffer(msg []byte) []byte {
	if cap(msg) > maxKeptBuffer {
		return nil
	}
	return msg[:0]
}
