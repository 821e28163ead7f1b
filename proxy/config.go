package proxy

import (
	"io"
	"log/slog"
	"time"

	"github.com/decongestant/decongestant/proxy/upstream"
)

// Defaults of Config's zero fields.
const (
	DefaultRequestTimeout = 2 * time.Minute
	DefaultPrimaryWait    = 10 * time.Second
	DefaultMaxAwait       = 10 * time.Second
	DefaultConnectTimeout = 30 * time.Second
	DefaultKillTimeout    = 5 * time.Second
)

// Config configures a Server. Only URI is required.
type Config struct {
	// URI names the replica set, with the proxy's own credentials and TLS
	// options (see upstream.New). It is never logged unredacted.
	URI string
	// Upstream are options for the pool (tests set a dialer or timeouts).
	Upstream []upstream.Option
	// Logger receives one line per closed connection, per recovered panic
	// and per upstream failure; nil discards them.
	Logger *slog.Logger
	// ConnectTimeout bounds New's wait for the set (and the URI's
	// serverSelectionTimeoutMS bounds it too).
	ConnectTimeout time.Duration
	// RequestTimeout bounds every round trip to a member, so a hung member
	// never hangs a client: the client gets an error reply.
	RequestTimeout time.Duration
	// PrimaryWait is how long a command waits for a primary (during an
	// election) before it is answered with an error, as a mongos waits.
	PrimaryWait time.Duration
	// MaxAwait caps how long an awaitable hello is held.
	MaxAwait time.Duration
	// KillTimeout bounds the killCursors sent for a disconnected client's
	// open cursors.
	KillTimeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&c.ConnectTimeout, DefaultConnectTimeout)
	set(&c.RequestTimeout, DefaultRequestTimeout)
	set(&c.PrimaryWait, DefaultPrimaryWait)
	set(&c.MaxAwait, DefaultMaxAwait)
	set(&c.KillTimeout, DefaultKillTimeout)
	return c
}
