package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// Message is a parsed client message: an OP_MSG, or the legacy OP_QUERY some
// drivers still use for their first hello. Its byte slices alias the bytes
// given to Parse (only the short strings Sequence.Identifier and
// Query.Namespace are copies), so that buffer must not be reused while the
// Message is in use.
type Message struct {
	Header Header
	// Flags are an OP_MSG's flagBits (ChecksumPresent, MoreToCome,
	// ExhaustAllowed); zero for OP_QUERY.
	Flags wiremessage.MsgFlag
	// Body is an OP_MSG's kind-0 section, or an OP_QUERY's query document as
	// sent (a command, possibly wrapped in $query next to $readPreference).
	// Its framing (length, terminating 0x00, each top-level element) is
	// checked; nested values are checked only where Classify reads them, the
	// member validates the rest.
	Body bsoncore.Document
	// Sequences are an OP_MSG's kind-1 sections, in order (nil for most
	// reads: drivers send them for the documents of writes).
	Sequences []Sequence
	// Query holds an OP_QUERY's other fields; zero for OP_MSG.
	Query Query
}

// Sequence is an OP_MSG kind-1 section: a document sequence standing for
// the body's array field Identifier.
type Sequence struct {
	Identifier string
	// Docs is the sequence's documents back to back, each with a checked
	// length and terminating 0x00 (their elements are the member's to
	// validate: the proxy forwards them unread).
	Docs  []byte
	Count int
}

// Documents returns the sequence's documents (aliasing Docs).
func (s Sequence) Documents() []bsoncore.Document {
	docs := make([]bsoncore.Document, 0, s.Count)
	for rem := s.Docs; len(rem) > 0; {
		d, r, ok := readDoc(rem)
		if !ok {
			break // Parse checked every document
		}
		docs = append(docs, d)
		rem = r
	}
	return docs
}

// Query is what an OP_QUERY carries besides its query document.
type Query struct {
	Flags          wiremessage.QueryFlag
	Namespace      string // fullCollectionName, "admin.$cmd" for a command
	NumberToSkip   int32
	NumberToReturn int32
	// ReturnFieldsSelector is nil when absent.
	ReturnFieldsSelector bsoncore.Document
}

// requiredMsgFlags are OP_MSG flag bits 0-15: a parser must reject a message
// with one it does not know. Bits 16-31 are optional and ignored.
const requiredMsgFlags = 0xFFFF

// knownMsgFlags are the required bits this package knows.
const knownMsgFlags = wiremessage.ChecksumPresent | wiremessage.MoreToCome

// maxSequences bounds an OP_MSG's kind-1 sections. Drivers send at most two
// (bulkWrite's ops and nsInfo; insert, update and delete one); without a
// bound, a message of empty sequences cost many times its size in Sequences
// and time quadratic in their number in the check for a repeated identifier.
const maxSequences = 8

// Parse parses one whole message (header included, nothing after it) as
// ReadMessage returns it. An OP_MSG's checksum, when present, is verified.
// Opcodes other than OP_MSG and OP_QUERY give ErrUnsupported, with the
// Header set.
func Parse(b []byte) (Message, error) {
	var m Message
	h, reqID, respTo, op, _, ok := wiremessage.ReadHeader(b)
	if !ok {
		return m, fmt.Errorf("%w: %d bytes, a header needs %d", ErrTruncated, len(b), HeaderLen)
	}
	m.Header = Header{Length: h, RequestID: reqID, ResponseTo: respTo, OpCode: op}
	switch {
	case h < HeaderLen:
		return m, fmt.Errorf("%w: messageLength %d is below the %d-byte header", ErrBadLength, h, HeaderLen)
	case int64(h) > int64(len(b)):
		return m, fmt.Errorf("%w: messageLength %d but only %d bytes", ErrTruncated, h, len(b))
	case int64(h) < int64(len(b)):
		return m, fmt.Errorf("%w: messageLength %d but %d bytes given", ErrBadLength, h, len(b))
	}
	var err error
	switch op {
	case wiremessage.OpMsg:
		err = parseMsg(&m, b)
	case wiremessage.OpQuery:
		err = parseQuery(&m, b)
	default:
		err = fmt.Errorf("%w: %s from a client (requestID %d)", ErrUnsupported, opName(op), reqID)
	}
	return m, err
}

// parseMsg parses b as an OP_MSG: flagBits, sections (exactly one kind 0,
// any number of kind 1), then the CRC-32C checksum when flagged.
func parseMsg(m *Message, b []byte) error {
	rest := b[HeaderLen:]
	if len(rest) < 4 {
		return fmt.Errorf("%w: OP_MSG of %d bytes has no flagBits", ErrMalformed, len(b))
	}
	m.Flags = wiremessage.MsgFlag(binary.LittleEndian.Uint32(rest))
	rest = rest[4:]
	if unknown := m.Flags & requiredMsgFlags &^ knownMsgFlags; unknown != 0 {
		return fmt.Errorf("%w: OP_MSG sets unknown required flag bits %#x", ErrMalformed, uint32(unknown))
	}
	if m.Flags&wiremessage.ChecksumPresent != 0 {
		if len(rest) < 4 {
			return fmt.Errorf("%w: OP_MSG flags a checksum but has %d bytes left for it", ErrMalformed, len(rest))
		}
		want := binary.LittleEndian.Uint32(rest[len(rest)-4:])
		if got := checksum(b[:len(b)-4]); got != want {
			return fmt.Errorf("%w: OP_MSG checksum %#08x, the message sums to %#08x", ErrMalformed, want, got)
		}
		rest = rest[:len(rest)-4]
	}
	for i := 0; len(rest) > 0; i++ {
		off := len(b) - len(rest)
		kind := rest[0]
		rest = rest[1:]
		switch wiremessage.SectionType(kind) {
		case wiremessage.SingleDocument:
			if m.Body != nil {
				return fmt.Errorf("%w: OP_MSG section %d (offset %d) is a second kind-0 body", ErrMalformed, i, off)
			}
			doc, r, ok := readDoc(rest)
			if !ok {
				return fmt.Errorf("%w: OP_MSG section %d (offset %d): the body is not a whole document", ErrMalformed, i, off)
			}
			if err := checkElems(doc); err != nil {
				return fmt.Errorf("%w: OP_MSG section %d (offset %d): the body's %w", ErrMalformed, i, off, err)
			}
			m.Body, rest = doc, r
		case wiremessage.DocumentSequence:
			if len(m.Sequences) == maxSequences {
				return fmt.Errorf("%w: OP_MSG section %d (offset %d): more than %d document sequences", ErrMalformed, i, off, maxSequences)
			}
			seq, r, err := readSequence(rest)
			if err != nil {
				return fmt.Errorf("%w: OP_MSG section %d (offset %d): %w", ErrMalformed, i, off, err)
			}
			for _, s := range m.Sequences {
				if s.Identifier == seq.Identifier {
					return fmt.Errorf("%w: OP_MSG section %d (offset %d) repeats the document sequence %s", ErrMalformed, i, off, quote(seq.Identifier))
				}
			}
			m.Sequences = append(m.Sequences, seq)
			rest = r
		default:
			return fmt.Errorf("%w: OP_MSG section %d (offset %d) has unknown kind %d", ErrMalformed, i, off, kind)
		}
	}
	if m.Body == nil {
		return fmt.Errorf("%w: OP_MSG has no kind-0 body", ErrMalformed)
	}
	return nil
}

// readSequence reads a kind-1 section after its kind byte: int32 size
// (counting itself), cstring identifier, documents filling the rest.
func readSequence(src []byte) (Sequence, []byte, error) {
	if len(src) < 4 {
		return Sequence{}, src, fmt.Errorf("document sequence with %d bytes has no size", len(src))
	}
	size := int32(binary.LittleEndian.Uint32(src))
	if size < 5 || int64(size) > int64(len(src)) {
		return Sequence{}, src, fmt.Errorf("document sequence size %d does not fit in the %d bytes left", size, len(src))
	}
	sec, rest := src[4:size], src[size:]
	nul := bytes.IndexByte(sec, 0)
	if nul < 0 {
		return Sequence{}, src, fmt.Errorf("document sequence identifier has no terminating 0x00")
	}
	seq := Sequence{Identifier: string(sec[:nul]), Docs: sec[nul+1:]}
	for rem := seq.Docs; len(rem) > 0; seq.Count++ {
		_, r, ok := readDoc(rem)
		if !ok {
			return Sequence{}, src, fmt.Errorf("document sequence %s: document %d is not a whole document", quote(seq.Identifier), seq.Count)
		}
		rem = r
	}
	return seq, rest, nil
}

// checkElems checks that doc's top-level elements fill it exactly.
func checkElems(doc bsoncore.Document) error {
	e := newElems(doc)
	n := 0
	for {
		if _, _, ok := e.next(); !ok {
			break
		}
		n++
	}
	if e.bad {
		return fmt.Errorf("element %d does not fit in the document", n)
	}
	return nil
}

// parseQuery parses b as an OP_QUERY: flags, fullCollectionName, skip,
// return, query and an optional returnFieldsSelector.
func parseQuery(m *Message, b []byte) error {
	rest := b[HeaderLen:]
	if len(rest) < 4 {
		return fmt.Errorf("%w: OP_QUERY of %d bytes has no flags", ErrMalformed, len(b))
	}
	m.Query.Flags = wiremessage.QueryFlag(binary.LittleEndian.Uint32(rest))
	rest = rest[4:]
	nul := bytes.IndexByte(rest, 0)
	if nul < 0 {
		return fmt.Errorf("%w: OP_QUERY fullCollectionName has no terminating 0x00", ErrMalformed)
	}
	m.Query.Namespace = string(rest[:nul])
	rest = rest[nul+1:]
	if len(rest) < 8 {
		return fmt.Errorf("%w: OP_QUERY on %s ends before numberToSkip and numberToReturn", ErrMalformed, quote(m.Query.Namespace))
	}
	m.Query.NumberToSkip = int32(binary.LittleEndian.Uint32(rest))
	m.Query.NumberToReturn = int32(binary.LittleEndian.Uint32(rest[4:]))
	rest = rest[8:]
	doc, rest, ok := readDoc(rest)
	if !ok {
		return fmt.Errorf("%w: OP_QUERY on %s: the query is not a whole document", ErrMalformed, quote(m.Query.Namespace))
	}
	if err := checkElems(doc); err != nil {
		return fmt.Errorf("%w: OP_QUERY on %s: the query's %w", ErrMalformed, quote(m.Query.Namespace), err)
	}
	m.Body = doc
	if len(rest) > 0 {
		sel, r, ok := readDoc(rest)
		if !ok || len(r) > 0 {
			return fmt.Errorf("%w: OP_QUERY on %s: %d bytes after the query are not one returnFieldsSelector document", ErrMalformed, quote(m.Query.Namespace), len(rest))
		}
		if err := checkElems(sel); err != nil {
			return fmt.Errorf("%w: OP_QUERY on %s: the returnFieldsSelector's %w", ErrMalformed, quote(m.Query.Namespace), err)
		}
		m.Query.ReturnFieldsSelector = sel
	}
	return nil
}
