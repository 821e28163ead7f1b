package proxy

import "github.com/decongestant/decongestant/proxy/wire"

// The error labels drivers act on (the transactions, retryable-writes and
// change-streams specifications).
const (
	labelTransientTransaction  = "TransientTransactionError"
	labelUnknownCommitResult   = "UnknownTransactionCommitResult"
	labelRetryableWrite        = "RetryableWriteError"
	labelResumableChangeStream = "ResumableChangeStreamError"
)

// labels are the error labels of a retriable failure of c, as a mongos's
// (src/mongo/db/error_labels.cpp) and the drivers' specifications give them:
//
//   - commitTransaction: RetryableWriteError, so the driver retries the
//     commit once (with w:majority; a commit is idempotent), and
//     UnknownTransactionCommitResult: it may have committed, whether or not
//     this attempt reached the member, since an earlier one may have. Never
//     TransientTransactionError, which would have withTransaction run the
//     whole transaction again.
//   - abortTransaction: RetryableWriteError.
//   - any other statement of a transaction: TransientTransactionError: the
//     transaction cannot commit any more, so running it again is safe.
//   - a retryable write (txnNumber outside a transaction): RetryableWriteError.
//   - a change stream's aggregate or getMore: ResumableChangeStreamError.
func labels(c *wire.Class, stream bool) []string {
	switch {
	case c.Session.InTransaction && c.Command == "commitTransaction":
		return []string{labelRetryableWrite, labelUnknownCommitResult}
	case c.Session.InTransaction && c.Command == "abortTransaction":
		return []string{labelRetryableWrite}
	case c.Session.InTransaction:
		return []string{labelTransientTransaction}
	case c.Session.HasTxnNumber:
		return []string{labelRetryableWrite}
	case stream:
		return []string{labelResumableChangeStream}
	}
	return nil
}

// The server's error labels for a code it answers with, as
// src/mongo/db/error_labels.cpp gives them, for the errors the failCommand
// fail point makes up (failpoint.go).

// Server error codes the label rules name (MongoDB's error_codes.yml).
const (
	codeNoSuchTransaction = 251
)

// serverCodeNames names the codes the drivers' tests fail commands with,
// beyond those the proxy answers itself (codeNames).
var serverCodeNames = map[int32]string{
	1:     "InternalError",
	8:     "UnknownError",
	11:    "UserNotFound",
	20:    "IllegalOperation",
	26:    "NamespaceNotFound",
	79:    "UnknownReplWriteConcern",
	136:   "CappedPositionLost",
	175:   "QueryPlanKilled",
	237:   "CursorKilled",
	11000: "DuplicateKey",
	11601: "Interrupted",
	7:     "HostNotFound",
	24:    "LockTimeout",
	50:    "MaxTimeMSExpired",
	63:    "StaleShardVersion",
	64:    "WriteConcernFailed",
	100:   "UnsatisfiableWriteConcern",
	112:   "WriteConflict",
	134:   "ReadConcernMajorityNotAvailableYet",
	150:   "StaleEpoch",
	189:   "PrimarySteppedDown",
	202:   "NetworkInterfaceExceededTimeLimit",
	234:   "RetryChangeStream",
	239:   "SnapshotTooOld",
	246:   "SnapshotUnavailable",
	249:   "StaleDbVersion",
	251:   "NoSuchTransaction",
	262:   "ExceededTimeLimit",
	267:   "PreparedTransactionInProgress",
	280:   "ChangeStreamFatalError",
	286:   "ChangeStreamHistoryLost",
	10107: "NotWritablePrimary",
	11600: "InterruptedAtShutdown",
	11602: "InterruptedDueToReplStateChange",
	13388: "StaleConfig",
	13435: "NotPrimaryNoSecondaryOk",
	13436: "NotPrimaryOrSecondary",
}

// retriable: the server's RetriableError category (and the network
// errors, which are in it).
func retriable(code int32) bool {
	switch code {
	case codeHostUnreachable, 7, codeNetworkTimeout, codeShutdownInProgress, 189, 202, 134, 234, 262,
		codeSocketException, 10107, 11600, 11602, 13435, 13436:
		return true
	}
	return false
}

// retargeting: the server's NeedRetargettingError, snapshot errors and
// StaleDbVersion, transient in a transaction.
func retargeting(code int32) bool {
	switch code {
	case 63, 150, 13388, 239, 246, 249:
		return true
	}
	return false
}

// commitOrAbort reports whether c ends a transaction.
func commitOrAbort(c *wire.Class) bool {
	return c.Command == "commitTransaction" || c.Command == "abortTransaction"
}

// codeLabels are the labels a mongos gives an error with code for c
// (stream: c reads a change stream): TransientTransactionError for a
// transaction's statement on a transient code (a commit or abort: on one
// that says the transaction surely failed), else RetryableWriteError for a
// retryable write, commit or abort on a retriable code, else
// ResumableChangeStreamError.
func codeLabels(code int32, c *wire.Class, stream bool) []string {
	s := &c.Session
	inTxn := s.InTransaction && s.HasTxnNumber
	// Transient for any statement: the transaction surely aborted.
	aborted := code == 112 || code == 24 || code == 267 || retargeting(code)
	switch {
	case inTxn && commitOrAbort(c):
		if aborted || code == codeNoSuchTransaction {
			return []string{labelTransientTransaction}
		}
		if retriable(code) {
			return []string{labelRetryableWrite}
		}
	case inTxn:
		if aborted || retriable(code) || code == codeNoSuchTransaction {
			return []string{labelTransientTransaction}
		}
	case s.HasTxnNumber:
		if retriable(code) {
			return []string{labelRetryableWrite}
		}
	}
	if stream && (retriable(code) || retargeting(code) || code == codeFailedToSatisfyReadPreference) {
		return []string{labelResumableChangeStream}
	}
	return nil
}

// wcLabels are the labels a mongos gives a reply to c with a write concern
// error of code: RetryableWriteError for a retryable write, commit or abort
// on a retriable code (never TransientTransactionError: the write may
// stay).
func wcLabels(code int32, c *wire.Class) []string {
	s := &c.Session
	if s.HasTxnNumber && (!s.InTransaction || commitOrAbort(c)) && retriable(code) {
		return []string{labelRetryableWrite}
	}
	return nil
}
