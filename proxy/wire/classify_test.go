package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

func TestClassify(t *testing.T) {
	lsid := d("id", bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")})
	lsidDoc := doc(t, lsid)
	clusterTime := d("clusterTime", bson.Timestamp{T: 100, I: 2}, "signature", d("hash", bson.Binary{Data: make([]byte, 20)}, "keyId", int64(0)))
	clusterTimeDoc := doc(t, clusterTime)
	topology := d("processId", bson.ObjectID{1}, "counter", int64(3))
	topologyDoc := doc(t, topology)
	spec := d("saslStart", 1, "mechanism", "SCRAM-SHA-256", "db", "admin")
	specDoc := doc(t, spec)
	sp := d("mode", "secondaryPreferred")
	msg := func(cmd bson.D, seqs ...seq) []byte { return opMsg(0, doc(t, cmd), seqs...) }
	session := Session{LSID: lsidDoc, ClusterTime: clusterTimeDoc}

	tests := []struct {
		name    string
		in      []byte
		want    Class
		wantErr error
		errText string
	}{
		// Handshake, auth, local, sessions.
		{name: "hello", in: msg(d("hello", 1, "helloOk", true, "$db", "admin")),
			want: Class{Kind: KindHandshake, Command: "hello", Database: "admin", Hello: Hello{HelloOK: true}}},
		{name: "hello with an application name", in: msg(d("hello", 1, "client", d("driver", d("name", "x"), "application", d("name", "app1")), "$db", "admin")),
			want: Class{Kind: KindHandshake, Command: "hello", Database: "admin", Hello: Hello{AppName: "app1"}}},
		{name: "awaitable hello", in: msg(d("hello", 1, "topologyVersion", topology, "maxAwaitTimeMS", int64(10000), "$db", "admin")),
			want: Class{Kind: KindHandshake, Command: "hello", Database: "admin", Hello: Hello{TopologyVersion: topologyDoc, MaxAwaitTimeMS: 10000}}},
		{name: "isMaster with speculative auth", in: msg(d("isMaster", 1, "speculativeAuthenticate", spec, "saslSupportedMechs", "admin.app", "loadBalanced", false, "$db", "admin")),
			want: Class{Kind: KindHandshake, Command: "isMaster", Database: "admin",
				Hello: Hello{SpeculativeAuthenticate: specDoc, SaslSupportedMechs: "admin.app"}}},
		{name: "ismaster", in: msg(d("ismaster", 1, "$db", "admin")),
			want: Class{Kind: KindHandshake, Command: "ismaster", Database: "admin"}},
		{name: "saslStart", in: msg(d("saslStart", 1, "mechanism", "SCRAM-SHA-256", "$db", "admin")),
			want: Class{Kind: KindAuth, Command: "saslStart", Database: "admin"}},
		{name: "saslContinue", in: msg(d("saslContinue", 1, "conversationId", 1, "$db", "admin")),
			want: Class{Kind: KindAuth, Command: "saslContinue", Database: "admin"}},
		{name: "logout", in: msg(d("logout", 1, "$db", "db")), want: Class{Kind: KindAuth, Command: "logout", Database: "db"}},
		{name: "connectionStatus", in: msg(d("connectionStatus", 1, "$db", "admin")),
			want: Class{Kind: KindAuth, Command: "connectionStatus", Database: "admin"}},
		{name: "ping", in: msg(d("ping", 1, "lsid", lsid, "$db", "admin")),
			want: Class{Kind: KindLocal, Command: "ping", Database: "admin", Session: Session{LSID: lsidDoc}}},
		{name: "buildInfo", in: msg(d("buildInfo", 1, "$db", "admin")), want: Class{Kind: KindLocal, Command: "buildInfo", Database: "admin"}},
		{name: "endSessions", in: msg(d("endSessions", bson.A{lsid}, "$db", "admin")),
			want: Class{Kind: KindSessions, Command: "endSessions", Database: "admin"}},

		// Eligible reads.
		{name: "find", in: msg(d("find", "c", "filter", d("_id", 1), "lsid", lsid, "$clusterTime", clusterTime, "$db", "db")),
			want: Class{Kind: KindRead, Command: "find", Database: "db", Collection: "c", Session: session}},
		{name: "find secondaryPreferred with maxStaleness and tags", in: msg(d("find", "c", "$readPreference", d("mode", "secondaryPreferred", "maxStalenessSeconds", 90, "tags", bson.A{d("dc", "east", "rack", "1"), d()}, "hedge", d("enabled", true)), "$db", "db")),
			want: Class{Kind: KindRead, Command: "find", Database: "db", Collection: "c", ReadPref: ReadPref{
				Mode: SecondaryPreferredMode, MaxStaleness: 90 * time.Second,
				TagSets: []TagSet{{{"dc", "east"}, {"rack", "1"}}, {}}}}},
		{name: "find primary with the empty tag set", in: msg(d("find", "c", "$readPreference", d("mode", "primary", "tags", bson.A{d()}), "$db", "db")),
			want: Class{Kind: KindRead, Command: "find", Database: "db", Collection: "c", ReadPref: ReadPref{Mode: PrimaryMode, TagSets: []TagSet{{}}}}},
		{name: "find causal majority", in: msg(d("find", "c", "readConcern", d("level", "majority", "afterClusterTime", bson.Timestamp{T: 5, I: 7}), "$db", "db")),
			want: Class{Kind: KindRead, Command: "find", Database: "db", Collection: "c",
				ReadConcern: ReadConcern{Level: "majority", AfterClusterTime: Timestamp{T: 5, I: 7}}}},
		{name: "find by collection UUID", in: msg(d("find", bson.Binary{Subtype: 4, Data: make([]byte, 16)}, "$db", "db")),
			want: Class{Kind: KindRead, Command: "find", Database: "db"}},
		{name: "aggregate", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$match", d()),
			d("$group", d("_id", "$k"))}, "cursor", d(), "$readPreference", sp, "$db", "db")),
			want: Class{Kind: KindRead, Command: "aggregate", Database: "db", Collection: "c", ReadPref: ReadPref{Mode: SecondaryPreferredMode}}},
		{name: "change stream", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$changeStream", d("fullDocument", "updateLookup")),
			d("$match", d())}, "cursor", d(), "$db", "db")),
			want: Class{Kind: KindRead, Command: "aggregate", Database: "db", Collection: "c", ChangeStream: true}},
		{name: "change stream on a database", in: msg(d("aggregate", 1, "pipeline", bson.A{d("$changeStream", d())}, "cursor", d(), "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "aggregate", Database: "db", Reason: ReasonCollectionless, ChangeStream: true}},
		{name: "$changeStream not the first stage", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$match", d()), d("$changeStream", d())}, "$db", "db")),
			want: Class{Kind: KindRead, Command: "aggregate", Database: "db", Collection: "c"}},
		{name: "$changeStream as a second key of the first stage", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$match", d(), "$changeStream", d())}, "$db", "db")),
			want: Class{Kind: KindRead, Command: "aggregate", Database: "db", Collection: "c", ChangeStream: true}},
		{name: "find available", in: msg(d("find", "c", "readConcern", d("level", "available"), "$db", "db")),
			want: Class{Kind: KindRead, Command: "find", Database: "db", Collection: "c", ReadConcern: ReadConcern{Level: "available"}}},
		{name: "count", in: msg(d("count", "c", "query", d(), "$db", "db")),
			want: Class{Kind: KindRead, Command: "count", Database: "db", Collection: "c"}},
		{name: "distinct", in: msg(d("distinct", "c", "key", "k", "readConcern", d("level", "local"), "$db", "db")),
			want: Class{Kind: KindRead, Command: "distinct", Database: "db", Collection: "c", ReadConcern: ReadConcern{Level: "local"}}},

		// Reads that are not eligible.
		{name: "aggregate $out", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$match", d()),
			d("$out", "d")}, "$db", "db")),
			want: Class{Kind: KindWrite, Command: "aggregate", Database: "db", Collection: "c", Reason: ReasonOutputStage}},
		{name: "aggregate $merge", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$merge", d("into", "d"))}, "$readPreference", sp, "$db", "db")),
			want: Class{Kind: KindWrite, Command: "aggregate", Database: "db", Collection: "c", Reason: ReasonOutputStage,
				ReadPref: ReadPref{Mode: SecondaryPreferredMode}}},
		{name: "aggregate $out hidden as a second key of a stage", in: msg(d("aggregate", "c", "pipeline", bson.A{
			d("$match", d(), "$out", "d")}, "$db", "db")),
			want: Class{Kind: KindWrite, Command: "aggregate", Database: "db", Collection: "c", Reason: ReasonOutputStage}},
		{name: "aggregate $out in a transaction", in: msg(d("aggregate", "c", "pipeline", bson.A{d("$out", "d")}, "txnNumber", int64(1), "autocommit", false, "$db", "db")),
			want: Class{Kind: KindWrite, Command: "aggregate", Database: "db", Collection: "c", Reason: ReasonOutputStage,
				Session: Session{TxnNumber: 1, HasTxnNumber: true, InTransaction: true}}},
		{name: "collectionless aggregate", in: msg(d("aggregate", 1, "pipeline", bson.A{d("$currentOp", d())}, "$db", "admin")),
			want: Class{Kind: KindPrimary, Command: "aggregate", Database: "admin", Reason: ReasonCollectionless}},
		{name: "find starting a transaction", in: msg(d("find", "c", "lsid", lsid, "txnNumber", int64(3), "startTransaction", true, "autocommit", false, "$readPreference", sp, "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "find", Database: "db", Collection: "c", Reason: ReasonTransaction,
				ReadPref: ReadPref{Mode: SecondaryPreferredMode},
				Session:  Session{LSID: lsidDoc, TxnNumber: 3, HasTxnNumber: true, StartTransaction: true, InTransaction: true}}},
		{name: "find later in a transaction", in: msg(d("find", "c", "txnNumber", int64(3), "autocommit", false, "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "find", Database: "db", Collection: "c", Reason: ReasonTransaction,
				Session: Session{TxnNumber: 3, HasTxnNumber: true, InTransaction: true}}},
		{name: "find with a txnNumber only", in: msg(d("find", "c", "txnNumber", int64(3), "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "find", Database: "db", Collection: "c", Reason: ReasonTransaction,
				Session: Session{TxnNumber: 3, HasTxnNumber: true}}},
		{name: "find linearizable", in: msg(d("find", "c", "readConcern", d("level", "linearizable"), "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "find", Database: "db", Collection: "c", Reason: ReasonReadConcern,
				ReadConcern: ReadConcern{Level: "linearizable"}}},
		{name: "count snapshot", in: msg(d("count", "c", "readConcern", d("level", "snapshot"), "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "count", Database: "db", Collection: "c", Reason: ReasonReadConcern,
				ReadConcern: ReadConcern{Level: "snapshot"}}},
		{name: "find on local", in: msg(d("find", "oplog.rs", "$db", "local")),
			want: Class{Kind: KindPrimary, Command: "find", Database: "local", Collection: "oplog.rs", Reason: ReasonLocalDatabase}},
		{name: "find with a document sequence", in: msg(d("find", "c", "$db", "db"),
			seq{"filter", []bsoncore.Document{doc(t, d("a", 1))}}),
			want: Class{Kind: KindPrimary, Command: "find", Database: "db", Collection: "c", Reason: ReasonSequences}},
		{name: "listCollections", in: msg(d("listCollections", 1, "$readPreference", sp, "$db", "db")),
			want: Class{Kind: KindPrimary, Command: "listCollections", Database: "db", ReadPref: ReadPref{Mode: SecondaryPreferredMode}}},
		{name: "listIndexes", in: msg(d("listIndexes", "c", "$db", "db")), want: Class{Kind: KindPrimary, Command: "listIndexes", Database: "db"}},
		{name: "dbStats", in: msg(d("dbStats", 1, "$db", "db")), want: Class{Kind: KindPrimary, Command: "dbStats", Database: "db"}},
		{name: "collStats", in: msg(d("collStats", "c", "$db", "db")), want: Class{Kind: KindPrimary, Command: "collStats", Database: "db"}},
		{name: "unknown command", in: msg(d("frobnicate", 1, "$db", "db")), want: Class{Kind: KindPrimary, Command: "frobnicate", Database: "db"}},
		{name: "commands are case-sensitive", in: msg(d("Find", "c", "$db", "db")), want: Class{Kind: KindPrimary, Command: "Find", Database: "db"}},

		// Cursors.
		{name: "getMore", in: msg(d("getMore", int64(123456789012), "collection", "c", "batchSize", 100, "$db", "db")),
			want: Class{Kind: KindGetMore, Command: "getMore", Database: "db", Collection: "c", CursorID: 123456789012}},
		{name: "killCursors", in: msg(d("killCursors", "c", "cursors", bson.A{int64(1), int64(-2)}, "$db", "db")),
			want: Class{Kind: KindKillCursors, Command: "killCursors", Database: "db", Collection: "c", CursorIDs: []int64{1, -2}}},

		// Writes.
		{name: "insert w:0", in: msg(d("insert", "c", "writeConcern", d("w", 0), "$db", "db"),
			seq{"documents", []bsoncore.Document{doc(t, d("_id", 1))}}),
			want: Class{Kind: KindWrite, Command: "insert", Database: "db", Collection: "c", Unacknowledged: true}},
		{name: "update w:0 as a double, moreToCome", in: opMsg(wiremessage.MoreToCome, doc(t, d("update", "c",
			"writeConcern", d("w", 0.0, "j", false), "$db", "db"))),
			want: Class{Kind: KindWrite, Command: "update", Database: "db", Collection: "c", Unacknowledged: true}},
		{name: "update w:majority", in: msg(d("update", "c", "writeConcern", d("w", "majority"), "$db", "db")),
			want: Class{Kind: KindWrite, Command: "update", Database: "db", Collection: "c"}},
		{name: "delete w:1", in: msg(d("delete", "c", "writeConcern", d("w", 1), "$db", "db")),
			want: Class{Kind: KindWrite, Command: "delete", Database: "db", Collection: "c"}},
		{name: "retryable findAndModify", in: msg(d("findAndModify", "c", "txnNumber", int64(5), "$db", "db")),
			want: Class{Kind: KindWrite, Command: "findAndModify", Database: "db", Collection: "c", Session: Session{TxnNumber: 5, HasTxnNumber: true}}},
		{name: "bulkWrite", in: msg(d("bulkWrite", 1, "$db", "admin")), want: Class{Kind: KindWrite, Command: "bulkWrite", Database: "admin"}},
		{name: "commitTransaction", in: msg(d("commitTransaction", 1, "txnNumber", int64(3), "autocommit", false, "$db", "admin")),
			want: Class{Kind: KindPrimary, Command: "commitTransaction", Database: "admin",
				Session: Session{TxnNumber: 3, HasTxnNumber: true, InTransaction: true}}},

		// Legacy OP_QUERY.
		{name: "OP_QUERY isMaster", in: opQuery("admin.$cmd", doc(t, d("isMaster", 1, "helloOk", true)), nil),
			want: Class{Kind: KindHandshake, Command: "isMaster", Database: "admin", Hello: Hello{HelloOK: true}}},
		{name: "OP_QUERY $query with $readPreference", in: opQuery("admin.$cmd", doc(t, d("$query", d("ismaster", 1), "$readPreference", sp)), nil),
			want: Class{Kind: KindHandshake, Command: "ismaster", Database: "admin", ReadPref: ReadPref{Mode: SecondaryPreferredMode}}},
		{name: "OP_QUERY find command", in: opQuery("db.$cmd", doc(t, d("find", "c")), nil),
			wantErr: ErrUnsupported, errText: `OP_QUERY command "find": only hello and isMaster`},
		{name: "OP_QUERY on a collection", in: opQuery("db.c", doc(t, d("a", 1)), nil),
			wantErr: ErrUnsupported, errText: `legacy OP_QUERY on "db.c"`},
		{name: "OP_QUERY $readPreference twice", in: opQuery("admin.$cmd", doc(t, d("$query", d("isMaster", 1, "$readPreference", sp), "$readPreference", sp)), nil),
			wantErr: ErrBadCommand, errText: "both in and next to $query"},
		{name: "OP_QUERY $query not a document", in: opQuery("admin.$cmd", doc(t, d("$query", 1)), nil),
			wantErr: ErrBadCommand, errText: "$query is a 32-bit integer"},

		// Commands a member would reject.
		{name: "empty command", in: msg(d()), wantErr: ErrBadCommand, errText: "empty command"},
		{name: "no $db", in: msg(d("find", "c")), wantErr: ErrBadCommand, errText: "find has no $db"},
		{name: "$db not a string", in: msg(d("find", "c", "$db", 1)), wantErr: ErrBadCommand, errText: "$db is a 32-bit integer"},
		{name: "$db twice", in: msg(d("find", "c", "$db", "a", "$db", "b")), wantErr: ErrBadCommand, errText: "field $db given twice"},
		{name: "readConcern twice", in: msg(d("find", "c", "readConcern", d("level", "local"), "readConcern", d("level", "snapshot"), "$db", "db")), wantErr: ErrBadCommand, errText: "readConcern given twice"},
		{name: "$readPreference twice", in: msg(d("find", "c", "$readPreference", sp, "$readPreference", sp, "$db", "db")),
			wantErr: ErrBadCommand, errText: "$readPreference given twice"},
		{name: "mode in the wrong case", in: msg(d("find", "c", "$readPreference", d("mode", "Secondary"), "$db", "db")),
			wantErr: ErrBadCommand, errText: `mode "Secondary" is not`},
		{name: "no mode", in: msg(d("find", "c", "$readPreference", d("maxStalenessSeconds", 90), "$db", "db")),
			wantErr: ErrBadCommand, errText: "has no mode"},
		{name: "mode not a string", in: msg(d("find", "c", "$readPreference", d("mode", 1), "$db", "db")),
			wantErr: ErrBadCommand, errText: "mode is a 32-bit integer"},
		{name: "$readPreference not a document", in: msg(d("find", "c", "$readPreference", "secondary", "$db", "db")),
			wantErr: ErrBadCommand, errText: "$readPreference is a string"},
		{name: "primary with tags", in: msg(d("find", "c", "$readPreference", d("mode", "primary", "tags", bson.A{d("dc", "east")}), "$db", "db")), wantErr: ErrBadCommand, errText: "primary cannot have tags"},
		{name: "primary with maxStaleness", in: msg(d("find", "c", "$readPreference", d("mode", "primary", "maxStalenessSeconds", 90), "$db", "db")), wantErr: ErrBadCommand, errText: "primary cannot have maxStalenessSeconds"},
		{name: "negative maxStaleness", in: msg(d("find", "c", "$readPreference", d("mode", "nearest", "maxStalenessSeconds", -1), "$db", "db")), wantErr: ErrBadCommand, errText: "maxStalenessSeconds is -1"},
		{name: "maxStaleness not a number", in: msg(d("find", "c", "$readPreference", d("mode", "nearest", "maxStalenessSeconds", "90"), "$db", "db")), wantErr: ErrBadCommand, errText: "maxStalenessSeconds is a string"},
		{name: "tags not an array", in: msg(d("find", "c", "$readPreference", d("mode", "nearest", "tags", d("dc", "east")), "$db", "db")), wantErr: ErrBadCommand, errText: "tags is a embedded document, not an array"},
		{name: "tag set not a document", in: msg(d("find", "c", "$readPreference", d("mode", "nearest", "tags", bson.A{"east"}), "$db", "db")), wantErr: ErrBadCommand, errText: "tags[0] is a string"},
		{name: "tag value not a string", in: msg(d("find", "c", "$readPreference", d("mode", "nearest", "tags", bson.A{d(), d("rack", 1)}), "$db", "db")), wantErr: ErrBadCommand, errText: "tags[1].rack is a 32-bit integer"},
		{name: "unknown read concern level", in: msg(d("find", "c", "readConcern", d("level", "eventual"), "$db", "db")),
			wantErr: ErrBadCommand, errText: `level "eventual"`},
		{name: "readConcern not a document", in: msg(d("find", "c", "readConcern", "majority", "$db", "db")),
			wantErr: ErrBadCommand, errText: "readConcern is a string"},
		{name: "afterClusterTime not a timestamp", in: msg(d("find", "c", "readConcern", d("afterClusterTime", 5), "$db", "db")), wantErr: ErrBadCommand, errText: "afterClusterTime is a 32-bit integer"},
		{name: "txnNumber not a number", in: msg(d("insert", "c", "txnNumber", "1", "$db", "db")),
			wantErr: ErrBadCommand, errText: "txnNumber is a string"},
		{name: "getMore of a string", in: msg(d("getMore", "1", "collection", "c", "$db", "db")),
			wantErr: ErrBadCommand, errText: "cursor id is a string"},
		{name: "getMore without collection", in: msg(d("getMore", int64(1), "$db", "db")),
			wantErr: ErrBadCommand, errText: "getMore of cursor 1 has no collection"},
		{name: "killCursors without cursors", in: msg(d("killCursors", "c", "$db", "db")),
			wantErr: ErrBadCommand, errText: "killCursors has no cursors"},
		{name: "killCursors of a string", in: msg(d("killCursors", "c", "cursors", bson.A{int64(1), "2"}, "$db", "db")),
			wantErr: ErrBadCommand, errText: "cursors[1] is a string"},
		{name: "aggregate without pipeline", in: msg(d("aggregate", "c", "$db", "db")),
			wantErr: ErrBadCommand, errText: "aggregate has no pipeline"},
		{name: "aggregate stage not a document", in: msg(d("aggregate", "c", "pipeline", bson.A{d(), "$out"}, "$db", "db")),
			wantErr: ErrBadCommand, errText: "stage 1 is a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, err := Classify(&m)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("err = %q, want it to say %q", err, tt.errText)
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Classify =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestClassifyOtherOpcode(t *testing.T) {
	m := Message{Header: Header{OpCode: wiremessage.OpCompressed}}
	if _, err := Classify(&m); !errors.Is(err, ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
}

func TestMode(t *testing.T) {
	for _, tt := range []struct {
		s string
		m Mode
	}{
		{"primary", PrimaryMode}, {"primaryPreferred", PrimaryPreferredMode}, {"secondary", SecondaryMode},
		{"secondaryPreferred", SecondaryPreferredMode}, {"nearest", NearestMode},
	} {
		m, err := ParseMode(tt.s)
		if err != nil || m != tt.m || m.String() != tt.s || !m.IsValid() {
			t.Errorf("ParseMode(%q) = %v (%d), %v; want %d with String %q", tt.s, m, m, err, tt.m, tt.s)
		}
	}
	for _, s := range []string{"", "Primary", "secondarypreferred", "any"} {
		if m, err := ParseMode(s); !errors.Is(err, ErrBadCommand) || m != 0 {
			t.Errorf("ParseMode(%q) = %v, %v; want the zero Mode and ErrBadCommand", s, m, err)
		}
	}
	if var0 := Mode(0); var0.IsValid() || var0.String() != "invalid" || Mode(6).IsValid() {
		t.Errorf("the zero Mode and Mode(6) must be invalid")
	}
}

func TestStrings(t *testing.T) {
	kinds := map[Kind]string{0: "invalid", KindHandshake: "handshake", KindAuth: "auth", KindLocal: "local", KindSessions: "sessions",
		KindRead: "read", KindGetMore: "getMore", KindKillCursors: "killCursors", KindWrite: "write", KindPrimary: "primary", 99: "invalid"}
	for k, want := range kinds {
		if k.String() != want {
			t.Errorf("Kind(%d) = %q, want %q", k, k, want)
		}
	}
	reasons := map[Reason]string{ReasonNone: "none", ReasonOutputStage: "$out or $merge stage", ReasonSequences: "document sequence",
		ReasonTransaction: "transaction", ReasonReadConcern: "read concern", ReasonCollectionless: "collectionless aggregate",
		ReasonLocalDatabase: "local database", 99: "invalid"}
	for r, want := range reasons {
		if r.String() != want {
			t.Errorf("Reason(%d) = %q, want %q", r, r, want)
		}
	}
}

func TestTimestamp(t *testing.T) {
	a, b, c := Timestamp{T: 5, I: 9}, Timestamp{T: 6, I: 1}, Timestamp{T: 6, I: 2}
	if !a.Before(b) || !b.Before(c) || c.Before(b) || b.Before(b) || !(Timestamp{}).IsZero() || a.IsZero() {
		t.Errorf("Timestamp ordering is wrong")
	}
}
