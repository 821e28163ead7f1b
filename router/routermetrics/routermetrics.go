// Package routermetrics exports a router's Stats to Prometheus. It is a
// package of its own so that the router library does not depend on the
// Prometheus client: import it only if you scrape.
//
// A Collector reads Router.Stats at every scrape and turns it into constant
// metrics: it registers nothing globally and runs no goroutine.
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(routermetrics.New(r))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// Every metric is named decongestant_*; a member is its host:port in the
// label member. Counters count since the router connected (a new router
// starts them again, as a restarted process would); latencies are the
// router's latest period (the policy's balancing period, or the latest
// second), as a summary's quantiles are over a recent window while its
// count and sum are cumulative. Series that have no value are left out
// rather than reported as 0: a member's lag when
// the latest poll does not know it, its weight under a policy that does
// not route per member, the hints' series when hints are off.
package routermetrics

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/decongestant/decongestant/router"
)

// Source is what a Collector reads at every scrape: a *router.Router, or a
// fake in tests.
type Source interface {
	Stats() router.Stats
}

var _ Source = (*router.Router)(nil)

// Collector is a prometheus.Collector of one router's Stats. Its source
// can be swapped (Set) while it is registered, e.g. for a new router per
// run.
type Collector struct {
	src atomic.Pointer[source]
}

// source boxes a Source so that the Collector's pointer can be swapped
// atomically.
type source struct{ Source }

var _ prometheus.Collector = (*Collector)(nil)

// New returns a Collector of src's Stats; src may be nil (no metrics until
// Set).
func New(src Source) *Collector {
	c := &Collector{}
	c.Set(src)
	return c
}

// Set makes src the router scraped from now on; nil scrapes nothing. Pass
// a nil interface, not a nil *router.Router.
func (c *Collector) Set(src Source) {
	if src == nil {
		c.src.Store(nil)
		return
	}
	c.src.Store(&source{src})
}

const ns = "decongestant"

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(ns+"_"+name, help, labels, nil)
}

var (
	routerInfo = desc("router_info", "The router's policy, how it routes, the latency the policy sees and the lag source in force (always 1).",
		"policy", "mode", "latency_source", "lag_source")
	fraction  = desc("fraction", "Balance fraction in force: the share of reads sent to secondaries.")
	ratio     = desc("decision_ratio", "Latency ratio of the latest period decision (absent when the decision had none).")
	decisions = desc("decisions_total", "Period decisions since the router connected, by the policy's reason.",
		"reason")
	reads        = desc("reads_total", "Routed reads served, by the role of the member that answered at the time.", "role")
	memberReads  = desc("member_reads_total", "Routed reads the member served.", "member")
	memberInfo   = desc("member_info", "The member's name (its node tag) and its role as the routed client sees it now (always 1).", "member", "name", "role")
	latency      = desc("member_latency_seconds", "Latency of the reads the member served, client observed or on the wire: count and sum since the router connected, quantiles over the latest period (NaN when it served none).", "member", "source")
	minRTT       = desc("member_min_rtt_seconds", "Least ping of the member in the latest period.", "member")
	memberLag    = desc("member_lag_seconds", "The member's staleness in the latest lag poll (0 for the primary).", "member")
	weight       = desc("member_weight", "The member's share of reads in force (per-member policies).", "member")
	lagKnown     = desc("lag_known", "1 when the latest lag poll knows every secondary's staleness, else 0.")
	lagPollTime  = desc("lag_poll_timestamp_seconds", "When the latest lag poll was sent, in seconds since the Unix epoch.")
	lagUnknown   = desc("lag_unknown_total", "Lag polls at which the lag turned unknown.")
	forcedZero   = desc("bound_forced_zero_total", "Lag polls at which the staleness bound set the fraction to 0.")
	restored     = desc("bound_restored_total", "Lag polls that lifted the fraction from a 0 the staleness bound had forced.")
	excluded     = desc("member_excluded_total", "Lag polls that took the member's share away (per-member policies).", "member")
	included     = desc("member_included_total", "Lag polls that gave the member a share (per-member policies).", "member")
	rywReads     = desc("read_your_writes_reads_total", "Routed reads that had an operation time to find applied (a proxied connection's write, a causal session's).")
	rywHeld      = desc("read_your_writes_held_total", "Of those, the reads sent to the primary because no secondary with a share was known to have applied it.")
	hintCaptured = desc("hints_captured_reads_total", "Routed finds captured for read hints.")
	hintDropped  = desc("hints_dropped_reads_total", "Routed finds not captured because the capture buffer was full.")
	hintBatches  = desc("hints_batches_total", "Batches of read hints shipped.")
	hintDistinct = desc("hints_distinct_reads_total", "Distinct reads in the shipped batches.")
	hintOn       = desc("hints_on", "1 while the member's read hints are on, 0 while the overload switch holds them off.", "member")
	hintReplays  = desc("hints_replays_total", "Replay queries sent to the member.", "member")
	hintKeys     = desc("hints_replayed_reads_total", "Captured reads the member's replays stood for.", "member")
	hintErrors   = desc("hints_replay_errors_total", "Replays on the member that failed.", "member")
	hintLate     = desc("hints_dropped_batches_total", "Batches for the member replaced before its workers took them.", "member")

	all = []*prometheus.Desc{routerInfo, fraction, ratio, decisions, reads, memberReads, memberInfo, latency, minRTT,
		memberLag, weight, lagKnown, lagPollTime, lagUnknown, forcedZero, restored, excluded, included, rywReads, rywHeld,
		hintCaptured, hintDropped, hintBatches, hintDistinct, hintOn, hintReplays, hintKeys, hintErrors, hintLate}
)

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range all {
		ch <- d
	}
}

// Collect reads the source's Stats once and sends its metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	src := c.src.Load()
	if src == nil {
		return
	}
	st := src.Stats()
	m := emitter{ch}
	m.gauge(routerInfo, 1, st.Policy, st.Mode.String(), st.LatencySource.String(), st.LagSource.String())
	m.gauge(fraction, st.Fraction)
	if r := st.Decision.Ratio; !math.IsNaN(r) && !math.IsInf(r, 0) {
		m.gauge(ratio, r)
	}
	for reason, n := range st.Decisions {
		m.counter(decisions, n, reason)
	}
	m.counter(reads, st.Served.Primary, "primary")
	m.counter(reads, st.Served.Secondary, "secondary")
	m.counter(reads, st.Served.Other, "other")
	for _, mb := range st.Members {
		m.member(mb, st.PerMember)
	}
	m.gauge(lagKnown, boolValue(st.Lag.Known))
	if !st.Lag.At.IsZero() {
		m.gauge(lagPollTime, float64(st.Lag.At.UnixNano())/1e9)
	}
	m.counter(lagUnknown, st.Bound.LagUnknown)
	m.counter(rywReads, st.ReadYourWrites.Reads)
	m.counter(rywHeld, st.ReadYourWrites.Held)
	m.counter(forcedZero, st.Bound.ForcedZero)
	m.counter(restored, st.Bound.Restored)
	for host, n := range st.Bound.Excluded {
		m.counter(excluded, n, host)
	}
	for host, n := range st.Bound.Included {
		m.counter(included, n, host)
	}
	if st.HintsOn {
		m.hints(st)
	}
}

// emitter sends constant metrics.
type emitter struct{ ch chan<- prometheus.Metric }

func (e emitter) gauge(d *prometheus.Desc, v float64, labels ...string) {
	e.ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func (e emitter) counter(d *prometheus.Desc, n int64, labels ...string) {
	e.ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), labels...)
}

// member sends one member's series.
func (e emitter) member(m router.MemberStats, perMember bool) {
	e.counter(memberReads, m.Served, m.Host)
	e.gauge(memberInfo, 1, m.Host, m.Name, m.Role.String())
	for _, src := range []struct {
		name string
		l    router.Latency
	}{{"client", m.Client}, {"wire", m.Wire}} {
		q := map[float64]float64{0.5: math.NaN(), 0.8: math.NaN()}
		if src.l.PeriodCount > 0 {
			q[0.5], q[0.8] = seconds(src.l.P50), seconds(src.l.P80)
		}
		e.ch <- prometheus.MustNewConstSummary(latency, uint64(max(src.l.Count, 0)), seconds(src.l.Sum), q, m.Host, src.name)
	}
	if m.MinRTT > 0 {
		e.gauge(minRTT, seconds(m.MinRTT), m.Host)
	}
	if m.LagKnown {
		e.gauge(memberLag, seconds(m.Lag), m.Host)
	}
	if perMember {
		e.gauge(weight, m.Weight, m.Host)
	}
}

// hints sends the read hints' series.
func (e emitter) hints(st router.Stats) {
	h := st.Hints
	e.counter(hintCaptured, h.Captured)
	e.counter(hintDropped, h.Dropped)
	e.counter(hintBatches, h.Batches)
	e.counter(hintDistinct, h.Distinct)
	for _, m := range h.Members {
		e.gauge(hintOn, boolValue(m.On), m.Host)
		e.counter(hintReplays, m.Replays, m.Host)
		e.counter(hintKeys, m.Keys, m.Host)
		e.counter(hintErrors, m.Errors, m.Host)
		e.counter(hintLate, m.DroppedBatches, m.Host)
	}
}

func seconds(d time.Duration) float64 { return d.Seconds() }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
