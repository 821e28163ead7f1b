// Package proxy is the decongestant proxy's front door: a listener that
// MongoDB drivers in any language connect to as to a mongos. It reads each
// client message (package wire), answers the handshake and a few commands
// itself, and forwards everything else as raw bytes to a member of the
// replica set (package upstream), writing the member's reply back. With a
// Config.Policy, the eligible reads the application opted in are routed per
// member by a router.Router made router.WithExternalReads: the library's
// policy, lag polls, shares, Stats and metrics, reached through a second
// front door (Router.Route, Routed.Done).
//
// One job per file:
//
//   - config.go: Config and its defaults.
//   - server.go: New, Serve, Close: the listener, the set of client
//     connections (capped by MaxConnections), the upstream pool.
//   - drain.go: Shutdown: stop accepting, close idle connections, let
//     requests in flight end.
//   - ready.go: Ready, the readiness probe's answer.
//   - conn.go: one client connection's loop: read, parse, classify,
//     dispatch, write; malformed input closes that connection only.
//   - deadlines.go: a connection's TLS-handshake, pre-auth, idle and
//     write deadlines.
//   - limits.go: what one client connection may cost: the message size
//     before authentication, the read buffer kept between messages.
//   - handshake.go: the hello/isMaster reply of a mongos, built from the
//     members' wire versions and limits.
//   - local.go: ping, whatsmyuri, connectionStatus, logout, and the refusal
//     of authentication, answered without a member.
//   - auth.go: with Config.Users, client authentication (SCRAM-SHA-256:
//     saslStart, saslContinue, hello's speculativeAuthenticate and
//     saslSupportedMechs) and the refusal (Unauthorized) of every command
//     but those mongod allows before it.
//   - credentials.go: the users file (Credentials): stored SCRAM-SHA-256
//     keys, never passwords.
//   - decoy.go: the made-up salt and iteration count of users that do not
//     exist, indistinguishable from a real user's.
//   - lograte.go: the limit on failed-authentication log lines.
//   - admin.go: the administration commands Config.RefuseAdminCommands
//     refuses.
//   - route.go: the choice of member: decideRead, a pure function, routes
//     the reads the policy routes (the read preference's mode, staleness
//     and tags and the connection's read-your-writes fence, with the
//     router's pick), route sends getMore and killCursors to their
//     cursor's owner and the rest to the primary.
//   - retry.go: a routed read that failed on a secondary (a state-change
//     error, or no reply) retried once elsewhere.
//   - majority.go: a majority read routed to a secondary waits for the
//     connection's fence (readConcern afterClusterTime).
//   - sessions.go: the sessions commands sent to every secondary too.
//   - cursors.go: the cursor map: which member owns a cursor id, until
//     the cursor ends, its member loses it or it sits idle too long.
//   - buildinfo.go: buildInfo before authentication, from a member's
//     answer cached by the proxy.
//   - hangup.go: watching a client's connection during a long request, to
//     cancel it when the client hangs up.
//   - forward.go: a round trip to the chosen member (bounded by the
//     command's maxTimeMS and RequestTimeout; abandoned operations
//     killed), remembering new cursors, reporting routed reads, writes and the
//     members' applied optimes to the router, moving the connection's
//     fence; upstream errors turned into error replies.
//   - optime.go: the latest operationTime members' replies carried, which
//     a ping the proxy answers carries too, as a mongos's does.
//   - stats.go: what was forwarded, by member.
//   - replies.go: error documents as a mongos words them.
//   - labels.go: the error labels (TransientTransactionError,
//     RetryableWriteError, UnknownTransactionCommitResult,
//     ResumableChangeStreamError) of the errors the proxy makes up.
//   - failpoint.go: with Config.EnableTestCommands (tests only), the
//     proxy's own failCommand fail point, as a mongos's.
//
// Clients authenticate to the proxy as its own users (Config.Users), never
// with the replica set's credentials, which only the proxy holds (URI).
// Encryption is the listener's: Serve a tls.NewListener. The CLI listens
// beyond loopback only with both.
//
//	s, err := proxy.New(proxy.Config{URI: "mongodb://h1,h2,h3/?replicaSet=rs0"})
//	if err != nil {
//		return err
//	}
//	defer s.Close()
//	ln, err := net.Listen("tcp", "127.0.0.1:27018")
//	if err != nil {
//		return err
//	}
//	return s.Serve(ctx, ln) // drivers connect to mongodb://127.0.0.1:27018
//
// To stop without cutting requests short, Shutdown(ctx) instead of Close.
package proxy
