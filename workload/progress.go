package workload

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// PrintProgress returns a Progress that prints "load: done/total (pct%)"
// lines to w, at most once a second and at the end. It is safe for the
// loader's goroutines to call it concurrently.
func PrintProgress(w io.Writer) Progress {
	p := &printer{w: w}
	return p.report
}

type printer struct {
	w    io.Writer
	mu   sync.Mutex
	last time.Time
	done int64
}

func (p *printer) report(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = max(p.done, done)
	if time.Since(p.last) >= time.Second || done == total {
		p.last = time.Now()
		fmt.Fprintf(p.w, "load: %d/%d (%.0f%%)\n", p.done, total, 100*float64(p.done)/float64(max(total, 1)))
	}
}
