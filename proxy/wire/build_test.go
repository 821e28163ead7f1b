package wire

import (
	"bytes"
	"errors"
	"hash/crc32"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// pingDoc is {ping: 1} (int32) by hand: 15 bytes.
var pingDoc = []byte{15, 0, 0, 0, 0x10, 'p', 'i', 'n', 'g', 0, 1, 0, 0, 0, 0}

func TestAppendMsg(t *testing.T) {
	got := AppendMsg([]byte{0xAA}, 7, 42, 0, pingDoc)
	want := append([]byte{0xAA,
		36, 0, 0, 0, // messageLength 16+4+1+15
		7, 0, 0, 0, // requestID
		42, 0, 0, 0, // responseTo
		0xdd, 0x07, 0, 0, // OP_MSG 2013
		0, 0, 0, 0, // flagBits
		0, // kind 0
	}, pingDoc...)
	if !bytes.Equal(got, want) {
		t.Errorf("AppendMsg =\n%x\nwant\n%x", got, want)
	}
}

func TestAppendMsgChecksum(t *testing.T) {
	got := AppendMsg(nil, 7, 42, wiremessage.ChecksumPresent, pingDoc)
	if len(got) != 40 || got[0] != 40 {
		t.Fatalf("length %d, messageLength %d, want 40", len(got), got[0])
	}
	sum := crc32.Checksum(got[:36], crc32.MakeTable(crc32.Castagnoli))
	if want := []byte{byte(sum), byte(sum >> 8), byte(sum >> 16), byte(sum >> 24)}; !bytes.Equal(got[36:], want) {
		t.Errorf("checksum %x, want CRC-32C %x", got[36:], want)
	}
	m, err := Parse(got)
	if err != nil || !bytes.Equal(m.Body, pingDoc) || m.Header.ResponseTo != 42 {
		t.Errorf("Parse(AppendMsg) = %+v, %v", m, err)
	}
}

func TestAppendReply(t *testing.T) {
	got := AppendReply(nil, 9, 7, wiremessage.AwaitCapable, pingDoc)
	want := append([]byte{
		51, 0, 0, 0, // messageLength 16+4+8+4+4+15
		9, 0, 0, 0, // requestID
		7, 0, 0, 0, // responseTo
		1, 0, 0, 0, // OP_REPLY
		8, 0, 0, 0, // responseFlags AwaitCapable
		0, 0, 0, 0, 0, 0, 0, 0, // cursorID
		0, 0, 0, 0, // startingFrom
		1, 0, 0, 0, // numberReturned
	}, pingDoc...)
	if !bytes.Equal(got, want) {
		t.Errorf("AppendReply =\n%x\nwant\n%x", got, want)
	}
}

func TestRewriteIDs(t *testing.T) {
	plain := AppendMsg(nil, 7, 0, 0, pingDoc)
	if err := RewriteIDs(plain, 1000, 7); err != nil {
		t.Fatal(err)
	}
	if want := AppendMsg(nil, 1000, 7, 0, pingDoc); !bytes.Equal(plain, want) {
		t.Errorf("rewritten =\n%x\nwant\n%x", plain, want)
	}

	// The checksum covers the header: it must follow the new ids.
	summed := AppendMsg(nil, 7, 0, wiremessage.ChecksumPresent, pingDoc)
	if err := RewriteIDs(summed, -5, 99); err != nil {
		t.Fatal(err)
	}
	m, err := Parse(summed)
	if err != nil || m.Header.RequestID != -5 || m.Header.ResponseTo != 99 {
		t.Errorf("Parse after RewriteIDs = %+v, %v; want ids -5, 99 and a valid checksum", m.Header, err)
	}

	// An OP_REPLY has no checksum: only the ids change.
	reply := AppendReply(nil, 1, 2, 0, pingDoc)
	if err := RewriteIDs(reply, 3, 4); err != nil {
		t.Fatal(err)
	}
	if want := AppendReply(nil, 3, 4, 0, pingDoc); !bytes.Equal(reply, want) {
		t.Errorf("rewritten reply =\n%x\nwant\n%x", reply, want)
	}

	for _, bad := range []struct {
		name string
		msg  []byte
		err  error
	}{
		{"short", make([]byte, 15), ErrTruncated},
		{"length disagrees", append(AppendMsg(nil, 1, 0, 0, pingDoc), 0), ErrBadLength},
	} {
		before := append([]byte{}, bad.msg...)
		if err := RewriteIDs(bad.msg, 1, 2); !errors.Is(err, bad.err) || !bytes.Equal(bad.msg, before) {
			t.Errorf("%s: err = %v (want %v), message changed: %v", bad.name, err, bad.err, !bytes.Equal(bad.msg, before))
		}
	}
}
