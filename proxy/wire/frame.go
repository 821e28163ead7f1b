package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

const (
	// HeaderLen is the size of the standard message header: messageLength,
	// requestID, responseTo and opCode, four little-endian int32s.
	HeaderLen = 16
	// MaxMessageSize is MongoDB's maxMessageSizeBytes, the largest message a
	// server accepts and advertises in its hello reply.
	MaxMessageSize = 48_000_000
	// firstChunk is how much ReadMessage allocates for a message before any
	// of its body has arrived; it doubles from there as bytes come in, so a
	// peer that announces a large message and sends less costs about what it
	// sent, not what it announced.
	firstChunk = 64 << 10
)

// Header is the standard message header every opcode starts with.
type Header struct {
	Length     int32 // the whole message, header included
	RequestID  int32
	ResponseTo int32
	OpCode     wiremessage.OpCode
}

// ReadHeader reads the header at the start of b and checks its length
// against the 16-byte header and limit (MaxMessageSize when limit <= 0). It
// does not check that b holds the whole message.
func ReadHeader(b []byte, limit int) (Header, error) {
	length, reqID, respTo, op, _, ok := wiremessage.ReadHeader(b)
	if !ok {
		return Header{}, fmt.Errorf("%w: %d bytes, a header needs %d", ErrTruncated, len(b), HeaderLen)
	}
	h := Header{Length: length, RequestID: reqID, ResponseTo: respTo, OpCode: op}
	if limit <= 0 {
		limit = MaxMessageSize
	}
	if length < HeaderLen {
		return h, fmt.Errorf("%w: messageLength %d is below the %d-byte header", ErrBadLength, length, HeaderLen)
	}
	if int64(length) > int64(limit) {
		return h, fmt.Errorf("%w: messageLength %d is over the maximum %d", ErrTooLarge, length, limit)
	}
	return h, nil
}

// ReadMessage reads one whole message (header included) from r. limit bounds
// the announced length (MaxMessageSize when limit <= 0). At a clean end of
// input, before the first byte of a message, it returns io.EOF; an input
// that ends later gives ErrTruncated. Memory grows with the bytes actually
// received, never past limit.
func ReadMessage(r io.Reader, limit int) ([]byte, error) {
	return ReadMessageInto(nil, r, limit)
}

// ReadMessageInto is ReadMessage reusing buf's capacity: the message is
// written at buf[0:] and the returned slice aliases buf when it fits.
func ReadMessageInto(buf []byte, r io.Reader, limit int) ([]byte, error) {
	msg, err := readMessage(buf, r, limit)
	if err != nil {
		return nil, err
	}
	return msg, nil
}

// readMessage is ReadMessageInto returning the buffer it grew even on error,
// so the fuzz target can check what it allocated.
func readMessage(buf []byte, r io.Reader, limit int) ([]byte, error) {
	var hdr [HeaderLen]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: input ended after %d of the %d header bytes: %w", ErrTruncated, n, HeaderLen, err)
		}
		return nil, fmt.Errorf("reading a message header: %w", err)
	}
	h, err := ReadHeader(hdr[:], limit)
	if err != nil {
		return nil, err
	}
	length := int(h.Length)
	buf = append(buf[:0], hdr[:]...)
	for len(buf) < length {
		end := length
		if cap(buf) < length {
			// Grow to twice what has arrived (at least firstChunk), capped
			// by the announced length.
			end = min(length, max(2*len(buf), firstChunk))
			grown := make([]byte, len(buf), end)
			copy(grown, buf)
			buf = grown
		}
		n, err := io.ReadFull(r, buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return buf, fmt.Errorf("%w: input ended after %d of the %d bytes of %s requestID %d",
					ErrTruncated, len(buf), length, opName(h.OpCode), h.RequestID)
			}
			return buf, fmt.Errorf("reading %d-byte %s: %w", length, opName(h.OpCode), err)
		}
	}
	return buf, nil
}

// putInt32 writes v little-endian at b[0:4].
func putInt32(b []byte, v int32) { binary.LittleEndian.PutUint32(b, uint32(v)) }

// opName names op for an error: OP_MSG, or "opcode 2999" for one the driver
// does not know.
func opName(op wiremessage.OpCode) string {
	if s := op.String(); s != "<invalid opcode>" {
		return s
	}
	return fmt.Sprintf("opcode %d", int32(op))
}
