package proxy

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/proxy/upstream"
	"github.com/decongestant/decongestant/router"
)

// Defaults of Config's zero fields.
const (
	DefaultPrimaryWait    = 30 * time.Second
	DefaultConnectTimeout = 30 * time.Second
	DefaultKillTimeout    = 5 * time.Second

	// DefaultHandshakeTimeout bounds a client's TLS handshake: a driver
	// completes one in milliseconds (its connectTimeoutMS, 10 to 30 s,
	// bounds the whole connection set-up).
	DefaultHandshakeTimeout = 10 * time.Second
	// DefaultAuthTimeout bounds, before authentication (with
	// Config.Users), the first message from the accept and each later one
	// from its first byte: drivers send their handshake at once.
	DefaultAuthTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds the write of one reply: a client that
	// does not read (48 MB at most) within it is closed.
	DefaultWriteTimeout = time.Minute
	// DefaultMaxConnections caps the client connections: an idle one costs
	// at most 14 KiB (31 KiB with TLS: goroutine, read buffer, TLS state;
	// measured over 2 000, both ends counted), so the cap keeps that near
	// 300 MB, far from the file-descriptor limit Go raises to the hard one
	// (mongod's own default, 80 % of that limit, is no memory bound).
	DefaultMaxConnections = 10_000
	// DefaultCursorTimeout is mongod's default cursorTimeoutMillis.
	DefaultCursorTimeout = 10 * time.Minute
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
	// RequestTimeout, when positive, bounds every round trip to a member,
	// so a hung member never hangs a client: the client gets a
	// NetworkTimeout error reply. Zero (the default): no bound of the
	// proxy's own, as a mongos has none; a command's maxTimeMS bounds its
	// round trip (plus a margin) either way, and a request whose client
	// hangs up is cancelled on its member.
	RequestTimeout time.Duration
	// PrimaryWait is how long a command waits for a primary (during an
	// election) before it is answered with an error, as a mongos waits: 30
	// s by default, the drivers' serverSelectionTimeoutMS, so a client of
	// the proxy waits out an election as a client of the set would (an
	// election after the primary is killed takes the 10 s election timeout
	// and more: with 10 s here, a run with kill=primary through the proxy
	// saw FailedToSatisfyReadPreference errors the library's run did not).
	// Routed reads wait too when no secondary can be vouched for: without
	// a primary, no lag poll vouches for any.
	PrimaryWait time.Duration
	// KillTimeout bounds the killOp of a request its client abandoned.
	KillTimeout time.Duration
	// CursorTimeout is how long the proxy remembers which member owns a
	// cursor no client has used: the members' cursorTimeoutMillis (10
	// minutes by default), after which they have killed it themselves. A
	// client connection that closes leaves its cursors open, as with a
	// mongos: drivers continue a cursor over any pooled connection.
	CursorTimeout time.Duration

	// HandshakeTimeout bounds a TLS client's handshake (a listener made
	// with tls.NewListener); negative: no bound.
	HandshakeTimeout time.Duration
	// AuthTimeout, with Users, closes a connection that has not
	// authenticated and has not sent its first message whole that long
	// after it was accepted, or a later message that long after its first
	// byte (see deadlines: drivers' monitoring connections never
	// authenticate); negative: no bound.
	AuthTimeout time.Duration
	// IdleTimeout closes a connection that sends no message for that long;
	// zero (the default): never. Drivers keep pooled connections idle
	// indefinitely (maxIdleTimeMS defaults to 0) and treat a connection
	// closed under them as a network error that clears their whole pool,
	// so set it only above the clients' maxIdleTimeMS.
	IdleTimeout time.Duration
	// WriteTimeout bounds the write of each reply, so a client that does
	// not read its replies cannot hold a goroutine and a buffer forever;
	// negative: no bound.
	WriteTimeout time.Duration
	// MaxConnections caps the client connections: past it, a new
	// connection is closed as soon as it is accepted (logged at most once
	// every 10 s) while the others carry on; negative: no cap.
	MaxConnections int

	// Policy routes eligible reads per member (balancer.NewPerRead,
	// balancer.NewSpillway, weights:...: a per-member policy); nil sends every
	// command to the primary. The proxy runs a router for it (made
	// router.WithExternalReads) on URI: its lag polls, per-member shares,
	// Stats and metrics are the library's.
	Policy balancer.Policy
	// Reads says which eligible reads the policy routes: ReadsOptedIn (the
	// default) or ReadsAll.
	Reads Reads
	// MaxStaleness, when positive, is checked for every routed read on
	// top of the policy (ReadSpec.MaxStaleness: the member's lag in the
	// latest known poll plus the time since): a second gate that also
	// bounds policies without a bound of their own (weights:...). A read's
	// maxStalenessSeconds tightens it.
	MaxStaleness time.Duration
	// NoReadYourWrites turns off the connections' read-your-writes fence:
	// by default, after a write acknowledged on a client connection, that
	// connection's routed reads go only to members known to have applied
	// it (else to the primary).
	NoReadYourWrites bool
	// Router are options for the policy's router (monitor intervals, a
	// logger, events); the proxy adds WithPolicy and WithExternalReads.
	Router []router.Option

	// Users, when non-nil, are the users clients must authenticate as,
	// with SCRAM-SHA-256, before any command but hello, isMaster, ping,
	// buildInfo, whatsmyuri and connectionStatus (as mongod requires). They
	// are the proxy's own users, not the replica set's: the proxy
	// forwards every authenticated client's commands as URI's user, whose
	// credentials clients never see. nil: clients do not authenticate (and
	// the proxy refuses those that try). Encryption is the listener's:
	// give Serve a tls.NewListener.
	Users *Credentials
	// RefuseAdminCommands refuses (Unauthorized) the commands that
	// administer the replica set or its servers rather than read or write
	// an application's data: shutdown, replSetReconfig, replSetStepDown,
	// setFeatureCompatibilityVersion, setParameter, fsync, killOp,
	// killAllSessions, user and role management, internal commands...
	// (see adminCommands). Every client runs its commands as URI's user:
	// without it, a client may do all that user may.
	RefuseAdminCommands bool

	// EnableTestCommands, for tests only, makes the proxy honour
	// configureFailPoint "failCommand" itself, for its own client
	// connections, as a mongos started with enableTestCommands does (so
	// the drivers' specification tests fail the proxy, not a member): any
	// client may then fail, delay or drop any other client's commands.
	// Off: configureFailPoint goes to the primary like any command.
	EnableTestCommands bool
}

// Reads says which eligible reads (find, aggregate without $out or $merge,
// count, distinct, outside transactions) the policy routes.
type Reads uint8

const (
	// ReadsOptedIn routes the reads sent with a read preference other
	// than primary (secondaryPreferred, secondary, nearest; and
	// primaryPreferred when there is no primary); the others stay on the
	// primary, so adopting the proxy changes nothing until the application
	// opts in.
	ReadsOptedIn Reads = iota
	// ReadsAll also routes the eligible reads sent with no read preference,
	// for applications that accept the staleness bound on every read; a
	// read sent with mode primary explicitly stays on the primary.
	ReadsAll
)

// String returns "opted-in" or "all".
func (r Reads) String() string {
	switch r {
	case ReadsOptedIn:
		return "opted-in"
	case ReadsAll:
		return "all"
	}
	return fmt.Sprintf("reads(%d)", uint8(r))
}

// ParseReads accepts "opted-in" and "all".
func ParseReads(s string) (Reads, error) {
	switch s {
	case "opted-in":
		return ReadsOptedIn, nil
	case "all":
		return ReadsAll, nil
	}
	return 0, fmt.Errorf("unknown reads %q (want opted-in or all)", s)
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
	c.RequestTimeout = max(c.RequestTimeout, 0)
	set(&c.PrimaryWait, DefaultPrimaryWait)
	set(&c.KillTimeout, DefaultKillTimeout)
	// Negative bounds mean none; zero takes the default.
	for _, d := range []struct {
		p *time.Duration
		v time.Duration
	}{{&c.HandshakeTimeout, DefaultHandshakeTimeout}, {&c.AuthTimeout, DefaultAuthTimeout}, {&c.WriteTimeout, DefaultWriteTimeout}} {
		if *d.p == 0 {
			*d.p = d.v
		}
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	set(&c.CursorTimeout, DefaultCursorTimeout)
	return c
}
