package proxy_test

import (
	"context"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"

	"github.com/decongestant/decongestant/proxy"
)

// A proxy in front of a replica set on a loopback port; drivers connect to
// mongodb://127.0.0.1:27018 and see a mongos. Ctrl-C ends Serve, and Close
// then closes the client connections and the upstream pool.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := proxy.New(proxy.Config{
		URI:    "mongodb://127.0.0.1:27017,127.0.0.1:27027/?replicaSet=rs0",
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
