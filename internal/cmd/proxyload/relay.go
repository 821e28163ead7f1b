package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The relay is the floor under any user-space proxy on this host: bytes
// copied between each client connection and one member (the primary), no
// parsing, no routing, two goroutines a connection. It copies either with
// read and write through a buffer of its own (-copy rw: what the proxy
// does with each message) or with io.Copy (-copy splice: Go splices
// between TCP sockets on Linux, through a pipe, two splice calls a chunk).
// A proxy that reads and writes each message once in each direction cannot
// cost much less CPU per operation than the cheaper of the two; proxyload
// runs it as its own process (`proxyload relay`) beside the proxy's
// targets, so the proxy's CPU can be read against it.

// runRelay serves the relay: it listens on listen (host:port, or
// unix:/path), prints "listening ADDR" on stdout, and relays every
// connection to the member at to until ctx ends.
func runRelay(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("proxyload relay", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "host:port, or unix:/path.sock")
	to := fs.String("to", "", "the member's host:port (required)")
	mode := fs.String("copy", "rw", "how bytes are copied: rw (read and write through a buffer) or splice (io.Copy)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *to == "" {
		return errors.New("relay: -to is required")
	}
	cp, ok := copiers[*mode]
	if !ok {
		return fmt.Errorf("relay: -copy %q: want rw or splice", *mode)
	}
	network, addr := "tcp", *listen
	if p, ok := strings.CutPrefix(*listen, "unix:"); ok {
		network, addr = "unix", p
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		return err
	}
	defer l.Close()
	fmt.Fprintf(stdout, "listening %s\n", l.Addr())
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go relayConn(c, *to, cp)
	}
}

// copiers are the relay's ways to copy one direction of a connection.
var copiers = map[string]func(dst, src net.Conn){
	"splice": func(dst, src net.Conn) { _, _ = io.Copy(dst, src) },
	"rw": func(dst, src net.Conn) {
		buf := make([]byte, 16<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	},
}

// relayConn copies c's bytes to a new connection to the member and back
// with cp until either side closes.
func relayConn(c net.Conn, to string, cp func(dst, src net.Conn)) {
	defer c.Close()
	m, err := net.DialTimeout("tcp", to, 10*time.Second)
	if err != nil {
		return
	}
	defer m.Close()
	done := make(chan struct{})
	go func() {
		cp(m, c)
		m.Close()
		close(done)
	}()
	cp(c, m)
	c.Close()
	<-done
}

// relayProc is a `proxyload relay` this program started.
type relayProc struct {
	cmd     *exec.Cmd
	Network string
	Addr    string
	dir     string
}

// startRelay starts this program's relay to the member at to, listening on
// a free loopback port (tcp) or a Unix socket (unix), copying by mode (rw
// or splice), with GOMAXPROCS=procs
// in its environment when procs > 0.
func startRelay(ctx context.Context, network, to, mode string, procs int) (*relayProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "proxyload-relay-")
	if err != nil {
		return nil, err
	}
	r := &relayProc{Network: network, dir: dir}
	listen := "127.0.0.1:0"
	if network == "unix" {
		listen = "unix:" + filepath.Join(dir, "relay.sock")
	}
	r.cmd = exec.CommandContext(ctx, self, "relay", "-listen", listen, "-to", to, "-copy", mode)
	r.cmd.Stderr = os.Stderr
	if procs > 0 {
		r.cmd.Env = append(os.Environ(), fmt.Sprintf("GOMAXPROCS=%d", procs))
	}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		r.stop()
		return nil, err
	}
	if err := r.cmd.Start(); err != nil {
		r.stop()
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		r.stop()
		return nil, fmt.Errorf("the relay did not start: %q, %v", line, err)
	}
	r.Addr = addr
	return r, nil
}

// URI reaches the member through the relay: directConnection, as the
// member's hello names the set's other members, which a driver would
// otherwise connect to straight.
func (r *relayProc) URI() string {
	host := r.Addr
	if r.Network == "unix" {
		host = strings.ReplaceAll(r.Addr, "/", "%2F")
	}
	return "mongodb://" + host + "/?directConnection=true"
}

// PID is the relay's process id.
func (r *relayProc) PID() int { return r.cmd.Process.Pid }

func (r *relayProc) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		_ = r.cmd.Wait()
	}
	_ = os.RemoveAll(r.dir)
}

// primaryOf is the address of the set's primary, from its hello.
func primaryOf(ctx context.Context, uri string) (string, error) {
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return "", err
	}
	defer client.Disconnect(context.Background())
	var hello struct {
		Primary string `bson:"primary"`
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return "", err
	}
	if hello.Primary == "" {
		return "", errors.New("the set has no primary")
	}
	return hello.Primary, nil
}
