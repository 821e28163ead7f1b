package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

func TestReadMessage(t *testing.T) {
	ping := opMsg(0, doc(t, d("ping", 1, "$db", "admin")))
	tests := []struct {
		name    string
		in      []byte
		limit   int
		want    []byte
		wantErr error
		errText string
	}{
		{name: "whole message", in: ping, want: ping},
		{name: "only what the header announces", in: append(append([]byte{}, ping...), 0xff, 0xff), want: ping},
		{name: "empty input is a clean end", in: nil, wantErr: io.EOF},
		{name: "input ends in the header", in: ping[:5], wantErr: ErrTruncated, errText: "after 5 of the 16 header bytes"},
		{name: "input ends in the body", in: ping[:20], wantErr: ErrTruncated, errText: "after 20 of the 51 bytes of OP_MSG requestID 7"},
		{name: "length below the header", in: header(15, wiremessage.OpMsg), wantErr: ErrBadLength, errText: "messageLength 15 is below"},
		{name: "length zero", in: header(0, wiremessage.OpMsg), wantErr: ErrBadLength},
		{name: "negative length", in: header(-1, wiremessage.OpMsg), wantErr: ErrBadLength, errText: "messageLength -1"},
		{name: "most negative length", in: header(-1<<31, wiremessage.OpMsg), wantErr: ErrBadLength},
		{name: "over maxMessageSizeBytes", in: header(MaxMessageSize+1, wiremessage.OpMsg), wantErr: ErrTooLarge,
			errText: "messageLength 48000001 is over the maximum 48000000"},
		{name: "maxMessageSizeBytes itself is allowed (then truncated)", in: header(MaxMessageSize, wiremessage.OpMsg), wantErr: ErrTruncated},
		{name: "largest int32", in: header(1<<31-1, wiremessage.OpMsg), wantErr: ErrTooLarge},
		{name: "over a given limit", in: ping, limit: len(ping) - 1, wantErr: ErrTooLarge, errText: "over the maximum 50"},
		{name: "at a given limit", in: ping, limit: len(ping), want: ping},
		{name: "header only message", in: header(16, 9999), want: header(16, 9999)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadMessage(bytes.NewReader(tt.in), tt.limit)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.errText) {
				t.Errorf("err = %q, want it to say %q", err, tt.errText)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("message = %x, want %x", got, tt.want)
			}
		})
	}
}

func TestReadMessageStream(t *testing.T) {
	a := opMsg(0, doc(t, d("ping", 1, "$db", "admin")))
	b := opMsg(0, doc(t, d("find", "c", "$db", "db")))
	r := bytes.NewReader(append(append([]byte{}, a...), b...))
	for i, want := range [][]byte{a, b} {
		got, err := ReadMessage(r, 0)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("message %d = %x, %v; want %x", i, got, err, want)
		}
	}
	if _, err := ReadMessage(r, 0); err != io.EOF {
		t.Fatalf("after the last message err = %v, want io.EOF", err)
	}
}

func TestReadMessageIntoReusesBuffer(t *testing.T) {
	msg := opMsg(0, doc(t, d("ping", 1, "$db", "admin")))
	buf := make([]byte, 3, 1024)
	got, err := ReadMessageInto(buf, bytes.NewReader(msg), 0)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("got %x, %v; want %x", got, err, msg)
	}
	if &got[0] != &buf[:1][0] {
		t.Errorf("the message is not in the buffer given")
	}
}

// errReader fails with err after its bytes.
type errReader struct {
	b   []byte
	err error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.err
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

func TestReadMessageReaderError(t *testing.T) {
	boom := errors.New("connection reset")
	msg := opMsg(0, doc(t, d("ping", 1, "$db", "admin")))
	for _, n := range []int{0, 8, 20} {
		_, err := ReadMessage(&errReader{b: msg[:n], err: boom}, 0)
		if !errors.Is(err, boom) || errors.Is(err, ErrTruncated) {
			t.Errorf("after %d bytes: err = %v, want it to wrap %v and not be a truncation", n, err, boom)
		}
	}
}

// TestReadMessageMemory: a peer that announces a large message and sends
// little costs what it sent (doubling from firstChunk), not what it announced.
func TestReadMessageMemory(t *testing.T) {
	tests := []struct {
		name     string
		announce int32
		sent     int // bytes after the header
		wantCap  int
	}{
		{"small message is allocated whole", 1000, 10, 1000},
		{"large announcement, nothing sent", 40_000_000, 0, firstChunk},
		{"large announcement, 1 KB sent", 40_000_000, 1000, firstChunk},
		// 64 KiB filled, grown to 128 KiB, filled, grown to 256 KiB.
		{"large announcement, 200 KB sent", 40_000_000, 200_000, 256 << 10},
		{"grows up to the announced length", 100_000, 99_000, 100_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append(header(tt.announce, wiremessage.OpMsg), make([]byte, tt.sent)...)
			buf, err := readMessage(nil, bytes.NewReader(in), 0)
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("err = %v, want ErrTruncated", err)
			}
			if cap(buf) != tt.wantCap || len(buf) != len(in) {
				t.Errorf("buffer len %d cap %d, want len %d cap %d", len(buf), cap(buf), len(in), tt.wantCap)
			}
		})
	}
}

func TestReadHeader(t *testing.T) {
	h, err := ReadHeader(wiremessage.AppendHeader(nil, 100, 5, 6, wiremessage.OpMsg), 0)
	if err != nil || h != (Header{Length: 100, RequestID: 5, ResponseTo: 6, OpCode: wiremessage.OpMsg}) {
		t.Errorf("ReadHeader = %+v, %v", h, err)
	}
	if _, err := ReadHeader(make([]byte, 15), 0); !errors.Is(err, ErrTruncated) {
		t.Errorf("15 bytes: err = %v, want ErrTruncated", err)
	}
}
