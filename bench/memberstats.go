package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/decongestant/decongestant/metrics"
	"github.com/decongestant/decongestant/monitor"
	"github.com/decongestant/decongestant/results"
	"github.com/decongestant/decongestant/router"
)

// memberStats polls serverStatus on every member at the run's start and at
// every period end, each member over a direct client of its own (opened
// when the member is first polled, closed with the run) and on a goroutine
// of its own, so a slow or down member holds up neither the clients, nor
// the periods, nor the other members' polls. Each period's per-member
// server counters are differences of two consecutive polls of the member
// (serverPeriod); they join the period's members when the run ends.
type memberStats struct {
	uri     string
	opts    []*options.ClientOptions
	timeout time.Duration
	// memory reads a member's cgroup memory by its pid; nil without a
	// local cluster.
	memory func(pid int64) *float64
	// failed is called when a member's poll fails after it answered (or
	// its first poll fails).
	failed func(host string, err error)

	mu      sync.Mutex
	workers map[string]*statsWorker
	out     map[int][]results.Member // by period index
	// bytes is the JSON size of the records added to out since takeBytes.
	bytes  int64
	wg     sync.WaitGroup
	closed bool
}

// statsWorker polls one member, one request at a time.
type statsWorker struct {
	host   string
	reqs   chan int // period index; -1 = the run's start
	client *mongo.Client
	// the member's previous answered poll and the period it ended.
	prev       monitor.ServerStats
	prevPeriod int
	havePrev   bool
	failing    bool
}

// newMemberStats returns the run's poller; polls time out after half a
// period (from 250 ms to 5 s), so a member that does not answer misses the
// period's record rather than delaying the next one.
func newMemberStats(o *Options, memory func(int64) *float64, failed func(string, error)) *memberStats {
	return &memberStats{uri: o.URI, opts: append(slices.Clip(o.ClientOptions), options.Client().SetMaxPoolSize(1)),
		timeout: min(max(o.Period/2, 250*time.Millisecond), 5*time.Second), memory: memory, failed: failed,
		workers: map[string]*statsWorker{}, out: map[int][]results.Member{}}
}

// poll asks every host for its counters at the end of period (-1: the
// run's start) without waiting. A member still busy with older polls (a
// queue of 4) misses this one.
func (s *memberStats) poll(period int, hosts []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, h := range hosts {
		w, ok := s.workers[h]
		if !ok {
			c, err := monitor.DirectClient(s.uri, h, "decongestant-stats", s.opts...)
			if err != nil {
				s.failed(h, err)
				continue
			}
			w = &statsWorker{host: h, reqs: make(chan int, 4), client: c}
			s.workers[h] = w
			s.wg.Go(func() { s.work(w) })
		}
		select {
		case w.reqs <- period:
		default:
		}
	}
}

// work polls w's member for each request until the run ends.
func (s *memberStats) work(w *statsWorker) {
	for period := range w.reqs {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		st, err := monitor.ReadServerStats(ctx, w.client)
		cancel()
		if err != nil {
			if !w.failing {
				// A user without clusterMonitor: the role named in one line.
				s.failed(w.host, monitor.ExplainAccess(err, s.uri))
			}
			w.failing, w.havePrev = true, false
			continue
		}
		w.failing = false
		if period < 0 {
			w.prev, w.prevPeriod, w.havePrev = st, period, true
			continue
		}
		var prev *monitor.ServerStats
		if w.havePrev && w.prevPeriod == period-1 {
			prev = &w.prev
		}
		m := serverPeriod(w.host, prev, st)
		if s.memory != nil {
			m.MemCgroupMB = s.memory(st.PID)
		}
		w.prev, w.prevPeriod, w.havePrev = st, period, true
		n := jsonSize(m)
		s.mu.Lock()
		s.out[period] = append(s.out[period], m)
		s.bytes += n
		s.mu.Unlock()
	}
}

// close waits for the polls asked for, disconnects the members' clients
// and returns each period's records by period index. Later polls are
// ignored; closing twice returns nil.
func (s *memberStats) close() map[int][]results.Member {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, w := range s.workers {
		close(w.reqs)
	}
	s.mu.Unlock()
	s.wg.Wait()
	for _, w := range s.workers {
		_ = w.client.Disconnect(context.Background())
	}
	return s.out
}

// takeBytes returns the JSON size of the records kept since the last call
// (the soak verdict's measure of the run's own results); 0 on nil.
func (s *memberStats) takeBytes() int64 {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.bytes
	s.bytes = 0
	return n
}

// serverPeriod is host's record of a period from its poll at the period's
// end (cur) and at its start (prev; nil when that poll did not answer or
// was not the previous one): the differences of the counters over the
// period, nil when prev is missing or the member restarted in between (the
// pid changed, the uptime or a counter went back); the resident set at the
// end; the member's name and role as serverStatus gives them.
func serverPeriod(host string, prev *monitor.ServerStats, cur monitor.ServerStats) results.Member {
	m := results.Member{Host: host, Name: cur.Name, Role: cur.Role.String()}
	if cur.HasResident {
		m.RSSMB = ptr(float64(cur.ResidentMB))
	}
	if prev == nil || restarted(*prev, cur) {
		return m
	}
	if prev.HasCache && cur.HasCache {
		req, read := cur.PagesRequested-prev.PagesRequested, cur.PagesRead-prev.PagesRead
		m.CachePagesRequested, m.CachePagesRead = &req, &read
		m.CacheReadMB = ptr(metrics.Round3(float64(cur.BytesRead-prev.BytesRead) / (1 << 20)))
		if req > 0 {
			m.CacheMissPct = ptr(metrics.Round3(100 * float64(read) / float64(req)))
		}
	}
	if prev.HasWritten && cur.HasWritten {
		m.CacheWrittenMB = ptr(metrics.Round3(float64(cur.BytesWritten-prev.BytesWritten) / (1 << 20)))
	}
	if prev.HasCheckpoint && cur.HasCheckpoint {
		m.CheckpointMS = ptr(float64(cur.CheckpointMS - prev.CheckpointMS))
	}
	if elapsed := cur.UptimeMS - prev.UptimeMS; prev.HasCPU && cur.HasCPU && elapsed > 0 {
		m.CPUPct = ptr(metrics.Round3(100 * metrics.MS(cur.CPU-prev.CPU) / float64(elapsed)))
	}
	return m
}

// restarted reports whether the member restarted between two polls: its
// pid changed, or its uptime or a counter went back.
func restarted(prev, cur monitor.ServerStats) bool {
	back := cur.UptimeMS < prev.UptimeMS || cur.HasCPU && prev.HasCPU && cur.CPU < prev.CPU ||
		cur.HasCache && prev.HasCache && (cur.PagesRequested < prev.PagesRequested ||
			cur.PagesRead < prev.PagesRead || cur.BytesRead < prev.BytesRead) ||
		cur.HasWritten && prev.HasWritten && cur.BytesWritten < prev.BytesWritten ||
		cur.HasCheckpoint && prev.HasCheckpoint && cur.CheckpointMS < prev.CheckpointMS
	return cur.PID != prev.PID || back
}

// withServer joins a period's server records to its routed members by
// host: a member both list gets the server counters; a member only the
// server records list (the router did not see it) is added.
func withServer(members, server []results.Member) []results.Member {
	for _, s := range server {
		i := slices.IndexFunc(members, func(m results.Member) bool { return m.Host == s.Host })
		if i < 0 {
			members = append(members, s)
			continue
		}
		m := &members[i]
		m.CachePagesRequested, m.CachePagesRead, m.CacheMissPct, m.CacheReadMB = s.CachePagesRequested, s.CachePagesRead, s.CacheMissPct, s.CacheReadMB
		m.CacheWrittenMB, m.CheckpointMS = s.CacheWrittenMB, s.CheckpointMS
		m.CPUPct, m.RSSMB, m.MemCgroupMB = s.CPUPct, s.RSSMB, s.MemCgroupMB
		if m.Name == "" {
			m.Name = s.Name
		}
	}
	return members
}

// pollHosts are the members to poll: those the router sees and those the
// latest lag poll lists (members in other states, which the router may
// never have seen), sorted.
func pollHosts(members []router.MemberSnapshot, lag monitor.LagSample) []string {
	var hosts []string
	for _, m := range members {
		hosts = append(hosts, m.Host)
	}
	for _, m := range lag.Members {
		hosts = append(hosts, m.Host)
	}
	slices.Sort(hosts)
	return slices.Compact(hosts)
}

// failedEvent records a member that stopped answering the stats poll.
func failedEvent(col *collector, start time.Time) func(string, error) {
	return func(host string, err error) {
		col.event(time.Since(start).Seconds(), "member-stats-unavailable", fmt.Sprintf("%s: %v", host, err))
	}
}

func ptr[T any](v T) *T { return &v }
