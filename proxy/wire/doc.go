// Package wire is the pure core of the decongestant proxy: MongoDB wire
// protocol framing, parsing and classification over byte slices, with no
// network I/O, no clock and no goroutines. The proxy's network edge reads a
// message, parses it, classifies the command and forwards the raw bytes (ids
// rewritten) to the member the policy chose, or answers itself.
//
// One job per file:
//
//   - frame.go: the 16-byte header and ReadMessage, which bounds what a
//     peer can make the proxy allocate (MaxMessageSize, MongoDB's
//     maxMessageSizeBytes, and about twice what the peer has sent).
//   - parse.go: OP_MSG (flags, the kind-0 body, kind-1 document sequences,
//     at most 8 of them, the CRC-32C checksum) and the legacy OP_QUERY some drivers still use
//     for their first hello. Other opcodes are ErrUnsupported.
//   - build.go: the replies the proxy produces itself (an OP_MSG, an
//     OP_REPLY to an OP_QUERY) and RewriteIDs for forwarded messages.
//   - classify.go: Classify, which names the command and says where it may
//     go (Kind, Reason), with its read preference (readpref.go), read
//     concern and session fields (session.go).
//
// Eligible reads (KindRead) are find, aggregate without $out or $merge,
// count and distinct, outside transactions, without linearizable or
// snapshot read concern, on a collection, not in the local database. The
// proxy still decides with its own policy and the command's read
// preference whether an eligible read leaves the primary.
//
// Errors wrap exported sentinels: framing and parsing errors (ErrBadLength,
// ErrTooLarge, ErrTruncated, ErrMalformed, ErrUnsupported opcodes) mean the
// stream cannot be trusted and the connection closes; classification errors
// (ErrBadCommand, ErrUnsupported OP_QUERY commands) get an error reply.
//
//	msg, err := wire.ReadMessage(conn, wire.MaxMessageSize)
//	if err != nil {
//		return err // io.EOF at a clean end; close on anything else
//	}
//	m, err := wire.Parse(msg)
//	if err != nil {
//		return err
//	}
//	c, err := wire.Classify(&m)
//	switch {
//	case err != nil:
//		// reply with an error document to m.Header.RequestID
//	case c.Kind == wire.KindRead && c.ReadPref.Mode != wire.PrimaryMode:
//		// let the policy pick a member within the bound, then
//		_ = wire.RewriteIDs(msg, nextID(), 0)
//	}
package wire
