package proxy

import (
	"context"
	"crypto/tls"
	"net"
	"runtime"
	"testing"

	"github.com/decongestant/decongestant/internal/testutil"
)

// BenchmarkIdleConnection measures what an idle client connection costs:
// b.N connections (plain, then TLS) each answer a ping and stay open; the
// heap and stacks in use grow by KiB/conn (both ends are in this process,
// so the client's share is counted too: an upper bound). The figure behind
// DefaultMaxConnections:
//
//	go test ./proxy -run '^$' -bench BenchmarkIdleConnection -benchtime 2000x
func BenchmarkIdleConnection(b *testing.B) {
	for _, useTLS := range []bool{false, true} {
		name := "plain"
		if useTLS {
			name = "tls"
		}
		b.Run(name, func(b *testing.B) {
			s, _ := bareServer(b, Config{})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			dial := func() (net.Conn, error) { return net.Dial("tcp", ln.Addr().String()) }
			if useTLS {
				certs := testutil.NewCerts(b)
				cert, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
				if err != nil {
					b.Fatal(err)
				}
				ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
				dial = func() (net.Conn, error) {
					return tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true})
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go s.Serve(ctx, ln)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			conns := make([]net.Conn, 0, b.N)
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for range b.N {
				c, err := dial()
				if err != nil {
					b.Fatal(err)
				}
				conns = append(conns, c)
				if err := ping(c); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			grew := float64(after.HeapInuse+after.StackInuse) - float64(before.HeapInuse+before.StackInuse)
			b.ReportMetric(grew/float64(b.N)/1024, "KiB/conn")
		})
	}
}
