package proxy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

// errFailPointClose: the failCommand fail point closes the client's
// connection (closeConnection) instead of answering.
var errFailPointClose = errors.New("closing the connection: failCommand fail point (closeConnection)")

// failPoint is the proxy's own failCommand fail point, for tests only
// (Config.EnableTestCommands): as a mongos started with enableTestCommands
// honours configureFailPoint "failCommand" for its own client connections,
// the proxy answers that command itself and applies the fail point to the
// commands of its clients, so the drivers' specification tests, which mean
// to fail the mongos, fail the proxy and not a member.
//
// Its semantics are mongod's (src/mongo/util/fail_point.h, the failCommand
// data of src/mongo/db/commands.cpp): modes alwaysOn, off, {times: n},
// {skip: n}; data failCommands (required), closeConnection, errorCode,
// errorLabels, writeConcernError, blockConnection with blockTimeMS, and
// appName. Only a command the data matches (name, and appName when given)
// counts towards times and skip. activationProbability is refused.
//
// Its methods are safe for concurrent use.
type failPoint struct {
	mu sync.Mutex
	fp failCommand
}

// failCommand is one configuration of the fail point.
type failCommand struct {
	on    bool
	times int64 // commands still to fail; math.MaxInt64: alwaysOn
	skip  int64 // matching commands to let through first
	data  failData
}

// failData is what the fail point does to a matching command.
type failData struct {
	commands []string
	appName  string
	// closeConnection: close the client's connection, no reply.
	closeConnection bool
	// block: wait this long first (blockTimeMS, with blockConnection).
	block time.Duration
	// errorCode, when hasCode: answer an error with this code instead of
	// running the command.
	errorCode int32
	hasCode   bool
	// labels, when hasLabels, replace the labels the error would get
	// (an empty array: none).
	labels    []string
	hasLabels bool
	// writeConcernError, when not nil: run the command, then give its
	// reply this writeConcernError.
	writeConcernError bsoncore.Document
}

// failAction is what the fail point does to one command; the zero
// failAction does nothing.
type failAction struct {
	fire bool
	data failData
}

// configureFailPoint answers configureFailPoint "failCommand" on the admin
// database when the fail point is enabled (ok true); every other
// configureFailPoint goes to the primary.
func (s *Server) configureFailPoint(c *wire.Class, body bsoncore.Document) (bsoncore.Document, bool) {
	if s.failPoint == nil || c.Command != "configureFailPoint" || c.Database != "admin" {
		return nil, false
	}
	if name, _ := body.Index(0).Value().StringValueOK(); name != "failCommand" {
		return nil, false
	}
	return s.failPoint.configure(body), true
}

// failBefore applies a firing fail point before command c runs: it closes
// the connection (errFailPointClose), waits blockTimeMS (or until ctx
// ends), then answers the errorCode (doc) or lets the command run (nil,
// nil).
func (*Server) failBefore(ctx context.Context, d *failData, c *wire.Class) (bsoncore.Document, error) {
	if d.closeConnection {
		return nil, errFailPointClose
	}
	if wait := d.blockFor(); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	if d.hasCode {
		// As in mongod, a failed getMore is not known as a change
		// stream's: the fail point fires before the getMore finds its
		// cursor, whose originating aggregate the server's label rule
		// reads. Only the aggregate opening one is.
		return d.reply(c, c.ChangeStream), nil
	}
	return nil, nil
}

// configure applies a configureFailPoint "failCommand" command body and
// returns its reply.
func (f *failPoint) configure(body bsoncore.Document) bsoncore.Document {
	fc, err := parseFailCommand(body)
	if err != nil {
		return errorDoc(codeBadValue, err.Error())
	}
	f.mu.Lock()
	f.fp = fc
	f.mu.Unlock()
	return bsoncore.NewDocumentBuilder().AppendInt32("count", 0).AppendDouble("ok", 1).Build()
}

// check reports what the fail point does (nothing when f is nil, the fail
// point disabled) to command cmd of a client whose
// handshake named appName, counting it towards times and skip.
func (f *failPoint) check(cmd, appName string) failAction {
	if f == nil || cmd == "configureFailPoint" {
		return failAction{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fp := &f.fp
	if !fp.on || !slices.Contains(fp.data.commands, cmd) || fp.data.appName != "" && fp.data.appName != appName {
		return failAction{}
	}
	if fp.skip > 0 {
		fp.skip--
		return failAction{}
	}
	if fp.times != math.MaxInt64 {
		fp.times--
		if fp.times <= 0 {
			fp.on = false
		}
	}
	return failAction{fire: true, data: fp.data}
}

// parseFailCommand parses configureFailPoint: "failCommand", mode, data.
func parseFailCommand(body bsoncore.Document) (failCommand, error) {
	var fc failCommand
	mode, err := body.LookupErr("mode")
	if err != nil {
		return fc, errors.New("configureFailPoint failCommand: no mode")
	}
	switch s, ok := mode.StringValueOK(); {
	case ok && s == "off":
		return failCommand{}, nil
	case ok && s == "alwaysOn":
		fc.times = math.MaxInt64
	case ok:
		return fc, fmt.Errorf("configureFailPoint failCommand: mode %q: want alwaysOn, off, {times: n} or {skip: n}", s)
	default:
		doc, ok := mode.DocumentOK()
		if !ok {
			return fc, fmt.Errorf("configureFailPoint failCommand: mode is a %s, not a string or a document", mode.Type)
		}
		elems, err := doc.Elements()
		if err != nil || len(elems) != 1 {
			return fc, errors.New("configureFailPoint failCommand: mode document: want exactly one of times, skip")
		}
		n, ok := elems[0].Value().AsInt64OK()
		if !ok || n < 0 {
			return fc, fmt.Errorf("configureFailPoint failCommand: mode %s: want a non-negative integer", elems[0].Key())
		}
		switch elems[0].Key() {
		case "times":
			if n == 0 {
				return failCommand{}, nil
			}
			fc.times = n
		case "skip":
			fc.times, fc.skip = math.MaxInt64, n
		default:
			return fc, fmt.Errorf("configureFailPoint failCommand: mode %s is not supported: want alwaysOn, off, {times: n} or {skip: n}", elems[0].Key())
		}
	}
	data, ok := body.Lookup("data").DocumentOK()
	if !ok {
		return fc, errors.New("configureFailPoint failCommand: no data document")
	}
	if fc.data, err = parseFailData(data); err != nil {
		return fc, err
	}
	fc.on = true
	return fc, nil
}

// parseFailData parses failCommand's data.
func parseFailData(data bsoncore.Document) (failData, error) {
	var (
		d         failData
		blockConn bool
		blockMS   int64
		ok        bool
	)
	elems, err := data.Elements()
	if err != nil {
		return d, fmt.Errorf("configureFailPoint failCommand: data: %w", err)
	}
	for _, e := range elems {
		v := e.Value()
		bad := func(want string) error {
			return fmt.Errorf("configureFailPoint failCommand: data.%s is a %s, not %s", e.Key(), v.Type, want)
		}
		switch e.Key() {
		case "failCommands":
			if d.commands, err = stringArray(v); err != nil {
				return d, bad("an array of strings")
			}
		case "appName":
			s, ok := v.StringValueOK()
			if !ok {
				return d, bad("a string")
			}
			d.appName = s
		case "closeConnection":
			b, ok := v.BooleanOK()
			if !ok {
				return d, bad("a boolean")
			}
			d.closeConnection = b
		case "blockConnection":
			if blockConn, ok = v.BooleanOK(); !ok {
				return d, bad("a boolean")
			}
		case "blockTimeMS":
			if blockMS, ok = v.AsInt64OK(); !ok || blockMS < 0 {
				return d, bad("a non-negative integer")
			}
		case "errorCode":
			n, ok := v.AsInt64OK()
			if !ok || n < math.MinInt32 || n > math.MaxInt32 {
				return d, bad("a 32-bit integer")
			}
			d.errorCode, d.hasCode = int32(n), true
		case "errorLabels":
			if d.labels, err = stringArray(v); err != nil {
				return d, bad("an array of strings")
			}
			d.hasLabels = true
		case "writeConcernError":
			doc, ok := v.DocumentOK()
			if !ok {
				return d, bad("a document")
			}
			// A copy: the client connection reuses its message buffer.
			d.writeConcernError = slices.Clone(doc)
		}
	}
	if len(d.commands) == 0 {
		return d, errors.New("configureFailPoint failCommand: data.failCommands names no command")
	}
	if blockConn {
		d.block = time.Duration(blockMS) * time.Millisecond
	}
	return d, nil
}

// blockFor is how long a matching command waits first: blockTimeMS with
// blockConnection, else not at all, as in mongod.
func (d *failData) blockFor() time.Duration { return d.block }

// reply is the error reply of a fail point with an errorCode for c: the
// data's errorLabels, or else the labels a mongos gives that code.
func (d *failData) reply(c *wire.Class, stream bool) bsoncore.Document {
	labels := d.labels
	if !d.hasLabels {
		labels = codeLabels(d.errorCode, c, stream)
	}
	b := bsoncore.NewDocumentBuilder().
		AppendDouble("ok", 0).
		AppendString("errmsg", "Failing command via 'failCommand' failpoint").
		AppendInt32("code", d.errorCode)
	if name := serverCodeNames[d.errorCode]; name != "" {
		b.AppendString("codeName", name)
	} else if name := codeNames[d.errorCode]; name != "" {
		b.AppendString("codeName", name)
	}
	if len(labels) > 0 {
		arr := bsoncore.NewArrayBuilder()
		for _, l := range labels {
			arr.AppendString(l)
		}
		b.AppendArray("errorLabels", arr.Build())
	}
	return b.Build()
}

// withWriteConcernError returns reply (a command's OP_MSG reply) with the
// data's writeConcernError in place of any it had, and its errorLabels: the
// data's, or else the labels a mongos gives that write concern error's
// code.
func (d *failData) withWriteConcernError(reply []byte, c *wire.Class) ([]byte, error) {
	m, err := wire.Parse(reply)
	if err != nil {
		return nil, fmt.Errorf("failCommand writeConcernError: %w", err)
	}
	elems, err := m.Body.Elements()
	if err != nil {
		return nil, fmt.Errorf("failCommand writeConcernError: %w", err)
	}
	idx, doc := bsoncore.AppendDocumentStart(nil)
	var old []string
	for _, e := range elems {
		switch e.Key() {
		case "writeConcernError":
		case "errorLabels":
			old, _ = stringArray(e.Value())
		default:
			doc = append(doc, e...)
		}
	}
	doc = bsoncore.AppendDocumentElement(doc, "writeConcernError", d.writeConcernError)
	labels := d.labels
	if !d.hasLabels {
		code, _ := d.writeConcernError.Lookup("code").AsInt64OK()
		labels = old
		for _, l := range wcLabels(int32(code), c) {
			if !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	if len(labels) > 0 {
		arr := bsoncore.NewArrayBuilder()
		for _, l := range labels {
			arr.AppendString(l)
		}
		doc = bsoncore.AppendArrayElement(doc, "errorLabels", arr.Build())
	}
	doc, _ = bsoncore.AppendDocumentEnd(doc, idx)
	return wire.AppendMsg(nil, m.Header.RequestID, m.Header.ResponseTo, 0, doc), nil
}

// stringArray reads an array of strings.
func stringArray(v bsoncore.Value) ([]string, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errors.New("not an array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(vals))
	for _, x := range vals {
		s, ok := x.StringValueOK()
		if !ok {
			return nil, errors.New("not a string")
		}
		out = append(out, s)
	}
	return out, nil
}
