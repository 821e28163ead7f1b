package wire

import (
	"fmt"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// Kind is what the proxy does with a command. The zero Kind is invalid.
type Kind uint8

// The kinds. See commands for which command is which.
const (
	_ Kind = iota
	// KindHandshake (hello, isMaster, ismaster): the proxy answers itself,
	// as a mongos would, so drivers never discover the members.
	KindHandshake
	// KindAuth (saslStart, saslContinue, authenticate, logout,
	// connectionStatus): the proxy authenticates its clients itself; the
	// members only ever see the proxy's own credentials, so these must not
	// reach them.
	KindAuth
	// KindLocal (ping, buildInfo, buildinfo, whatsmyuri): the proxy answers
	// without a member (buildInfo from what it learnt of the members).
	KindLocal
	// KindSessions (endSessions, killSessions, killAllSessions,
	// killAllSessionsByPattern, refreshSessions, startSession): sessions
	// live on every member a command of theirs reached, so the proxy sends
	// all but startSession to every data-bearing member.
	KindSessions
	// KindRead: an eligible read, which the policy may route to a
	// secondary within the staleness bound.
	KindRead
	// KindGetMore: goes to the member that owns Class.CursorID.
	KindGetMore
	// KindKillCursors: goes to the member(s) owning Class.CursorIDs.
	KindKillCursors
	// KindWrite (insert, update, delete, findAndModify, bulkWrite,
	// mapReduce, and aggregate with $out or $merge): the primary; it moves
	// the connection's read-your-writes fence.
	KindWrite
	// KindPrimary: every other command, and reads that are not eligible
	// (Class.Reason says why): the primary.
	KindPrimary
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindHandshake:
		return "handshake"
	case KindAuth:
		return "auth"
	case KindLocal:
		return "local"
	case KindSessions:
		return "sessions"
	case KindRead:
		return "read"
	case KindGetMore:
		return "getMore"
	case KindKillCursors:
		return "killCursors"
	case KindWrite:
		return "write"
	case KindPrimary:
		return "primary"
	}
	return "invalid"
}

// Reason says why a read-shaped command (find, aggregate, count, distinct)
// is not an eligible read. The zero Reason is "none".
type Reason uint8

// The reasons, in the order Classify checks them.
const (
	ReasonNone Reason = iota
	// ReasonOutputStage: an aggregate with $out or $merge writes (KindWrite).
	ReasonOutputStage
	// ReasonSequences: the message has kind-1 document sequences, which
	// the member would fold into the command where Classify does not look.
	ReasonSequences
	// ReasonTransaction: txnNumber, autocommit or startTransaction; a
	// transaction's reads stay on the primary with its writes.
	ReasonTransaction
	// ReasonReadConcern: readConcern linearizable (only the primary can
	// serve it) or snapshot.
	ReasonReadConcern
	// ReasonCollectionless: aggregate: 1 ($currentOp, $listLocalSessions,
	// $documents...), whose answer is about the member that runs it.
	ReasonCollectionless
	// ReasonLocalDatabase: the local database is each member's own, not
	// replicated data with a staleness.
	ReasonLocalDatabase
)

// String returns the reason as a short phrase.
func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return "none"
	case ReasonOutputStage:
		return "$out or $merge stage"
	case ReasonSequences:
		return "document sequence"
	case ReasonTransaction:
		return "transaction"
	case ReasonReadConcern:
		return "read concern"
	case ReasonCollectionless:
		return "collectionless aggregate"
	case ReasonLocalDatabase:
		return "local database"
	}
	return "invalid"
}

// Class is what Classify learns of a command. Its documents alias the
// message.
type Class struct {
	Kind Kind
	// Command is the body's first key, as sent.
	Command string
	// Database is $db (an OP_QUERY's namespace up to ".$cmd").
	Database string
	// Collection is the target collection of find, aggregate, count,
	// distinct, killCursors and the writes (their first field's value when
	// a string), and getMore's collection field.
	Collection string
	// Reason is why a read-shaped command is not KindRead.
	Reason Reason
	// ReadPref is $readPreference; Mode zero when absent.
	ReadPref    ReadPref
	ReadConcern ReadConcern
	Session     Session
	// Unacknowledged: writeConcern w is 0. A message flagged MoreToCome
	// (see Message.Flags) gets no reply at all.
	Unacknowledged bool
	// CursorID is a getMore's cursor.
	CursorID int64
	// CursorIDs are a killCursors' cursors.
	CursorIDs []int64
	// MaxTimeMS is the command's maxTimeMS when a positive integer, else
	// 0 (none: a member rejects a bad one itself).
	MaxTimeMS int64
	// Hello is set for KindHandshake.
	Hello Hello
	// ChangeStream: an aggregate whose first stage is $changeStream (its
	// cursor is a change stream, which drivers resume after an error
	// labelled ResumableChangeStreamError).
	ChangeStream bool
}

// command is one entry of the command table.
type command struct {
	name string
	kind Kind
	// readShaped: find, aggregate, count, distinct, eligible unless a
	// Reason applies.
	readShaped bool
}

// commands are the commands Classify knows by name (case-sensitive, as the
// server's own lookup); any other is KindPrimary.
//
// Not eligible, although they read: listCollections and listIndexes (the
// catalog, which DDL changes and only CRUD writes move the read-your-writes
// fence, so a createIndexes then listIndexes could miss the index on a
// secondary), dbStats, collStats and dataSize (sizes of one member's
// storage, which monitoring expects from the primary), explain (the plan of
// the member that runs it), mapReduce (may write). They are rare and cheap:
// routing them would buy nothing.
var commands = map[string]command{
	"hello":                    {"hello", KindHandshake, false},
	"isMaster":                 {"isMaster", KindHandshake, false},
	"ismaster":                 {"ismaster", KindHandshake, false},
	"saslStart":                {"saslStart", KindAuth, false},
	"saslContinue":             {"saslContinue", KindAuth, false},
	"authenticate":             {"authenticate", KindAuth, false},
	"logout":                   {"logout", KindAuth, false},
	"connectionStatus":         {"connectionStatus", KindAuth, false},
	"ping":                     {"ping", KindLocal, false},
	"buildInfo":                {"buildInfo", KindLocal, false},
	"buildinfo":                {"buildinfo", KindLocal, false},
	"whatsmyuri":               {"whatsmyuri", KindLocal, false},
	"endSessions":              {"endSessions", KindSessions, false},
	"killSessions":             {"killSessions", KindSessions, false},
	"killAllSessions":          {"killAllSessions", KindSessions, false},
	"killAllSessionsByPattern": {"killAllSessionsByPattern", KindSessions, false},
	"refreshSessions":          {"refreshSessions", KindSessions, false},
	"startSession":             {"startSession", KindSessions, false},
	"find":                     {"find", KindRead, true},
	"aggregate":                {"aggregate", KindRead, true},
	"count":                    {"count", KindRead, true},
	"distinct":                 {"distinct", KindRead, true},
	"getMore":                  {"getMore", KindGetMore, false},
	"killCursors":              {"killCursors", KindKillCursors, false},
	"insert":                   {"insert", KindWrite, false},
	"update":                   {"update", KindWrite, false},
	"delete":                   {"delete", KindWrite, false},
	"findAndModify":            {"findAndModify", KindWrite, false},
	"findandmodify":            {"findandmodify", KindWrite, false},
	"bulkWrite":                {"bulkWrite", KindWrite, false},
	"mapReduce":                {"mapReduce", KindWrite, false},
	"mapreduce":                {"mapreduce", KindWrite, false},
}

// The fields Classify reads, as bits of a set: a second occurrence of one
// is an ErrBadCommand (the server rejects duplicate fields too), so no
// message can show Classify one value and the member another.
const (
	fDB uint32 = 1 << iota
	fReadPref
	fReadConcern
	fWriteConcern
	fLSID
	fTxnNumber
	fStartTransaction
	fAutocommit
	fClusterTime
	fPipeline
	fCollection
	fCursors
	fMaxTimeMS
)

// field maps a field Classify reads to its bit, 0 for the others.
func field(key []byte) uint32 {
	switch string(key) {
	case "$db":
		return fDB
	case "$readPreference":
		return fReadPref
	case "readConcern":
		return fReadConcern
	case "writeConcern":
		return fWriteConcern
	case "lsid":
		return fLSID
	case "txnNumber":
		return fTxnNumber
	case "startTransaction":
		return fStartTransaction
	case "autocommit":
		return fAutocommit
	case "$clusterTime":
		return fClusterTime
	case "pipeline":
		return fPipeline
	case "collection":
		return fCollection
	case "cursors":
		return fCursors
	case "maxTimeMS":
		return fMaxTimeMS
	}
	return 0
}

// Classify says what m asks and where it may go. It reads only the body's
// top-level fields and the few nested ones it needs; it copies nothing of
// the message (a find costs the strings Database and Collection).
//
// For an OP_QUERY it accepts only the handshake (hello, isMaster), as
// servers since 5.1 do, with the command optionally wrapped in $query next
// to $readPreference; anything else is ErrUnsupported. ErrBadCommand is a
// command a member would reject before running it.
func Classify(m *Message) (Class, error) {
	switch m.Header.OpCode {
	case wiremessage.OpMsg:
		var c Class
		err := classifyBody(&c, m.Body, false, len(m.Sequences) > 0)
		return c, err
	case wiremessage.OpQuery:
		return classifyQuery(m)
	}
	return Class{}, fmt.Errorf("%w: cannot classify a %s", ErrUnsupported, opName(m.Header.OpCode))
}

// CommandName returns the name of m's command, the first key of an OP_MSG's
// body or of an OP_QUERY's command (inside $query when wrapped), "" when
// there is none. It reads nothing else, so the proxy can refuse a command by
// its name before Classify reads its fields; it allocates only for a name
// Classify does not know.
func CommandName(m *Message) string {
	e := newElems(m.Body)
	key, v, ok := e.next()
	if !ok {
		return ""
	}
	if m.Header.OpCode == wiremessage.OpQuery && (string(key) == "$query" || string(key) == "query") {
		inner, ok := docValue(v)
		if !ok {
			return ""
		}
		e = newElems(inner)
		if key, _, ok = e.next(); !ok {
			return ""
		}
	}
	if cmd, ok := commands[string(key)]; ok {
		return cmd.name
	}
	return string(key)
}

// classifyQuery classifies a legacy OP_QUERY command.
func classifyQuery(m *Message) (Class, error) {
	var c Class
	db, ok := strings.CutSuffix(m.Query.Namespace, ".$cmd")
	if !ok {
		return c, fmt.Errorf("%w: legacy OP_QUERY on %s, which is not a command namespace", ErrUnsupported, quote(m.Query.Namespace))
	}
	cmd := m.Body
	var wrapperRP bsoncore.Value
	e := newElems(m.Body)
	if key, v, ok := e.next(); ok && (string(key) == "$query" || string(key) == "query") {
		inner, ok := docValue(v)
		if !ok {
			return c, fmt.Errorf("%w: OP_QUERY %s is a %s, not a document", ErrBadCommand, key, v.Type)
		}
		cmd = inner
		for {
			key, v, ok := e.next()
			if !ok {
				break
			}
			if string(key) == "$readPreference" {
				wrapperRP = v
			}
		}
	}
	if err := classifyBody(&c, cmd, true, false); err != nil {
		return c, err
	}
	c.Database = db
	if wrapperRP.Type != 0 {
		if c.ReadPref.Mode != 0 {
			return c, fmt.Errorf("%w: OP_QUERY has $readPreference both in and next to $query", ErrBadCommand)
		}
		rp, err := parseReadPref(wrapperRP)
		if err != nil {
			return c, err
		}
		c.ReadPref = rp
	}
	if c.Kind != KindHandshake {
		return c, fmt.Errorf("%w: OP_QUERY command %s: only hello and isMaster travel over OP_QUERY", ErrUnsupported, quote(c.Command))
	}
	return c, nil
}

// classifyBody fills c from a command document. legacy: an OP_QUERY's
// command, whose database is its namespace's and not $db. sequences: the
// OP_MSG has kind-1 sections.
func classifyBody(c *Class, body bsoncore.Document, legacy, sequences bool) error {
	e := newElems(body)
	key, first, ok := e.next()
	if !ok {
		return fmt.Errorf("%w: empty command document", ErrBadCommand)
	}
	cmd, known := commands[string(key)]
	if known {
		c.Command, c.Kind = cmd.name, cmd.kind
	} else {
		c.Command, c.Kind = string(key), KindPrimary
	}
	var seen uint32
	var db, pipeline, readConcern, collection, cursors bsoncore.Value
	for {
		key, v, ok := e.next()
		if !ok {
			break
		}
		f := field(key)
		if f == 0 {
			if c.Kind == KindHandshake {
				readHello(&c.Hello, key, v)
			}
			continue
		}
		if seen&f != 0 {
			return fmt.Errorf("%w: %s: field %s given twice", ErrBadCommand, c.Command, key)
		}
		seen |= f
		switch f {
		case fDB:
			db = v
		case fReadPref:
			rp, err := parseReadPref(v)
			if err != nil {
				return fmt.Errorf("%s: %w", c.Command, err)
			}
			c.ReadPref = rp
		case fReadConcern:
			readConcern = v
		case fWriteConcern:
			if wc, ok := docValue(v); ok {
				n, ok := intValue(lookup(wc, "w"))
				c.Unacknowledged = ok && n == 0
			}
		case fLSID:
			c.Session.LSID, _ = docValue(v)
		case fTxnNumber:
			n, ok := intValue(v)
			if !ok {
				return fmt.Errorf("%w: %s: txnNumber is a %s, not an integer", ErrBadCommand, c.Command, v.Type)
			}
			c.Session.TxnNumber, c.Session.HasTxnNumber = n, true
		case fStartTransaction:
			c.Session.StartTransaction = truthy(v)
			c.Session.InTransaction = true
		case fAutocommit:
			c.Session.InTransaction = true
		case fClusterTime:
			c.Session.ClusterTime, _ = docValue(v)
		case fPipeline:
			pipeline = v
		case fCollection:
			collection = v
		case fCursors:
			cursors = v
		case fMaxTimeMS:
			if n, ok := intValue(v); ok && n > 0 {
				c.MaxTimeMS = n
			}
		}
	}
	if !legacy {
		s, ok := strBytes(db)
		if !ok {
			if db.Type == 0 {
				return fmt.Errorf("%w: %s has no $db", ErrBadCommand, c.Command)
			}
			return fmt.Errorf("%w: %s: $db is a %s, not a string", ErrBadCommand, c.Command, db.Type)
		}
		c.Database = internDB(s)
	}
	if readConcern.Type != 0 {
		rc, err := parseReadConcern(readConcern)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Command, err)
		}
		c.ReadConcern = rc
	}
	switch c.Kind {
	case KindGetMore:
		id, ok := cursorID(first)
		if !ok {
			return fmt.Errorf("%w: getMore: the cursor id is a %s, not an integer", ErrBadCommand, first.Type)
		}
		c.CursorID = id
		s, ok := strBytes(collection)
		if !ok {
			return fmt.Errorf("%w: getMore of cursor %d has no collection string", ErrBadCommand, id)
		}
		c.Collection = string(s)
	case KindKillCursors:
		ids, err := cursorIDs(cursors)
		if err != nil {
			return err
		}
		c.CursorIDs = ids
		c.Collection = collectionOf(first)
	case KindWrite:
		c.Collection = collectionOf(first)
	}
	if cmd.readShaped {
		c.Collection = collectionOf(first)
		return readEligibility(c, first, pipeline, sequences)
	}
	return nil
}

// readEligibility demotes a read-shaped command that is not an eligible
// read, setting the first Reason that applies.
func readEligibility(c *Class, first, pipeline bsoncore.Value, sequences bool) error {
	if c.Command == "aggregate" {
		out, stream, err := readPipeline(pipeline)
		if err != nil {
			return err
		}
		c.ChangeStream = stream
		if out {
			c.Kind, c.Reason = KindWrite, ReasonOutputStage
			return nil
		}
	}
	switch {
	case sequences:
		c.Reason = ReasonSequences
	case c.Session.InTransaction || c.Session.HasTxnNumber:
		c.Reason = ReasonTransaction
	case c.ReadConcern.Level == "linearizable" || c.ReadConcern.Level == "snapshot":
		c.Reason = ReasonReadConcern
	case c.Command == "aggregate" && first.Type != bsoncore.TypeString:
		c.Reason = ReasonCollectionless
	case c.Database == "local":
		c.Reason = ReasonLocalDatabase
	default:
		return nil
	}
	c.Kind = KindPrimary
	return nil
}

// readPipeline reports whether an aggregate's pipeline has a $out or
// $merge stage (every key of every stage is looked at: a stage with two
// keys is the member's to reject, not a way past this check), and whether
// its first stage is $changeStream.
func readPipeline(pipeline bsoncore.Value) (out, stream bool, err error) {
	arr, ok := arrayValue(pipeline)
	if !ok {
		if pipeline.Type == 0 {
			return false, false, fmt.Errorf("%w: aggregate has no pipeline", ErrBadCommand)
		}
		return false, false, fmt.Errorf("%w: aggregate pipeline is a %s, not an array", ErrBadCommand, pipeline.Type)
	}
	stages := newElems(arr)
	for i := 0; ; i++ {
		_, sv, ok := stages.next()
		if !ok {
			break
		}
		stage, ok := docValue(sv)
		if !ok {
			return false, false, fmt.Errorf("%w: aggregate pipeline stage %d is a %s, not a document", ErrBadCommand, i, sv.Type)
		}
		keys := newElems(stage)
		for {
			key, _, ok := keys.next()
			if !ok {
				break
			}
			switch string(key) {
			case "$out", "$merge":
				return true, stream, nil
			case "$changeStream":
				stream = stream || i == 0
			}
		}
		if keys.bad {
			return false, false, fmt.Errorf("%w: aggregate pipeline stage %d is not a whole document", ErrBadCommand, i)
		}
	}
	if stages.bad {
		return false, false, fmt.Errorf("%w: aggregate pipeline is not a whole array", ErrBadCommand)
	}
	return false, stream, nil
}

// parseReadConcern parses a readConcern document.
func parseReadConcern(v bsoncore.Value) (ReadConcern, error) {
	var rc ReadConcern
	doc, ok := docValue(v)
	if !ok {
		return rc, fmt.Errorf("%w: readConcern is a %s, not a document", ErrBadCommand, v.Type)
	}
	e := newElems(doc)
	for {
		key, v, ok := e.next()
		if !ok {
			break
		}
		switch string(key) {
		case "level":
			s, ok := strBytes(v)
			if !ok {
				return rc, fmt.Errorf("%w: readConcern.level is a %s, not a string", ErrBadCommand, v.Type)
			}
			if rc.Level = readConcernLevel(s); rc.Level == "" {
				return rc, fmt.Errorf("%w: readConcern.level %s is not a read concern level", ErrBadCommand, quote(s))
			}
		case "afterClusterTime":
			t, i, ok := v.TimestampOK()
			if !ok {
				return rc, fmt.Errorf("%w: readConcern.afterClusterTime is a %s, not a timestamp", ErrBadCommand, v.Type)
			}
			rc.AfterClusterTime = Timestamp{T: t, I: i}
		}
	}
	if e.bad {
		return rc, fmt.Errorf("%w: readConcern is not a whole document", ErrBadCommand)
	}
	return rc, nil
}

// readConcernLevel returns the level named by b, "" when none is.
func readConcernLevel(b []byte) string {
	switch string(b) {
	case "local":
		return "local"
	case "available":
		return "available"
	case "majority":
		return "majority"
	case "linearizable":
		return "linearizable"
	case "snapshot":
		return "snapshot"
	}
	return ""
}

// readHello reads the handshake fields of a hello or isMaster.
func readHello(h *Hello, key []byte, v bsoncore.Value) {
	switch string(key) {
	case "helloOk":
		h.HelloOK = truthy(v)
	case "topologyVersion":
		h.TopologyVersion, _ = docValue(v)
	case "maxAwaitTimeMS":
		h.MaxAwaitTimeMS, _ = intValue(v)
	case "speculativeAuthenticate":
		h.SpeculativeAuthenticate, _ = docValue(v)
	case "saslSupportedMechs":
		if s, ok := strBytes(v); ok {
			h.SaslSupportedMechs = string(s)
		}
	case "loadBalanced":
		h.LoadBalanced = truthy(v)
	case "client":
		if client, ok := docValue(v); ok {
			if app, ok := docValue(lookup(client, "application")); ok {
				if name, ok := strBytes(lookup(app, "name")); ok {
					h.AppName = string(name)
				}
			}
		}
	}
}

// cursorID reads a cursor id: an int64 as drivers send it, or an int32.
func cursorID(v bsoncore.Value) (int64, bool) {
	if v.Type != bsoncore.TypeInt64 && v.Type != bsoncore.TypeInt32 {
		return 0, false
	}
	return intValue(v)
}

// cursorIDs reads killCursors' cursors array. The ids cost one allocation
// of 8 bytes each, counted first: less than the 11 or more bytes each takes
// in the message, which the read already bounds.
func cursorIDs(v bsoncore.Value) ([]int64, error) {
	arr, ok := arrayValue(v)
	if !ok {
		if v.Type == 0 {
			return nil, fmt.Errorf("%w: killCursors has no cursors", ErrBadCommand)
		}
		return nil, fmt.Errorf("%w: killCursors cursors is a %s, not an array", ErrBadCommand, v.Type)
	}
	n, err := countElems(arr, math.MaxInt)
	if err != nil {
		return nil, fmt.Errorf("%w: killCursors cursors: %w", ErrBadCommand, err)
	}
	ids := make([]int64, 0, n)
	e := newElems(arr)
	for {
		_, iv, ok := e.next()
		if !ok {
			break
		}
		id, ok := cursorID(iv)
		if !ok {
			return nil, fmt.Errorf("%w: killCursors cursors[%d] is a %s, not an integer", ErrBadCommand, len(ids), iv.Type)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// collectionOf is a command's first value when it is a string, else "".
func collectionOf(v bsoncore.Value) string {
	s, ok := strBytes(v)
	if !ok {
		return ""
	}
	return string(s)
}

// internDB returns the common database names without allocating.
func internDB(b []byte) string {
	switch string(b) {
	case "admin":
		return "admin"
	case "local":
		return "local"
	case "config":
		return "config"
	case "test":
		return "test"
	}
	return string(b)
}
