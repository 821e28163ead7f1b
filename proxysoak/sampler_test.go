package proxysoak

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestProcFigures(t *testing.T) {
	status := []byte("Name:\tdecongestant\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n")
	if got := statusKB(status, "VmRSS:"); got != 102400 {
		t.Errorf("VmRSS = %v", got)
	}
	heap, err := heapAlloc(strings.NewReader("heap profile: ...\n# runtime.MemStats\n# Alloc = 1\n# HeapAlloc = 3145728\n"))
	if err != nil || heap != 3 {
		t.Errorf("heapAlloc = %v, %v; want 3 MiB", heap, err)
	}
	if _, err := heapAlloc(strings.NewReader("nothing\n")); err == nil {
		t.Error("heapAlloc of a profile without HeapAlloc: no error")
	}
}

// TestHeapAfterWarmup: the samples of the warm-up, before the clients
// connected, are left out of the live heap's verdict.
func TestHeapAfterWarmup(t *testing.T) {
	s := &sampler{warmup: 10 * time.Second}
	s.samples = append(s.samples, Sample{TS: 0, HeapMB: 1}, Sample{TS: 5, HeapMB: 1})
	for i := range 8 {
		s.samples = append(s.samples, Sample{TS: float64(10 + i), HeapMB: 10})
	}
	if u := s.usage(); u.HeapQ1MB != 10 || u.HeapGrowthPct == nil || *u.HeapGrowthPct != 0 {
		t.Errorf("usage = %+v, want a floor of 10 MB from the first quarter after the warm-up, 0%% growth", u)
	}
}

// TestSamplerProfiles: the live heap and the goroutines are read from the
// proxy's profiles, the heap after a forced collection.
func TestSamplerProfiles(t *testing.T) {
	var heapQuery string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/heap", func(w http.ResponseWriter, r *http.Request) {
		heapQuery = r.URL.RawQuery
		fmt.Fprint(w, "heap profile: 1: 2 [3: 4] @ heap/1048576\n# runtime.MemStats\n# HeapAlloc = 5242880\n")
	})
	mux.HandleFunc("/debug/pprof/goroutine", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "goroutine profile: total 1234\n1 @ 0x1\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s := &sampler{metrics: strings.TrimPrefix(srv.URL, "http://"), client: srv.Client(), start: time.Now()}
	s.sample(t.Context())
	if len(s.samples) != 1 || s.samples[0].HeapMB != 5 || s.samples[0].Goroutines != 1234 {
		t.Fatalf("samples %+v, want one with 5 MB and 1234 goroutines", s.samples)
	}
	if heapQuery != "gc=1&debug=1" {
		t.Errorf("heap profile asked with %q, want gc=1&debug=1", heapQuery)
	}
}
