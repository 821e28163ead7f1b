package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/decongestant/decongestant/balancer"
)

const ms = time.Millisecond

// TestPrimaryClock: a heartbeat write sent at t0 and answered 10 ms later
// with the primary's $$NOW 5.003 s ahead of t0 says the primary's clock
// reads 5.003 s ahead of the local midpoint t0+5ms; an estimate errs by at
// most half the round trip, the millisecond $$NOW drops and 500 ppm of the
// time since.
func TestPrimaryClock(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	ts := t0.Add(5*time.Second + 3*ms)
	c := clockFrom("p:1", t0, t0.Add(10*ms), ts)
	if c.Mid != t0.Add(5*ms) || c.RTT != 10*ms || c.Host != "p:1" {
		t.Fatalf("clock %+v, want midpoint t0+5ms, rtt 10ms", c)
	}
	if got, want := c.now(t0.Add(time.Second)), ts.Add(995*ms); !got.Equal(want) {
		t.Errorf("now(t0+1s) = %v, want the primary's ts + 995ms = %v", got, want)
	}
	for _, tt := range []struct {
		at   time.Time
		want time.Duration
	}{
		{c.Mid, 6 * ms},                                   // 10ms/2 + 1ms
		{c.Mid.Add(10 * time.Second), 11 * ms},            // + 10 s × 500 ppm = 5ms
		{c.Mid.Add(-2 * time.Second), 7 * ms},             // either side of the write
		{c.Mid.Add(100 * time.Millisecond), 6*ms + 50000}, // + 50 µs
	} {
		if got := c.errorAt(tt.at); got != tt.want {
			t.Errorf("errorAt(mid%+v) = %v, want %v", tt.at.Sub(c.Mid), got, tt.want)
		}
	}
	// A secondary answering at t0+1s holds a heartbeat the primary wrote at
	// its ts − 200ms: it is (ts + 995ms) − (ts − 200ms) behind.
	if got := beatLag(c, t0.Add(time.Second), ts.Add(-200*ms)); got != 1195*ms {
		t.Errorf("lag %v, want 1.195s", got)
	}
	// A copy written after the estimate of now (an offset error): 0, not negative.
	if got := beatLag(c, t0.Add(time.Second), ts.Add(time.Second)); got != 0 {
		t.Errorf("lag of a copy from the future %v, want 0", got)
	}
}

// TestClockReplaces: a new offset replaces the kept one when it is
// tighter than the kept one has become, or comes from another member.
func TestClockReplaces(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	kept := clockFrom("p:1", t0, t0.Add(2*ms), t0) // error 1ms + 1ms, growing 0.5ms/s
	learned := func(host string, after, rtt time.Duration) primaryClock {
		sent := t0.Add(after)
		return clockFrom(host, sent, sent.Add(rtt), sent)
	}
	for _, tt := range []struct {
		name string
		old  primaryClock
		n    primaryClock
		want bool
	}{
		{"none kept", primaryClock{}, learned("p:1", time.Second, 30*ms), true},
		{"tighter", kept, learned("p:1", time.Second, ms), true},
		{"looser and recent: kept (2ms + 10ms of drift < 16ms)", kept, learned("p:1", 20*time.Second, 30*ms), false},
		{"looser but the kept one has aged (2ms + 20ms of drift > 16ms)", kept, learned("p:1", 40*time.Second, 30*ms), true},
		{"another primary", kept, learned("q:2", time.Second, 500*ms), true},
	} {
		if got := tt.old.replaces(tt.n); got != tt.want {
			t.Errorf("%s: replaces = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBeatLagFrom(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	// The primary's clock is 2 s ahead of the local one, learned at t0.
	c := clockFrom("p:1", t0, t0, t0.Add(2*time.Second))
	hosts := []string{"p:1", "s:2", "t:3"}
	op := func(sec uint32) *lastWrite { return &lastWrite{OpTime: opTime{TS: bson.Timestamp{T: sec, I: 1}, T: 1}} }
	primary := memberHello{Host: "p:1", Reply: helloReply{IsWritablePrimary: true, Hosts: hosts, LastWrite: op(10)}}
	// sec answers at local t0+at holding the primary's time beat.
	sec := func(host string, at time.Duration, beat time.Time) memberHello {
		return memberHello{Host: host, Reply: helloReply{Secondary: true, Hosts: hosts, LastWrite: op(9)},
			Beat: &beatRead{TS: beat, Found: true, At: t0.Add(at)}}
	}
	// Primary time at local t0+100ms is t0+2.1s.
	fresh := sec("t:3", 100*ms, t0.Add(2100*ms-25*ms)) // 25 ms behind
	tests := []struct {
		name    string
		replies []memberHello
		lag     time.Duration // of s:2
		state   string        // of s:2
		known   bool
		primary string
		err     string
	}{
		{"behind: the primary's clock at the answer minus the copy's time", []memberHello{primary, sec("s:2", 300*ms, t0.Add(2300*ms-1234*ms)), fresh},
			1234 * ms, "SECONDARY", true, "p:1", ""},
		{"a copy newer than the estimate of now: 0", []memberHello{primary, sec("s:2", 300*ms, t0.Add(2301*ms)), fresh},
			0, "SECONDARY", true, "p:1", ""},
		{"no copy yet: not vouched for", []memberHello{primary,
			{Host: "s:2", Reply: helloReply{Secondary: true, Hosts: hosts}, Beat: &beatRead{At: t0}}, fresh},
			0, stateNoBeat, true, "p:1", ""},
		{"the read failed: not vouched for", []memberHello{primary,
			{Host: "s:2", Reply: helloReply{Secondary: true, Hosts: hosts}, Beat: &beatRead{At: t0, Err: errors.New("heartbeat read on s:2: timeout")}}, fresh},
			0, "(no answer: heartbeat read on s:2: timeout)", true, "p:1", ""},
		{"hello failed: not vouched for", []memberHello{primary, {Host: "s:2", Err: errors.New("hello on s:2: refused")}, fresh},
			0, "(no answer: hello on s:2: refused)", true, "p:1", ""},
		{"neither primary nor secondary", []memberHello{primary, {Host: "s:2", Reply: helloReply{Hosts: hosts}}, fresh},
			0, stateOther, true, "p:1", ""},
		{"the primary did not answer: the secondaries still count", []memberHello{{Host: "p:1", Err: errors.New("hello on p:1: no answer")},
			sec("s:2", 300*ms, t0.Add(2300*ms-500*ms)), fresh}, 500 * ms, "SECONDARY", true, "", ""},
		{"no secondary vouched for: unknown", []memberHello{primary, {Host: "s:2", Err: errors.New("down")}, {Host: "t:3", Err: errors.New("down")}},
			0, "(no answer: down)", false, "p:1", ""},
		{"nobody answered: an error", []memberHello{{Host: "p:1", Err: errors.New("a")}, {Host: "s:2", Err: errors.New("b")}, {Host: "t:3", Err: errors.New("c")}},
			0, "", false, "", "no member answered (a; b; c)"},
		{"two primaries: an error", []memberHello{primary, fresh, {Host: "s:2", Reply: helloReply{IsWritablePrimary: true, Hosts: hosts}}},
			0, "", false, "", "both answer hello as the writable primary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := beatLagFrom(LagSample{Source: SourceHeartbeat}, tt.replies, c)
			if tt.err != "" {
				if s.Err == nil || !strings.Contains(s.Err.Error(), tt.err) || s.Known {
					t.Fatalf("sample %+v, want unknown with an error naming %q", s, tt.err)
				}
				return
			}
			if s.Err != nil || s.Known != tt.known || s.Primary != tt.primary {
				t.Fatalf("sample %+v, want known %v, primary %q", s, tt.known, tt.primary)
			}
			if len(s.Members) != len(hosts) {
				t.Fatalf("members %+v, want %v", s.Members, hosts)
			}
			got := s.Members[1]
			if got.Host != "s:2" || got.State != tt.state || got.Lag != tt.lag {
				t.Fatalf("s:2: %+v, want state %q lag %v", got, tt.state, tt.lag)
			}
			wantRole, wantApplied := balancer.Side(0), bson.Timestamp{}
			if tt.state == "SECONDARY" {
				wantRole, wantApplied = balancer.Secondary, bson.Timestamp{T: 9, I: 1}
			}
			if got.Role != wantRole || got.Applied != wantApplied {
				t.Fatalf("s:2 role %v applied %v, want %v %v", got.Role, got.Applied, wantRole, wantApplied)
			}
			if t3 := s.Members[2]; tt.known && t3.Role == balancer.Secondary && t3.Lag != 25*ms {
				t.Fatalf("t:3 lag %v, want 25ms", t3.Lag)
			}
			if tt.primary != "" && (s.Members[0].Role != balancer.Primary || s.Members[0].Applied != (bson.Timestamp{T: 10, I: 1})) {
				t.Fatalf("primary %+v", s.Members[0])
			}
			if want := max(tt.lag, 25*ms); tt.known && s.Max != want {
				t.Fatalf("max %v, want %v", s.Max, want)
			}
		})
	}
}

// fakeSource is a lag source for pollInTurn: it answers what it is told,
// or blocks until its context ends; it records its deadline.
type fakeSource struct {
	src      LagSource
	known    bool
	err      error
	block    bool
	called   bool
	deadline time.Time
	bounded  bool
}

func (f *fakeSource) source() source {
	return source{f.src, func(ctx context.Context) LagSample {
		f.called = true
		f.deadline, f.bounded = ctx.Deadline()
		if f.block {
			<-ctx.Done()
			return LagSample{Source: f.src, Err: fmt.Errorf("%v: %w", f.src, ctx.Err()), RTT: time.Duration(f.src) * ms}
		}
		// Each source's own round trip says which it is: 2ms, 3ms, 4ms.
		return LagSample{At: time.Now(), Source: f.src, Known: f.known, Err: f.err, Max: 7 * ms, RTT: time.Duration(f.src) * ms}
	}}
}

func TestPollInTurn(t *testing.T) {
	const budget = 40 * ms
	boom := errors.New("boom")
	tests := []struct {
		name     string
		sources  []*fakeSource
		source   LagSource // of the sample
		known    bool
		called   []bool
		fallback []string // in the sample's Fallback
		err      []string // in its error
	}{
		{"the preferred source knows: the others are not asked",
			[]*fakeSource{{src: SourceReplSetGetStatus, known: true}, {src: SourceHeartbeat, known: true}, {src: SourceHello, known: true}},
			SourceReplSetGetStatus, true, []bool{true, false, false}, nil, nil},
		{"it fails: the next takes the sample",
			[]*fakeSource{{src: SourceReplSetGetStatus, err: boom}, {src: SourceHeartbeat, known: true}, {src: SourceHello, known: true}},
			SourceHeartbeat, true, []bool{true, true, false}, []string{"replsetgetstatus: boom"}, nil},
		{"it does not answer within its share: the next takes the sample",
			[]*fakeSource{{src: SourceReplSetGetStatus, block: true}, {src: SourceHeartbeat, known: true}, {src: SourceHello, known: true}},
			SourceHeartbeat, true, []bool{true, true, false}, []string{"replsetgetstatus: no answer within its share of the horizon (20ms)"}, nil},
		{"two fail: the last takes it",
			[]*fakeSource{{src: SourceReplSetGetStatus, block: true}, {src: SourceHeartbeat, block: true}, {src: SourceHello, known: true}},
			SourceHello, true, []bool{true, true, true}, []string{"replsetgetstatus: no answer within its share of the horizon (20ms)", "heartbeat: no answer within its share of the horizon (30ms)"}, nil},
		{"one that answers but knows no secondary yields too",
			[]*fakeSource{{src: SourceHeartbeat}, {src: SourceHello, known: true}},
			SourceHello, true, []bool{true, true}, []string{"heartbeat: knows no secondary"}, nil},
		{"none knows: the first that answered",
			[]*fakeSource{{src: SourceReplSetGetStatus, err: boom}, {src: SourceHeartbeat}, {src: SourceHello, err: errors.New("bang")}},
			SourceHeartbeat, false, []bool{true, true, true}, []string{"replsetgetstatus: boom", "heartbeat: knows no secondary", "hello: bang"}, nil},
		{"all fail: the first's error, then the others'",
			[]*fakeSource{{src: SourceReplSetGetStatus, err: boom}, {src: SourceHeartbeat, err: errors.New("no clock")}, {src: SourceHello, err: errors.New("bang")}},
			SourceReplSetGetStatus, false, []bool{true, true, true}, nil, []string{"boom (then heartbeat: no clock; hello: bang)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var srcs []source
			for _, f := range tt.sources {
				srcs = append(srcs, f.source())
			}
			s, own := pollInTurn(context.Background(), budget, srcs)
			if s.Source != tt.source || s.Known != tt.known {
				t.Fatalf("sample %+v, want from %v, known %v", s, tt.source, tt.known)
			}
			if want := time.Duration(tt.source) * ms; own != want {
				t.Fatalf("own round trip %v, want %v: the horizon is made of the round trip of the source that took the sample", own, want)
			}
			for i, f := range tt.sources {
				if f.called != tt.called[i] {
					t.Fatalf("%v asked %v, want %v", f.src, f.called, tt.called[i])
				}
				// Shares: half the budget, then half the rest; the last
				// has the poll's own timeout.
				last := i == len(tt.sources)-1
				if f.called && (f.bounded == last) {
					t.Fatalf("%v: deadline %v (bounded %v), want one unless it is the last", f.src, f.deadline, f.bounded)
				}
				if f.called && !last {
					if want := budget - budget>>(i+1); f.deadline.Sub(s.At) != want {
						t.Fatalf("%v: deadline %v after the poll began, want %v", f.src, f.deadline.Sub(s.At), want)
					}
				}
			}
			if got := strings.Join(tt.fallback, "; "); s.Fallback != got {
				t.Fatalf("fallback %q, want %q", s.Fallback, got)
			}
			if len(tt.err) == 0 && s.Err != nil {
				t.Fatalf("error %v", s.Err)
			}
			for _, e := range tt.err {
				if s.Err == nil || !strings.Contains(s.Err.Error(), e) || !errors.Is(s.Err, boom) {
					t.Fatalf("error %v, want one wrapping boom and saying %q", s.Err, e)
				}
			}
			if s.RTT < 0 || s.RTT > time.Since(s.At) {
				t.Fatalf("RTT %v, want the time since the poll began (%v)", s.RTT, s.At)
			}
		})
	}
}

func TestStartSources(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("monitor: replSetGetStatus on the primary of mongodb://h: %w", err)
	}
	denied := wrap(mongo.CommandError{Code: 13, Name: "Unauthorized", Message: "not authorized on admin to execute command { replSetGetStatus: 1 }"})
	writeDenied := mongo.CommandError{Code: 13, Name: "Unauthorized", Message: `not authorized on app to execute command { findAndModify: "decongestant_heartbeat" }`}
	ns := Namespace{"app", DefaultHeartbeatColl}
	tests := []struct {
		name             string
		want             LagSource
		statusErr        error
		statusUnknown    bool
		probeErr         error
		usable           []LagSource
		first            LagSource // source of the first sample
		asked            string    // the sources polled, in order (s, b, h; p: probe, P: probe and settle)
		err              bool
		reason, fallback string
	}{
		{"auto: every source authorized, replSetGetStatus knows", SourceAuto, nil, false, nil,
			[]LagSource{SourceReplSetGetStatus, SourceHeartbeat, SourceHello}, SourceReplSetGetStatus, "sp", false,
			"auto: replsetgetstatus, then heartbeat on app.decongestant_heartbeat, then hello (each poll takes the next", ""},
		{"auto: replSetGetStatus refused, the heartbeat writable", SourceAuto, denied, false, nil,
			[]LagSource{SourceHeartbeat, SourceHello}, SourceHeartbeat, "sPb", false,
			"auto: heartbeat on app.decongestant_heartbeat, then hello (each poll takes the next when one fails, knows no secondary or has not answered within its share of the horizon): replSetGetStatus is not authorized for this user", ""},
		{"auto: the code name alone is enough", SourceAuto, wrap(mongo.CommandError{Name: "Unauthorized"}), false, nil,
			[]LagSource{SourceHeartbeat, SourceHello}, SourceHeartbeat, "sPb", false, "replSetGetStatus is not authorized", ""},
		{"auto: both refused: hello", SourceAuto, denied, false, writeDenied,
			[]LagSource{SourceHello}, SourceHello, "sPh", false,
			"auto: hello: replSetGetStatus is not authorized for this user (", "the heartbeat's namespace app.decongestant_heartbeat is not writable for this user ("},
		{"auto: the heartbeat refused", SourceAuto, nil, false, writeDenied,
			[]LagSource{SourceReplSetGetStatus, SourceHello}, SourceReplSetGetStatus, "sp", false, "auto: replsetgetstatus, then hello", ""},
		{"auto: a timeout rules nothing out, the next source takes the first sample", SourceAuto, wrap(context.DeadlineExceeded), false, nil,
			[]LagSource{SourceReplSetGetStatus, SourceHeartbeat, SourceHello}, SourceHeartbeat, "sPb", false, "auto: replsetgetstatus, then heartbeat", "replsetgetstatus: monitor: replSetGetStatus on the primary of mongodb://h: context deadline exceeded"},
		{"auto: no secondary in replSetGetStatus: the next source is asked", SourceAuto, nil, true, nil,
			[]LagSource{SourceReplSetGetStatus, SourceHeartbeat, SourceHello}, SourceHeartbeat, "sPb", false, "auto: replsetgetstatus", "replsetgetstatus: knows no secondary"},
		{"auto: an authentication failure is no authorization error: every source fails", SourceAuto, wrap(mongo.CommandError{Code: 18, Name: "AuthenticationFailed"}), false, errors.New("auth"),
			[]LagSource{SourceReplSetGetStatus, SourceHeartbeat, SourceHello}, SourceReplSetGetStatus, "sPbh", true, "auto: replsetgetstatus", ""},
		{"replsetgetstatus asked for: Unauthorized fails", SourceReplSetGetStatus, denied, false, nil,
			[]LagSource{SourceReplSetGetStatus}, SourceReplSetGetStatus, "s", true, "asked for", ""},
		{"hello asked for: nothing else is sent", SourceHello, denied, false, nil,
			[]LagSource{SourceHello}, SourceHello, "h", false, "asked for", ""},
		{"heartbeat asked for: written, settled, read", SourceHeartbeat, denied, false, nil,
			[]LagSource{SourceHeartbeat}, SourceHeartbeat, "Pb", false, "asked for", ""},
		{"heartbeat asked for: a refused write fails", SourceHeartbeat, nil, false, writeDenied,
			[]LagSource{SourceHeartbeat}, SourceHeartbeat, "P", true, "asked for", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked strings.Builder
			status := func(context.Context) LagSample {
				asked.WriteString("s")
				return LagSample{At: time.Now(), Source: SourceReplSetGetStatus, Err: tt.statusErr, Known: tt.statusErr == nil && !tt.statusUnknown}
			}
			// The heartbeat fails when its write did (as without a clock).
			beat := func(context.Context) LagSample {
				asked.WriteString("b")
				return LagSample{At: time.Now(), Source: SourceHeartbeat, Err: tt.probeErr, Known: tt.probeErr == nil}
			}
			hello := func(context.Context) LagSample {
				asked.WriteString("h")
				var err error
				if tt.probeErr != nil && !unauthorized(tt.probeErr) {
					err = errors.New("hello failed too")
				}
				return LagSample{At: time.Now(), Source: SourceHello, Known: err == nil, Err: err}
			}
			probe := func(_ context.Context, settle bool) error {
				asked.WriteString(map[bool]string{false: "p", true: "P"}[settle])
				return tt.probeErr
			}
			usable, first, _, why := startSources(context.Background(), tt.want, ns, 40*ms, status, beat, hello, probe)
			var got []LagSource
			for _, u := range usable {
				got = append(got, u.src)
			}
			if !slices.Equal(got, tt.usable) || first.Source != tt.first || (first.Err != nil) != tt.err || asked.String() != tt.asked {
				t.Fatalf("usable %v, first %+v, asked %q; want %v, first from %v, error %v, asked %q", got, first, asked.String(), tt.usable, tt.first, tt.err, tt.asked)
			}
			if !strings.Contains(why, tt.reason) {
				t.Fatalf("reason %q does not say %q", why, tt.reason)
			}
			if tt.fallback != "" && !strings.Contains(first.Fallback+why, tt.fallback) {
				t.Fatalf("fallback %q, reason %q: want %q", first.Fallback, why, tt.fallback)
			}
		})
	}
}

func TestParseNamespace(t *testing.T) {
	for in, want := range map[string]Namespace{
		"app.decongestant_heartbeat": {"app", "decongestant_heartbeat"},
		"app.a.b":                    {"app", "a.b"},
	} {
		got, err := ParseNamespace(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseNamespace(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "app", ".coll", "app.", "a b.c", "app.system.js", "app.x$y"} {
		if _, err := ParseNamespace(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
