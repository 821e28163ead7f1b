// Command proxyload measures what the decongestant proxy costs, in one
// invocation, against the same load sent straight to the replica set:
//
//   - ops: closed loops of Go-driver clients doing point reads by _id (and
//     -writes of updates), each client one connection, straight to the set
//     (direct), through the proxy unrouted (proxy-primary: the primary read
//     preference) and routed (proxy-routed: secondaryPreferred, the proxy's
//     --policy choosing); per target: operations a second, P50 and P99, this
//     process's CPU per operation (the Go driver's goroutines included) and
//     the proxy process's. Repetitions rotate the targets' order. With
//     -rate the clients are paced to that many operations a second in all,
//     so every target does the same work and the CPU per operation of
//     routed and unrouted compares at equal load (closed loops compare it
//     at each one's own throughput, where a slower target pays more wake-ups
//     per operation). With
//     -via tcp,unix the proxied targets run again over a Unix socket
//     (proxy-primary-unix, proxy-routed-unix: a sidecar's clients on the
//     same host), each network its own proxy. With -floor (the default)
//     relay runs too: proxyload's own byte relay to the primary, no
//     parsing, as its own process, the floor under any user-space proxy
//     on this host (relay.go): relay copies with read and write,
//     relay-splice with io.Copy (-floor rw,splice; none for neither). With -proxy-procs 0,1 every proxied target
//     and the relay run again at GOMAXPROCS=1 (…-procs1), each its own
//     process. The routed reads are counted by member from the proxy's
//     /metrics, the primary first.
//   - conns: a fresh proxy per connection count; that many raw connections
//     (each says hello, as drivers do), the resident memory they hold idle,
//     then a fixed total rate of routed point reads and -writes of updates
//     spread over all of them: errors, P50, P99, the proxy's peak resident
//     memory and CPU per operation. With -direct the same connections and
//     rate go straight to the primary after each proxy run.
//
// The proxy is `decongestant proxy` started by this program as its own
// process (-proxy-bin), so its CPU (/proc/PID/stat) and memory
// (/proc/PID/status) are its own; Linux only. Usage, with a set from
// `decongestant cluster up` (uncapped: the targets compare CPU, not
// congestion):
//
//	go build -o /tmp/decongestant ./cmd/decongestant
//	go run ./internal/cmd/proxyload ops -uri "$URI" -proxy-bin /tmp/decongestant -conns 1,64 -reps 3 -via tcp,unix -out ops.json -profile proxy.pprof
//	go run ./internal/cmd/proxyload conns -uri "$URI" -proxy-bin /tmp/decongestant -conns 1000,10000 -writes 0.1 -out conns.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/decongestant/decongestant/internal/atomicfile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "proxyload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "relay" {
		return runRelay(ctx, args[1:], stdout)
	}
	if len(args) == 0 || (args[0] != "ops" && args[0] != "conns") {
		return errors.New("usage: proxyload ops|conns -uri URI -proxy-bin PATH [flags] (-h for the flags)")
	}
	mode := args[0]
	fs := flag.NewFlagSet("proxyload "+mode, flag.ContinueOnError)
	uri := fs.String("uri", "", "the replica set's URI (required)")
	bin := fs.String("proxy-bin", "", "the decongestant binary whose proxy is measured (required)")
	policy := fs.String("policy", "leastwait", "the proxy's --policy")
	conns := fs.String("conns", "", "client connection counts, comma-separated (ops: 1,64; conns: 1000,10000)")
	writes := fs.Float64("writes", 0, "share of operations that are updates by _id (0-1)")
	records := fs.Int("records", 10000, "documents of about 130 bytes in proxyload.points (loaded when the count differs)")
	duration := fs.Duration("duration", 30*time.Second, "measured time per target and connection count")
	warmup := fs.Duration("warmup", 10*time.Second, "ops: unmeasured time before each measurement")
	reps := fs.Int("reps", 3, "ops: repetitions (each runs every target once, the order rotated)")
	rate := fs.Float64("rate", -1, "operations a second over all the connections (conns: 2000 by default; ops: closed loops by default, a rate paces every target to the same load, so their CPU per operation compares at equal work)")
	idle := fs.Duration("idle", 10*time.Second, "conns: how long the connections idle before their memory is read")
	out := fs.String("out", "", "write the measurements as JSON to this file")
	via := fs.String("via", "tcp", "how the clients reach the proxy: tcp (loopback), unix (a Unix socket), or both (ops: tcp,unix, each its own proxy)")
	procs := fs.String("proxy-procs", "0", "the proxy's (and relay's) GOMAXPROCS, 0 for Go's default (the CPUs it may use); ops: several, comma-separated, each its own proxy and relay")
	floor := fs.String("floor", "rw,splice", "ops: also measure proxyload's relay (bytes copied to the primary, no parsing), the floor under any user-space proxy here, copying each way named: rw (read and write), splice (io.Copy); none for no relay")
	direct := fs.Bool("direct", false, "conns: also send the same raw load (connections, rate) straight to the primary after each proxy run, for the latency without the proxy")
	directMax := fs.Int("direct-max", 5000, "conns: the most connections -direct opens straight to the primary; above it the baseline is skipped (a mongod holds a thread and descriptors per connection: 10 000 exhausted one's 20 000 file descriptors and crashed it here)")
	profile := fs.String("profile", "", "ops: save the proxy's CPU profile (pprof) over the first proxy-routed measurement at the most connections into this file")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *uri == "" || *bin == "" {
		return errors.New("-uri and -proxy-bin are required")
	}
	if *writes < 0 || *writes > 1 {
		return fmt.Errorf("-writes %v: want a share from 0 to 1", *writes)
	}
	if *conns == "" {
		*conns = map[string]string{"ops": "1,64", "conns": "1000,10000"}[mode]
	}
	if *rate < 0 {
		*rate = map[string]float64{"ops": 0, "conns": 2000}[mode]
	}
	if mode == "conns" && *rate == 0 {
		return errors.New("-rate 0: conns needs a rate of operations a second")
	}
	counts, err := parseCounts(*conns)
	if err != nil {
		return err
	}
	vias, err := parseVias(*via, mode)
	if err != nil {
		return err
	}
	procsList, err := parseProcs(*procs, mode)
	if err != nil {
		return err
	}
	copies, err := parseFloor(*floor)
	if err != nil {
		return err
	}
	if err := (opsLoad{db: "proxyload", coll: "points", records: *records}).load(ctx, *uri); err != nil {
		return fmt.Errorf("loading proxyload.points: %w", err)
	}
	extra := []string{"--policy", *policy}
	var (
		result any
		runErr error
	)
	switch mode {
	case "ops":
		ms, err := runOps(ctx, *uri, *bin, extra, variantsOf(vias, procsList), copies, counts, *reps, *profile, opsLoad{db: "proxyload", coll: "points",
			records: *records, writes: *writes, rate: *rate, warmup: *warmup, duration: *duration})
		printOps(stdout, ms)
		result, runErr = ms, err
	case "conns":
		rs, err := runConns(ctx, *uri, *bin, vias[0], procsList[0], extra, counts, directUpTo(*direct, *directMax), connsLoad{db: "proxyload", coll: "points",
			records: *records, writes: *writes, rate: *rate, idle: *idle, duration: *duration})
		printConns(stdout, rs)
		result, runErr = rs, err
	}
	if *out == "" {
		return runErr
	}
	// What was measured before a failure is kept, with the failure.
	doc := map[string]any{"mode": mode, "settings": strings.Join(args[1:], " "), "at": time.Now().UTC().Format(time.RFC3339), "results": result}
	if runErr != nil {
		doc["error"] = runErr.Error()
	}
	if err := atomicfile.Write(*out, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}

// directUpTo is the most connections the direct baseline opens: none
// without -direct.
func directUpTo(direct bool, most int) int {
	if !direct {
		return 0
	}
	return most
}

func parseCounts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-conns %q: want counts of 1 or more, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// parseProcs reads -proxy-procs: GOMAXPROCS values of 0 (Go's default) or
// more, comma-separated, each once; conns mode takes one.
func parseProcs(s, mode string) ([]int, error) {
	return parseList("-proxy-procs", s, mode, "GOMAXPROCS values of 0 (Go's default) or more", func(f string) (int, bool) {
		n, err := strconv.Atoi(f)
		return n, err == nil && n >= 0
	})
}

// parseFloor reads -floor: the relay's ways to copy (rw, splice), each
// once, or none.
func parseFloor(s string) ([]string, error) {
	if s == "none" {
		return nil, nil
	}
	return parseList("-floor", s, "ops", "rw, splice, rw,splice or none", func(f string) (string, bool) {
		_, ok := copiers[f]
		return f, ok
	})
}

// parseVias reads -via: tcp, unix or both, comma-separated, each once;
// conns mode takes one.
func parseVias(s, mode string) ([]string, error) {
	return parseList("-via", s, mode, "tcp, unix or tcp,unix", func(f string) (string, bool) {
		return f, f == "tcp" || f == "unix"
	})
}

// parseList reads flag's comma-separated values with parse, each once
// (want says what a value may be); conns mode, which measures one proxy
// at a time, takes one.
func parseList[T comparable](flag, s, mode, want string, parse func(string) (T, bool)) ([]T, error) {
	var out []T
	for f := range strings.SplitSeq(s, ",") {
		v, ok := parse(strings.TrimSpace(f))
		if !ok {
			return nil, fmt.Errorf("%s %q: want %s", flag, s, want)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("%s %q names %v twice", flag, s, v)
		}
		out = append(out, v)
	}
	if mode == "conns" && len(out) > 1 {
		return nil, fmt.Errorf("%s %q: conns measures one proxy at a time", flag, s)
	}
	return out, nil
}
