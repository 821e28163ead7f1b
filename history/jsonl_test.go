package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func sample() History {
	return History{
		Header: Header{
			Version:  FormatVersion,
			Keys:     []string{"x", "y"},
			Started:  time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC),
			Settings: map[string]string{"write_concern": "w:1", "read": "secondaryPreferred"},
		},
		Ops: []Op{
			w(1, "x", 1, 1, 0, 10),
			rd(2, "x", 1, 1, 5, 12),
			{Client: 3, Key: "y", Kind: KindCAS, Expect: 0, Value: 2, Version: 1, Outcome: OutcomeOK, Invoke: 7, Complete: 9, Member: "h:27018"},
			failed(cas(3, "y", 9, 3, 0, 20, 21), ""),
			unknown(w(1, "x", 4, 0, 30, 5030)),
			failed(rd(2, "y", 0, 0, 40, 41), "not primary or secondary"),
		},
		Final: []Final{
			{Key: "x", Version: 2, Value: 4, Log: []int64{1, 4}},
			{Key: "y", Version: 0, Value: 0, Log: []int64{}},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    History
	}{
		{"sample", sample()},
		{"no ops, no finals", History{Header: Header{Version: FormatVersion, Keys: []string{"x"}}}},
		{"generated", generate(genConfig{ops: 500, keys: 3, clients: 4, seed: 9, unknown: 0.05})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.h); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(buf.String(), "\n"); n != 2+len(tc.h.Ops)+len(tc.h.Final) {
				t.Errorf("%d lines, want header + %d ops + %d finals + end", n, len(tc.h.Ops), len(tc.h.Final))
			}
			got, err := Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.h) {
				t.Errorf("round trip changed the history:\n got %+v\nwant %+v", got, tc.h)
			}
		})
	}
}

func TestPathRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	h := sample()
	if err := WritePath(path, h); err != nil {
		t.Fatal(err)
	}
	got, err := ReadPath(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, h) {
		t.Errorf("path round trip changed the history")
	}
	if _, err := ReadPath(filepath.Join(t.TempDir(), "none.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

// Ops added concurrently all arrive, and the end line counts them.
func TestWriterConcurrentAdd(t *testing.T) {
	var buf bytes.Buffer
	wr := NewWriter(&buf, Header{Keys: []string{"x"}}) // version 0 is written as FormatVersion
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Go(func() {
			for i := range 100 {
				v := int64(c*1000 + i + 1)
				if err := wr.Add(w(c, "x", v, 0, v, v+1)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := wr.Finish([]Final{{Key: "x"}}); err != nil {
		t.Fatal(err)
	}
	h, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 800 || h.Header.Version != FormatVersion {
		t.Errorf("read %d ops of format %d, want 800 of %d", len(h.Ops), h.Header.Version, FormatVersion)
	}
	if len(h.Final) != 1 || h.Final[0].Log == nil {
		t.Errorf("finals %+v: a nil log must be written as an empty one", h.Final)
	}
	if err := wr.Add(w(1, "x", 1, 1, 0, 1)); err == nil {
		t.Error("add after finish succeeded")
	}
	if err := wr.Finish(nil); err == nil || !strings.Contains(err.Error(), "already finished") {
		t.Errorf("second finish: %v, want already finished", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A Writer that fails once keeps failing, so a history missing an op is
// never finished.
func TestWriterStickyErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"invalid op", func() error {
			wr := NewWriter(&bytes.Buffer{}, Header{})
			if err := wr.Add(Op{Key: "x", Kind: "delete", Outcome: OutcomeOK}); err == nil {
				t.Error("an op of unknown kind was added")
			}
			wr.Add(w(1, "x", 1, 1, 0, 1))
			return wr.Finish(nil)
		}, `unknown kind "delete"`},
		{"op completing before it started", func() error {
			wr := NewWriter(&bytes.Buffer{}, Header{})
			wr.Add(w(1, "x", 1, 1, 10, 5))
			return wr.Finish(nil)
		}, "before it is invoked"},
		{"failing writer", func() error {
			wr := NewWriter(failWriter{}, Header{})
			for i := range 5000 { // more than the buffer
				wr.Add(w(1, "x", int64(i+1), int64(i+1), 0, 1))
			}
			return wr.Finish(nil)
		}, "disk full"},
		{"unsupported version", func() error {
			return NewWriter(&bytes.Buffer{}, Header{Version: 2}).Finish(nil)
		}, "version 2"},
		{"final without key", func() error {
			return NewWriter(&bytes.Buffer{}, Header{}).Finish([]Final{{Version: 1}})
		}, "final without key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestReadMalformed(t *testing.T) {
	const (
		header = `{"header":{"history":1,"keys":["x"],"started":"2026-03-01T12:00:00Z"}}`
		op     = `{"op":{"client":1,"key":"x","kind":"write","value":1,"version":1,"outcome":"ok","invoke_ns":0,"complete_ns":10}}`
		final  = `{"final":{"key":"x","version":1,"value":1,"log":[1]}}`
		end1   = `{"end":{"ops":1}}`
	)
	lines := func(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
	for _, tc := range []struct {
		name  string
		input string
		line  int    // 0: no *LineError
		want  string // in the error
	}{
		{"malformed json", lines(header, op, `{"op":{"client":1,`, end1), 3, "invalid json"},
		{"not an object", lines(header, `[1,2]`), 2, "invalid json"},
		{"unknown line type", lines(header, `{"oops":{}}`, op, end1), 2, `unknown line type "oops"`},
		{"two entries on a line", lines(header, `{"op":{},"end":{}}`), 2, "2 entries"},
		{"unknown kind", lines(header, op, strings.Replace(op, `"write"`, `"delete"`, 1), end1), 3, `unknown kind "delete"`},
		{"unknown outcome", lines(header, strings.Replace(op, `"ok"`, `"maybe"`, 1), end1), 2, `unknown outcome "maybe"`},
		{"op without key", lines(header, strings.Replace(op, `"key":"x"`, `"key":""`, 1), end1), 2, "without key"},
		{"wrong field type", lines(header, strings.Replace(op, `"value":1`, `"value":"1"`, 1), end1), 2, "invalid op"},
		{"complete before invoke", lines(header, strings.Replace(op, `"complete_ns":10`, `"complete_ns":-1`, 1), end1), 2, "before it is invoked"},
		{"missing header", lines(op, end1), 1, `missing header: first line is "op"`},
		{"second header", lines(header, header, end1), 2, "second header"},
		{"unsupported version", lines(strings.Replace(header, `"history":1`, `"history":2`, 1), `{"end":{"ops":0}}`), 1, "format version 2"},
		{"empty input", "", 0, "empty input"},
		{"missing end", lines(header, op, final), 0, "truncated: no end line after line 3"},
		{"cut in the middle of a line", lines(header, op) + `{"op":{"cli`, 3, "invalid json"},
		{"end counts more ops", lines(header, op, `{"end":{"ops":2}}`), 3, "counts 2 ops, read 1"},
		{"end counts fewer ops", lines(header, op, op, end1), 4, "counts 1 ops, read 2"},
		{"end without count", lines(header, `{"end":{}}`), 2, "without an ops count"},
		{"content after end", lines(header, op, end1, op), 4, "after the end line"},
		{"blank line after end", lines(header, op, end1, ""), 4, "after the end line"},
		{"blank line", lines(header, "", op, end1), 2, "empty line"},
		{"op after final", lines(header, final, op, end1), 3, "op after a final"},
		{"final without log", lines(header, op, `{"final":{"key":"x","version":1,"value":1}}`, end1), 3, "without log"},
		{"final with null log", lines(header, op, `{"final":{"key":"x","version":1,"value":1,"log":null}}`, end1), 3, "without log"},
		{"second final of a key", lines(header, op, final, final, end1), 4, "second final"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Read(strings.NewReader(tc.input))
			if err == nil {
				t.Fatalf("read %d ops without error", len(h.Ops))
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("err %v does not wrap ErrMalformed", err)
			}
			if h.Ops != nil || h.Final != nil || h.Header.Keys != nil {
				t.Errorf("half a history returned with the error: %+v", h)
			}
			var le *LineError
			switch {
			case tc.line == 0 && errors.As(err, &le):
				t.Errorf("err %v names line %d, want no line", err, le.Line)
			case tc.line != 0 && !errors.As(err, &le):
				t.Errorf("err %v names no line, want line %d", err, tc.line)
			case tc.line != 0 && le.Line != tc.line:
				t.Errorf("err %v at line %d, want line %d", err, le.Line, tc.line)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %q, want one with %q", err, tc.want)
			}
		})
	}
}

// The valid variants Read accepts: a last line without a newline, CRLF line
// ends, unknown fields (added by a later recorder).
func TestReadAccepts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
	}{
		{"no final newline", `{"header":{"history":1}}` + "\n" + `{"end":{"ops":0}}`},
		{"crlf", `{"header":{"history":1}}` + "\r\n" + `{"end":{"ops":0}}` + "\r\n"},
		{"an op that completes when it is invoked", `{"header":{"history":1}}` + "\n" + `{"op":{"client":1,"key":"x","kind":"read","outcome":"ok","invoke_ns":7,"complete_ns":7}}` + "\n" + `{"end":{"ops":1}}` + "\n"},
		{"unknown fields", `{"header":{"history":1,"recorder":"v2"}}` + "\n" + `{"op":{"client":1,"key":"x","kind":"read","outcome":"ok","invoke_ns":1,"complete_ns":2,"rtt_ns":5}}` + "\n" + `{"end":{"ops":1}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Read(strings.NewReader(tc.input)); err != nil {
				t.Error(err)
			}
		})
	}
}
