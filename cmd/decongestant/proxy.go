package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/proxy"
)

// runProxy runs the proxy until ctx ends (Ctrl-C): listener, client
// connections and upstream pool are closed before it returns.
func runProxy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	uri := fs.String("uri", "", "the replica set's MongoDB URI, with the proxy's own credentials and TLS options (required)")
	listen := fs.String("listen", "127.0.0.1:27018", "address to listen on: a loopback host:port, or unix:/path.sock")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *uri == "" {
		fs.Usage()
		return errors.New("proxy: --uri is required")
	}
	network, addr, err := listenAddr(*listen)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	s, err := proxy.New(proxy.Config{URI: *uri, Logger: log})
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen(network, addr)
	if err != nil {
		return fmt.Errorf("proxy: listen on %s: %w", *listen, err)
	}
	fmt.Fprintf(stdout, "decongestant proxy: %s -> %s (Ctrl-C stops)\n", ln.Addr(), redact.URI(*uri))
	if err := s.Serve(ctx, ln); err != nil {
		return err
	}
	return s.Close()
}

// listenAddr parses --listen: unix:/path, or host:port whose host is a
// loopback address or localhost.
func listenAddr(s string) (network, addr string, err error) {
	if p, ok := strings.CutPrefix(s, "unix:"); ok {
		if p == "" {
			return "", "", errors.New("proxy: --listen unix: needs a socket path")
		}
		return "unix", p, nil
	}
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		return "", "", fmt.Errorf("proxy: --listen %q: %w", s, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", "", fmt.Errorf("proxy: --listen %s is not a loopback address: client authentication and TLS are not implemented yet", s)
	}
	return "tcp", s, nil
}
