package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/decongestant/decongestant/proxy"
)

// lifecycleFlags are the proxy's deadlines, connection cap and drain.
type lifecycleFlags struct {
	handshake, auth, idle, write, drain *time.Duration
	maxConns                            *int
}

// defineLifecycle registers the proxy's deadline, cap and drain flags.
func defineLifecycle(fs *flag.FlagSet) lifecycleFlags {
	return lifecycleFlags{
		maxConns:  fs.Int("max-connections", proxy.DefaultMaxConnections, "client connections at most: past it a new connection is closed at once (logged at most every 10 s) while the others carry on; 0 = no cap"),
		handshake: fs.Duration("handshake-timeout", proxy.DefaultHandshakeTimeout, "with --tls-cert, close a client that has not completed its TLS handshake within this `duration`; 0 = no bound"),
		auth:      fs.Duration("auth-timeout", proxy.DefaultAuthTimeout, "with --users, close a client that has not authenticated and does not send a whole message within this `duration` (the first: of connecting; a later one: of its first byte); 0 = no bound"),
		idle:      fs.Duration("idle-timeout", 0, "close a client connection that sends nothing for this `duration`; 0 (the default) = never, as drivers keep pooled connections idle indefinitely and clear their whole pool when one is closed under them"),
		write:     fs.Duration("write-timeout", proxy.DefaultWriteTimeout, "close a client that has not read a reply within this `duration`; 0 = no bound"),
		drain:     fs.Duration("drain-timeout", 30*time.Second, "on SIGTERM or SIGINT, stop accepting and let requests in flight finish for up to this `duration`, then close the rest (a second signal closes them at once)"),
	}
}

// apply checks the flags and sets cfg's deadlines and cap (0 on the
// command line, no bound, is negative in proxy.Config).
func (l lifecycleFlags) apply(cfg *proxy.Config) error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--handshake-timeout", *l.handshake}, {"--auth-timeout", *l.auth}, {"--idle-timeout", *l.idle}, {"--write-timeout", *l.write}, {"--drain-timeout", *l.drain}} {
		if d.v < 0 {
			return fmt.Errorf("proxy: %s %v: want a duration of 0 or more", d.name, d.v)
		}
	}
	if *l.maxConns < 0 {
		return fmt.Errorf("proxy: --max-connections %d: want 0 (no cap) or more", *l.maxConns)
	}
	off := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1
		}
		return d
	}
	cfg.HandshakeTimeout, cfg.AuthTimeout, cfg.WriteTimeout, cfg.IdleTimeout = off(*l.handshake), off(*l.auth), off(*l.write), *l.idle
	cfg.MaxConnections = *l.maxConns
	if cfg.MaxConnections == 0 {
		cfg.MaxConnections = -1
	}
	return nil
}

// drainSignals are the signals that start a drain and, the second time,
// end it (tests use another: testutil.Main ends a test binary on SIGINT
// and SIGTERM).
var drainSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// errSecondSignal ends a drain when a second SIGTERM or SIGINT arrives.
var errSecondSignal = errors.New("a second signal")

// serveAndDrain serves ln until ctx ends (the first SIGTERM or SIGINT),
// then drains s for up to --drain-timeout, or until a second signal.
func (l lifecycleFlags) serveAndDrain(ctx context.Context, s *proxy.Server, ln net.Listener, stderr io.Writer) error {
	if err := s.Serve(ctx, ln); err != nil {
		return err
	}
	dctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, drainSignals...)
	defer signal.Stop(sig)
	go func() {
		select {
		case <-sig:
			cancel(errSecondSignal)
		case <-dctx.Done():
		}
	}()
	dctx, stop := context.WithTimeoutCause(dctx, *l.drain, fmt.Errorf("--drain-timeout %v", *l.drain))
	defer stop()
	fmt.Fprintf(stderr, "proxy: draining: requests in flight have up to %v (--drain-timeout); a second signal stops now\n", *l.drain)
	return s.Shutdown(dctx)
}
