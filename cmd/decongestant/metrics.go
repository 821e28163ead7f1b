package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/decongestant/decongestant/bench"
	"github.com/decongestant/decongestant/router"
	"github.com/decongestant/decongestant/router/routermetrics"
)

// metricsServer serves /metrics on --metrics-addr for the router of the
// run in progress: a registry of its own holding one collector, whose
// router is swapped at every run (none between runs). A nil
// *metricsServer (the flag unset) does nothing.
type metricsServer struct {
	col   *routermetrics.Collector
	srv   *http.Server
	mux   *http.ServeMux
	addr  net.Addr
	done  chan error                   // Serve's return
	ready atomic.Pointer[func() error] // the proxy's readiness, once it is connected
}

// startMetrics listens on addr ("" = off) and serves /metrics until close;
// with profiles, also the Go runtime's profiles under /debug/pprof/ (see
// pprofHandlers).
func startMetrics(addr string, profiles bool, stderr io.Writer) (*metricsServer, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	m := &metricsServer{col: routermetrics.New(nil), addr: ln.Addr(), done: make(chan error, 1)}
	reg := prometheus.NewRegistry()
	// The router's series, and the Go runtime's and the process's standard
	// ones (go_*: heap, stacks, goroutines, GC; process_*: CPU, resident
	// memory, file descriptors), as a Go service's /metrics has them.
	reg.MustRegister(m.col, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	if profiles {
		pprofHandlers(mux)
	}
	m.srv, m.mux = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, mux
	go func() { m.done <- m.srv.Serve(ln) }()
	fmt.Fprintf(stderr, "metrics: serving http://%s/metrics\n", m.addr)
	if profiles {
		fmt.Fprintf(stderr, "metrics: serving profiles at http://%s/debug/pprof/\n", m.addr)
	}
	return m, nil
}

// pprofHandlers serves net/http/pprof's profiles (heap, goroutine, allocs,
// CPU profile, trace, ...) under /debug/pprof/ on mux, for `go tool pprof
// http://host:port/debug/pprof/heap`. They are opt-in (--pprof) because
// whoever reaches the port could then make the process spend CPU on
// profiles and traces, and read its goroutines' stacks; /debug/pprof/cmdline
// is left out in any case, as the command line may hold a URI's password.
func pprofHandlers(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index) // the named profiles: heap, goroutine, allocs, ...
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// serveHealth serves the proxy's probes, as Kubernetes expects them:
// /healthz answers 200 while the process serves (liveness); /readyz
// answers 200 once setReady gave it a readiness that holds, else 503 with
// one line that says why (connecting, no primary, a stale lag poll,
// draining).
func (m *metricsServer) serveHealth() {
	if m == nil {
		return
	}
	m.mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	m.mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		err := errors.New("connecting to the replica set")
		if ready := m.ready.Load(); ready != nil {
			err = (*ready)()
		}
		if err != nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %v\n", err)
			return
		}
		fmt.Fprintln(w, "ready")
	})
}

// setReady gives /readyz the proxy's readiness.
func (m *metricsServer) setReady(ready func() error) {
	if m != nil {
		m.ready.Store(&ready)
	}
}

// attach points the collector at each run's router as the runner connects
// it, and at none once the run closes it.
func (m *metricsServer) attach(o *bench.Options) {
	if m == nil {
		return
	}
	next := o.OnRouter
	o.OnRouter = func(policy string, r *router.Router) {
		if r == nil {
			m.col.Set(nil)
		} else {
			m.col.Set(r)
		}
		if next != nil {
			next(policy, r)
		}
	}
}

// close stops serving, letting scrapes in flight finish for up to 5 s.
func (m *metricsServer) close() error {
	if m == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := m.srv.Shutdown(ctx)
	if serr := <-m.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("metrics server: %w", err)
	}
	return nil
}
