package balancer

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// A discrete-event model of routers reading from a replica set, to compare
// per-read rules where the mean-value models above (which take a split as
// given) cannot: a per-read rule sees each moment's queues.
//
// Closed loop: each of an instance's clients sends one operation, waits for
// it, thinks, and sends the next. Open loop (rate set): operations arrive
// at random (Poisson) at a fixed rate, each at a random instance, whatever
// the latency. A fraction of the operations are writes,
// which go to the primary (member 0). A member is a processor-sharing queue
// that serves mu operations a second alone (exponential work), or, when
// stalled, holds every read for a fixed time whatever its load (a gray
// failure: it answers pings but not reads). Every instance is its own
// router: it sees only its own operations in flight, and its own policy
// estimates the members from its own reads.

type simSetup struct {
	mu        []float64 // operations/s each member serves alone; member 0 is the primary
	stall     []float64 // s, a member's fixed read time (0: a queue as the others)
	instances int
	clients   int     // per instance (closed loop)
	rate      float64 // operations/s (open loop); 0: closed
	think     float64 // s between an operation's reply and the next
	writes    float64 // fraction of operations that are writes
	seconds   float64 // simulated time; the first quarter is warm-up
	seed      uint64
}

type simResult struct {
	meanMS, p99MS float64
	readsPerSec   float64
	share         []float64 // of the reads measured, by member
}

func (r simResult) String() string {
	return fmt.Sprintf("%.0f reads/s, mean %.2fms, P99 %.2fms, shares %.3f", r.readsPerSec, r.meanMS, r.p99MS, r.share)
}

// simRouter decides where an instance's reads go.
type simRouter interface {
	// choose picks a member for a read at time now (s) given the
	// instance's operations in flight per member (writes counted on 0).
	choose(now float64, inFlight []int64, rnd *rand.Rand) int
	// period reports the instance's period that just ended.
	period(p Period)
}

// shareRouter draws by fixed shares (a static split).
type shareRouter struct{ w []float64 }

func (s shareRouter) choose(_ float64, _ []int64, rnd *rand.Rand) int {
	x := rnd.Float64()
	for i, w := range s.w {
		if x < w {
			return i
		}
		x -= w
	}
	return len(s.w) - 1
}

func (shareRouter) period(Period) {}

// ruleRouter is a per-read policy as the router runs it: probes first,
// then the policy's rule over the candidates.
type ruleRouter struct {
	p     *PerRead
	hosts []string
	last  []float64 // when each member last got a read
}

func newRuleRouter(rule Rule, cfg PerReadConfig, n int) *ruleRouter {
	p, err := NewPerRead(rule, cfg)
	if err != nil {
		panic(err)
	}
	r := &ruleRouter{p: p, last: make([]float64, n)}
	l := Lag{Known: true}
	for i := range n {
		r.hosts = append(r.hosts, fmt.Sprintf("m%d", i))
		role := Secondary
		if i == 0 {
			role = Primary
		}
		l.Members = append(l.Members, MemberLag{Host: r.hosts[i], Role: role})
	}
	p.ObserveLag(l)
	return r
}

func (r *ruleRouter) choose(now float64, inFlight []int64, rnd *rand.Rand) int {
	ch := r.p.Selection().Choice
	if every := ch.ProbeEvery.Seconds(); every > 0 {
		for i, t := range r.last {
			if now-t >= every && r.p.NeedsProbe(r.hosts[i]) {
				r.last[i] = now
				return i
			}
		}
	}
	var c [maxCandidates]Candidate
	for i, h := range r.hosts {
		c[i].InFlight = inFlight[i]
		c[i].PerRead = r.p.Estimate(h)
	}
	i := ch.Choose(c[:len(r.hosts)], true, rnd.Uint64())
	r.last[i] = now
	return i
}

func (r *ruleRouter) period(p Period) { r.p.EndPeriod(p) }

// simJob is one operation on a member.
type simJob struct {
	done   float64 // virtual finish (queue) or real finish (stalled)
	inst   int
	client int
	write  bool
	start  float64
}

type jobHeap []simJob

func (h jobHeap) Len() int           { return len(h) }
func (h jobHeap) Less(i, j int) bool { return h[i].done < h[j].done }
func (h jobHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *jobHeap) Push(x any)        { *h = append(*h, x.(simJob)) }
func (h *jobHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// simMember is a processor-sharing queue in virtual time: v grows at 1/n
// per second with n jobs, and a job of work w arriving at v finishes when
// v reaches v+w. A stalled member keeps real finish times instead.
type simMember struct {
	v     float64
	jobs  jobHeap
	stall float64
}

// next is the real time of the member's next completion after now.
func (m *simMember) next(now float64) float64 {
	if len(m.jobs) == 0 {
		return math.Inf(1)
	}
	if m.stall > 0 {
		return m.jobs[0].done
	}
	return now + (m.jobs[0].done-m.v)*float64(len(m.jobs))
}

// advance moves the member's virtual time to now (from then).
func (m *simMember) advance(then, now float64) {
	if m.stall == 0 && len(m.jobs) > 0 {
		m.v += (now - then) / float64(len(m.jobs))
	}
}

// runSim runs the model with one router per instance.
func runSim(s simSetup, routers []simRouter) simResult {
	rnd := rand.New(rand.NewPCG(s.seed, 7))
	n := len(s.mu)
	members := make([]simMember, n)
	for i := range members {
		if i < len(s.stall) {
			members[i].stall = s.stall[i]
		}
	}
	inFlight := make([][]int64, s.instances)
	type acc struct {
		count int
		sum   float64
	}
	periodReads := make([][]acc, s.instances)
	periodWrites := make([]acc, s.instances)
	for i := range inFlight {
		inFlight[i] = make([]int64, n)
		periodReads[i] = make([]acc, n)
	}
	// wake[k] is when client k (instance-major) sends its next operation.
	wake := make([]float64, s.instances*s.clients)
	for k := range wake {
		wake[k] = rnd.Float64() * s.think
	}
	arrival := math.Inf(1)
	if s.rate > 0 {
		wake = nil
		arrival = rnd.ExpFloat64() / s.rate
	}
	warm := s.seconds / 4
	var lat []float64
	served := make([]float64, n)
	now, nextPeriod := 0.0, 1.0
	send := func(inst, k int) {
		write := rnd.Float64() < s.writes
		m := 0
		if !write {
			m = routers[inst].choose(now, inFlight[inst], rnd)
		}
		inFlight[inst][m]++
		mem := &members[m]
		job := simJob{inst: inst, client: k, write: write, start: now}
		if mem.stall > 0 {
			job.done = now + mem.stall
		} else {
			job.done = mem.v + rnd.ExpFloat64()/s.mu[m]
		}
		heap.Push(&mem.jobs, job)
		if k >= 0 {
			wake[k] = math.Inf(1)
		}
	}
	for now < s.seconds {
		// the next event: a client waking, a completion, a period end
		t, kind, who := nextPeriod, 0, 0
		for k, w := range wake {
			if w < t {
				t, kind, who = w, 1, k
			}
		}
		if arrival < t {
			t, kind = arrival, 3
		}
		for i := range members {
			if c := members[i].next(now); c < t {
				t, kind, who = c, 2, i
			}
		}
		for i := range members {
			members[i].advance(now, t)
		}
		now = t
		switch kind {
		case 0:
			for inst, r := range routers {
				p := Period{Length: time.Second}
				for m, a := range periodReads[inst] {
					if a.count > 0 {
						p.Members = append(p.Members, MemberStats{Host: fmt.Sprintf("m%d", m), Count: a.count,
							Mean: time.Duration(a.sum / float64(a.count) * float64(time.Second))})
					}
					periodReads[inst][m] = acc{}
				}
				if w := periodWrites[inst]; w.count > 0 {
					p.Writes = Stats{Count: w.count, P50: time.Duration(w.sum / float64(w.count) * float64(time.Second))}
				}
				periodWrites[inst] = acc{}
				r.period(p)
			}
			nextPeriod++
		case 1:
			send(who/s.clients, who)
		case 3:
			send(rnd.IntN(s.instances), -1)
			arrival = now + rnd.ExpFloat64()/s.rate
		case 2:
			mem := &members[who]
			job := heap.Pop(&mem.jobs).(simJob)
			if mem.stall == 0 {
				mem.v = job.done
			}
			inFlight[job.inst][who]--
			d := now - job.start
			if job.write {
				periodWrites[job.inst].count++
				periodWrites[job.inst].sum += d
			} else {
				periodReads[job.inst][who].count++
				periodReads[job.inst][who].sum += d
				if now >= warm {
					lat = append(lat, d)
					served[who]++
				}
			}
			if job.client >= 0 {
				wake[job.client] = now + s.think
			}
		}
	}
	slices.Sort(lat)
	var sum float64
	for _, d := range lat {
		sum += d
	}
	for i := range served {
		served[i] /= float64(len(lat))
	}
	return simResult{meanMS: sum / float64(len(lat)) * 1000, p99MS: lat[len(lat)*99/100] * 1000,
		readsPerSec: float64(len(lat)) / (s.seconds - warm), share: served}
}

// simRules runs setup under a rule with one router per instance.
func simRule(s simSetup, rule Rule, cfg PerReadConfig) simResult {
	rs := make([]simRouter, s.instances)
	for i := range rs {
		rs[i] = newRuleRouter(rule, cfg, len(s.mu))
	}
	return runSim(s, rs)
}

// simShares runs setup under a static split.
func simShares(s simSetup, w []float64) simResult {
	rs := make([]simRouter, s.instances)
	for i := range rs {
		rs[i] = shareRouter{w: w}
	}
	return runSim(s, rs)
}

// bestSimSplit is the static split of three members with the least mean
// latency, each simulated: the best on a grid of 0.1, then on a grid of
// 0.025 around it.
func bestSimSplit(s simSetup) (simResult, []float64) {
	var best simResult
	var arg []float64
	try := func(a, b float64) {
		if a < -1e-9 || b < -1e-9 || a+b > 1+1e-9 {
			return
		}
		w := []float64{a, b, max(0, 1-a-b)}
		if r := simShares(s, w); arg == nil || r.meanMS < best.meanMS {
			best, arg = r, w
		}
	}
	for a := 0; a <= 10; a++ {
		for b := 0; a+b <= 10; b++ {
			try(float64(a)/10, float64(b)/10)
		}
	}
	a0, b0 := arg[0], arg[1]
	for da := -2; da <= 2; da++ {
		for db := -2; db <= 2; db++ {
			if da != 0 || db != 0 {
				try(a0+float64(da)*0.025, b0+float64(db)*0.025)
			}
		}
	}
	return best, arg
}
