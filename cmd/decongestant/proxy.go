package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/internal/redact"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/proxy"
	"github.com/decongestant/decongestant/router"
)

const proxyLong = `Clients authenticate as the users of --users (SCRAM-SHA-256; "decongestant proxy-user" makes
the file) and use TLS (--tls-cert, --tls-key); a --listen address beyond loopback needs both.
See docs/proxy.md.
`

// defineProxy defines the proxy: it runs until ctx ends (SIGTERM, Ctrl-C), then drains (see
// serveAndDrain); listener, client connections and upstream pool are closed before it returns.
func defineProxy(fs *flag.FlagSet) action {
	uri := fs.String("uri", "", "the replica set's MongoDB URI, with the proxy's own credentials and TLS options; anyone on the host sees it in ps: prefer --uri-file or $"+proxyURIEnv+" (exactly one of the three)")
	uriFile := fs.String("uri-file", "", "read the URI from this `file` (one line; mode 0600 or 0400) instead of --uri")
	listen := fs.String("listen", "127.0.0.1:27018", "address to listen on: host:port, or unix:/path.sock; beyond loopback only with --users and --tls-cert/--tls-key")
	policy := fs.String("policy", "leastwait", "routing policy for the reads it routes: leastwait (leastwait:2 beside other instances), spillway, p2c, prequal or weights:n2=0.5,n3=0.5 (a per-member policy), or primary (route nothing: every command to the primary)")
	staleness := fs.String("max-staleness", "10s", "staleness bound of the routed reads: a duration, or 0 (no secondary reads); a read's own maxStalenessSeconds tightens it")
	reads := fs.String("reads", "opted-in", "which reads the policy routes: opted-in (reads sent with a read preference other than primary) or all (every find, aggregate without $out/$merge, count and distinct outside transactions)")
	ryw := fs.String("read-your-writes", "on", "on: after a write acknowledged on a client connection, its routed reads go only to members that have applied it (else the primary); off")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics of the proxy's router at http://`host:port`/metrics, and the probes /healthz and /readyz, e.g. 127.0.0.1:9464; off by default")
	profiles := fs.Bool("pprof", false, "with --metrics-addr, also serve the Go runtime's profiles at http://host:port/debug/pprof/ (heap, goroutine, profile, trace), e.g. for go tool pprof under load; off by default")
	users := fs.String("users", "", "clients must authenticate (SCRAM-SHA-256) as a user of this `file` (made with decongestant proxy-user; mode 0600)")
	tlsCert := fs.String("tls-cert", "", "serve clients TLS with this certificate chain (`PEM` file); with --tls-key")
	tlsKey := fs.String("tls-key", "", "the certificate's private key (`PEM` file)")
	requestTimeout := fs.Duration("request-timeout", 0, "bound every round trip to a member to this `duration` (the client then gets a NetworkTimeout error and its operation is killed), e.g. 5m; 0: none, as a mongos (a command's maxTimeMS bounds its own round trip, plus 2s, either way)")
	tlsCA := fs.String("tls-ca", "", "require client certificates signed by a CA of this `PEM` file (on top of --users); off by default")
	lagSource := fs.String("lag-source", "auto", lagSourceHelp)
	heartbeatNS := fs.String("heartbeat-ns", "", "the heartbeat's `db.collection` (--lag-source heartbeat or auto): one small document written every lag poll, in a database the --uri's user may write (default: the --uri's database, else decongestant; collection decongestant_heartbeat)")
	life := defineLifecycle(fs)
	refuseAdmin := fs.Bool("refuse-admin-commands", false, "refuse (Unauthorized) the commands that administer the replica set: shutdown, replSetReconfig, replSetStepDown, setFeatureCompatibilityVersion, setParameter, fsync, killOp, killAllSessions, user and role management...; every client runs as the --uri's user, so without this a client may do all that user may (see docs/proxy.md)")
	testCommands := fs.Bool("enable-test-commands", false, "for tests only: answer configureFailPoint \"failCommand\" on the proxy and fail its clients' commands as told, as a mongos with enableTestCommands does (any client can then fail any other's commands); off by default")
	var (
		network, addr string
		cfg           proxy.Config
	)
	check := noArgs("proxy", func() (err error) {
		_, envSet := os.LookupEnv(proxyURIEnv)
		if err := uriSources(*uri, *uriFile, envSet); err != nil {
			return err
		}
		if (*tlsCert == "") != (*tlsKey == "") || (*tlsCA != "" && *tlsCert == "") {
			return errors.New("proxy: --tls-cert and --tls-key go together (and --tls-ca needs them)")
		}
		if network, addr, err = listenAddr(*listen, *users != "", *tlsCert != ""); err != nil {
			return err
		}
		if cfg, err = proxyConfig(*uri, *policy, *staleness, *reads, *ryw); err != nil {
			return err
		}
		src, beat, err := lagFlags(*lagSource, *heartbeatNS)
		if err != nil {
			return fmt.Errorf("proxy: %w", err)
		}
		cfg.Router = append(cfg.Router, router.WithMonitor(monitor.Config{LagSource: src, Heartbeat: beat}))
		if err := life.apply(&cfg); err != nil {
			return err
		}
		if *requestTimeout < 0 {
			return fmt.Errorf("proxy: --request-timeout %v: want a duration of 0 (none) or more", *requestTimeout)
		}
		cfg.RequestTimeout = *requestTimeout
		if *metricsAddr != "" {
			if _, _, err := net.SplitHostPort(*metricsAddr); err != nil {
				return fmt.Errorf("proxy: --metrics-addr %q: want host:port, e.g. 127.0.0.1:9464: %v", *metricsAddr, err)
			}
		}
		if *profiles && *metricsAddr == "" {
			return errors.New("proxy: --pprof serves on --metrics-addr: set it too, e.g. --metrics-addr 127.0.0.1:9464")
		}
		return nil
	})
	return action{check: check, run: func(ctx context.Context, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
		var (
			creds   *proxy.Credentials
			tlsConf *tls.Config
			err     error
		)
		if *users != "" {
			if creds, err = proxy.LoadCredentials(*users); err != nil {
				return fmt.Errorf("proxy: --users: %w", err)
			}
		}
		if *tlsCert != "" {
			if tlsConf, err = serverTLS(*tlsCert, *tlsKey, *tlsCA); err != nil {
				return err
			}
		}
		env, envSet := os.LookupEnv(proxyURIEnv)
		if cfg.URI, err = proxyURI(*uri, *uriFile, env, envSet); err != nil {
			return err
		}
		cfg.Users = creds
		cfg.RefuseAdminCommands = *refuseAdmin
		cfg.EnableTestCommands = *testCommands
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, nil))
		m, err := startMetrics(*metricsAddr, *profiles, stderr) // before connecting: a taken port fails fast
		if err != nil {
			return err
		}
		defer m.close()
		m.serveHealth()
		s, err := proxy.New(cfg)
		if err != nil {
			return err
		}
		defer s.Close()
		m.setReady(s.Ready)
		if m != nil && s.Router() != nil {
			m.col.Set(s.Router())
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			return fmt.Errorf("proxy: listen on %s: %w", *listen, err)
		}
		if tlsConf != nil {
			ln = tls.NewListener(ln, tlsConf)
		}
		fmt.Fprintf(stdout, "decongestant proxy: %s -> %s, policy %s, reads %s, read-your-writes %s, clients: %s (Ctrl-C stops)\n",
			ln.Addr(), redact.URI(cfg.URI), *policy, cfg.Reads, *ryw, clientSecurity(creds, tlsConf))
		if cfg.EnableTestCommands {
			fmt.Fprintln(stderr, "decongestant proxy: --enable-test-commands: any client may fail, delay or drop other clients' commands (configureFailPoint failCommand); for tests only")
		}
		return life.serveAndDrain(ctx, s, ln, stderr)
	}}
}

// proxyConfig turns the routing flags into a proxy.Config for uri.
func proxyConfig(uri, policy, staleness, reads, ryw string) (proxy.Config, error) {
	cfg := proxy.Config{URI: uri}
	var err error
	if cfg.Reads, err = proxy.ParseReads(reads); err != nil {
		return cfg, fmt.Errorf("proxy: --reads: %w", err)
	}
	switch ryw {
	case "on":
	case "off":
		cfg.NoReadYourWrites = true
	default:
		return cfg, fmt.Errorf("proxy: --read-your-writes %q: want on or off", ryw)
	}
	bound, err := balancer.ParseBound(staleness)
	if err != nil {
		return cfg, fmt.Errorf("proxy: --max-staleness: %w", err)
	}
	if bound.Unbounded {
		return cfg, fmt.Errorf("proxy: --max-staleness %s: the proxy routes reads only within a bound: give a duration, e.g. 10s", staleness)
	}
	if policy == "primary" {
		return cfg, nil
	}
	p, err := balancer.Parse(policy, balancer.DefaultSettings().WithBound(bound))
	if err != nil {
		return cfg, fmt.Errorf("proxy: --policy: %w", err)
	}
	if p.Selection().Mode != balancer.PerMember {
		return cfg, fmt.Errorf("proxy: --policy %s does not choose a member for each read: give leastwait, spillway, p2c, prequal, weights:..., or primary", policy)
	}
	cfg.Policy, cfg.MaxStaleness = p, bound.Max
	return cfg, nil
}

// listenAddr parses --listen: unix:/path, or host:port. A host that is not
// a loopback address (nor localhost) needs both client authentication
// (users) and TLS: clients beyond the host would otherwise reach the
// replica set with the proxy's credentials, in the clear.
func listenAddr(s string, users, useTLS bool) (network, addr string, err error) {
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
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) && (!users || !useTLS) {
		var missing []string
		if !users {
			missing = append(missing, "--users FILE (users made with decongestant proxy-user)")
		}
		if !useTLS {
			missing = append(missing, "--tls-cert PEM --tls-key PEM")
		}
		return "", "", fmt.Errorf("proxy: --listen %s is not a loopback address: clients beyond this host must authenticate and use TLS, else anyone who reaches the port uses the replica set with the proxy's credentials: add %s",
			s, strings.Join(missing, " and "))
	}
	return "tcp", s, nil
}

// serverTLS is the TLS configuration of the listener: the certificate and
// key, TLS 1.2 at least, and client certificates signed by a CA of caFile
// required when caFile is given.
func serverTLS(certFile, keyFile, caFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("proxy: --tls-cert %s / --tls-key %s: %w", certFile, keyFile, err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("proxy: --tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("proxy: --tls-ca %s holds no PEM certificate", caFile)
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return c, nil
}

// clientSecurity says how clients connect, for the start-up line.
func clientSecurity(creds *proxy.Credentials, t *tls.Config) string {
	auth := "no authentication"
	if creds != nil {
		auth = fmt.Sprintf("SCRAM-SHA-256 (%d users)", creds.Len())
		if creds.Len() == 1 {
			auth = "SCRAM-SHA-256 (1 user)"
		}
	}
	switch {
	case t == nil:
		return auth + ", no TLS"
	case t.ClientCAs != nil:
		return auth + ", TLS with client certificates"
	}
	return auth + ", TLS"
}
