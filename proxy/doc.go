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
//   - route.go: the choice of member: routeRead asks the router for the
//     reads the policy routes (with the read preference's staleness and
//     tags and the connection's read-your-writes fence), route sends
//     getMore and killCursors to their cursor's owner and the rest to the
//     primary.
//   - cursors.go: the cursor map: which member owns a cursor id.
//   - forward.go: a round trip to the chosen member under a deadline,
//     remembering new cursors, reporting routed reads, writes and the
//     members' applied optimes to the router, moving the connection's
//     fence; upstream errors turned into error replies.
//   - stats.go: what was forwarded, by member.
//   - replies.go: error documents as a mongos words them.
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
