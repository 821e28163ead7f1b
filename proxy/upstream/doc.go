// Package upstream is the decongestant proxy's edge toward the replica set:
// authenticated, TLS-capable, pooled raw wire connections to a chosen member.
// The proxy reads a client's OP_MSG, classifies it (package wire), picks a
// member, and hands the raw bytes to Pool.RoundTrip with that member's
// address; the member's raw reply comes back ready to write to the client.
//
// A Pool is built from a MongoDB URI on the driver's own topology
// (mongo-go-driver's exported x/mongo/driver/topology, as mongobetween uses
// it), which discovers the members and watches each with the driver's
// heartbeats. Members is that view: each member's address, role, wire
// versions and limits, which the proxy's own hello reply advertises. The
// connections that carry requests are the pool's own, one pool per member
// (the URI's maxPoolSize, 100 by default, per member): each goes through the
// driver's handshake and authenticates with the URI's credentials (SCRAM and
// the driver's other mechanisms), speaks TLS with the URI's options
// (tls=true&tlsCAFile=...), and then carries a request as one write and one
// read, without the goroutines the driver's connection starts for each.
//
// RoundTrip rewrites request ids itself (a client's ids are not unique on a
// member's connection) and maps the reply back to the client's id; it never
// lets a member stream replies (exhaustAllowed is cleared), and sends a
// moreToCome message without waiting for a reply. Connections are not pinned:
// a cursor belongs to the member, so a getMore may use any connection to it.
// Compression to the members is off.
//
//	p, err := upstream.New(ctx, "mongodb://proxy:pw@h1,h2,h3/?replicaSet=rs0&tls=true&tlsCAFile=ca.pem")
//	if err != nil {
//		return err // ErrAuthentication, ErrUnavailable; no password in it
//	}
//	defer p.Close(context.Background())
//	for _, m := range p.Members() {
//		fmt.Println(m.Addr, m.Role, m.MaxWireVersion)
//	}
//	reply, err := p.RoundTrip(ctx, "h2:27017", msg) // msg: a client's OP_MSG
//	switch {
//	case errors.Is(err, upstream.ErrUnavailable):
//		// not sent: try another member, or answer with an error
//	case err != nil:
//		// may have run: answer with a network error
//	case reply != nil:
//		// write reply to the client
//	}
//
// Errors name the member's address, wrap one of the package's sentinels and
// the driver's error, and never quote the URI's password or secret options.
package upstream
