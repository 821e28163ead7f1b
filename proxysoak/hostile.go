package proxysoak

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/internal/clock"
)

// HostileConfig tunes the unauthenticated hostile connections that run
// beside the clients; zero values take the defaults.
type HostileConfig struct {
	// OversizedMB is the size of the oversized messages (40): OP_MSG pings
	// padded to that size, OversizedConns at a time (2), every
	// OversizedEvery (20s); each connection then idles 10s before closing.
	OversizedMB    int
	OversizedConns int
	OversizedEvery time.Duration
	// SlowConns connections (8) each send a ping a byte a second.
	SlowConns int
	// FloodConns connections (200) are opened at once every FloodEvery
	// (30s) and held 5s without a byte.
	FloodConns int
	FloodEvery time.Duration
	// GarbageEvery (5s) a connection sends 4 KiB of random bytes.
	GarbageEvery time.Duration
}

func (h *HostileConfig) defaults() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&h.OversizedMB, 40)
	def(&h.OversizedConns, 2)
	def(&h.SlowConns, 8)
	def(&h.FloodConns, 200)
	defD(&h.OversizedEvery, 20*time.Second)
	defD(&h.FloodEvery, 30*time.Second)
	defD(&h.GarbageEvery, 5*time.Second)
}

// hostile runs the hostile connections against addr until ctx ends.
type hostile struct {
	addr string
	cfg  HostileConfig
	st   struct{ oversized, slow, flood, garbage kindCounters }
}

type kindCounters struct{ opened, refused, closed, bytes atomic.Int64 }

func (k *kindCounters) stats() HostileKind {
	return HostileKind{Opened: k.opened.Load(), Refused: k.refused.Load(), ClosedByPeer: k.closed.Load(), BytesSent: k.bytes.Load()}
}

func (h *hostile) stats() *HostileStats {
	return &HostileStats{Oversized: h.st.oversized.stats(), Slow: h.st.slow.stats(), Flood: h.st.flood.stats(), Garbage: h.st.garbage.stats()}
}

// opMsg is an OP_MSG holding doc, as a driver sends it.
func opMsg(doc bson.D) ([]byte, error) {
	body, err := bson.Marshal(doc)
	if err != nil {
		return nil, err
	}
	msg := make([]byte, 21, 21+len(body))
	binary.LittleEndian.PutUint32(msg[0:], uint32(21+len(body)))
	binary.LittleEndian.PutUint32(msg[4:], 1)     // requestID
	binary.LittleEndian.PutUint32(msg[12:], 2013) // OP_MSG; flags 0, then section kind 0
	return append(msg, body...), nil
}

func (h *hostile) run(ctx context.Context) error {
	big, err := opMsg(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"},
		{Key: "pad", Value: bson.Binary{Data: make([]byte, h.cfg.OversizedMB<<20)}}})
	if err != nil {
		return err
	}
	ping, err := opMsg(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	every := func(d time.Duration, f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				f()
				clock.Sleep(ctx, d)
			}
		}()
	}
	for range h.cfg.OversizedConns {
		every(h.cfg.OversizedEvery, func() { h.send(ctx, &h.st.oversized, big, 0, 10*time.Second) })
	}
	for range h.cfg.SlowConns {
		every(time.Second, func() { h.send(ctx, &h.st.slow, ping, time.Second, 0) })
	}
	every(h.cfg.FloodEvery, func() { h.flood(ctx) })
	every(h.cfg.GarbageEvery, func() {
		junk := make([]byte, 4096)
		for i := range junk {
			junk[i] = byte(rand.IntN(256))
		}
		h.send(ctx, &h.st.garbage, junk, 0, 0)
	})
	wg.Wait()
	return nil
}

// send dials, writes msg (a byte every perByte when not 0), waits for a
// reply or the proxy's close, and idles hold before closing.
func (h *hostile) send(ctx context.Context, k *kindCounters, msg []byte, perByte, hold time.Duration) {
	c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", h.addr)
	if err != nil {
		if ctx.Err() == nil {
			k.refused.Add(1)
		}
		return
	}
	defer c.Close()
	k.opened.Add(1)
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if perByte == 0 {
		_ = c.SetWriteDeadline(time.Now().Add(time.Minute))
		n, err := c.Write(msg)
		k.bytes.Add(int64(n))
		if err != nil {
			if ctx.Err() == nil {
				k.closed.Add(1)
			}
			return
		}
	} else {
		for _, b := range msg {
			if _, err := c.Write([]byte{b}); err != nil {
				if ctx.Err() == nil {
					k.closed.Add(1)
				}
				return
			}
			k.bytes.Add(1)
			if !clock.Sleep(ctx, perByte) {
				return
			}
		}
	}
	if closedWithin(c, 10*time.Second) && ctx.Err() == nil {
		k.closed.Add(1)
		return
	}
	if hold > 0 && closedWithin(c, hold) && ctx.Err() == nil {
		k.closed.Add(1)
	}
}

// closedWithin reads (and drops) what c answers for d, and reports whether
// the peer closed it meanwhile.
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// flood opens FloodConns connections at once and holds them 5s.
func (h *hostile) flood(ctx context.Context) {
	k := &h.st.flood
	var wg sync.WaitGroup
	for range h.cfg.FloodConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", h.addr)
			if err != nil {
				if ctx.Err() == nil {
					k.refused.Add(1)
				}
				return
			}
			defer c.Close()
			k.opened.Add(1)
			if closedWithin(c, 5*time.Second) && ctx.Err() == nil {
				k.closed.Add(1)
			}
		}()
	}
	wg.Wait()
}
