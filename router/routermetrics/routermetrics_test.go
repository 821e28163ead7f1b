package routermetrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/decongestant/decongestant/balancer"
	"github.com/decongestant/decongestant/hints"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/router"
)

// fake is a Source with fixed Stats: the edge a Collector reads.
type fake struct{ st router.Stats }

func (f fake) Stats() router.Stats { return f.st }

const ms = time.Millisecond

// perMember is a Spillway router over three members: the primary h1, a
// secondary h2, and h3 out of the routing (recovering); hints on.
var perMember = router.Stats{
	Policy: "spillway", Mode: balancer.PerMember, LatencySource: router.CommandLatency, LagSource: monitor.SourceHello,
	Fraction: 0.6, PerMember: true,
	Weights: balancer.Weights{Primary: 0.4, Secondaries: []balancer.HostWeight{{Host: "h2:2", Weight: 0.6}}},
	Served:  router.Served{Primary: 30, Secondary: 12, Other: 1, ByHost: map[string]int64{"h1:1": 31, "h2:2": 12}},
	Members: []router.MemberStats{
		{Host: "h1:1", Name: "n1", Role: balancer.Primary, Served: 31,
			Client: router.Latency{Count: 31, Sum: 124 * ms, PeriodCount: 5, P50: 4 * ms, P80: 6 * ms},
			Wire:   router.Latency{Count: 30, Sum: 60 * ms, PeriodCount: 5, P50: 2 * ms, P80: 3 * ms}, MinRTT: ms / 2, LagKnown: true, Weight: 0.4},
		{Host: "h2:2", Name: "n2", Role: balancer.Secondary, Served: 12,
			Client: router.Latency{Count: 12, Sum: 36 * ms, PeriodCount: 2, P50: 3 * ms, P80: 5 * ms},
			Wire:   router.Latency{Count: 12, Sum: 12 * ms, PeriodCount: 2, P50: ms, P80: 1500 * time.Microsecond}, MinRTT: ms / 4, Lag: 1500 * ms, LagKnown: true, Weight: 0.6},
		{Host: "h3:3", Name: "n3"},
	},
	Lag:       monitor.LagSample{At: time.Unix(1700000000, 500000000), Known: true},
	Decision:  balancer.Decision{Fraction: 0.6, Ratio: 1.25, Reason: "spill"},
	Decisions: map[string]int64{"spill": 7, "too-few-samples": 2},
	Bound: router.BoundStats{LagUnknown: 1, ForcedZero: 2, Restored: 1, Excluded: map[string]int64{"h3:3": 2},
		Included: map[string]int64{"h2:2": 1, "h3:3": 1}},
	HintsOn:        true,
	ReadYourWrites: router.ReadYourWrites{Reads: 40, Held: 9},
	Hints: hints.Stats{Captured: 100, Dropped: 3, Batches: 10, Distinct: 60, Members: []hints.MemberStats{
		{Host: "h2:2", On: true, Replays: 20, Keys: 55, Errors: 1, DroppedBatches: 2}, {Host: "h3:3"}}},
}

const perMemberWant = `
gauge decongestant_router_info{lag_source="hello",latency_source="command",mode="per-member",policy="spillway"} 1
gauge decongestant_fraction 0.6
gauge decongestant_decision_ratio 1.25
counter decongestant_decisions_total{reason="spill"} 7
counter decongestant_decisions_total{reason="too-few-samples"} 2
counter decongestant_reads_total{role="primary"} 30
counter decongestant_reads_total{role="secondary"} 12
counter decongestant_reads_total{role="other"} 1
counter decongestant_member_reads_total{member="h1:1"} 31
counter decongestant_member_reads_total{member="h2:2"} 12
counter decongestant_member_reads_total{member="h3:3"} 0
gauge decongestant_member_info{member="h1:1",name="n1",role="primary"} 1
gauge decongestant_member_info{member="h2:2",name="n2",role="secondary"} 1
gauge decongestant_member_info{member="h3:3",name="n3",role="other"} 1
summary decongestant_member_latency_seconds{member="h1:1",quantile="0.5",source="client"} 0.004
summary decongestant_member_latency_seconds{member="h1:1",quantile="0.8",source="client"} 0.006
summary decongestant_member_latency_seconds_count{member="h1:1",source="client"} 31
summary decongestant_member_latency_seconds_sum{member="h1:1",source="client"} 0.124
summary decongestant_member_latency_seconds{member="h1:1",quantile="0.5",source="wire"} 0.002
summary decongestant_member_latency_seconds{member="h1:1",quantile="0.8",source="wire"} 0.003
summary decongestant_member_latency_seconds_count{member="h1:1",source="wire"} 30
summary decongestant_member_latency_seconds_sum{member="h1:1",source="wire"} 0.06
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.5",source="client"} 0.003
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.8",source="client"} 0.005
summary decongestant_member_latency_seconds_count{member="h2:2",source="client"} 12
summary decongestant_member_latency_seconds_sum{member="h2:2",source="client"} 0.036
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.5",source="wire"} 0.001
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.8",source="wire"} 0.0015
summary decongestant_member_latency_seconds_count{member="h2:2",source="wire"} 12
summary decongestant_member_latency_seconds_sum{member="h2:2",source="wire"} 0.012
summary decongestant_member_latency_seconds{member="h3:3",quantile="0.5",source="client"} NaN
summary decongestant_member_latency_seconds{member="h3:3",quantile="0.8",source="client"} NaN
summary decongestant_member_latency_seconds_count{member="h3:3",source="client"} 0
summary decongestant_member_latency_seconds_sum{member="h3:3",source="client"} 0
summary decongestant_member_latency_seconds{member="h3:3",quantile="0.5",source="wire"} NaN
summary decongestant_member_latency_seconds{member="h3:3",quantile="0.8",source="wire"} NaN
summary decongestant_member_latency_seconds_count{member="h3:3",source="wire"} 0
summary decongestant_member_latency_seconds_sum{member="h3:3",source="wire"} 0
gauge decongestant_member_min_rtt_seconds{member="h1:1"} 0.0005
gauge decongestant_member_min_rtt_seconds{member="h2:2"} 0.00025
gauge decongestant_member_lag_seconds{member="h1:1"} 0
gauge decongestant_member_lag_seconds{member="h2:2"} 1.5
gauge decongestant_member_weight{member="h1:1"} 0.4
gauge decongestant_member_weight{member="h2:2"} 0.6
gauge decongestant_member_weight{member="h3:3"} 0
gauge decongestant_lag_known 1
gauge decongestant_lag_poll_timestamp_seconds 1.7000000005e+09
counter decongestant_lag_unknown_total 1
counter decongestant_read_your_writes_reads_total 40
counter decongestant_read_your_writes_held_total 9
counter decongestant_bound_forced_zero_total 2
counter decongestant_bound_restored_total 1
counter decongestant_member_excluded_total{member="h3:3"} 2
counter decongestant_member_included_total{member="h2:2"} 1
counter decongestant_member_included_total{member="h3:3"} 1
counter decongestant_hints_captured_reads_total 100
counter decongestant_hints_dropped_reads_total 3
counter decongestant_hints_batches_total 10
counter decongestant_hints_distinct_reads_total 60
gauge decongestant_hints_on{member="h2:2"} 1
gauge decongestant_hints_on{member="h3:3"} 0
counter decongestant_hints_replays_total{member="h2:2"} 20
counter decongestant_hints_replays_total{member="h3:3"} 0
counter decongestant_hints_replayed_reads_total{member="h2:2"} 55
counter decongestant_hints_replayed_reads_total{member="h3:3"} 0
counter decongestant_hints_replay_errors_total{member="h2:2"} 1
counter decongestant_hints_replay_errors_total{member="h3:3"} 0
counter decongestant_hints_dropped_batches_total{member="h2:2"} 2
counter decongestant_hints_dropped_batches_total{member="h3:3"} 0
`

// split is Decongestant before its first decision, its lag unknown, hints
// off: no ratio, no weights, no lag, no hints.
var split = router.Stats{
	Policy: "decongestant", Mode: balancer.Split, LatencySource: router.ClientLatency, LagSource: monitor.SourceReplSetGetStatus,
	Fraction: 0, Served: router.Served{Secondary: 4, ByHost: map[string]int64{"h2:2": 4}},
	Members: []router.MemberStats{{Host: "h2:2", Role: balancer.Secondary, Served: 4,
		Client: router.Latency{Count: 9, Sum: 72 * ms, PeriodCount: 4, P50: 8 * ms, P80: 9 * ms}}},
	Lag:      monitor.LagSample{At: time.Unix(1700000001, 0)},
	Decision: balancer.Decision{Ratio: math.NaN()},
	Bound:    router.BoundStats{LagUnknown: 1, ForcedZero: 1},
}

const splitWant = `
gauge decongestant_router_info{lag_source="replsetgetstatus",latency_source="client",mode="split",policy="decongestant"} 1
gauge decongestant_fraction 0
counter decongestant_reads_total{role="primary"} 0
counter decongestant_reads_total{role="secondary"} 4
counter decongestant_reads_total{role="other"} 0
counter decongestant_member_reads_total{member="h2:2"} 4
gauge decongestant_member_info{member="h2:2",name="",role="secondary"} 1
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.5",source="client"} 0.008
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.8",source="client"} 0.009
summary decongestant_member_latency_seconds_count{member="h2:2",source="client"} 9
summary decongestant_member_latency_seconds_sum{member="h2:2",source="client"} 0.072
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.5",source="wire"} NaN
summary decongestant_member_latency_seconds{member="h2:2",quantile="0.8",source="wire"} NaN
summary decongestant_member_latency_seconds_count{member="h2:2",source="wire"} 0
summary decongestant_member_latency_seconds_sum{member="h2:2",source="wire"} 0
gauge decongestant_lag_known 0
gauge decongestant_lag_poll_timestamp_seconds 1.700000001e+09
counter decongestant_lag_unknown_total 1
counter decongestant_read_your_writes_reads_total 0
counter decongestant_read_your_writes_held_total 0
counter decongestant_bound_forced_zero_total 1
counter decongestant_bound_restored_total 0
`

// sample is one scraped series: its family's type and its value.
type sample struct {
	typ   string
	value float64
}

// parseWant reads "type name{labels} value" lines.
func parseWant(t *testing.T, s string) map[string]sample {
	t.Helper()
	out := map[string]sample{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[2], 64)
		if len(f) != 3 || err != nil {
			t.Fatalf("bad want line %q", line)
		}
		out[f[1]] = sample{f[0], v}
	}
	return out
}

// scrape serves reg through promhttp and returns the text it wrote.
func scrape(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: status %d, %v: %s", resp.StatusCode, err, body)
	}
	return string(body)
}

// parse parses exposition text into "name{labels sorted}" -> sample, and
// checks every family has a help text.
func parse(t *testing.T, text string) map[string]sample {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	out := map[string]sample{}
	for name, mf := range families {
		if mf.GetHelp() == "" {
			t.Errorf("%s has no help", name)
		}
		typ := strings.ToLower(mf.GetType().String())
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, lp := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			add := func(name string, v float64, extra ...string) {
				ls := slices.Sorted(slices.Values(append(slices.Clone(labels), extra...)))
				key := name
				if len(ls) > 0 {
					key += "{" + strings.Join(ls, ",") + "}"
				}
				out[key] = sample{typ, v}
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				add(name, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				add(name, m.GetGauge().GetValue())
			case dto.MetricType_SUMMARY:
				s := m.GetSummary()
				add(name+"_count", float64(s.GetSampleCount()))
				add(name+"_sum", s.GetSampleSum())
				for _, q := range s.GetQuantile() {
					add(name, q.GetValue(), fmt.Sprintf("quantile=%q", strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)))
				}
			default:
				t.Errorf("%s: unexpected type %s", name, typ)
			}
		}
	}
	return out
}

// same reports whether two values agree (NaN agrees with NaN).
func same(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b))
}

// TestCollector scrapes a fresh registry holding a Collector over fixed
// Stats through promhttp, and checks every series' name, type, labels and
// value, that nothing else is there, and that promlint finds no problem.
func TestCollector(t *testing.T) {
	tests := []struct {
		name string
		st   router.Stats
		want string
	}{
		{"per member, hints on", perMember, perMemberWant},
		{"split, before the first decision", split, splitWant},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			reg.MustRegister(New(fake{tt.st}))
			text := scrape(t, reg)
			got, want := parse(t, text), parseWant(t, tt.want)
			for k, w := range want {
				g, ok := got[k]
				switch {
				case !ok:
					t.Errorf("missing %s", k)
				case g.typ != w.typ || !same(g.value, w.value):
					t.Errorf("%s: %s %v, want %s %v", k, g.typ, g.value, w.typ, w.value)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("unexpected %s", k)
				}
			}
			problems, err := promlint.New(strings.NewReader(text)).Lint()
			if err != nil || len(problems) > 0 {
				t.Errorf("promlint: %v %v", err, problems)
			}
		})
	}
}

// TestCollectorSet: no source scrapes nothing; Set swaps the router
// scraped (a new one per run).
func TestCollectorSet(t *testing.T) {
	c := New(nil)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	if got := parse(t, scrape(t, reg)); len(got) != 0 {
		t.Fatalf("no source scraped %v", got)
	}
	c.Set(fake{split})
	if got := parse(t, scrape(t, reg)); got[`decongestant_router_info{lag_source="replsetgetstatus",latency_source="client",mode="split",policy="decongestant"}`].value != 1 {
		t.Fatalf("after Set: %v", got)
	}
	c.Set(fake{perMember})
	got := parse(t, scrape(t, reg))
	if _, ok := got[`decongestant_router_info{lag_source="hello",latency_source="command",mode="per-member",policy="spillway"}`]; !ok || len(got) != len(parseWant(t, perMemberWant)) {
		t.Fatalf("after the second Set: %v", got)
	}
	c.Set(nil)
	if got := parse(t, scrape(t, reg)); len(got) != 0 {
		t.Fatalf("Set(nil) scraped %v", got)
	}
}
