package hints

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// findCmd is a find command as the driver sends it, with the fields a
// replay drops.
func findCmd(t testing.TB, coll string, filter bson.D, extra ...bson.E) []byte {
	t.Helper()
	cmd := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter}}
	cmd = append(cmd, extra...)
	cmd = append(cmd, bson.E{Key: "lsid", Value: bson.D{{Key: "id", Value: "x"}}}, bson.E{Key: "$db", Value: "db"})
	b, err := bson.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func byID(id int) bson.D { return bson.D{{Key: "_id", Value: id}} }

func TestCaptureDoubleBuffer(t *testing.T) {
	c := NewCapture(3)
	for i := range 5 {
		c.Add("p:1", findCmd(t, "c", byID(i)))
	}
	if got, dropped := c.Counts(); got != 3 || dropped != 2 {
		t.Fatalf("captured %d dropped %d, want 3 and 2 (buffer of 3)", got, dropped)
	}
	select {
	case <-c.Full:
	default:
		t.Fatal("a full buffer did not signal")
	}
	bt := c.Swap()
	if bt.Len() != 3 {
		t.Fatalf("swapped batch holds %d, want 3", bt.Len())
	}
	c.Add("p:1", findCmd(t, "c", byID(9))) // fills the other side meanwhile
	if again := c.Swap(); again.Len() != 0 {
		t.Fatalf("a Swap before Release handed out %d reads, want none", again.Len())
	}
	c.Release(bt)
	if bt := c.Swap(); bt.Len() != 1 {
		t.Fatalf("after Release the next batch holds %d, want the 1 read added meanwhile", bt.Len())
	}
	big := findCmd(t, "c", bson.D{{Key: "_id", Value: strings.Repeat("x", MaxCommand)}})
	before, _ := c.Counts()
	c.Add("p:1", big)
	if after, _ := c.Counts(); after != before {
		t.Fatal("a command over MaxCommand was captured")
	}
}

func TestCaptureAllocatesNothing(t *testing.T) {
	c := NewCapture(1000)
	cmd := findCmd(t, "usertable", bson.D{{Key: "_id", Value: "user123456789"}})
	allocs := testing.AllocsPerRun(500, func() { c.Add("127.0.0.1:27017", cmd) })
	if allocs != 0 {
		t.Fatalf("Add allocates %v times, want 0", allocs)
	}
}

func TestSummariseKeepsTheLastReadOfEachKey(t *testing.T) {
	c := NewCapture(100)
	add := func(host string, cmd []byte) { c.Add(host, cmd) }
	add("p", findCmd(t, "c", byID(1)))
	add("p", findCmd(t, "c", byID(2)))
	add("s1", findCmd(t, "c", byID(1)))                                                         // later read of key 1, on s1
	add("p", findCmd(t, "d", byID(1)))                                                          // other collection: another key
	add("p", findCmd(t, "c", byID(2), bson.E{Key: "limit", Value: 5}))                          // other limit: another key
	add("p", findCmd(t, "c", byID(3), bson.E{Key: "skip", Value: 2}))                           // skips: not captured
	add("p", mustMarshal(t, bson.D{{Key: "aggregate", Value: "c"}, {Key: "$db", Value: "db"}})) // not a find
	add("p", []byte{1, 2, 3})                                                                   // garbage
	reads := Summarise(c.Swap())
	type got struct {
		host, coll string
		limit      int64
	}
	var out []got
	for _, r := range reads {
		out = append(out, got{r.Host, r.Coll, r.Limit})
		if r.DB != "db" {
			t.Errorf("db %q, want db", r.DB)
		}
	}
	want := []got{{"p", "c", 0}, {"s1", "c", 0}, {"p", "d", 0}, {"p", "c", 5}}
	if len(out) != len(want) {
		t.Fatalf("summarised %+v, want %+v", out, want)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("read %d: %+v, want %+v (all %+v)", i, out[i], want[i], out)
		}
	}
	if !bytes.Equal(reads[1].Filter, mustMarshal(t, byID(1))) {
		t.Fatalf("filter %v, want {_id: 1}", reads[1].Filter)
	}
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func summarised(t *testing.T, cmds map[string][][]byte) []Read {
	t.Helper()
	c := NewCapture(10000)
	for host, list := range cmds {
		for _, cmd := range list {
			c.Add(host, cmd)
		}
	}
	return Summarise(c.Swap())
}

func TestPlan(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Coalesce = 4
	cfg.MaxLimit = 10
	var points [][]byte
	for i := range 10 {
		points = append(points, findCmd(t, "c", byID(i)))
	}
	reads := summarised(t, map[string][][]byte{
		"p": append(points,
			findCmd(t, "c", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 5}}}}, bson.E{Key: "limit", Value: 50}),
			findCmd(t, "c", bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 2}}, bson.E{Key: "limit", Value: 3}),
			findCmd(t, "c", byID(100), bson.E{Key: "sort", Value: bson.D{{Key: "x", Value: 1}}})),
		"s1": {findCmd(t, "c", byID(200))},
	})
	plan := Plan(reads, "s2", 1, 1, cfg)
	var keys, ins int
	var limits []int64
	for _, rp := range plan {
		keys += rp.Keys
		if v, err := rp.Filter.LookupErr("_id", "$in"); err == nil {
			ins++
			arr, _ := v.Array().Values()
			if len(arr) != rp.Keys || rp.Keys > cfg.Coalesce {
				t.Fatalf("$in of %d values stands for %d keys (coalesce %d)", len(arr), rp.Keys, cfg.Coalesce)
			}
			continue
		}
		limits = append(limits, rp.Limit)
	}
	if keys != 14 {
		t.Fatalf("s2 got %d keys, want all 14 reads (it served none)", keys)
	}
	if ins != 3 { // 11 point reads on _id (10 from p, 1 from s1) in $in of at most 4
		t.Fatalf("%d $in replays, want 3 for 11 point reads at 4 per query", ins)
	}
	want := map[int64]bool{10: true, 3: true}
	for _, l := range limits {
		if !want[l] && l != 10 {
			t.Fatalf("limits %v: the range read must be capped at MaxLimit 10, the 2-field one keep 3, the sorted one get 10", limits)
		}
	}
	if n := len(limits); n != 3 {
		t.Fatalf("%d replays kept as they were, want 3 (range, two fields, sorted)", n)
	}
	for _, rp := range Plan(reads, "s1", 1, 1, cfg) {
		if v, err := rp.Filter.LookupErr("_id", "$in"); err == nil {
			vals, _ := v.Array().Values()
			for _, x := range vals {
				if x.AsInt64() == 200 {
					t.Fatal("s1 was hinted the read it served itself")
				}
			}
		}
	}
}

func TestPlanAppliesTheFraction(t *testing.T) {
	cfg := DefaultConfig()
	var cmds [][]byte
	for i := range 4000 {
		cmds = append(cmds, findCmd(t, "c", byID(i)))
	}
	reads := summarised(t, map[string][][]byte{"p": cmds})
	count := func(apply float64, seq uint64) int {
		n := 0
		for _, rp := range Plan(reads, "s", apply, seq, cfg) {
			n += rp.Keys
		}
		return n
	}
	for _, apply := range []float64{0.1, 0.2, 0.33, 0.5, 1} {
		got := float64(count(apply, 7)) / 4000
		if tol := 5*math.Sqrt(apply*(1-apply)/4000) + 1e-9; math.Abs(got-apply) > tol {
			t.Errorf("apply %v kept %.3f of the reads", apply, got)
		}
	}
	a, b := Plan(reads, "s", 0.5, 1, cfg), Plan(reads, "s", 0.5, 2, cfg)
	if bytes.Equal(a[0].Filter, b[0].Filter) {
		t.Error("two batches sampled the same keys: the sample must vary with the batch")
	}
}

func TestTargetHosts(t *testing.T) {
	members := []Member{{Host: "h3", Name: "n3"}, {Host: "h1", Name: "n1", Primary: true}, {Host: "h2", Name: "n2"}}
	tests := []struct {
		targets Targets
		one     string
		want    string
	}{
		{All, "", "h1,h2,h3"},
		{One, "", "h2"},
		{One, "n3", "h3"},
		{One, "h1", "h1"},
		{One, "n9", ""},
	}
	for _, tt := range tests {
		got := strings.Join(TargetHosts(Config{Targets: tt.targets, One: tt.one}, members), ",")
		if got != tt.want {
			t.Errorf("%v %q: %q, want %q", tt.targets, tt.one, got, tt.want)
		}
	}
}

func TestSwitch(t *testing.T) {
	cfg := DefaultOverloadConfig()
	cfg.Hold = 2
	ms := time.Millisecond
	calm := Load{Latency: 2 * ms, LagKnown: true}
	tests := []struct {
		name  string
		loads []Load
		on    []bool // after each load
	}{
		{"calm stays on", []Load{calm, calm, calm}, []bool{true, true, true}},
		{"slow replays switch off after hold, on after hold", []Load{calm, {Latency: 20 * ms}, {Latency: 30 * ms}, calm, calm},
			[]bool{true, true, false, false, true}},
		{"one strained period is not enough", []Load{calm, {Latency: 20 * ms}, calm, {Latency: 20 * ms}, calm}, []bool{true, true, true, true, true}},
		{"under the floor is never strain", []Load{{Latency: 100 * time.Microsecond}, {Latency: 4 * ms}, {Latency: 4 * ms}}, []bool{true, true, true}},
		{"lag over the limit", []Load{{Lag: 2 * time.Second, LagKnown: true}, {Lag: 3 * time.Second, LagKnown: true}}, []bool{true, false}},
		{"unknown lag is not strain", []Load{{Lag: 9 * time.Second}, {Lag: 9 * time.Second}}, []bool{true, true}},
		{"behind", []Load{{Behind: true}, {Behind: true}, calm}, []bool{true, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSwitch(cfg)
			for i, l := range tt.loads {
				changed, why := s.Observe(l)
				if s.On() != tt.on[i] {
					t.Fatalf("after load %d (%+v): on=%v, want %v (why %q)", i, l, s.On(), tt.on[i], why)
				}
				if changed && !s.On() && why == "" {
					t.Fatalf("switched off without a reason")
				}
			}
		})
	}
	s := NewSwitch(cfg)
	s.Observe(Load{Behind: true})
	s.Observe(Load{Behind: true})
	if s.On() || s.Apply(0.5) != cfg.ProbeApply {
		t.Fatalf("an off switch applies %v, want the probe fraction %v", s.Apply(0.5), cfg.ProbeApply)
	}
}

func TestConfig(t *testing.T) {
	bad := []string{"apply=0", "apply=1.5", "apply=x", "interval=0s", "interval=-1s", "batch=0", "targets=some", "color=red", "apply"}
	for _, spec := range bad {
		if _, err := ParseSpec(DefaultConfig(), spec); err == nil {
			t.Errorf("ParseSpec(%q) accepted", spec)
		}
	}
	c, err := ParseSpec(DefaultConfig(), "apply=0.33/targets=one:n2/interval=1s/batch=500")
	if err != nil {
		t.Fatal(err)
	}
	if c.Apply != 0.33 || c.Targets != One || c.One != "n2" || c.Interval != time.Second || c.MaxBatch != 500 {
		t.Fatalf("parsed %+v", c)
	}
	if got := c.Name(); got != "hints:apply=0.33/targets=one:n2/interval=1s/batch=500" {
		t.Fatalf("Name() = %q", got)
	}
	vs, err := ParseVariants("off,on,hints:apply=0.1")
	if err != nil || len(vs) != 3 || vs[0] != nil || vs[1].Name() != "hints" || vs[2].Name() != "hints:apply=0.1" {
		t.Fatalf("ParseVariants: %v %v", vs, err)
	}
	if _, err := ParseVariants("maybe"); err == nil {
		t.Fatal("ParseVariants(maybe) accepted")
	}
}

func BenchmarkCapture(b *testing.B) {
	cmd := findCmd(b, "usertable", bson.D{{Key: "_id", Value: "user123456789"}})
	c := NewCapture(10000)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		c.Add("127.0.0.1:27017", cmd)
		if n++; n == 10000 {
			c.Release(c.Swap())
			n = 0
		}
	}
}

// BenchmarkSummarisePlan is the shipper's work per captured read, off the
// read path: parse, keep the last read of each key, plan one target.
func BenchmarkSummarisePlan(b *testing.B) {
	c := NewCapture(10000)
	for i := range 10000 {
		c.Add("p:1", findCmd(b, "usertable", bson.D{{Key: "_id", Value: "user" + strings.Repeat("1", i%7) + string(rune('a'+i%26))}}))
	}
	cfg := DefaultConfig()
	b.ReportAllocs()
	for b.Loop() {
		bt := c.Swap()
		reads := Summarise(bt)
		Plan(reads, "s:1", 1, 1, cfg)
		c.spare = bt.b // keep the same batch for the next round
		c.cur, c.spare = c.spare, c.cur
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/read")
}

// TestAggregationsReplayAsCaptured: an aggregation is kept with its
// pipeline (the same pipeline once), one that writes is not, and the plan
// replays it as itself, with no limit and no $in merging.
func TestAggregationsReplayAsCaptured(t *testing.T) {
	agg := func(coll string, stages ...bson.D) []byte {
		return mustMarshal(t, bson.D{{Key: "aggregate", Value: coll}, {Key: "pipeline", Value: stages},
			{Key: "cursor", Value: bson.D{}}, {Key: "$db", Value: "db"}})
	}
	match := func(days int) bson.D {
		return bson.D{{Key: "$match", Value: bson.D{{Key: "l_shipdate", Value: bson.D{{Key: "$lte", Value: days}}}}}}
	}
	group := bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$l_returnflag"}}}}
	c := NewCapture(100)
	c.Add("p", agg("lineitem", match(90), group))
	c.Add("p", agg("lineitem", match(60), group))
	c.Add("p", agg("lineitem", match(90), group))                                                             // same pipeline: one read
	c.Add("p", agg("lineitem", match(90), bson.D{{Key: "$out", Value: "x"}}))                                 // writes: not replayed
	c.Add("p", agg("lineitem", match(90), bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "x"}}}})) // writes
	c.Add("p", mustMarshal(t, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{}}, {Key: "$db", Value: "db"}}))
	reads := Summarise(c.Swap())
	if len(reads) != 2 {
		t.Fatalf("summarised %d reads, want the two distinct read-only pipelines: %+v", len(reads), reads)
	}
	want60 := mustMarshal(t, bson.D{{Key: "0", Value: match(60)}, {Key: "1", Value: group}})
	if !bytes.Equal(reads[0].Pipeline, want60) || reads[0].Coll != "lineitem" {
		t.Fatalf("first read %s.%s pipeline %v, want lineitem with the 60-day pipeline", reads[0].DB, reads[0].Coll, reads[0].Pipeline)
	}
	plan := Plan(reads, "s1", 1, 0, DefaultConfig())
	if len(plan) != 2 {
		t.Fatalf("plan %+v, want both aggregations", plan)
	}
	for _, rp := range plan {
		if rp.Pipeline == nil || rp.Limit != 0 || rp.Keys != 1 {
			t.Errorf("replay %+v: want the pipeline as captured, no limit, one read", rp)
		}
	}
	if got := Plan(reads, "p", 1, 0, DefaultConfig()); len(got) != 0 {
		t.Errorf("planned %d replays for the member that served them", len(got))
	}
}
