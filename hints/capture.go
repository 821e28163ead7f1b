package hints

import (
	"sync"
	"sync/atomic"
)

// MaxCommand is the largest read command captured (4 KiB): larger ones are
// not point or small-range reads.
const MaxCommand = 4 << 10

// arenaPerEntry is the arena bytes reserved per entry of a capture buffer:
// a routed find with its session and cluster time is about 250 bytes.
const arenaPerEntry = 512

// entry is one captured read command: its bytes in the buffer's arena and
// the member that served it.
type entry struct {
	off, n uint32
	host   string
}

// buffer is one side of the double buffer, allocated once.
type buffer struct {
	entries []entry
	arena   []byte
}

func newBuffer(maxBatch int) *buffer {
	return &buffer{entries: make([]entry, 0, maxBatch), arena: make([]byte, 0, maxBatch*arenaPerEntry)}
}

// Capture is the double buffer the hot path appends to (the read-hints paper,
// §3.1): one side fills while the shipper summarises the other. Both sides are
// allocated up front; an append copies the command into the side's arena and
// allocates nothing. When the filling side is full before the shipper swaps it,
// further reads are dropped and counted: hints are best effort.
type Capture struct {
	mu       sync.Mutex
	cur      *buffer
	spare    *buffer
	maxBatch int
	// Full receives a value (without blocking) when the filling side
	// reaches MaxBatch entries or its arena is full: ship early.
	Full chan struct{}

	captured, dropped atomic.Int64
}

// NewCapture allocates both sides for maxBatch entries each.
func NewCapture(maxBatch int) *Capture {
	return &Capture{cur: newBuffer(maxBatch), spare: newBuffer(maxBatch), maxBatch: maxBatch, Full: make(chan struct{}, 1)}
}

// Add appends a read command served by host. Safe for concurrent use.
func (c *Capture) Add(host string, cmd []byte) {
	if len(cmd) > MaxCommand {
		return
	}
	c.mu.Lock()
	b := c.cur
	if len(b.entries) == c.maxBatch || len(b.arena)+len(cmd) > cap(b.arena) {
		c.mu.Unlock()
		c.dropped.Add(1)
		c.signal()
		return
	}
	off := len(b.arena)
	b.arena = append(b.arena, cmd...)
	b.entries = append(b.entries, entry{off: uint32(off), n: uint32(len(cmd)), host: host})
	full := len(b.entries) == c.maxBatch
	c.mu.Unlock()
	c.captured.Add(1)
	if full {
		c.signal()
	}
}

func (c *Capture) signal() {
	select {
	case c.Full <- struct{}{}:
	default:
	}
}

// Swap hands the filled side to the caller and starts filling the spare.
// The caller must Release the batch before the next Swap.
func (c *Capture) Swap() *Batch {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.cur
	c.cur, c.spare = c.spare, nil
	if c.cur == nil { // Swap without Release: keep filling the same side
		c.cur = b
		return &Batch{}
	}
	return &Batch{b: b}
}

// Release empties a swapped-out batch and makes it the spare side.
func (c *Capture) Release(bt *Batch) {
	if bt.b == nil {
		return
	}
	bt.b.entries, bt.b.arena = bt.b.entries[:0], bt.b.arena[:0]
	c.mu.Lock()
	c.spare = bt.b
	c.mu.Unlock()
	bt.b = nil
}

// Counts returns the reads captured and dropped so far.
func (c *Capture) Counts() (captured, dropped int64) { return c.captured.Load(), c.dropped.Load() }

// Batch is a swapped-out side: the reads captured in one interval.
type Batch struct{ b *buffer }

// Len returns the number of reads in the batch.
func (bt *Batch) Len() int {
	if bt.b == nil {
		return 0
	}
	return len(bt.b.entries)
}

// command returns the i-th read's command and the member that served it.
func (bt *Batch) command(i int) ([]byte, string) {
	e := bt.b.entries[i]
	return bt.b.arena[e.off : e.off+e.n], e.host
}
