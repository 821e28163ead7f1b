package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRelayCopiesBothWays: bytes sent through the relay reach the member,
// and the member's reply comes back, over TCP and a Unix socket, copied
// either way.
func TestRelayCopiesBothWays(t *testing.T) {
	member, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	go func() {
		for {
			c, err := member.Accept()
			if err != nil {
				return
			}
			go func() { // answers each line upper-cased
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					_, _ = io.WriteString(c, strings.ToUpper(line))
				}
			}()
		}
	}()
	for i, listen := range []string{"127.0.0.1:0", "unix:" + filepath.Join(t.TempDir(), "r.sock"), "127.0.0.1:0"} {
		mode := []string{"rw", "rw", "splice"}[i]
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := runRelay(ctx, []string{"-listen", listen, "-to", member.Addr().String(), "-copy", mode}, pw)
			pw.CloseWithError(err) // a relay that fails to start ends the read below
			done <- err
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
		if err != nil || !ok {
			t.Fatalf("%s: relay said %q, %v", listen, line, err)
		}
		network := "tcp"
		if strings.HasPrefix(listen, "unix:") {
			network = "unix"
		}
		c, err := net.Dial(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(10 * time.Second)) // a relay that loses bytes fails, not hangs
		r := bufio.NewReader(c)
		for _, msg := range []string{"hello\n", "find\n"} {
			if _, err := io.WriteString(c, msg); err != nil {
				t.Fatal(err)
			}
			got, err := r.ReadString('\n')
			if err != nil || got != strings.ToUpper(msg) {
				t.Fatalf("%s, %s: sent %q, got %q, %v", listen, mode, msg, got, err)
			}
		}
		c.Close()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("%s: relay ended with %v", listen, err)
		}
	}
}
