package monitor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/decongestant/decongestant/balancer"
)

func TestLagFromStatus(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	op := func(sec uint32) opTime { return opTime{TS: bson.Timestamp{T: sec, I: 1}, T: 1} }
	reply := statusReply{Date: t0, Members: []memberStatus{
		{Name: "a:1", StateStr: "SECONDARY", Optime: op(8), LastAppliedWallTime: t0.Add(-1500 * time.Millisecond)},
		{Name: "b:2", StateStr: "PRIMARY", Optime: op(10), LastAppliedWallTime: t0},
		{Name: "c:3", StateStr: "SECONDARY", Optime: op(9), LastAppliedWallTime: t0.Add(-20 * time.Millisecond)},
		{Name: "d:4", StateStr: "DOWN", LastAppliedWallTime: t0.Add(-time.Hour)},                  // not selectable: ignored
		{Name: "e:5", StateStr: "SECONDARY", Optime: op(7), OptimeDate: t0.Add(-3 * time.Second)}, // old server: optimeDate
		{Name: "f:6", StateStr: "SECONDARY", Optime: op(10), LastAppliedWallTime: t0},             // caught up
	}}
	s := lagFrom(LagSample{}, reply, SinceApplied)
	if s.Err != nil || !s.Known || s.Primary != "b:2" {
		t.Fatalf("sample %+v", s)
	}
	if s.Max != 3*time.Second {
		t.Fatalf("max lag %v, want 3s (from optimeDate of e:5; DOWN member ignored)", s.Max)
	}
	want := map[string]time.Duration{"a:1": 1500 * time.Millisecond, "b:2": 0, "c:3": 20 * time.Millisecond, "d:4": 0, "e:5": 3 * time.Second, "f:6": 0}
	for _, m := range s.Members {
		if m.Lag != want[m.Host] {
			t.Errorf("%s lag %v, want %v", m.Host, m.Lag, want[m.Host])
		}
	}

	noPrimary := lagFrom(LagSample{}, statusReply{Members: []memberStatus{{Name: "a:1", StateStr: "SECONDARY"}}}, SinceApplied)
	if noPrimary.Err == nil || noPrimary.Known {
		t.Fatalf("no primary: %+v", noPrimary)
	}
	alone := lagFrom(LagSample{}, statusReply{Members: []memberStatus{{Name: "b:2", StateStr: "PRIMARY", LastAppliedWallTime: t0}}}, SinceApplied)
	if alone.Known {
		t.Fatalf("no secondary must leave the lag unknown: %+v", alone)
	}
}

// TestLagEstimateIdlePrimary: the primary wrote once at t0 and has been idle
// for 4 s; the secondary misses that write (its last applied write is 5 ms
// older). Any read it serves misses a write acknowledged about 4 s ago.
func TestLagEstimateIdlePrimary(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	reply := statusReply{Date: t0.Add(4 * time.Second), Members: []memberStatus{
		{Name: "p:1", StateStr: "PRIMARY", Optime: opTime{TS: bson.Timestamp{T: 10, I: 2}, T: 1}, LastAppliedWallTime: t0},
		{Name: "s:2", StateStr: "SECONDARY", Optime: opTime{TS: bson.Timestamp{T: 10, I: 1}, T: 1}, LastAppliedWallTime: t0.Add(-5 * time.Millisecond)},
	}}
	tests := []struct {
		est  LagEstimate
		want time.Duration
	}{
		{SinceApplied, 4*time.Second + 5*time.Millisecond},
		{AppliedDiff, 5 * time.Millisecond}, // seed 000's estimate misses the idle time
	}
	for _, tt := range tests {
		if got := lagFrom(LagSample{}, reply, tt.est).Max; got != tt.want {
			t.Errorf("%v: lag %v, want %v", tt.est, got, tt.want)
		}
	}
	// Once the secondary has the write it is fresh, however long the primary idles.
	reply.Members[1].Optime, reply.Members[1].LastAppliedWallTime = reply.Members[0].Optime, t0
	if got := lagFrom(LagSample{}, reply, SinceApplied).Max; got != 0 {
		t.Errorf("caught-up secondary: lag %v, want 0", got)
	}
}

func TestParseLagEstimate(t *testing.T) {
	for _, e := range []LagEstimate{SinceApplied, AppliedDiff} {
		if got, err := ParseLagEstimate(e.String()); err != nil || got != e {
			t.Errorf("round trip %v: %v %v", e, got, err)
		}
	}
	if _, err := ParseLagEstimate("median"); err == nil {
		t.Error("accepted an unknown estimate")
	}
}

func TestHorizon(t *testing.T) {
	ms := time.Millisecond
	tests := []struct{ interval, rtt, recent, want time.Duration }{
		{100 * ms, ms, ms, 150 * ms},                           // half an interval of slack
		{100 * ms, 40 * ms, 40 * ms, 180 * ms},                 // a slow poll: twice its round trip
		{100 * ms, 2 * ms, 72 * ms, 190 * ms},                  // a recent stall of a capped primary
		{time.Second, 2 * ms, 5 * ms, 1500 * time.Millisecond}, // seed 000's interval
	}
	for _, tt := range tests {
		if got := Horizon(tt.interval, tt.rtt, tt.recent); got != tt.want {
			t.Errorf("Horizon(%v, %v, %v) = %v, want %v", tt.interval, tt.rtt, tt.recent, got, tt.want)
		}
	}
}

// TestLagLoopExpiresAStalledPoll: the first poll answers, the second hangs
// until the test releases it. Within the first sample's horizon an unknown
// sample (ErrLagExpired) must be applied, and the late answer after it.
func TestLagLoopExpiresAStalledPoll(t *testing.T) {
	const interval = 20 * time.Millisecond
	release := make(chan struct{})
	polls := 0
	poll := func(ctx context.Context) LagSample {
		polls++
		if polls == 1 {
			<-release
		}
		return LagSample{At: time.Now(), Known: true, Max: time.Millisecond, Horizon: Horizon(interval, 0, 0)}
	}
	applied := make(chan LagSample, 16)
	first := LagSample{At: time.Now(), Known: true, Horizon: Horizon(interval, 0, 0)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		lagLoop(ctx, interval, first, poll, func(s LagSample) { applied <- s })
	}()
	defer func() { cancel(); <-done }()

	select {
	case s := <-applied:
		if s.Known || !errors.Is(s.Err, ErrLagExpired) {
			t.Fatalf("first applied sample %+v, want an expired, unknown one", s)
		}
		if late := time.Since(first.At); late > first.Horizon+50*time.Millisecond {
			t.Logf("expiry came %v after the poll (horizon %v)", late, first.Horizon)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no sample applied while the poll hung")
	}
	close(release)
	select {
	case s := <-applied:
		if !s.Known {
			t.Fatalf("after release: %+v, want the late known sample", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the late answer was never applied")
	}
}

func TestRTTByRole(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	samples := map[string][]time.Duration{"p": ms(40, 1, 30, 45, 2), "s1": ms(3, 5), "s2": ms(4, 9, 1), "x": ms(100)}
	roles := map[string]balancer.Side{"p": balancer.Primary, "s1": balancer.Secondary, "s2": balancer.Secondary, "x": 0}
	p, s := RTTByRole(samples, roles, 0)
	if p != time.Millisecond || s != time.Millisecond {
		t.Errorf("min: primary %v secondary %v, want 1ms 1ms", p, s)
	}
	p, s = RTTByRole(samples, roles, 0.5)
	if p != 30*time.Millisecond || s != 4*time.Millisecond {
		t.Errorf("median: primary %v secondary %v, want 30ms and 4ms (pooled over secondaries)", p, s)
	}
	if p, s = RTTByRole(nil, roles, 0.5); p != 0 || s != 0 {
		t.Errorf("no samples: %v %v", p, s)
	}
}

func TestCheckURI(t *testing.T) {
	tests := []struct {
		uri  string
		want error
	}{
		{"mongodb://h1,h2,h3/?replicaSet=rs0", nil},
		{"mongodb://h1/?replicaSet=rs0&directConnection=true", nil}, // names the set: the driver discovers it
		{"mongodb://h1/?directConnection=true", ErrNotReplicaSet},
		{"mongodb://h1/?loadBalanced=true", ErrNotReplicaSet},
		{"mongodb://", ErrBadURI},
		{"http://alice:s3cret@h1", ErrBadURI},
	}
	for _, tt := range tests {
		err := CheckURI(tt.uri)
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("CheckURI(%q) = %v, want %v", tt.uri, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("credentials in %v", err)
		}
	}
}
