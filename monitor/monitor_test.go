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
	wantApplied := map[string]uint32{"a:1": 8, "b:2": 10, "c:3": 9, "d:4": 0, "e:5": 7, "f:6": 10}
	for _, m := range s.Members {
		if m.Lag != want[m.Host] {
			t.Errorf("%s lag %v, want %v", m.Host, m.Lag, want[m.Host])
		}
		if w := (bson.Timestamp{T: wantApplied[m.Host], I: 1}); wantApplied[m.Host] != 0 && m.Applied != w {
			t.Errorf("%s applied %v, want its optime %v", m.Host, m.Applied, w)
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
		{AppliedDiff, 5 * time.Millisecond}, // the Decongestant paper's estimate misses the idle time
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
		{time.Second, 2 * ms, 5 * ms, 1500 * time.Millisecond}, // the Decongestant paper's interval
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
		// Passwords the parser refuses: its complaint must not quote them.
		{"mongodb://alice:s3c:ret@h1/?replicaSet=rs0", ErrBadURI},
		{"mongodb://alice:s3c/ret@h1/?replicaSet=rs0", ErrBadURI},
		{"mongodb://alice:s3c%zzret@h1/?replicaSet=rs0", ErrBadURI},
		{"mongodb://alice:s3c@ret@h1/?replicaSet=rs0", ErrBadURI},
		// Secret options: the URI named in the error is redacted, and the parser's complaint about a
		// value (which quotes it as written) too.
		{"mongodb://h1/?loadBalanced=true&proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n", ErrNotReplicaSet},
		{"mongodb://h1/?directConnection=true&TLSCertificateKeyFilePassword=s3cret", ErrNotReplicaSet},
		{"mongodb://h1/?replicaSet=rs0&proxyPassword=s3c%ZZret", ErrBadURI},
		{"mongodb://h1/?replicaSet=rs0&sslClientCertificateKeyPassword=s3c%zzret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n", ErrBadURI},
	}
	for _, tt := range tests {
		err := CheckURI(tt.uri)
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("CheckURI(%q) = %v, want %v", tt.uri, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "s3c") || strings.Contains(err.Error(), "ret") || strings.Contains(err.Error(), "tok3n")) {
			t.Errorf("credentials in %v", err)
		}
	}
}

// TestConnectNeverQuotesSecrets: a connection string refused before any connection fails Connect
// with an error that names it without its password or secret options' values.
func TestConnectNeverQuotesSecrets(t *testing.T) {
	tests := []struct {
		uri, want string
		err       error
	}{
		{"mongodb://alice:s3cret@h1/?loadBalanced=true&proxyPassword=s3cret&authMechanismProperties=AWS_SESSION_TOKEN:tok3n",
			"not a replica set: mongodb://REDACTED@h1/?loadBalanced=true&proxyPassword=REDACTED&authMechanismProperties=REDACTED is load balanced",
			ErrNotReplicaSet},
		{"mongodb://h1/?replicaSet=rs0&authMechanismProperties=AWS_SESSION_TOKEN:tok3n&proxyPassword=s3cret%zz",
			"invalid connection string: mongodb://h1/?replicaSet=rs0&authMechanismProperties=REDACTED&proxyPassword=REDACTED: the value of an option that holds a credential (a password, authMechanismProperties) is not written as a URI needs",
			ErrBadURI},
		// A secret that is also a common word does not hide what else is wrong.
		{"http://h1/?authMechanismProperties=SERVICE_NAME:mongodb",
			`invalid connection string: http://h1/?authMechanismProperties=REDACTED: error parsing uri: scheme must be "mongodb" or "mongodb+srv"`,
			ErrBadURI},
	}
	for _, tt := range tests {
		client, err := Connect(context.Background(), tt.uri, time.Second)
		if client != nil || !errors.Is(err, tt.err) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Connect(%q) = %v, want %q...", tt.uri, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "tok3n") || strings.Contains(err.Error(), "zz")) {
			t.Errorf("a secret in %v", err)
		}
	}
}

func TestLagFromHello(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	ms := time.Millisecond
	op := func(sec, i uint32) opTime { return opTime{TS: bson.Timestamp{T: sec, I: i}, T: 1} }
	write := func(o opTime, at time.Time) *lastWrite { return &lastWrite{OpTime: o, LastWriteDate: at} }
	hosts := []string{"p:1", "s:2", "t:3"}
	primary := func(localTime time.Time, lw *lastWrite) memberHello {
		return memberHello{Host: "p:1", Reply: helloReply{IsWritablePrimary: true, Hosts: hosts, LocalTime: localTime, LastWrite: lw}}
	}
	secondary := func(host string, lw *lastWrite) memberHello {
		return memberHello{Host: host, Reply: helloReply{Secondary: true, Hosts: hosts, LocalTime: t0, LastWrite: lw}}
	}
	fresh := secondary("t:3", write(op(10, 1), t0))
	tests := []struct {
		name    string
		replies []memberHello
		est     LagEstimate
		lag     time.Duration // of s:2
		state   string        // of s:2
		known   bool
		err     string
	}{
		{"caught up", []memberHello{primary(t0.Add(300*ms), write(op(10, 1), t0)), secondary("s:2", write(op(10, 1), t0)), fresh},
			SinceApplied, 0, "SECONDARY", true, ""},
		{"behind: the primary's clock minus the last write applied", []memberHello{primary(t0, write(op(10, 1), t0)),
			secondary("s:2", write(op(8, 1), t0.Add(-1500*ms))), fresh}, SinceApplied, 1500 * ms, "SECONDARY", true, ""},
		{"asked after the primary and ahead of its reply: not behind", []memberHello{primary(t0, write(op(10, 1), t0)),
			secondary("s:2", write(op(10, 2), t0.Add(3*ms))), fresh}, SinceApplied, 0, "SECONDARY", true, ""},
		{"a newer term is not behind", []memberHello{primary(t0, write(op(10, 1), t0)),
			secondary("s:2", write(opTime{TS: bson.Timestamp{T: 9}, T: 2}, t0.Add(-ms))), fresh}, SinceApplied, 0, "SECONDARY", true, ""},
		// The primary wrote once at t0 and has been idle for 4 s; s:2 misses
		// that write: every read it serves misses a write 4 s old.
		{"primary idle since a write the secondary lacks", []memberHello{primary(t0.Add(4*time.Second), write(op(10, 2), t0)),
			secondary("s:2", write(op(10, 1), t0.Add(-5*ms))), fresh}, SinceApplied, 4*time.Second + 5*ms, "SECONDARY", true, ""},
		{"primary idle, the Decongestant paper's estimate misses the idle time", []memberHello{primary(t0.Add(4*time.Second), write(op(10, 2), t0)),
			secondary("s:2", write(op(10, 1), t0.Add(-5*ms))), fresh}, AppliedDiff, 5 * ms, "SECONDARY", true, ""},
		{"a primary clock behind its own last write counts from the write", []memberHello{primary(t0.Add(-time.Second), write(op(10, 2), t0)),
			secondary("s:2", write(op(10, 1), t0.Add(-20*ms))), fresh}, SinceApplied, 20 * ms, "SECONDARY", true, ""},
		{"neither primary nor secondary: not vouched for", []memberHello{primary(t0, write(op(10, 1), t0)),
			{Host: "s:2", Reply: helloReply{Hosts: hosts, LastWrite: write(op(1, 1), t0.Add(-time.Hour))}}, fresh}, SinceApplied, 0, stateOther, true, ""},
		{"a secondary without lastWrite: not vouched for", []memberHello{primary(t0, write(op(10, 1), t0)),
			secondary("s:2", nil), fresh}, SinceApplied, 0, stateNoLastWrite, true, ""},
		{"a member that did not answer: not vouched for", []memberHello{primary(t0, write(op(10, 1), t0)),
			{Host: "s:2", Err: errors.New("hello on s:2: connection refused")}, fresh}, SinceApplied, 0, "(no answer: hello on s:2: connection refused)", true, ""},
		{"a member the primary names that was not polled", []memberHello{primary(t0, write(op(10, 1), t0)), fresh},
			SinceApplied, 0, stateNotPolled, true, ""},
		{"no secondary: unknown", []memberHello{primary(t0, write(op(10, 1), t0)), secondary("s:2", nil), {Host: "t:3", Err: errors.New("down")}},
			SinceApplied, 0, stateNoLastWrite, false, ""},
		{"the primary without lastWrite: unknown", []memberHello{primary(t0, nil), secondary("s:2", write(op(10, 1), t0)), fresh},
			SinceApplied, 0, "", false, "has no lastWrite"},
		{"no primary: unknown", []memberHello{{Host: "p:1", Err: errors.New("hello on p:1: timeout")}, secondary("s:2", write(op(10, 1), t0)), fresh},
			SinceApplied, 0, "", false, "hello on p:1: timeout"},
		{"two primaries: unknown", []memberHello{primary(t0, write(op(10, 1), t0)), fresh,
			{Host: "s:2", Reply: helloReply{IsWritablePrimary: true, Hosts: hosts, LocalTime: t0, LastWrite: write(op(10, 1), t0)}}},
			SinceApplied, 0, "", false, "both answer hello as the writable primary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := helloLagFrom(LagSample{Source: SourceHello}, tt.replies, tt.est)
			if tt.err != "" {
				if s.Err == nil || !strings.Contains(s.Err.Error(), tt.err) || s.Known {
					t.Fatalf("sample %+v, want unknown with an error naming %q", s, tt.err)
				}
				return
			}
			if s.Err != nil || s.Known != tt.known || s.Primary != "p:1" {
				t.Fatalf("sample %+v, want known %v with primary p:1", s, tt.known)
			}
			if len(s.Members) != len(hosts) {
				t.Fatalf("members %+v, want the primary's %v", s.Members, hosts)
			}
			got := s.Members[1]
			if got.Host != "s:2" || got.State != tt.state || got.Lag != tt.lag {
				t.Fatalf("s:2: %+v, want state %q lag %v", got, tt.state, tt.lag)
			}
			if wantRole := balancer.Side(0); tt.state == "SECONDARY" {
				wantRole = balancer.Secondary
				if got.Role != wantRole {
					t.Fatalf("s:2 role %v, want secondary", got.Role)
				}
			} else if got.Role != wantRole {
				t.Fatalf("s:2 role %v, want none (not vouched for)", got.Role)
			}
			if s.Members[0].Role != balancer.Primary || s.Max < tt.lag {
				t.Fatalf("primary %+v, max %v", s.Members[0], s.Max)
			}
			if s.Members[0].Applied != tt.replies[0].Reply.LastWrite.OpTime.TS {
				t.Fatalf("primary applied %v, want its lastWrite %v", s.Members[0].Applied, tt.replies[0].Reply.LastWrite.OpTime.TS)
			}
			if tt.state == "SECONDARY" && got.Applied != tt.replies[1].Reply.LastWrite.OpTime.TS {
				t.Fatalf("s:2 applied %v, want its lastWrite %v", got.Applied, tt.replies[1].Reply.LastWrite.OpTime.TS)
			}
			if tt.state != "SECONDARY" && !got.Applied.IsZero() {
				t.Fatalf("s:2 applied %v, want none for a member not vouched for", got.Applied)
			}
		})
	}
}

// TestHelloAllStopsWaitingForASilentMember: a member that does not answer
// holds the poll for the grace only, once the primary has answered; without
// a primary's answer the poll waits for every member (or its timeout).
func TestHelloAllStopsWaitingForASilentMember(t *testing.T) {
	const grace = 30 * time.Millisecond
	ask := func(primary string) func(context.Context, string) memberHello {
		return func(ctx context.Context, host string) memberHello {
			if host == "silent:3" {
				<-ctx.Done()
				return memberHello{Host: host, Err: ctx.Err()}
			}
			return memberHello{Host: host, Reply: helloReply{IsWritablePrimary: host == primary, Secondary: host != primary}}
		}
	}
	hosts := []string{"p:1", "s:2", "silent:3"}
	start := time.Now()
	got := helloAll(context.Background(), hosts, grace, true, ask("p:1"))
	if took := time.Since(start); took < grace || took > 2*time.Second {
		t.Fatalf("took %v, want about the grace %v", took, grace)
	}
	for i, h := range hosts {
		if got[i].Host != h || (got[i].Err != nil) != (h == "silent:3") {
			t.Fatalf("answers %+v, want one per host in order and only silent:3 failed", got)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	got = helloAll(ctx, hosts, grace, true, ask("")) // no primary answers
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Fatalf("returned after %v without a primary's answer, want the poll's timeout", took)
	}
	if got[2].Err == nil {
		t.Fatalf("silent member %+v", got[2])
	}
}

func TestParseLagSource(t *testing.T) {
	for _, s := range []LagSource{SourceAuto, SourceReplSetGetStatus, SourceHello, SourceHeartbeat} {
		if got, err := ParseLagSource(s.String()); err != nil || got != s {
			t.Errorf("round trip %v: %v %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "Hello", "ismaster", LagSource(0).String()} {
		if _, err := ParseLagSource(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
