package workload

import (
	"strings"
	"sync"
	"testing"
)

func TestPrintProgress(t *testing.T) {
	var b strings.Builder
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return b.Write(p) })
	report := PrintProgress(w)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { report(int64(i*10), 100) })
	}
	wg.Wait()
	report(100, 100)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	// The first call prints, later ones within a second do not, the end does.
	if len(lines) != 2 || lines[1] != "load: 100/100 (100%)" {
		t.Fatalf("printed %q, want a first line and the final 100%%", lines)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
