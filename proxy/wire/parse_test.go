package wire

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

func TestParse(t *testing.T) {
	hello := doc(t, d("hello", 1, "$db", "admin"))
	insert := doc(t, d("insert", "c", "$db", "db"))
	d1, d2 := doc(t, d("_id", 1)), doc(t, d("_id", 2, "x", "y"))
	upd := doc(t, d("q", d()))
	isMaster := doc(t, d("isMaster", 1))
	fields := doc(t, d("a", 1))
	h := func(b []byte) Header {
		return Header{Length: int32(len(b)), RequestID: 7, OpCode: wiremessage.OpCode(int32(b[12]) | int32(b[13])<<8)}
	}

	helloMsg := opMsg(0, hello)
	withSeqs := opMsg(0, insert, seq{"documents", []bsoncore.Document{d1, d2}}, seq{"updates", []bsoncore.Document{upd}}, seq{"empty", nil})
	summed := opMsg(wiremessage.ChecksumPresent|wiremessage.ExhaustAllowed, hello)
	badSum := append([]byte{}, summed...)
	badSum[len(badSum)-1] ^= 1
	var eight []seq
	var eightWant []Sequence
	for _, id := range "abcdefgh" {
		eight = append(eight, seq{string(id), nil})
		eightWant = append(eightWant, Sequence{Identifier: string(id), Docs: []byte{}})
	}
	eightSeqs := opMsg(0, insert, eight...)
	nineSeqs := opMsg(0, insert, append(eight, seq{"i", nil})...)
	query := opQuery("admin.$cmd", isMaster, nil)
	queryFields := opQuery("admin.$cmd", isMaster, fields)

	tests := []struct {
		name    string
		in      []byte
		want    *Message // nil with an error
		wantErr error
		errText string
	}{
		{name: "hello", in: helloMsg, want: &Message{Header: h(helloMsg), Body: hello}},
		{name: "insert with document sequences", in: withSeqs, want: &Message{Header: h(withSeqs), Body: insert, Sequences: []Sequence{
			{Identifier: "documents", Docs: append(append([]byte{}, d1...), d2...), Count: 2},
			{Identifier: "updates", Docs: upd, Count: 1},
			{Identifier: "empty", Docs: []byte{}, Count: 0},
		}}},
		{name: "checksum and exhaustAllowed", in: summed, want: &Message{Header: h(summed), Body: hello,
			Flags: wiremessage.ChecksumPresent | wiremessage.ExhaustAllowed}},
		{name: "moreToCome", in: opMsg(wiremessage.MoreToCome, insert), want: &Message{Header: h(opMsg(wiremessage.MoreToCome, insert)),
			Body: insert, Flags: wiremessage.MoreToCome}},
		{name: "unknown optional flag bit is ignored", in: opMsg(1<<20, hello), want: &Message{Header: h(opMsg(1<<20, hello)), Body: hello, Flags: 1 << 20}},
		{name: "OP_QUERY isMaster", in: query, want: &Message{Header: h(query), Body: isMaster,
			Query: Query{Flags: wiremessage.SecondaryOK, Namespace: "admin.$cmd", NumberToReturn: -1}}},
		{name: "OP_QUERY with returnFieldsSelector", in: queryFields, want: &Message{Header: h(queryFields), Body: isMaster,
			Query: Query{Flags: wiremessage.SecondaryOK, Namespace: "admin.$cmd", NumberToReturn: -1, ReturnFieldsSelector: fields}}},

		{name: "eight document sequences", in: eightSeqs, want: &Message{Header: h(eightSeqs), Body: insert, Sequences: eightWant}},
		{name: "nine document sequences", in: nineSeqs, wantErr: ErrMalformed, errText: "section 9 (offset 108): more than 8 document sequences"},
		{name: "bad checksum", in: badSum, wantErr: ErrMalformed, errText: "checksum"},
		{name: "unknown required flag bit", in: opMsg(1<<2, hello), wantErr: ErrMalformed, errText: "unknown required flag bits 0x4"},
		{name: "checksum flagged, no room for it", in: rawMsg(wiremessage.OpMsg, []byte{1, 0, 0, 0, 0, 0}), wantErr: ErrMalformed, errText: "2 bytes left"},
		{name: "no flagBits", in: rawMsg(wiremessage.OpMsg, []byte{0, 0}), wantErr: ErrMalformed, errText: "no flagBits"},
		{name: "no sections", in: rawMsg(wiremessage.OpMsg, []byte{0, 0, 0, 0}), wantErr: ErrMalformed, errText: "no kind-0 body"},
		{name: "only a sequence", in: rawMsg(wiremessage.OpMsg, []byte{0, 0, 0, 0, 1, 6, 0, 0, 0, 'a', 0}), wantErr: ErrMalformed, errText: "no kind-0 body"},
		{name: "two bodies", in: rawMsg(wiremessage.OpMsg, append(append([]byte{0, 0, 0, 0, 0}, hello...), append([]byte{0}, hello...)...)),
			wantErr: ErrMalformed, errText: "section 1 (offset 52) is a second kind-0 body"},
		{name: "unknown section kind", in: rawMsg(wiremessage.OpMsg, append([]byte{0, 0, 0, 0, 2}, hello...)), wantErr: ErrMalformed, errText: "unknown kind 2"},
		{name: "body longer than the message", in: rawMsg(wiremessage.OpMsg, append([]byte{0, 0, 0, 0, 0}, hello[:len(hello)-1]...)),
			wantErr: ErrMalformed, errText: "not a whole document"},
		{name: "body without its terminating 0x00", in: rawMsg(wiremessage.OpMsg, []byte{0, 0, 0, 0, 0, 5, 0, 0, 0, 1}),
			wantErr: ErrMalformed, errText: "not a whole document"},
		{name: "body element runs past the body", in: rawMsg(wiremessage.OpMsg, []byte{0, 0, 0, 0, 0,
			13, 0, 0, 0, 0x02, 'a', 0, 9, 0, 0, 0, 'x', 0}), wantErr: ErrMalformed, errText: "element 0 does not fit"},
		{name: "body element eats the terminator", in: rawMsg(wiremessage.OpMsg, []byte{0, 0, 0, 0, 0,
			13, 0, 0, 0, 0x02, 'a', 0, 2, 0, 0, 0, 'x', 0}), wantErr: ErrMalformed, errText: "element 0 does not fit"},
		{name: "sequence size past the message", in: withTail(opMsg(0, hello), 1, 200, 0, 0, 0, 'a', 0), wantErr: ErrMalformed,
			errText: "size 200 does not fit"},
		{name: "sequence size below its own", in: withTail(opMsg(0, hello), 1, 3, 0, 0, 0), wantErr: ErrMalformed, errText: "size 3"},
		{name: "sequence size cut", in: withTail(opMsg(0, hello), 1, 3, 0), wantErr: ErrMalformed, errText: "has no size"},
		{name: "sequence identifier without 0x00", in: withTail(opMsg(0, hello), 1, 6, 0, 0, 0, 'a', 'b'), wantErr: ErrMalformed,
			errText: "identifier has no terminating"},
		{name: "sequence document cut", in: withTail(opMsg(0, hello), 1, 9, 0, 0, 0, 'a', 0, 5, 0, 0), wantErr: ErrMalformed,
			errText: `"a": document 0 is not a whole document`},
		{name: "repeated sequence", in: opMsg(0, insert, seq{"documents", nil}, seq{"documents", nil}), wantErr: ErrMalformed,
			errText: `repeats the document sequence "documents"`},
		{name: "OP_QUERY without flags", in: rawMsg(wiremessage.OpQuery, []byte{0}), wantErr: ErrMalformed, errText: "no flags"},
		{name: "OP_QUERY namespace without 0x00", in: rawMsg(wiremessage.OpQuery, []byte{0, 0, 0, 0, 'a'}), wantErr: ErrMalformed,
			errText: "no terminating"},
		{name: "OP_QUERY without numbers", in: rawMsg(wiremessage.OpQuery, []byte{0, 0, 0, 0, 'a', 0, 1}), wantErr: ErrMalformed,
			errText: "before numberToSkip"},
		{name: "OP_QUERY without query", in: rawMsg(wiremessage.OpQuery, []byte{0, 0, 0, 0, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0}),
			wantErr: ErrMalformed, errText: "the query is not a whole document"},
		{name: "OP_QUERY with trailing bytes", in: opQuery("admin.$cmd", isMaster, []byte{1, 2}), wantErr: ErrMalformed,
			errText: "2 bytes after the query"},

		{name: "OP_COMPRESSED", in: rawMsg(wiremessage.OpCompressed, make([]byte, 9)), wantErr: ErrUnsupported, errText: "OP_COMPRESSED"},
		{name: "OP_REPLY from a client", in: rawMsg(wiremessage.OpReply, make([]byte, 20)), wantErr: ErrUnsupported, errText: "OP_REPLY"},
		{name: "legacy OP_INSERT", in: rawMsg(wiremessage.OpInsert, nil), wantErr: ErrUnsupported, errText: "OP_INSERT"},
		{name: "unknown opcode", in: rawMsg(9999, nil), wantErr: ErrUnsupported, errText: "opcode 9999"},

		{name: "shorter than a header", in: helloMsg[:15], wantErr: ErrTruncated},
		{name: "shorter than announced", in: helloMsg[:30], wantErr: ErrTruncated, errText: "messageLength 52 but only 30 bytes"},
		{name: "longer than announced", in: append(append([]byte{}, helloMsg...), 0), wantErr: ErrBadLength, errText: "52 but 53 bytes"},
		{name: "announced below a header", in: header(3, wiremessage.OpMsg), wantErr: ErrBadLength},
		{name: "announced negative", in: header(-20, wiremessage.OpMsg), wantErr: ErrBadLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("err = %q, want it to say %q", err, tt.errText)
				}
				return
			}
			if !reflect.DeepEqual(&got, tt.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, *tt.want)
			}
		})
	}
}

func TestParseUnsupportedKeepsHeader(t *testing.T) {
	m, err := Parse(rawMsg(wiremessage.OpCompressed, make([]byte, 9)))
	if !errors.Is(err, ErrUnsupported) || m.Header != (Header{Length: 25, RequestID: 7, OpCode: wiremessage.OpCompressed}) {
		t.Errorf("Parse = %+v, %v; want the header and ErrUnsupported", m.Header, err)
	}
}

func TestSequenceDocuments(t *testing.T) {
	d1, d2 := doc(t, d("_id", 1)), doc(t, d("_id", 2))
	m, err := Parse(opMsg(0, doc(t, d("insert", "c", "$db", "db")), seq{"documents", []bsoncore.Document{d1, d2}}))
	if err != nil {
		t.Fatal(err)
	}
	got := m.Sequences[0].Documents()
	if len(got) != 2 || !bytes.Equal(got[0], d1) || !bytes.Equal(got[1], d2) {
		t.Errorf("Documents() = %v, want [%v %v]", got, d1, d2)
	}
}
