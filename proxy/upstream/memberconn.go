package upstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/address"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/mnet"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// memberConn is one of the pool's own connections to a member: a TCP (or
// TLS) connection that went through the driver's handshake and
// authentication (its exported Handshaker and authenticators, run over
// this type as an mnet connection), then carries raw OP_MSG round trips
// with no goroutine of its own: a context's deadline becomes the socket's,
// and its cancellation a deadline in the past (context.AfterFunc), where
// the driver's connection starts a goroutine per read and per write.
//
// A memberConn is used by one request at a time (the pool hands it out).
type memberConn struct {
	nc   net.Conn
	br   *bufio.Reader
	addr address.Address
	id   string // addr[-N], for errors and the driver's ProcessError
	pool *memberPool
	gen  uint64 // the pool's generation when it was made

	desc         description.Server // from its handshake
	serverConnID *int64             // the member's id of it (hello's connectionId)
	maxMessage   int
	lastUsed     time.Time
	oidcGen      atomic.Uint64
}

// readerSize is each member connection's read buffer: replies larger than
// it are read straight into their own slice.
const readerSize = 16 << 10

// defaultMaxMessage is the largest message a member announces by default
// (48 MB), before its handshake says.
const defaultMaxMessage = 48_000_000

// aLongTimeAgo is a deadline in the past: it unblocks a read or write at
// once.
var aLongTimeAgo = time.Unix(1, 0)

var connSeq atomic.Int64

// dial opens a connection to mp's member, TLS when configured, and runs
// the handshake and authentication. Its errors wrap ErrUnavailable (or
// ErrAuthentication), and a network failure is reported to the driver's
// server as a handshake error, as the driver's own pool does.
func (mp *memberPool) dial(ctx context.Context) (*memberConn, error) {
	p, addr := mp.pool, mp.addr
	request := ctx // the request's own end is not the member's fault
	if t := p.connectTimeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t)
		defer cancel()
	}
	gen := mp.gen.Load()
	c := &memberConn{addr: address.Address(addr), pool: mp, gen: gen, maxMessage: defaultMaxMessage}
	c.id = addr + "-" + strconv.FormatInt(connSeq.Add(1), 10)
	fail := func(what string, err error) (*memberConn, error) {
		if c.nc != nil {
			_ = c.nc.Close()
		}
		if credentialsRefused(err) {
			return nil, p.redact(fmt.Errorf("upstream %s: %w as %s: %w", addr, ErrAuthentication, p.user, err))
		}
		if request.Err() == nil {
			// As the driver's pool does with a connection it could not
			// make: the member is marked unknown and its pool cleared
			// until a heartbeat reaches it.
			mp.srv.ProcessHandshakeError(topology.ConnectionError{ConnectionID: c.id, Wrapped: err}, ^uint64(0), nil)
			mp.pause()
		}
		return nil, p.redact(fmt.Errorf("upstream %s: %w: %s: %w", addr, ErrUnavailable, what, err))
	}
	nc, err := p.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fail("connecting", err)
	}
	c.nc = nc
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if p.tls != nil {
		cfg := p.tls.Clone()
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = host
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fail("TLS handshake", err)
		}
		c.nc = tc
	}
	c.br = bufio.NewReaderSize(c.nc, readerSize)
	conn := mnet.NewConnection(handshakeConn{c})
	hs := p.handshaker()
	info, err := hs.GetHandshakeInformation(ctx, c.addr, conn)
	if err == nil {
		c.desc, c.serverConnID = info.Description, info.ServerConnectionID
		if n := int(info.Description.MaxMessageSize); n > 0 {
			c.maxMessage = n
		}
		err = hs.FinishHandshake(ctx, conn)
	}
	if err != nil {
		return fail("handshake", err)
	}
	c.lastUsed = time.Now()
	return c, nil
}

// credentialsRefused reports whether a handshake failed in authentication
// (the driver's auth.Error), not in its hello, which the driver's
// handshaker reports as an auth.Error too ("handshake failure").
func credentialsRefused(err error) bool {
	var ae *auth.Error
	return errors.As(err, &ae) && ae.Message() != "handshake failure"
}

// roundTrip writes msg and, unless noReply, reads one reply. ctx's
// deadline bounds both; its cancellation unblocks them. The error is the
// network's (wrapped in the driver's ConnectionError for ProcessError) or
// ctx's cause when ctx ended first.
func (c *memberConn) roundTrip(ctx context.Context, msg []byte, noReply bool) ([]byte, error) {
	stop, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	_, err = c.nc.Write(msg)
	var reply []byte
	if err == nil && !noReply {
		reply, err = c.readMessage()
	}
	if !stop() && err == nil {
		// ctx ended as the exchange finished: the deadline it set may
		// have cut it, so the connection is not trusted again.
		err = context.Cause(ctx)
	}
	if err != nil {
		return nil, topology.ConnectionError{ConnectionID: c.id, Wrapped: ctxError(ctx, err)}
	}
	c.lastUsed = time.Now()
	return reply, nil
}

// ctxError says when err came from ctx's end: ctx's cause, or
// context.DeadlineExceeded for a socket timeout, which only ctx's
// deadline sets (it may fire a moment before ctx says it is done), as the
// driver's connection says.
func ctxError(ctx context.Context, err error) error {
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", context.Cause(ctx), err)
	case errors.As(err, &ne) && ne.Timeout():
		if _, ok := ctx.Deadline(); ok {
			return fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
		}
	}
	return err
}

// watch sets the socket's deadline from ctx's and arranges for ctx's end
// to unblock the socket at once. stop ends the watch and reports whether
// it ended before ctx did.
func (c *memberConn) watch(ctx context.Context) (stop func() bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	deadline, _ := ctx.Deadline()
	if err := c.nc.SetDeadline(deadline); err != nil {
		return nil, err
	}
	if ctx.Done() == nil {
		return func() bool { return true }, nil
	}
	return context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(aLongTimeAgo) }), nil
}

// readMessage reads one whole message: its length, checked against the
// member's maximum, then the rest.
func (c *memberConn) readMessage() ([]byte, error) {
	head, err := c.br.Peek(4)
	if err != nil {
		return nil, err
	}
	n := int(int32(binary.LittleEndian.Uint32(head)))
	if n < 16 || n > c.maxMessage {
		return nil, fmt.Errorf("%w: a message of %d bytes", ErrProtocol, n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(c.br, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

// alive reports whether an idle connection is still open: a read that
// would block means it is; end of file, an error, or bytes nobody asked
// for mean it is not.
func (c *memberConn) alive() bool {
	if c.br.Buffered() > 0 {
		return false
	}
	if err := c.nc.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		return false
	}
	_, err := c.br.Peek(1)
	_ = c.nc.SetReadDeadline(time.Time{})
	return errors.Is(err, os.ErrDeadlineExceeded)
}

func (c *memberConn) close() { _ = c.nc.Close() }

// The mnet connection the driver's handshake and authenticators run over.

func (c *memberConn) Read(ctx context.Context) ([]byte, error) {
	stop, err := c.watch(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	return c.readMessage()
}

func (c *memberConn) Write(ctx context.Context, wm []byte) error {
	stop, err := c.watch(ctx)
	if err != nil {
		return err
	}
	defer stop()
	_, err = c.nc.Write(wm)
	return err
}

func (c *memberConn) Close() error                    { return c.nc.Close() }
func (c *memberConn) Description() description.Server { return c.desc }
func (c *memberConn) ID() string                      { return c.id }
func (c *memberConn) ServerConnectionID() *int64      { return c.serverConnID }
func (c *memberConn) DriverConnectionID() int64       { return 0 }
func (c *memberConn) Address() address.Address        { return c.addr }
func (c *memberConn) Stale() bool                     { return c.gen != c.pool.gen.Load() }
func (c *memberConn) OIDCTokenGenID() uint64          { return c.oidcGen.Load() }
func (c *memberConn) SetOIDCTokenGenID(id uint64)     { c.oidcGen.Store(id) }

// handshakeConn is a memberConn during its handshake: the driver's
// operations close the connection they ran on when done, which must not
// close this one (the driver's own pool wraps its connections alike).
type handshakeConn struct{ *memberConn }

func (handshakeConn) Close() error { return nil }

var _ interface {
	mnet.ReadWriteCloser
	mnet.Describer
} = (*memberConn)(nil)
