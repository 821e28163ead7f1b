package proxysoak

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/decongestant/decongestant/metrics"
)

// sampler reads the proxy process every interval: its RSS and open file
// descriptors from /proc, its live heap from its heap profile (after a
// forced collection: the profile's gc=1).
type sampler struct {
	pid     int
	metrics string // host:port
	start   time.Time
	client  *http.Client
	// warmup is left out of the live heap's verdict: the first samples,
	// before the clients connected, hold nothing of theirs.
	warmup time.Duration

	mu      sync.Mutex
	samples []Sample
	peakMB  float64
}

func (s *sampler) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *sampler) sample(ctx context.Context) {
	var (
		rss, hwm, heap float64
		fds            []os.DirEntry
		err            error
	)
	if s.pid != 0 {
		if rss, hwm, err = procMemory(s.pid); err != nil {
			return // gone: the run notices
		}
		fds, _ = os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.pid))
	}
	var goroutines int
	if s.metrics != "" {
		heap, _ = s.liveHeap(ctx)
		goroutines, _ = s.goroutines(ctx)
	}
	if s.pid == 0 && heap == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.samples = append(s.samples, Sample{TS: metrics.Round3(time.Since(s.start).Seconds()), RSSMB: metrics.Round3(rss),
		HeapMB: metrics.Round3(heap), FDs: len(fds), Goroutines: goroutines})
	s.peakMB = max(s.peakMB, hwm)
}

// usage summarises the samples.
func (s *sampler) usage() ProxyUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := ProxyUsage{PID: s.pid, PeakRSSMB: metrics.Round3(s.peakMB), Samples: append([]Sample(nil), s.samples...)}
	for _, x := range s.samples {
		u.RSSMaxMB = max(u.RSSMaxMB, x.RSSMB)
		u.FDsMax = max(u.FDsMax, x.FDs)
		u.GoroutinesMax = max(u.GoroutinesMax, x.Goroutines)
	}
	var measured []Sample
	for _, x := range s.samples {
		if x.TS >= s.warmup.Seconds() {
			measured = append(measured, x)
		}
	}
	u.HeapQ1MB, u.HeapQ4MB, u.HeapGrowthPct = heapGrowth(measured)
	return u
}

// procMemory reads VmRSS and VmHWM (MiB) from /proc/PID/status.
func procMemory(pid int) (rss, hwm float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	return statusKB(b, "VmRSS:") / 1024, statusKB(b, "VmHWM:") / 1024, nil
}

// statusKB returns the kB figure of a /proc status line ("VmRSS:  1234 kB").
func statusKB(status []byte, key string) float64 {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				v, _ := strconv.ParseFloat(f[0], 64)
				return v
			}
		}
	}
	return 0
}

// liveHeap reads HeapAlloc (MiB) from the proxy's heap profile in text
// form, taken right after a garbage collection: the live heap.
func (s *sampler) liveHeap(ctx context.Context) (float64, error) {
	var mb float64
	err := s.profile(ctx, "heap?gc=1&debug=1", func(r io.Reader) (err error) {
		mb, err = heapAlloc(r)
		return err
	})
	return mb, err
}

// goroutines reads the proxy's goroutine count from its goroutine profile.
func (s *sampler) goroutines(ctx context.Context) (int, error) {
	var n int
	err := s.profile(ctx, "goroutine?debug=1", func(r io.Reader) error {
		line, err := bufio.NewReader(r).ReadString('\n')
		if _, serr := fmt.Sscanf(line, "goroutine profile: total %d", &n); serr != nil {
			return fmt.Errorf("goroutine profile: %q: %w", line, errors.Join(err, serr))
		}
		return nil
	})
	return n, err
}

// profile fetches one of the proxy's profiles (name and query) and hands
// its body to read.
func (s *sampler) profile(ctx context.Context, name string, read func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.metrics+"/debug/pprof/"+name, nil)
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile %s: %s", name, resp.Status)
	}
	return read(resp.Body)
}

// heapAlloc finds "# HeapAlloc = N" in a text heap profile; MiB.
func heapAlloc(r io.Reader) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapAlloc = "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return n / (1 << 20), err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("heap profile: no HeapAlloc line")
}
