package wire

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// ReadConcern is a command's readConcern.
type ReadConcern struct {
	// Level is "" when the command sets none, else one of local,
	// available, majority, linearizable, snapshot.
	Level string
	// AfterClusterTime is the causal-consistency fence: the member waits
	// until it has applied that cluster time. Zero when absent.
	AfterClusterTime Timestamp
}

// Timestamp is a BSON timestamp: seconds T and increment I. The zero
// Timestamp means absent (no cluster time is zero).
type Timestamp struct{ T, I uint32 }

// IsZero reports whether t is the zero Timestamp.
func (t Timestamp) IsZero() bool { return t == Timestamp{} }

// Before reports whether t orders before u.
func (t Timestamp) Before(u Timestamp) bool { return t.T < u.T || t.T == u.T && t.I < u.I }

// Session is what a command carries of a logical session. The proxy passes
// all of it through unchanged; it reads it to keep transactions on the
// primary and to know a connection's causal position.
type Session struct {
	// LSID is the lsid document, nil when the command has none (an
	// implicit session is still an lsid: drivers send one on every
	// command).
	LSID bsoncore.Document
	// TxnNumber is set (HasTxnNumber) on retryable writes and on every
	// statement of a transaction.
	TxnNumber    int64
	HasTxnNumber bool
	// StartTransaction is set on a transaction's first statement.
	StartTransaction bool
	// InTransaction: the command carries autocommit (false, on every
	// statement of a multi-document transaction and on its commit or
	// abort) or startTransaction. Such a command runs on the primary.
	InTransaction bool
	// ClusterTime is the $clusterTime document (gossiped cluster time and
	// its signature), nil when absent.
	ClusterTime bsoncore.Document
}

// Hello is what a handshake command asks of the proxy's reply.
type Hello struct {
	HelloOK bool // the client accepts hello instead of isMaster from now on
	// TopologyVersion and MaxAwaitTimeMS together make an awaitable hello:
	// answer when the topology changes or after MaxAwaitTimeMS.
	TopologyVersion bsoncore.Document
	MaxAwaitTimeMS  int64
	// SpeculativeAuthenticate is the first authentication step a driver
	// folds into its handshake, nil when absent.
	SpeculativeAuthenticate bsoncore.Document
	// SaslSupportedMechs is the "db.user" whose mechanisms the client asks
	// for, "" when absent.
	SaslSupportedMechs string
	LoadBalanced       bool
	// AppName is the client metadata's application.name, "" when absent.
	AppName string
}
