package consistency

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/history"
	"github.com/decongestant/decongestant/results"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  string
	}{
		{"1K", 1024, ""},
		{"50k", 50 * 1024, ""},
		{"100KB", 100 * 1024, ""},
		{"1M", 1 << 20, ""},
		{"1MiB", 1 << 20, ""},
		{"16M", 16 << 20, ""},
		{"4096", 4096, ""},
		{"700B", 700, ""},
		{"0.5K", 512, ""},
		{"17M", 0, "over MongoDB's 16 MiB document limit"},
		{"16.5M", 0, "over MongoDB's 16 MiB document limit"},
		{"", 0, "want a number of bytes"},
		{"K", 0, "want a number of bytes"},
		{"-1K", 0, "want a number of bytes"},
		{"1G", 0, "want a number of bytes"},
		{"big", 0, "want a number of bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.err != "" {
				if !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSize(%q) = %d, %v; want an error saying %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestParseSetup(t *testing.T) {
	for _, s := range []Setup{SetupOperation, SetupSession, SetupMulti} {
		got, err := ParseSetup(" " + strings.ToUpper(s.String()) + " ")
		if err != nil || got != s {
			t.Errorf("ParseSetup(%q) = %v, %v", s.String(), got, err)
		}
	}
	for _, bad := range []string{"", "connection", "Setup(0)"} {
		if _, err := ParseSetup(bad); !errors.Is(err, ErrBadOptions) {
			t.Errorf("ParseSetup(%q) accepted", bad)
		}
	}
	if Setup(0).String() != "Setup(0)" || SetupMulti.Writers() != 2 || SetupMulti.Readers() != 10 ||
		SetupSession.Writers() != 1 || !SetupSession.InURI() || SetupOperation.InURI() {
		t.Error("setup properties differ from the consistency thesis' section 4.2.3")
	}
}

// TestMatrixValidate: every bad option is refused before anything runs,
// naming what is wrong; combinations MongoDB rejects are refused only when
// nothing else is asked for.
func TestMatrixValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(o *MatrixOptions)
		err  string // "" = valid
	}{
		{"defaults", func(o *MatrixOptions) {}, ""},
		{"thesis", func(o *MatrixOptions) { o.Thesis() }, ""},
		{"linearizable among others off the primary", func(o *MatrixOptions) { o.Reads = []string{"secondary"} }, ""},
		{"only linearizable off the primary", func(o *MatrixOptions) { o.RC, o.Reads = []string{"linearizable"}, []string{"secondary", "nearest"} },
			"MongoDB serves linearizable reads only on the primary"},
		{"only linearizable on a policy", func(o *MatrixOptions) { o.RC, o.Reads = []string{"linearizable"}, []string{"decongestant"} },
			"MongoDB serves linearizable reads only on the primary"},
		{"unknown read concern", func(o *MatrixOptions) { o.RC = []string{"local", "snapshot"} }, `read concern "snapshot"`},
		{"unknown write concern", func(o *MatrixOptions) { o.W = []string{"all"} }, `write concern "all"`},
		{"unacknowledged writes", func(o *MatrixOptions) { o.W = []string{"0"} }, "unacknowledged writes"},
		{"unknown read", func(o *MatrixOptions) { o.Reads = []string{"primary", "fastest"} }, `read "fastest"`},
		{"document over the limit", func(o *MatrixOptions) { o.Sizes = []int{16 << 20} }, "MongoDB's 16 MiB limit"},
		{"document below the fields", func(o *MatrixOptions) { o.Sizes = []int{32} }, "below the register's own fields"},
		{"document of 0 bytes", func(o *MatrixOptions) { o.Sizes = []int{0} }, "below the register's own fields"},
		{"negative write interval", func(o *MatrixOptions) { o.WriteInterval = -time.Millisecond }, "intervals must not be negative"},
		{"negative read interval", func(o *MatrixOptions) { o.ReadInterval = -time.Second }, "intervals must not be negative"},
		{"no iterations", func(o *MatrixOptions) { o.Iterations = 0 }, "iterations 0"},
		{"no writes", func(o *MatrixOptions) { o.Writes = 0 }, "writes 0"},
		{"no setups", func(o *MatrixOptions) { o.Setups = nil }, "no setups"},
		{"invalid setup", func(o *MatrixOptions) { o.Setups = []Setup{4} }, "setup Setup(4)"},
		{"no sizes", func(o *MatrixOptions) { o.Sizes = nil }, "no document sizes"},
		{"no reads", func(o *MatrixOptions) { o.Reads = nil }, "no read targets"},
		{"no read concerns", func(o *MatrixOptions) { o.RC = nil }, "at least one write concern and one read concern"},
		{"setup twice", func(o *MatrixOptions) { o.Setups = []Setup{SetupMulti, SetupMulti} }, `setup "multi" given twice`},
		{"size twice", func(o *MatrixOptions) { o.Sizes = []int{1024, 1024} }, "size 1K given twice"},
		{"read twice", func(o *MatrixOptions) { o.Reads = []string{"primary", "Primary"} }, `read "Primary" given twice`},
		{"no operation timeout", func(o *MatrixOptions) { o.OpTimeout = 0 }, "operation timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := MatrixDefaults()
			tt.edit(&o)
			err := o.Validate()
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err %v, want %q", err, tt.err)
			}
		})
	}
}

// TestMatrixPlan: the cells come in the thesis' order and the ones
// MongoDB rejects are skipped with the reason.
func TestMatrixPlan(t *testing.T) {
	o := MatrixDefaults()
	o.Reads = []string{"primary", "secondary", "decongestant"}
	cells := o.Plan()
	// 3 setups x 4 sizes x 6 pairs x 3 reads; linearizable off the
	// primary: 3 x 4 x 2 w x 2 reads.
	if len(cells) != 216 {
		t.Fatalf("%d cells, want 216", len(cells))
	}
	skipped := 0
	for _, c := range cells {
		if c.Skipped != "" {
			skipped++
			if c.RC != "linearizable" || c.Read == "primary" || !strings.Contains(c.Skipped, "only on the primary") {
				t.Errorf("skipped %+v", c)
			}
		} else if c.RC == "linearizable" && c.Read != "primary" {
			t.Errorf("not skipped: %+v", c)
		}
	}
	if skipped != 48 {
		t.Errorf("%d skipped, want 48", skipped)
	}
	first, second, last := cells[0], cells[3], cells[len(cells)-1]
	if first.Setup != "operation" || first.DocSize != 1024 || first.W != "1" || first.RC != "local" || first.Read != "primary" ||
		second.RC != "majority" || last.Setup != "multi" || last.DocSize != 1<<20 || last.W != "majority" ||
		last.RC != "linearizable" || last.Read != "decongestant" {
		t.Errorf("order: first %+v, 4th %+v, last %+v", first, second, last)
	}
}

const ms = int64(time.Millisecond)

func op(client int, kind history.Kind, outcome history.Outcome, val, ver, inv, comp int64) history.Op {
	return history.Op{Client: client, Key: "k1", Kind: kind, Outcome: outcome, Value: val, Version: ver,
		Invoke: inv * ms, Complete: comp * ms}
}

// TestMeasureIteration: latencies of the ops that returned, and the
// issue's stale definition (older than the newest version acknowledged
// before the read was sent), with the age and the reads that saw a write
// not yet acknowledged.
func TestMeasureIteration(t *testing.T) {
	const (
		rd    = history.KindRead
		wr    = history.KindWrite
		ok    = history.OutcomeOK
		fail  = history.OutcomeFail
		unkwn = history.OutcomeUnknown
	)
	h := history.History{Ops: []history.Op{
		op(1, wr, ok, 1, 1, 0, 2),       // v1 acknowledged at 2 ms (2 ms)
		op(1, wr, ok, 2, 2, 10, 14),     // v2 acknowledged at 14 ms (4 ms)
		op(1, wr, unkwn, 3, 0, 20, 520), // timed out: not a latency
		op(2, rd, ok, 0, 0, 1, 2),       // initial state, nothing acknowledged yet: fresh (1 ms)
		op(2, rd, ok, 0, 0, 3, 4),       // v1 acknowledged at 2: stale by 1 version, 1 ms (3 - 2)
		op(2, rd, ok, 2, 2, 12, 13),     // v2 before its ack at 14: unacknowledged (1 ms)
		op(2, rd, ok, 1, 1, 16, 19),     // v2 acked at 14: stale by 1 version, 2 ms (3 ms)
		op(2, rd, fail, 0, 0, 30, 31),   // failed: not checked
		op(2, rd, ok, 2, 2, 40, 41),     // fresh (1 ms)
	}}
	it := measureIteration(h, 1500*time.Millisecond)
	want := results.MatrixIteration{DurationS: 1.5, Writes: 2, WritesFailed: 1, Reads: 5, ReadsFailed: 1,
		WriteMs: results.Latency{Mean: 3, P50: 2, P99: 4},
		ReadMs:  results.Latency{Mean: 1.4, P50: 1, P99: 3},
		Stale:   2, StalePct: 40,
		StaleVersions: results.StaleAge{Max: 1, P50: 1}, StaleMs: results.StaleAge{Max: 2, P50: 1},
		Unacknowledged: 1}
	if it != want {
		t.Fatalf("got  %+v\nwant %+v", it, want)
	}
	if empty := measureIteration(history.History{}, 0); empty != (results.MatrixIteration{}) {
		t.Errorf("an empty history measures %+v", empty)
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		in   []float64
		want results.Spread
	}{
		{nil, results.Spread{}},
		{[]float64{3}, results.Spread{N: 1, Mean: 3, Min: 3, Max: 3}},
		{[]float64{1, 2, 3, 4}, results.Spread{N: 4, Mean: 2.5, Min: 1, Max: 4, Stdev: 1.291}},
		{[]float64{5, 5, 5}, results.Spread{N: 3, Mean: 5, Min: 5, Max: 5}},
		{[]float64{-1, 1}, results.Spread{N: 2, Mean: 0, Min: -1, Max: 1, Stdev: 1.414}},
	}
	for _, tt := range tests {
		if got := spread(tt.in); got != tt.want {
			t.Errorf("spread(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestSummarize: every metric is aggregated from its own field.
func TestSummarize(t *testing.T) {
	its := []results.MatrixIteration{
		{Writes: 10, Reads: 100, WriteMs: results.Latency{Mean: 2, P50: 1, P99: 9}, ReadMs: results.Latency{Mean: 1, P50: 0.5, P99: 4},
			StalePct: 10, StaleVersions: results.StaleAge{Max: 3, P50: 1}, StaleMs: results.StaleAge{Max: 30, P50: 5}, Unacknowledged: 4},
		{Writes: 10, Reads: 50, WriteMs: results.Latency{Mean: 4, P50: 3, P99: 11}, ReadMs: results.Latency{Mean: 3, P50: 1.5, P99: 6},
			StalePct: 20, StaleVersions: results.StaleAge{Max: 1, P50: 1}, StaleMs: results.StaleAge{Max: 10, P50: 7}, Unacknowledged: 0},
	}
	s := summarize(its)
	checks := []struct {
		name         string
		got          results.Spread
		mean, lo, hi float64
	}{
		{"write mean", s.WriteMean, 3, 2, 4},
		{"write P50", s.WriteP50, 2, 1, 3},
		{"write P99", s.WriteP99, 10, 9, 11},
		{"read mean", s.ReadMean, 2, 1, 3},
		{"read P50", s.ReadP50, 1, 0.5, 1.5},
		{"read P99", s.ReadP99, 5, 4, 6},
		{"stale %", s.StalePct, 15, 10, 20},
		{"stale versions max", s.StaleVersionsMax, 2, 1, 3},
		{"stale versions P50", s.StaleVersionsP50, 1, 1, 1},
		{"stale ms max", s.StaleMsMax, 20, 10, 30},
		{"stale ms P50", s.StaleMsP50, 6, 5, 7},
		{"unacknowledged", s.Unacknowledged, 2, 0, 4},
		{"unacknowledged %", s.UnacknowledgedPct, 2, 0, 4},
		{"not the last acknowledged %", s.NotLastAckedPct, 17, 14, 20},
		{"reads", s.Reads, 75, 50, 100},
		{"writes", s.Writes, 10, 10, 10},
	}
	if s.Iterations != 2 {
		t.Errorf("iterations %d", s.Iterations)
	}
	for _, c := range checks {
		if c.got.N != 2 || c.got.Mean != c.mean || c.got.Min != c.lo || c.got.Max != c.hi {
			t.Errorf("%s: %+v, want mean %v in %v..%v", c.name, c.got, c.mean, c.lo, c.hi)
		}
	}
}

func TestWithConcerns(t *testing.T) {
	tests := []struct {
		uri  string
		c    Concerns
		want string
		err  string
	}{
		{"mongodb://h1:1,h2:2/?replicaSet=rs0", Concerns{W: "1", RC: "local", Read: "primary"},
			"mongodb://h1:1,h2:2/?readConcernLevel=local&readPreference=primary&replicaSet=rs0&w=1", ""},
		{"mongodb://h1:1", Concerns{W: "majority", RC: "linearizable", Read: "primary"},
			"mongodb://h1:1/?readConcernLevel=linearizable&readPreference=primary&w=majority", ""},
		{"mongodb://h1:1/db?replicaSet=rs0&W=2&readconcernlevel=available&readPreference=nearest",
			Concerns{W: "majority", RC: "majority", Read: "secondaryPreferred"},
			"mongodb://h1:1/db?readConcernLevel=majority&readPreference=secondaryPreferred&replicaSet=rs0&w=majority", ""},
		{"mongodb://h1:1/?replicaSet=rs0&readPreference=nearest", Concerns{W: "1", RC: "majority", Read: "decongestant"},
			"mongodb://h1:1/?readConcernLevel=majority&readPreference=nearest&replicaSet=rs0&w=1", ""},
		{"h1:1", Concerns{W: "1", RC: "local", Read: "primary"}, "", "no scheme"},
		{"mongodb://h1:1/?a=%zz", Concerns{W: "1", RC: "local", Read: "primary"}, "", "options of"},
	}
	for _, tt := range tests {
		got, err := withConcerns(tt.uri, tt.c)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("withConcerns(%q) = %q, %v; want an error saying %q", tt.uri, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("withConcerns(%q, %v)\n = %q, %v\nwant %q", tt.uri, tt.c, got, err, tt.want)
		}
	}
}

// TestOpenEnvNeverQuotesSecrets: a connection string the driver refuses is refused before any
// connection, in an error that names it without its secret options' values, whichever way the
// concerns and reads are given.
func TestOpenEnvNeverQuotesSecrets(t *testing.T) {
	const uri = "mongodb://127.0.0.1:1/?replicaSet=rs0&authMechanismProperties=AWS_SESSION_TOKEN:tok3n&proxyPassword=s3c%zzret"
	for _, s := range []envSpec{
		{uri: uri, concerns: Concerns{W: "1", RC: "local", Read: "primary"}},
		{uri: uri, concerns: Concerns{W: "1", RC: "local", Read: "primary"}, inURI: true},
		{uri: uri, concerns: Concerns{W: "1", RC: "local", Read: "decongestant"}, settings: balancer.DefaultSettings()},
	} {
		_, _, err := openEnv(context.Background(), s)
		if !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "proxyPassword=REDACTED") {
			t.Errorf("read %s, in URI %v: %v, want ErrBadOptions naming the URI redacted", s.concerns.Read, s.inURI, err)
		}
		if err != nil && (strings.Contains(err.Error(), "s3c") || strings.Contains(err.Error(), "tok3n") || strings.Contains(err.Error(), "zz")) {
			t.Errorf("a secret in %v", err)
		}
	}
}

// TestCellLine: a progress line says the numbers, or why there are none.
func TestCellLine(t *testing.T) {
	measured := results.MatrixCell{Setup: "operation", DocSize: 1024, W: "1", RC: "majority", Read: "primary",
		Summary: summarize([]results.MatrixIteration{{Reads: 10, Stale: 2, StalePct: 20, WriteMs: results.Latency{Mean: 1.5, P99: 3},
			ReadMs: results.Latency{Mean: 0.5, P99: 1}, StaleVersions: results.StaleAge{Max: 2}, StaleMs: results.StaleAge{Max: 12.5}}})}
	skipped := results.MatrixCell{Setup: "multi", DocSize: 1 << 20, W: "majority", RC: "linearizable", Read: "secondary", Skipped: SkipLinearizable}
	failed := results.MatrixCell{Setup: "session", DocSize: 700, W: "1", RC: "local", Read: "nearest", Failed: []string{"no primary"}}
	for _, tt := range []struct {
		c    results.MatrixCell
		want []string
	}{
		{measured, []string{"operation", "1K", "w:1", "rc:majority", "read:primary", "write 1.50 ms (P99 3.00)", "read 0.50 ms", "stale 20.00% (up to 2 versions, 12.5 ms)", "[1 it., 10 reads]"}},
		{skipped, []string{"1M", "skipped: MongoDB serves linearizable reads only on the primary"}},
		{failed, []string{"700B", "failed: no primary"}},
	} {
		got := cellLine(tt.c)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q lacks %q", got, w)
			}
		}
	}
}

// TestIterationOrder: every iteration runs every runnable group once, in
// an order that changes from one iteration to the next and is the same
// for the same seed.
func TestIterationOrder(t *testing.T) {
	o := MatrixDefaults()
	want := len(o.groups())
	if want != 3*(6+2*4) { // 3 setups x (6 pairs on the primary + 4 each on 2 other reads)
		t.Fatalf("%d groups", want)
	}
	key := func(g group) string { return g.setup.String() + " " + g.concerns.String() }
	orders := make([][]string, 3)
	for i := range orders {
		seen := map[string]bool{}
		for _, g := range o.iterationOrder(i) {
			if seen[key(g)] || linearizableOffPrimary(g.concerns) {
				t.Fatalf("iteration %d: %s twice or not runnable", i, key(g))
			}
			seen[key(g)] = true
			orders[i] = append(orders[i], key(g))
		}
		if len(seen) != want {
			t.Fatalf("iteration %d runs %d groups, want %d", i, len(seen), want)
		}
	}
	if strings.Join(orders[0], "|") == strings.Join(orders[1], "|") {
		t.Error("two iterations in the same order")
	}
	again := o.iterationOrder(1)
	for j, g := range again {
		if key(g) != orders[1][j] {
			t.Fatal("the same seed and iteration gave another order")
		}
	}
}
