package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

// ErrMalformed is wrapped by every error Read returns for input that is not
// a complete history in the JSONL format.
var ErrMalformed = errors.New("malformed history")

// ErrTruncated is wrapped (with ErrMalformed) when the input ends before the
// end line: the recorder stopped before Writer.Finish.
var ErrTruncated = errors.New("truncated")

// LineError is a malformed line of a JSONL history.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// line is one line of the JSONL format: exactly one of its fields is set.
type line struct {
	Header *Header   `json:"header,omitempty"`
	Op     *Op       `json:"op,omitempty"`
	Final  *Final    `json:"final,omitempty"`
	End    *endCount `json:"end,omitempty"`
}

type endCount struct {
	Ops int `json:"ops"`
}

// Writer streams a history in the JSONL format: the header when it is
// created, then each op as it is added, then the finals and the end line on
// Finish. Add is safe for concurrent use, so clients can append their ops as
// they complete. Output is buffered; the first error (of the underlying
// writer, or an invalid op) is kept and returned by every later call, so a
// history with a missing op can never be finished.
type Writer struct {
	mu       sync.Mutex
	w        *bufio.Writer
	ops      int
	err      error
	finished bool
}

// NewWriter writes the header line to w and returns a Writer for the ops.
// A zero h.Version is written as FormatVersion; any other version is an
// error, returned by Add and Finish.
func NewWriter(w io.Writer, h Header) *Writer {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10)}
	if h.Version == 0 {
		h.Version = FormatVersion
	}
	if h.Version != FormatVersion {
		wr.err = fmt.Errorf("cannot write history format version %d, only %d", h.Version, FormatVersion)
		return wr
	}
	wr.line(line{Header: &h})
	return wr
}

// line writes l; the caller holds mu (or owns wr).
func (wr *Writer) line(l line) {
	if wr.err != nil {
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		wr.err = fmt.Errorf("encode history line: %w", err)
		return
	}
	b = append(b, '\n')
	if _, err := wr.w.Write(b); err != nil {
		wr.err = fmt.Errorf("write history: %w", err)
	}
}

// Add appends op. An op that Read would reject (unknown kind or outcome,
// no key, completion before invocation) is not written and fails the Writer.
func (wr *Writer) Add(op Op) error {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	if wr.err == nil && wr.finished {
		return errors.New("add to a finished history")
	}
	if wr.err == nil {
		if err := op.validate(); err != nil {
			wr.err = fmt.Errorf("op %d: %w", wr.ops+1, err)
		}
	}
	wr.line(line{Op: &op})
	if wr.err != nil {
		return wr.err
	}
	wr.ops++
	return nil
}

// Flush writes the buffered lines to the underlying writer.
func (wr *Writer) Flush() error {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	if wr.err == nil {
		if err := wr.w.Flush(); err != nil {
			wr.err = fmt.Errorf("write history: %w", err)
		}
	}
	return wr.err
}

// Finish writes the finals and the end line, and flushes. It returns the
// Writer's first error, if any; a history whose Finish failed is truncated
// and Read rejects it.
func (wr *Writer) Finish(finals []Final) error {
	wr.mu.Lock()
	if wr.err == nil && wr.finished {
		wr.mu.Unlock()
		return errors.New("history already finished")
	}
	wr.finished = true
	for _, f := range finals {
		if wr.err == nil && f.Key == "" {
			wr.err = errors.New("final without key")
		}
		if f.Log == nil {
			f.Log = []int64{} // an empty chain, not a missing one
		}
		wr.line(line{Final: &f})
	}
	wr.line(line{End: &endCount{Ops: wr.ops}})
	wr.mu.Unlock()
	return wr.Flush()
}

// Write writes h to w in the JSONL format.
func Write(w io.Writer, h History) error {
	wr := NewWriter(w, h.Header)
	for _, op := range h.Ops {
		if err := wr.Add(op); err != nil {
			return err
		}
	}
	return wr.Finish(h.Final)
}

// WritePath writes h to path atomically: a reader sees the old file or the
// whole new one.
func WritePath(path string, h History) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, h) })
}

// ReadPath reads the history in the file at path.
func ReadPath(path string) (History, error) {
	f, err := os.Open(path)
	if err != nil {
		return History{}, err
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		return History{}, fmt.Errorf("read history %s: %w", path, err)
	}
	return h, nil
}

// Read reads a history in the JSONL format. It returns a complete history or
// an error, never part of one: input that is not valid JSON, a line of
// unknown type, an op of unknown kind or outcome or that completes before it
// is invoked, a missing header, a missing end line, an end line whose count
// differs from the ops read, or anything after the end line give an error
// wrapping ErrMalformed; errors about one line are a *LineError.
func Read(r io.Reader) (History, error) {
	p := parser{h: History{}}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return History{}, fmt.Errorf("read history after line %d: %w", p.n, err)
		}
		p.n++
		if perr := p.line(bytes.TrimRight(b, "\r\n")); perr != nil {
			return History{}, &LineError{Line: p.n, Err: fmt.Errorf("%w: %w", ErrMalformed, perr)}
		}
		if err == io.EOF {
			break
		}
	}
	switch p.state {
	case wantHeader:
		return History{}, fmt.Errorf("%w: empty input, no header", ErrMalformed)
	case ended:
		return p.h, nil
	}
	return History{}, fmt.Errorf("%w: %w: no end line after line %d", ErrMalformed, ErrTruncated, p.n)
}

type parseState int

const (
	wantHeader parseState = iota
	inOps
	inFinals
	ended
)

type parser struct {
	h      History
	n      int // lines read
	state  parseState
	finals map[string]bool
}

// line parses one line (without its newline) into p.h.
func (p *parser) line(b []byte) error {
	if p.state == ended {
		return errors.New("content after the end line")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("empty line")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("invalid json: %w", err)
	}
	if len(m) != 1 {
		return fmt.Errorf("line has %d entries, want one of header, op, final, end", len(m))
	}
	var typ string
	var raw json.RawMessage
	for k, v := range m { // the only entry
		typ, raw = k, v
	}
	switch typ {
	case "header", "op", "final", "end":
	default:
		return fmt.Errorf("unknown line type %q", typ)
	}
	if p.state == wantHeader && typ != "header" {
		return fmt.Errorf("missing header: first line is %q", typ)
	}
	switch typ {
	case "header":
		if p.state != wantHeader {
			return errors.New("second header")
		}
		if err := json.Unmarshal(raw, &p.h.Header); err != nil {
			return fmt.Errorf("invalid header: %w", err)
		}
		if v := p.h.Header.Version; v != FormatVersion {
			return fmt.Errorf("history format version %d, want %d", v, FormatVersion)
		}
		p.state = inOps
	case "op":
		if p.state != inOps {
			return errors.New("op after a final")
		}
		var op Op
		if err := json.Unmarshal(raw, &op); err != nil {
			return fmt.Errorf("invalid op: %w", err)
		}
		if err := op.validate(); err != nil {
			return err
		}
		p.h.Ops = append(p.h.Ops, op)
	case "final":
		var f struct {
			Key     string   `json:"key"`
			Version int64    `json:"version"`
			Value   int64    `json:"value"`
			Log     *[]int64 `json:"log"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("invalid final: %w", err)
		}
		switch {
		case f.Key == "":
			return errors.New("final without key")
		case f.Log == nil:
			return fmt.Errorf("final of key %q without log", f.Key)
		case p.finals[f.Key]:
			return fmt.Errorf("second final of key %q", f.Key)
		}
		if p.finals == nil {
			p.finals = make(map[string]bool)
		}
		p.finals[f.Key] = true
		p.h.Final = append(p.h.Final, Final{Key: f.Key, Version: f.Version, Value: f.Value, Log: *f.Log})
		p.state = inFinals
	case "end":
		var e struct {
			Ops *int `json:"ops"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("invalid end: %w", err)
		}
		if e.Ops == nil {
			return errors.New("end line without an ops count")
		}
		if *e.Ops != len(p.h.Ops) {
			return fmt.Errorf("end line counts %d ops, read %d", *e.Ops, len(p.h.Ops))
		}
		p.state = ended
	}
	return nil
}
