// Command hostile measures what hostile client messages cost a running
// decongestant proxy: the proxy's peak and current resident memory (from
// /proc/PID/status, Linux only) before and after
//
//   - tags: one 41 MB find whose $readPreference carries 3 million empty
//     tag sets;
//   - pings: N connections that each send one 40 MB ping and then idle.
//
// Usage (with a proxy listening on ADDR as process PID):
//
//	go run ./internal/cmd/hostile -addr 127.0.0.1:27018 -pid PID -case tags
//	go run ./internal/cmd/hostile -addr 127.0.0.1:27018 -pid PID -case pings -conns 8 -idle 150s
//
// Run one case per fresh proxy: the peak (VmHWM) never goes down.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/decongestant/decongestant/proxy/wire"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:27018", "the proxy's address")
	pid := flag.Int("pid", 0, "the proxy's process id (required)")
	which := flag.String("case", "tags", "tags (one find with 3M empty tag sets) or pings (-conns connections each sending a 40 MB ping, then idling)")
	conns := flag.Int("conns", 8, "connections for -case pings")
	idle := flag.Duration("idle", 150*time.Second, "how long the ping connections idle before the proxy's memory is read (Go collects an idle heap within 2 minutes)")
	flag.Parse()
	if *pid <= 0 {
		return errors.New("-pid is required")
	}
	before, err := memory(*pid)
	if err != nil {
		return err
	}
	fmt.Printf("before: %s\n", before)
	switch *which {
	case "tags":
		reply, err := send(*addr, hostileFind())
		fmt.Printf("find with 3M empty tag sets: %s\n", describe(reply, err))
	case "pings":
		var open []net.Conn
		for i := range *conns {
			nc, err := net.Dial("tcp", *addr)
			if err != nil {
				return err
			}
			open = append(open, nc)
			reply, err := roundTrip(nc, bigPing())
			fmt.Printf("40 MB ping %d: %s\n", i+1, describe(reply, err))
		}
		peak, err := memory(*pid)
		if err != nil {
			return err
		}
		fmt.Printf("after the pings: %s\nidling %v...\n", peak, *idle)
		time.Sleep(*idle)
		defer func() {
			for _, nc := range open {
				nc.Close()
			}
		}()
	default:
		return fmt.Errorf("-case %q: want tags or pings", *which)
	}
	after, err := memory(*pid)
	if err != nil {
		return err
	}
	fmt.Printf("after: %s\npeak RSS grew by %d MB\n", after, (after.hwm-before.hwm)>>20)
	return nil
}

// hostileFind is a find with 3,000,000 empty tag sets (about 41 MB).
func hostileFind() []byte {
	idx, tags := bsoncore.ReserveLength(nil)
	for i := range 3_000_000 {
		tags = bsoncore.AppendDocumentElement(tags, strconv.Itoa(i), bsoncore.Document{5, 0, 0, 0, 0})
	}
	tags = bsoncore.UpdateLength(append(tags, 0), idx, int32(len(tags)+1-int(idx)))
	rp := bsoncore.NewDocumentBuilder().AppendString("mode", "nearest").AppendArray("tags", tags).Build()
	body := bsoncore.NewDocumentBuilder().AppendString("find", "c").AppendDocument("$readPreference", rp).AppendString("$db", "test").Build()
	return wire.AppendMsg(nil, 1, 0, 0, body)
}

// bigPing is a ping padded to 40 MB.
func bigPing() []byte {
	body := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendBinary("pad", 0, make([]byte, 40_000_000)).AppendString("$db", "admin").Build()
	return wire.AppendMsg(nil, 1, 0, 0, body)
}

func send(addr string, msg []byte) (bson.Raw, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	return roundTrip(nc, msg)
}

func roundTrip(nc net.Conn, msg []byte) (bson.Raw, error) {
	nc.SetDeadline(time.Now().Add(2 * time.Minute))
	defer nc.SetDeadline(time.Time{})
	if _, err := nc.Write(msg); err != nil {
		return nil, err
	}
	reply, err := wire.ReadMessage(nc, 0)
	if err != nil {
		return nil, err
	}
	m, err := wire.Parse(reply)
	if err != nil {
		return nil, err
	}
	return bson.Raw(m.Body), nil
}

func describe(reply bson.Raw, err error) string {
	if err != nil {
		return "no reply: " + err.Error()
	}
	if code, ok := reply.Lookup("codeName").StringValueOK(); ok {
		return fmt.Sprintf("%s: %s", code, reply.Lookup("errmsg").StringValue())
	}
	return "ok"
}

// mem is a process's resident memory: now and its peak.
type mem struct{ rss, hwm int64 }

func (m mem) String() string { return fmt.Sprintf("RSS %d MB, peak %d MB", m.rss>>20, m.hwm>>20) }

func memory(pid int) (mem, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return mem{}, err
	}
	defer f.Close()
	var m mem
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch key {
		case "VmRSS":
			m.rss = kb << 10
		case "VmHWM":
			m.hwm = kb << 10
		}
	}
	return m, sc.Err()
}
