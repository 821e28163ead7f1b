package proxy_test

import (
	"context"
	"crypto/tls"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"

	"github.com/decongestant/decongestant/proxy"
)

// A proxy on a loopback port in front of the replica set $DECONGESTANT_URI
// names (mongodb://127.0.0.1:27017,127.0.0.1:27027/?replicaSet=rs0, say);
// drivers connect to mongodb://127.0.0.1:27018 and see a mongos. Ctrl-C ends
// Serve, and Close then closes the client connections and the upstream pool.
// It serves until then, so it has no Output comment; TestExample runs it
// against a real set and reads and writes through it.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := proxy.New(proxy.Config{
		URI:    os.Getenv("DECONGESTANT_URI"),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:27018")
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Serve(ctx, ln); err != nil {
		log.Fatal(err)
	}
}

// A proxy that clients reach over the network: they authenticate as users
// of users.json (made with `decongestant proxy-user`, or Credentials.
// SetPassword and WriteFile) and speak TLS; drivers connect to
// mongodb://app:PASSWORD@proxy.example:27018/?authSource=admin&tls=true.
// The replica set's own credentials stay in the URI, which clients never
// see. (Compiled, not run: it needs those files and that set;
// TestAuthTLSGoDriver runs a proxy with users and a TLS listener.)
func Example_authenticated() {
	users, err := proxy.LoadCredentials("users.json")
	if err != nil {
		log.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair("proxy.pem", "proxy.key")
	if err != nil {
		log.Fatal(err)
	}
	s, err := proxy.New(proxy.Config{
		URI:   "mongodb://proxy:SECRET@127.0.0.1:27017,127.0.0.1:27027/?replicaSet=rs0&authSource=admin",
		Users: users,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", ":27018")
	if err != nil {
		log.Fatal(err)
	}
	tlsLn := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err := s.Serve(context.Background(), tlsLn); err != nil {
		log.Fatal(err)
	}
}
